#!/usr/bin/env bats
# report.md and the gnuplot charts, from verdicts on REAL fixtures
# (fixtures/README.md). No server needed.

# "run !" (a command that must fail) needs bats 1.5
bats_require_minimum_version 1.5.0

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  results_dir "$T/base" "$T/a-quiet.json" "$FIXTURES/speedtest-a.json"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base" 2>/dev/null
}

# pipeline DIR RAW...: compare, plot and report like the gate does, the
# settings (plan.json) from the environment, as the gate keeps them.
pipeline() {
  local dir=$1
  shift
  results_dir "$dir" "$@"
  "$SCRIPTS/gate" --check >"$dir/plan.json"
  "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$dir/verdict.json" "$dir/results.json" 2>/dev/null || true
  "$SCRIPTS/plot" "$dir"
  "$SCRIPTS/report" "$dir"
}

@test "report: marker first, the verdict and its reason in words, aggregates with a why, reproduction commands" {
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  AFPBENCH_TESTS=1-12 AFPBENCH_ITERATIONS=5 AFPBENCH_BASELINE=baselines/default.json \
    pipeline "$T/run" "$T/w5.json" "$FIXTURES/speedtest-a.json"
  local report="$T/run/report.md"
  [ "$(sed -n 1p "$report")" = '<!-- afpbench-action:report -->' ]
  # the headline names a test and the quantity, not a metric id
  sed -n 2p "$report" | grep -q '^### ❌ afpbench: \*\*fail\*\* — [A-Z][a-z].*: afpd writes +[56].% (limit 2 %); [0-9]* more fail$'
  run ! grep -q 'lantest\.[0-9]*\.afpd_w' <(sed -n 2p "$report")
  grep -q "^| afpd writes | 1.06 | 1.11 | ❌.+5.% | 2 % | beyond limit and spread |" "$report"
  # timings against a stored baseline: shown, and said once where the limits are
  grep -q '^| time (µs) | .* | ℹ️.* | – | shown, not gated |$' "$report"
  grep -q '; timings shown, not gated (A/B gates them)\.$' "$report"
  # with Docker and without, the run's own plan: its server, settings and baseline
  grep -qxF "scripts/run-gate --compose --plan plan.json" "$report"
  grep -qxF "scripts/run-gate --native --plan plan.json" "$report"
  grep -qF "It serves netatalk (the image's default, Debian trixie's)." "$report"
  grep -qF "settings and baseline to compare with)" "$report"
  # regressions first: the failing aggregate row comes before the passing ones
  [ "$(grep -n '^| afpd writes |' "$report" | head -1 | cut -d: -f1)" -lt \
    "$(grep -n '^| afpd reads |' "$report" | head -1 | cut -d: -f1)" ]
  # compact: at most 7 columns, no unchanged pass among the findings, the
  # charts' place before the folded part, every row only in report-full.md
  [ "$(grep '^|' "$report" | awk -F'|' '{ print NF - 2 }' | sort -n | tail -1)" -le 7 ]
  run ! grep -q '| ✅.±0.% | .* | unchanged |$' <(sed -n '/^\*\*Findings/,/^$/p' "$report")
  [ "$(grep -n '^<!-- afpbench-action:charts\( folded\)\? -->$' "$report" | cut -d: -f1)" -lt \
    "$(grep -n '<details><summary>Environment' "$report" | cut -d: -f1)" ]
  grep -q '<summary>Environment' "$report"
  [ "$(grep -c '^| Open, stat and read 512 bytes from 1000 files: ' "$T/run/report-full.md")" -ge 5 ]
  [ "$(wc -m <"$report")" -le 20000 ]
}

@test "report: an all-unchanged pass is short; another CPU's timings are one reason, said once" {
  pipeline "$T/same" "$T/a-quiet.json"
  [ "$(jq -r .status "$T/same/verdict.json")" = pass ]
  [ "$(wc -m <"$T/same/report.md")" -le 3000 ]
  sed -n 2p "$T/same/report.md" | grep -q '^### ✅ afpbench: \*\*pass\*\* — \([0-9]*\) of \1 deterministic rows within limits; timings shown, not gated$'
  run ! grep -q '^\*\*Findings' "$T/same/report.md"

  jq '.environment.cpu_model = "Another CPU 9000"' "$T/a-quiet.json" >"$T/other-cpu.json"
  # timings shown: another CPU changes nothing that decides
  pipeline "$T/other" "$T/other-cpu.json"
  [ "$(jq -r .status "$T/other/verdict.json")" = pass ]
  # where timings gate against a stored baseline, another CPU sets them aside
  AFPBENCH_BASELINE_TIMINGS=gate pipeline "$T/other" "$T/other-cpu.json"
  local report="$T/other/report.md"
  [ "$(jq -r .status "$T/other/verdict.json")" = inconclusive ]
  sed -n 2p "$report" | grep -q '^### ⚠️ afpbench: \*\*inconclusive\*\* — timings not compared (baseline from another machine); \([0-9]*\) of \1 deterministic rows within limits$'
  # the reason in full once, right under the headline; the rows point at it
  [ "$(grep -c 'Another CPU 9000' "$report")" -eq 2 ]
  grep -n 'Timings not compared:.*Another CPU 9000' "$report" | grep -q '^4:'
  # (a table whose rows all share it says so once, above it)
  [ "$(grep -c '| not compared (see above) |$' "$report")" -ge 1 ]
  grep -q '^Every row: not compared (see above)\.$' "$report"
}

@test "report: a first run without its baseline file says how to make it" {
  results_dir "$T/first" "$T/a-quiet.json"
  "$SCRIPTS/compare" --out "$T/first/verdict.json" "$T/first/results.json" 2>/dev/null
  report_with "$T/first" AFPBENCH_BASELINE_MISSING=.github/afpbench/baseline.json
  local report="$T/first/report.md"
  sed -n 2p "$report" | grep -q '^### ✅ afpbench: \*\*pass\*\* — measured [0-9]* metrics; nothing compared (no baseline)$'
  # shellcheck disable=SC2016  # the backticks are the report's, literally
  grep -q '^\*\*No baseline yet:\*\* `.github/afpbench/baseline.json` does not exist' "$report"
  # the advice runs in the reader's repository: the action's baseline mode
  grep -qxF -- '- uses: afpbench/afpbench-action@v1' "$report"
  grep -qxF '    mode: baseline' "$report"
  grep -qxF '    baseline: ".github/afpbench/baseline.json"' "$report"
  run ! grep -q 'scripts/run-gate' <(sed -n '/No baseline yet/,/^```$/p' "$report")
  [ "$(wc -m <"$report")" -le 3000 ]
  # without the setting, no how-to
  report_with "$T/first"
  run ! grep -q 'No baseline yet' "$report"
}

@test "report: the baseline is named as the workflow names it, never cut to its last parts" {
  pipeline "$T/run" "$T/a-quiet.json"
  # the path as given, whole (the backquotes are Markdown's, not the shell's)
  local deep=$T/home/runner/work/repo/repo/.github/afpbench
  mkdir -p "$deep"
  cp "$T/baseline.json" "$deep/baseline.json"
  report_with "$T/run" AFPBENCH_BASELINE="$deep/baseline.json"
  # shellcheck disable=SC2016
  grep -qF "Against baseline \`$deep/baseline.json\` (" "$T/run/report.md"
  # the action gives the path in the repository (the gate may read a copy)
  report_with "$T/run" AFPBENCH_BASELINE="$deep/baseline.json" \
    AFPBENCH_BASELINE_NAME=.github/afpbench/baseline.json
  # shellcheck disable=SC2016
  grep -q '^Against baseline `.github/afpbench/baseline.json` (' "$T/run/report.md"
  run ! grep -q 'AFPBENCH_BASELINE_NAME' "$T/run/report.md"
}

@test "report: names from results files are escaped for Markdown" {
  jq '.tests[0].name = "evil | <script>alert(1)</script> [x](http://e) `code`"' "$T/a-quiet.json" >"$T/evil.json"
  pipeline "$T/run" "$T/evil.json"
  local report="$T/run/report.md"
  # a bare "! cmd" never fails a bats test; run ! does
  run ! grep -q '<script>' "$report" "$T/run/report-full.md"
  # shellcheck disable=SC2016  # the backticks are the escaped name's, literally
  grep -qF 'evil \| &lt;script&gt;alert(1)&lt;/script&gt; \[x\](http://e) \`code\`' "$T/run/report-full.md"
}

@test "report stays under 60,000 characters with 100 tests; the verdict is never cut" {
  # 100 lantest entries made from the real 12 (keys renumbered, names suffixed)
  jq '.tests = [range(0; 100) as $i | .tests[$i % 12] | .key = "lantest.\($i + 1)" | .id = ($i + 1)
                | .name = "\(.name) #\($i + 1)"] | .config.tests = [range(1; 101)]' \
    "$T/a-quiet.json" >"$T/t100.json"
  transform "$T/t100.json" "$T/t100-slow.json" "$SLOWER_30PCT"
  two_session_baseline "$T/baseline.json" "$T/t100.json"
  AFPBENCH_BASELINE_TIMINGS=gate pipeline "$T/run" "$T/t100-slow.json"
  local chars
  chars=$(wc -m <"$T/run/report.md")
  [ "$chars" -lt 60000 ]
  [ "$(jq '.rows | length' "$T/run/verdict.json")" -gt 500 ]
  sed -n 2p "$T/run/report.md" | grep -q 'afpbench: \*\*fail\*\*'
  # the comment shows 5 findings, folds 20 more and says where the rest are
  [ "$(wc -m <"$T/run/report.md")" -le 20000 ]
  grep -qF '<details><summary>20 more findings (and ' "$T/run/report.md"
  grep -qF ' in report-full.md in the results artifact)</summary>' "$T/run/report.md"
  grep -qF 'scripts/run-gate --compose' "$T/run/report.md"
  # the full report is cut, and says so
  [ "$(wc -m <"$T/run/report-full.md")" -lt 60000 ]
  grep -q 'more rows cut to keep this report short' "$T/run/report-full.md"
}

@test "charts: ratios, IO per op and speedtest as PNG, SVG and text" {
  pipeline "$T/run" "$T/a-quiet.json" "$FIXTURES/speedtest-a.json"
  local chart
  for chart in ratios io_per_op speedtest; do
    [ -s "$T/run/charts/$chart.png" ]
    [ -s "$T/run/charts/$chart.svg" ]
    [ -s "$T/run/charts/$chart.txt" ]
    # PNG signature: 89 50 4E 47 0D 0A 1A 0A
    [ "$(head -c 8 "$T/run/charts/$chart.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
    grep -q '<svg' "$T/run/charts/$chart.svg"
    grep -q '</svg>' "$T/run/charts/$chart.svg"
  done
  grep -q 'lantest: time change per test' "$T/run/charts/ratios.txt"
  # named by test, not by number
  grep -q 'Writing one large file' "$T/run/charts/ratios.txt"
  grep -q 'Writing one large file' "$T/run/charts/io_per_op.txt"
  grep -q 'afpd syscalls per AFP op' "$T/run/charts/io_per_op.txt"
  # the report keeps a place for them, where the action puts the images:
  # folded here, as nothing failed and timings were only shown
  grep -qx '<!-- afpbench-action:charts folded -->' "$T/run/report.md"
  # open where a timing could decide and did not pass
  AFPBENCH_BASELINE_TIMINGS=gate pipeline "$T/gated" "$T/a-quiet.json" "$FIXTURES/speedtest-c.json"
  [ "$(jq -r .status "$T/gated/verdict.json")" != pass ]
  grep -qx '<!-- afpbench-action:charts -->' "$T/gated/report.md"
}

@test "charts without a baseline: IO and speedtest drawn, no ratio chart" {
  results_dir "$T/run" "$T/a-quiet.json" "$FIXTURES/speedtest-a.json"
  "$SCRIPTS/compare" --out "$T/run/verdict.json" "$T/run/results.json" 2>/dev/null
  run "$SCRIPTS/plot" "$T/run"
  [ "$status" -eq 0 ]
  [[ $output == *"no ratio chart"* ]]
  [ ! -e "$T/run/charts/ratios.png" ]
  [ -s "$T/run/charts/io_per_op.png" ]
  [ -s "$T/run/charts/speedtest.svg" ]
}

@test "gnuplot scripts check their arguments" {
  run gnuplot -c "$SCRIPTS/gnuplot/ratios.gp" only-one-arg
  [ "$status" -ne 0 ]
  [[ $output == *"usage: gnuplot -c ratios.gp"* ]]
  run gnuplot -c "$SCRIPTS/gnuplot/io_per_op.gp" a b
  [ "$status" -ne 0 ]
  [[ $output == *"usage: gnuplot -c io_per_op.gp"* ]]
  run gnuplot -c "$SCRIPTS/gnuplot/speedtest.gp" a b c
  [ "$status" -ne 0 ]
  printf 'Test one\t1.0\t0.5\t1.5\t0\n' >"$T/r.tsv"
  run gnuplot -c "$SCRIPTS/gnuplot/ratios.gp" "$T/r.tsv" "$T/r.out" jpeg 10
  [ "$status" -ne 0 ]
  [[ $output == *"unknown format 'jpeg'"* ]]
}
