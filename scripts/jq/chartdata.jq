# Tab-separated data for the gnuplot charts, from verdict.json.
#   jq -r -f chartdata.jq --arg chart ratios|io|speed verdict.json
# ratios: label, change %, whisker low %, whisker high %, state code (0 pass,
#   1 fail, 2 inconclusive, 3 improved, 4 other) for each lantest test's time
#   and the aggregate time per AFP op (last). The label is the test's name; the
#   whisker is the A/B interval, else the change ± the noise.
# io:     test name, afpd reads/op baseline, current, afpd writes/op baseline, current
# load:   sessions, requests/s baseline, current, p99 ms baseline, current (the
#         rows' medians over the window's seconds); "NaN" where a side is missing.
# speed:  one block per op (separated by two blank lines, gnuplot "index"):
#         size MiB, baseline MB/s, current MB/s; "NaN" where a side is missing.
def code: {"pass": 0, "fail": 1, "inconclusive": 2, "improved": 3}[.] // 4;
def nan: if . == null then "NaN" else tostring end;
# A test's name for an axis: no "[N AFP ops]" suffix, at most 34 characters.
def axis_name: (.name // .test) | tostring | sub(" *\\[[^\\]]*\\]$"; "") | gsub("[\t\r\n]"; " ")
  | if length > 34 then .[0:33] + "…" else . end;
def per_op($ops): if . == null or $ops == null or $ops == 0 then null else . / $ops end;

.rows as $rows
| if $chart == "ratios" then
    (([$rows[] | select(.ratio != null and .group == "lantest" and (.metric | endswith(".time")))]
      + [$rows[] | select(.ratio != null and .metric == "aggregate.time_per_op")])[]
     | ((.ratio - 1) * 100) as $chg
     | (if .interval != null then .interval else [$chg - (.noise // 0), $chg + (.noise // 0)] end) as $w
     | [(if .group == "aggregate" then "All tests, per AFP op"
         else axis_name end),
        ($chg * 100 | round / 100), ($w[0] * 100 | round / 100), ($w[1] * 100 | round / 100), (.state | code)]
     | map(tostring) | join("\t"))
  elif $chart == "io" then
    # afpd's reads and writes per test; counted by descriptor kind, each the
    # sum of its kinds' rows (a kind's row exists only where it moved off 0)
    ([$rows[] | select(.group == "lantest" and (.metric | test("\\.afpd_([a-z]+_)?[rw]$")))] | group_by(.test)
     | sort_by(.[0].test | ltrimstr("lantest.") | tonumber? // 0)[]
     | def v($dir; $side):
         [.[] | select(.metric | test("\\.afpd_([a-z]+_)?\($dir)$"))
          | . as $r | $r[$side] | per_op($r.afp_ops[$side])] as $x
         | if ($x | length) == 0 then 0 elif any($x[]; . == null) then null else $x | add end | nan;
       [(.[0] | axis_name), v("r"; "baseline"), v("r"; "current"), v("w"; "baseline"), v("w"; "current")]
     | join("\t"))
  elif $chart == "speed" then
    [$rows[] | select(.group == "speedtest" and (.metric | endswith(".mbps")))
     | (.test | split(".")) as $p | {op: $p[1], size: ($p[2] | tonumber), b: .baseline, c: .current}]
    | group_by(.op)
    | map("# \(.[0].op)\n" + (sort_by(.size) | map("\(.size / 1048576)\t\(.b | nan)\t\(.c | nan)") | join("\n")))
    | join("\n\n\n")
  elif $chart == "load" then
    [$rows[] | select(.group == "load" and (.metric | test("\\.(requests_per_s|p99)$")))
     | (.metric | split(".")) as $p | {n: ($p[1] | tonumber), what: $p[2], b: .baseline, c: .current}]
    | group_by(.n)
    | map((map({key: .what, value: .}) | from_entries) as $m
          | "\(.[0].n)\t\($m.requests_per_s.b | nan)\t\($m.requests_per_s.c | nan)\t\($m.p99.b | nan)\t\($m.p99.c | nan)")
    | join("\n")
  else error("unknown chart \($chart)") end
