# Join a later A/B lantest run's pairs to this one's (scripts/gate
# settle_pairs): its whole iterations, those in which every test here has a
# sample on both sides (a run stopped at its cap may end inside one), as
# further iterations numbered after the ones here, so that every (test,
# iteration) stays one pair and every iteration covers every test.
#   jq --slurpfile more LATER.json -f add-pairs.jq lantest.json
$more[0] as $m
| if (.base | type) != "object" or ($m.base | type) != "object" then error("add-pairs: both runs must be A/B runs") else . end
| ([.tests[].samples[].iteration, .base.tests[].samples[].iteration] | max // 0) as $off
| [.tests[].key] as $keys
| def its($side; $k): [$side.tests[] | select(.key == $k) | .samples[].iteration];
  ([$m.tests[].samples[].iteration] | max // 0) as $last
  # the later run's iterations that hold every test on both sides, in order
| [range(1; $last + 1) as $i
   | select(all($keys[]; . as $k | (its($m; $k) | index([$i])) and (its($m.base; $k) | index([$i]))))
   | $i] as $whole
| ($whole | to_entries | map({key: (.value | tostring), value: (.key + 1 + $off)}) | from_entries) as $renum
| def join($later):
    .tests |= map(.key as $k
                  | .samples += [$later.tests[] | select(.key == $k) | .samples[]
                                 | select($renum[.iteration | tostring] != null)
                                 | .iteration = $renum[.iteration | tostring]])
    | .config.iterations += ($whole | length);
join($m) | .base |= join($m.base)
