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
    | def change($m; $v): if $v == null or $ref[$m] == null then null
                          elif $ref[$m] == 0 then (if $v == 0 then 0 else null end)
                          else ($v / $ref[$m] - 1) * 10000 | round / 100 end;
    # every run's changes, this run's last
    ([$points[] | .values] + (if ($head | length) > 0 then [$head] else [] end)) as $rows
    | ($metrics | map(. as $m | [$rows[] | change($m; .[$m]) | numbers | fabs] | max // 0)) as $widest
    # One series far beyond the others (a count that went from 3 to 170 per
    # op: +5,632 %) would flatten every other line to 0. The scale then stops
    # at three times the next widest series (at least ±5 %): the far one is
    # cut there and its legend says how far it went.
    | ($widest | sort | reverse) as $w
    | (if ($w | length) > 1 and $w[0] > 10 * ([$w[1], 5] | max) then 3 * ([$w[1], 5] | max) else null end) as $cut
    | def shown($c): if $c == null then "NaN" elif $cut != null and ($c | fabs) > $cut
                     then (if $c > 0 then $cut else - $cut end) | tostring else $c | tostring end;
    def legend($i): ($metrics[$i] | trend_label($t))
                    + (if $cut != null and $widest[$i] > $cut
                       then " (cut at ±\($cut | round) %; up to \($widest[$i] | round) %)" else "" end);
    (["x", "label", "what"] + [range($metrics | length) | legend(.)]) | join("\t"),
    ($points | to_entries[]
     | [(.key + 1 | tostring), (if .value.release != "" then .value.release else .value.commit[0:7] end),
        (if .value.release != "" then "2" else "0" end)]
       + [.value.values as $vals | $metrics[] | shown(change(.; $vals[.]))]
     | join("\t")),
    (if ($head | length) > 0 then
       ([($points | length + 1 | tostring), "this run", "1"] + [$metrics[] | shown(change(.; $head[.]))]) | join("\t")
     else empty end)
  end
