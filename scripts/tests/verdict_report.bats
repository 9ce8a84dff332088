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

# pipeline DIR RAW...: compare, plot and report like the gate does.
pipeline() {
  local dir=$1
  shift
  results_dir "$dir" "$@"
  "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$dir/verdict.json" "$dir/results.json" 2>/dev/null || true
  "$SCRIPTS/plot" "$dir"
  "$SCRIPTS/report" "$dir"
}

@test "report: marker first, verdict in the first visible line, aggregates, reproduction command" {
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  AFPBENCH_TESTS=1-12 AFPBENCH_ITERATIONS=5 AFPBENCH_BASELINE=baselines/default.json \
    pipeline "$T/run" "$T/w5.json" "$FIXTURES/speedtest-a.json"
  local report="$T/run/report.md"
  [ "$(sed -n 1p "$report")" = '<!-- afpbench-action:report -->' ]
  sed -n 2p "$report" | grep -q '^### ❌ afpbench: \*\*fail\*\*'
  grep -q '^| afpd writes per AFP op (syscalls/op) |.*| ❌ fail |$' "$report"
  grep -qF "docker compose up --build --abort-on-container-exit --exit-code-from client" "$report"
  grep -qF "AFPBENCH_TESTS='1-12' AFPBENCH_ITERATIONS='5' AFPBENCH_BASELINE='/baselines/default.json'" "$report"
  # regressions first: the failing aggregate row comes before the passing ones
  [ "$(grep -n 'afpd writes per AFP op' "$report" | head -1 | cut -d: -f1)" -lt \
    "$(grep -n 'afpd reads per AFP op' "$report" | head -1 | cut -d: -f1)" ]
  grep -q '<summary>speedtest' "$report"
  grep -q '<summary>Environment' "$report"
}

@test "report: names from results files are escaped for Markdown" {
  jq '.tests[0].name = "evil | <script>alert(1)</script> [x](http://e) `code`"' "$T/a-quiet.json" >"$T/evil.json"
  pipeline "$T/run" "$T/evil.json"
  local report="$T/run/report.md"
  # a bare "! cmd" never fails a bats test; run ! does
  run ! grep -q '<script>' "$report"
  # shellcheck disable=SC2016  # the backticks are the escaped name's, literally
  grep -qF 'evil \| &lt;script&gt;alert\(1\)&lt;/script&gt; \[x\]\(http://e\) \`code\`' "$report"
}

@test "report stays under 60,000 characters with 100 tests; the verdict is never cut" {
  # 100 lantest entries made from the real 12 (keys renumbered, names suffixed)
  jq '.tests = [range(0; 100) as $i | .tests[$i % 12] | .key = "lantest.\($i + 1)" | .id = ($i + 1)
                | .name = "\(.name) #\($i + 1)"] | .config.tests = [range(1; 101)]' \
    "$T/a-quiet.json" >"$T/t100.json"
  transform "$T/t100.json" "$T/t100-slow.json" "$SLOWER_30PCT"
  two_session_baseline "$T/baseline.json" "$T/t100.json"
  pipeline "$T/run" "$T/t100-slow.json"
  local chars
  chars=$(wc -m <"$T/run/report.md")
  [ "$chars" -lt 60000 ]
  [ "$(jq '.rows | length' "$T/run/verdict.json")" -gt 500 ]
  sed -n 2p "$T/run/report.md" | grep -q 'afpbench: \*\*fail\*\*'
  grep -q 'more rows cut to keep this comment short' "$T/run/report.md"
  grep -qF 'docker compose up --build' "$T/run/report.md"
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
  grep -q 'lantest time ratio' "$T/run/charts/ratios.txt"
  # the text charts sit in the report
  grep -q 'afpd syscalls per AFP op' "$T/run/report.md"
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
  printf '1\t1.0\t0\n' >"$T/r.tsv"
  run gnuplot -c "$SCRIPTS/gnuplot/ratios.gp" "$T/r.tsv" "$T/r.out" jpeg 10
  [ "$status" -ne 0 ]
  [[ $output == *"unknown format 'jpeg'"* ]]
}
