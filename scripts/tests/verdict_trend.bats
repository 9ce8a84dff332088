#!/usr/bin/env bats
# The report's Trend section and the trend chart, from the action's trend.json
# (docs/history.md) and verdicts on REAL fixtures (fixtures/README.md). The
# history in trend.json is made here from the run's own figures, so the
# expected changes are known. No server needed.
# shellcheck disable=SC2016 # backticks: the report's code spans, not commands

bats_require_minimum_version 1.5.0

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  # the report keeps "+10 %" on one line with a no-break space
  NBSP=$'\u00a0'
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  results_dir "$T/base" "$T/a-quiet.json"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base" 2>/dev/null
}

# verdict DIR RAW...: compare like the gate does.
verdict() {
  local dir=$1
  shift
  results_dir "$dir" "$@"
  "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$dir/verdict.json" "$dir/results.json" 2>/dev/null || true
}

# trend VERDICT OUT: 12 runs of main at this run's own figures, the 4th a
# release whose afpd writes per op were 10 % fewer, and one step line.
trend() {
  jq '([.rows[] | select(.group == "aggregate" and .current != null) | {key: .metric, value: .current}] | from_entries) as $v
      | ($v | with_entries(.value = "io")) as $kinds
      | [range(12) as $i | {commit: ("\($i)" * 40)[0:40], date: "2026-11-0\($i % 9 + 1)T00:00:00.000Z",
                             release: (if $i == 3 then "v4.4.0" else "" end), values: $v}] as $points
      | {schema: "afpbench-trend/1", branch: "main", dataBranch: "afpbench-data", key: "",
         points: $points, units: {}, kinds: $kinds,
         release: ($points[3] | .values["aggregate.afpd_w_per_op"] /= 1.1),
         drift: [], chart: ["aggregate.afpd_r_per_op", "aggregate.afpd_w_per_op", "aggregate.time_per_op"],
         compare: ["aggregate.afpd_r_per_op", "aggregate.afpd_w_per_op"],
         labels: {"aggregate.afpd_r_per_op": "afpd reads/op", "aggregate.afpd_w_per_op": "afpd writes/op",
                  "aggregate.time_per_op": "time/op"},
         driftLines: ["**afpd stat calls/op**: +3.0 % at `abcdef0` (2026-11-13)"]}' "$1" >"$2"
}

@test "report: a Trend section with the release line and the steps; the chart folded when nothing moved" {
  verdict "$T/run" "$T/a-quiet.json"
  trend "$T/run/verdict.json" "$T/trend.json"
  report_with "$T/run" AFPBENCH_TREND="$T/trend.json" 2>/dev/null
  local report=$T/run/report.md
  grep -qF '**Trend** of `main`: its last 12 runs, this run marked' "$report"
  grep -qF "Since the last release (v4.4.0): afpd reads/op ±0${NBSP}%, afpd writes/op +10${NBSP}%." "$report"
  grep -qF -e '- **afpd stat calls/op**: +3.0 % at `abcdef0` (2026-11-13)' "$report"
  grep -qx '<!-- afpbench-action:trend folded -->' "$report"
  # the full view (the job summary) has it too
  grep -qF '**Trend** of `main`' "$T/run/report-full.md"
}

@test "report: the Trend section links the history page that trend.json names, and only a plain https address" {
  verdict "$T/run" "$T/a-quiet.json"
  trend "$T/run/verdict.json" "$T/trend.json"
  jq '.page = "https://octo-org.github.io/afp-server/#key=sqlite"' "$T/trend.json" >"$T/page.json"
  report_with "$T/run" AFPBENCH_TREND="$T/page.json" 2>/dev/null
  grep -qxF '**Trend** of `main`: its last 12 runs, this run marked; every run and step on [the history page](https://octo-org.github.io/afp-server/#key=sqlite)' "$T/run/report.md"
  # none without one, and none for an address that could break out of the link
  report_with "$T/run" AFPBENCH_TREND="$T/trend.json" 2>/dev/null
  grep -qxF '**Trend** of `main`: its last 12 runs, this run marked' "$T/run/report.md"
  run ! grep -q 'history page' "$T/run/report.md"
  local bad
  for bad in 'javascript:alert(1)' 'https://x.example/a) [b](https://evil.example' 'http://x.example/'; do
    jq --arg p "$bad" '.page = $p' "$T/trend.json" >"$T/bad-page.json"
    report_with "$T/run" AFPBENCH_TREND="$T/bad-page.json" 2>/dev/null
    run ! grep -q 'history page' "$T/run/report.md"
  done
}

@test "report: the trend chart opens when this run moved a row" {
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  verdict "$T/run" "$T/w5.json"
  jq -e '.status == "fail"' "$T/run/verdict.json" >/dev/null
  trend "$T/run/verdict.json" "$T/trend.json"
  report_with "$T/run" AFPBENCH_TREND="$T/trend.json" 2>/dev/null
  grep -qx '<!-- afpbench-action:trend -->' "$T/run/report.md"
}

@test "report: no history yet is said; no trend.json is no section; a broken one is a warning" {
  verdict "$T/run" "$T/a-quiet.json"
  jq -n '{schema: "afpbench-trend/1", branch: "main", dataBranch: "afpbench-data", key: "", points: [],
          units: {}, kinds: {}, release: null, drift: [], chart: [], compare: [], labels: {}, driftLines: []}' >"$T/empty.json"
  report_with "$T/run" AFPBENCH_TREND="$T/empty.json" 2>/dev/null
  grep -qF '**Trend**: no history of `main` yet; runs there write it to branch `afpbench-data`' "$T/run/report.md"
  report_with "$T/run" 2>/dev/null
  run ! grep -q 'Trend' "$T/run/report.md"
  echo '{"schema": "something else"}' >"$T/bad.json"
  run --separate-stderr report_with "$T/run" AFPBENCH_TREND="$T/bad.json"
  [ "$status" -eq 0 ]
  # shellcheck disable=SC2154 # bats sets it (run --separate-stderr)
  [[ $stderr == *"the plan's trend is not a trend.json (afpbench-trend/1): the report has no trend"* ]]
  run ! grep -q 'Trend' "$T/run/report.md"
}

@test "plot: the trend chart, this run marked last; none without a trend" {
  verdict "$T/run" "$T/a-quiet.json"
  trend "$T/run/verdict.json" "$T/trend.json"
  AFPBENCH_TREND=$T/trend.json "$SCRIPTS/gate" --check >"$T/run/plan.json"
  "$SCRIPTS/plot" "$T/run" 2>/dev/null
  [ -s "$T/run/charts/trend.png" ] && [ -s "$T/run/charts/trend.svg" ] && [ -s "$T/run/charts/trend.txt" ]
  # a header, 12 runs and this run; the release's label; every change 0 %
  [ "$(wc -l <"$T/run/charts/trend.tsv")" -eq 14 ]
  sed -n 1p "$T/run/charts/trend.tsv" | grep -qx $'x\tlabel\twhat\tafpd reads/op\tafpd writes/op\ttime/op'
  sed -n 5p "$T/run/charts/trend.tsv" | grep -q $'^4\tv4.4.0\t2\t'
  tail -n 1 "$T/run/charts/trend.tsv" | grep -qx $'13\tthis run\t1\t0\t0\t0'
  [ ! -s "$T/run/charts/gnuplot.log" ]
  rm -rf "$T/run/charts" "$T/run/plan.json"
  "$SCRIPTS/plot" "$T/run" 2>/dev/null
  [ ! -e "$T/run/charts/trend.png" ]
}

@test "plot: a series far beyond the others is cut at three times the next, its legend saying how far it went" {
  verdict "$T/run" "$T/a-quiet.json"
  trend "$T/run/verdict.json" "$T/trend.json"
  # afpd reads per op 57 times the others' level in the last two runs
  # (+5,600 %), afpd writes 2 % up in the last four
  jq '.points |= [to_entries[] | .key as $k | .value
        | if $k >= 10 then .values["aggregate.afpd_r_per_op"] *= 57 else . end
        | if $k >= 8 then .values["aggregate.afpd_w_per_op"] *= 1.02 else . end]' "$T/trend.json" >"$T/far.json"
  AFPBENCH_TREND=$T/far.json "$SCRIPTS/gate" --check >"$T/run/plan.json"
  "$SCRIPTS/plot" "$T/run" 2>/dev/null
  [ -s "$T/run/charts/trend.png" ]
  local tsv="$T/run/charts/trend.tsv"
  cat "$tsv" >&2
  # cut at 3 x 5 % (the writes moved 2 %, under the ±5 % least scale)
  sed -n 1p "$tsv" | grep -qF $'\tafpd reads/op (cut at ±15 %; up to 5600 %)\tafpd writes/op\t'
  # the reads' last two runs drawn at the cut; the writes as they are
  sed -n 12p "$tsv" | grep -q $'^11\t[0-9a-f]*\t0\t15\t2\t'
  # nothing is cut when no series is far beyond the others
  AFPBENCH_TREND=$T/trend.json "$SCRIPTS/gate" --check >"$T/run/plan.json"
  "$SCRIPTS/plot" "$T/run" 2>/dev/null
  run ! grep -q 'cut at' "$T/run/charts/trend.tsv"
}
