#!/usr/bin/env bats
# The client's own CPU per AFP op (client_cpu of each run block) in the
# verdict and the report: both sides in the Environment table, and a warning
# note (never a state change) when it is more than 25 % of the time per AFP
# op that was measured. On the REAL fixtures (fixtures/README.md); the one
# variant is a jq transform named for what it changes. No server needed.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
}

# fixture_cpu FIXTURE: afpbench's own us_per_op in a raw fixture.
fixture_cpu() { jq '.client_cpu.us_per_op' "$1"; }

@test "real runs: both sides' client CPU per AFP op in verdict.json and the Environment table; lantest's ~11 % gives no warning" {
  results_dir "$T/a" "$FIXTURES/lantest-a.json"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/a" 2>/dev/null
  results_dir "$T/b" "$FIXTURES/lantest-b.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/b/verdict.json" "$T/b/results.json"
  [ "$status" -ne 3 ]
  local v="$T/b/verdict.json"
  [ "$(jq '.baseline.client_cpu.lantest.us_per_op' "$v")" = "$(fixture_cpu "$FIXTURES/lantest-a.json")" ]
  [ "$(jq '.current.client_cpu.lantest.us_per_op' "$v")" = "$(fixture_cpu "$FIXTURES/lantest-b.json")" ]
  # the share is client CPU over the measured time per AFP op: sum of the
  # samples' us over the sum of their AFP ops
  local measured
  measured=$(jq '[.tests[] | .afp_ops as $o | .samples[] | {us, ops: (.afp_ops // $o)}]
                 | (map(.us) | add) / (map(.ops) | add)' "$FIXTURES/lantest-b.json")
  jq -e --argjson m "$measured" '.current.client_cpu.lantest
        | (.measured_us_per_op - $m | fabs) < 0.01
          and (.share_pct - .us_per_op / $m * 100 | fabs) <= 0.05
          and .share_pct < 25 and .limiting == false' "$v"
  jq -e '.notes | all(startswith("warning:") | not)' "$v"
  "$SCRIPTS/report" "$T/b" 2>/dev/null
  grep -E '^\| client CPU per AFP op \| lantest 15 µs \(11\.2 % of .* µs\) \| lantest 14\.8 µs \(.* % of .* µs\) \|$' \
    "$T/b/report.md"
}

@test "a baseline carries the client's CPU, pooled over its runs" {
  results_dir "$T/a" "$FIXTURES/lantest-a.json"
  results_dir "$T/b" "$FIXTURES/lantest-b.json"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/a" "$T/b" 2>/dev/null
  # every run block keeps its own, and the provenance pools them
  [ "$(jq -c '[.runs[].client_cpu]' "$T/bl.json")" = \
    "$(jq -s -c 'map(.client_cpu)' "$FIXTURES/lantest-a.json" "$FIXTURES/lantest-b.json")" ]
  jq -e --slurpfile a "$FIXTURES/lantest-a.json" --slurpfile b "$FIXTURES/lantest-b.json" '
    .provenance.client_cpu.lantest as $p
    | $p.user_us == $a[0].client_cpu.user_us + $b[0].client_cpu.user_us
      and $p.sys_us == $a[0].client_cpu.sys_us + $b[0].client_cpu.sys_us
      and $p.afp_ops == $a[0].client_cpu.afp_ops + $b[0].client_cpu.afp_ops
      and ($p.us_per_op - ($p.user_us + $p.sys_us) / $p.afp_ops | fabs) < 0.001' "$T/bl.json"
  # the committed baseline (made before provenance recorded it) still shows it, from its runs
  results_dir "$T/c" "$FIXTURES/lantest-a.json"
  "$SCRIPTS/compare" --baseline "$VERDICT_ROOT/baselines/default.json" --out "$T/c/verdict.json" \
    "$T/c/results.json" 2>/dev/null || true
  jq -e '.baseline.client_cpu.lantest.us_per_op > 0' "$T/c/verdict.json"
}

@test "client CPU 3x (jq transform of the real lantest run): a warning in notes and the report, the verdict unchanged" {
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  results_dir "$T/base" "$T/a-quiet.json"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/base" 2>/dev/null
  results_dir "$T/plain" "$T/a-quiet.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/plain/verdict.json" "$T/plain/results.json"
  [ "$status" -eq 0 ]
  transform "$T/a-quiet.json" "$T/cpu3x.json" "$CLIENT_CPU_3X"
  results_dir "$T/run" "$T/cpu3x.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/run/verdict.json" "$T/run/results.json"
  # not a state change: same status, same rows as without the transform
  [ "$status" -eq 0 ]
  [ "$(jq -r .status "$T/run/verdict.json")" = pass ]
  diff <(jq -c '.rows, .counts, .decided_by' "$T/plain/verdict.json") <(jq -c '.rows, .counts, .decided_by' "$T/run/verdict.json")
  # the warning names the suite and the side; the baseline was not affected
  jq -e '.current.client_cpu.lantest | .share_pct > 25 and .limiting' "$T/run/verdict.json"
  jq -e '[.notes[] | select(startswith("warning: the client may be limiting what is measured"))]
         | length == 1 and (.[0] | contains("in lantest (current)"))' "$T/run/verdict.json"
  "$SCRIPTS/report" "$T/run" 2>/dev/null
  sed -n 2p "$T/run/report.md" | grep -q 'afpbench: \*\*pass\*\*'
  # visible: outside the <details> blocks, before the first of them
  local warn_line details_line
  warn_line=$(grep -n '^> ⚠️ \*\*Warning:\*\* the client may be limiting what is measured' "$T/run/report.md" | cut -d: -f1)
  details_line=$(grep -n '<details>' "$T/run/report.md" | head -1 | cut -d: -f1)
  [ -n "$warn_line" ] && [ "$warn_line" -lt "$details_line" ]
  grep -qE '^\| client CPU per AFP op \| .*\| lantest [0-9.]+ µs \([0-9.]+ % of [0-9.]+ µs\) ⚠️ \|$' "$T/run/report.md"
}

@test "the real speedtest run: client CPU above 25 % of its time per AFP op is warned about" {
  # measured on the shared 2-core VM: 270 µs of client CPU per 1 MiB op, 29 %
  # of the ~931 µs per op (fixtures/README.md); a refresh may move it
  jq -e '.client_cpu.us_per_op > 0' "$FIXTURES/speedtest-a.json"
  results_dir "$T/run" "$FIXTURES/speedtest-a.json"
  run "$SCRIPTS/compare" --out "$T/run/verdict.json" "$T/run/results.json"
  [ "$status" -eq 0 ]
  jq -e '.current.client_cpu.speedtest | .share_pct > 25 and .limiting' "$T/run/verdict.json"
  jq -e '.notes | any(startswith("warning: the client may be limiting what is measured") and contains("in speedtest (current)"))' \
    "$T/run/verdict.json"
}

@test "baseline warnings only for suites this run measured; a missing client_cpu is no error" {
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  results_dir "$T/base" "$T/a-quiet.json" "$FIXTURES/speedtest-a.json"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/base" 2>/dev/null
  # lantest only now: the baseline's speedtest share is not this run's concern
  jq '.client_cpu = null' "$T/a-quiet.json" >"$T/no-cpu.json"
  results_dir "$T/run" "$T/no-cpu.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/run/verdict.json" "$T/run/results.json"
  [ "$status" -eq 0 ]
  jq -e '.baseline.client_cpu.speedtest.limiting' "$T/run/verdict.json"
  jq -e '.notes | all(startswith("warning:") | not)' "$T/run/verdict.json"
  # afpbench wrote "client_cpu": null: nothing to show, nothing to warn about
  jq -e '.current.client_cpu == {} and .current.provenance.client_cpu == {}' "$T/run/verdict.json"
  "$SCRIPTS/report" "$T/run" 2>/dev/null
  grep -qE '^\| client CPU per AFP op \| lantest [0-9.]+ µs .*\| – \|$' "$T/run/report.md"
}
