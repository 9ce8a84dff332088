# Tab-separated data for the trend chart: the default branch's last runs
# (trend.json, from the action's history) and this run (verdict.json's
# current figures), each metric as its change from the median of the
# history, in percent.
#   jq -r -f trenddata.jq --slurpfile verdict verdict.json trend.json
# A header line "x, label, what, <metric names>", then one line per run:
# index, short commit or release tag, what it is (0 a run, 1 this run, 2 a
# release), the changes
# ("NaN" where a run did not measure the metric). Empty when there is no
# history to draw.
include "trend";

.points as $points
| ($verdict[0].rows // [] | map(select(.group == "aggregate" and .current != null) | {key: .metric, value: .current}) | from_entries) as $head
| . as $t
| (.chart // [] | map(strings) | .[0:6]) as $metrics
| if ($points | length) == 0 or ($metrics | length) == 0 then empty
  else
    ($metrics | map({key: ., value: ([$points[].values[.] | numbers] | median_of)}) | from_entries) as $ref
    # a count that stays 0 is no change; one that leaves 0 has no percentage
    | def change($m; $v): if $v == null or $ref[$m] == null then "NaN"
                          elif $ref[$m] == 0 then (if $v == 0 then "0" else "NaN" end)
                          else (($v / $ref[$m] - 1) * 10000 | round / 100 | tostring) end;
    (["x", "label", "what"] + ($metrics | map(trend_label($t)))) | join("\t"),
    ($points | to_entries[]
     | [(.key + 1 | tostring), (if .value.release != "" then .value.release else .value.commit[0:7] end),
        (if .value.release != "" then "2" else "0" end)]
       + [.value.values as $vals | $metrics[] | change(.; $vals[.])]
     | join("\t")),
    (if ($head | length) > 0 then
       ([($points | length + 1 | tostring), "this run", "1"] + [$metrics[] | change(.; $head[.])]) | join("\t")
     else empty end)
  end
