# Join a later A/B lantest run's pairs to this one's (scripts/gate
# settle_pairs): the samples of each of its tests, on both sides, as further
# iterations numbered after the ones here, so that every (test, iteration)
# stays one pair.
#   jq --slurpfile more LATER.json -f add-pairs.jq lantest.json
$more[0] as $m
| ([.tests[].samples[].iteration, .base.tests[].samples[].iteration] | max // 0) as $off
| def join($later):
    .tests |= map(.key as $k
                  | .samples += [$later.tests[] | select(.key == $k) | .samples[] | .iteration += $off])
    | .config.iterations += $later.config.iterations;
if (.base | type) != "object" or ($m.base | type) != "object" then error("add-pairs: both runs must be A/B runs")
else join($m) | .base |= join($m.base) end
