#!/usr/bin/env bats
# The gate with AFPBENCH_LOAD against a REAL netatalk server (scripts/local-server,
# port 10911, CNID 14911): load rows measured, a baseline made from a run, the
# next run judged against it (rows compared, not "new"), an error rise failing
# the verdict, A/B loading both servers in turn, and bad settings refused.
# Few seconds per step. Needs root.

bats_require_minimum_version 1.5.0

readonly PORT=10911

setup_file() {
  local root env
  root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  make -C "$root/src/afpbench" -s >&2
  env=$("$root/scripts/local-server" start --port "$PORT")
  eval "$env"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export AFPBENCH_BIN="$root/src/afpbench/afpbench"
  export RUNS="$BATS_FILE_TMPDIR"
  # the measure-only run the tests below start from
  AFPBENCH_TESTS=none AFPBENCH_LOAD=1,4:2 AFPBENCH_RESULTS="$RUNS/first" \
    "$root/scripts/gate" >"$RUNS/first.log" 2>&1
  echo $? >"$RUNS/first.rc"
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$PORT" || true
}

setup() { load fixtures/verdict-helpers; }

row() { jq -r --arg m "$2" ".rows[] | select(.metric == \$m) | $3" "$1"; }

@test "AFPBENCH_LOAD alone: load.json, load rows (new), the load chart, a report that shows them" {
  tail -n 5 "$RUNS/first.log"
  [ "$(cat "$RUNS/first.rc")" -eq 0 ]
  local d="$RUNS/first"
  [ -s "$d/load.json" ] && [ -s "$d/load.csv" ]
  jq -e '.load.steps | length == 2' "$d/results.json"
  # 9 rows a session count, afpd's peak memory per session among them
  jq -e '[.rows[] | select(.group == "load") | .metric] | length == 18 and index("load.4.afpd_hwm_kb")' "$d/verdict.json"
  jq -e 'all(.rows[]; .state == "new")' "$d/verdict.json"
  [ -s "$d/charts/load.png" ] && [ -s "$d/charts/load.txt" ]
  grep -q ': throughput (req/s) |' "$d/report-full.md"
  grep -q 'closed loop' "$d/report.md"
}

@test "the next run is judged against a baseline made from the first: load rows compared, never failed on timings" {
  run "$SCRIPTS/baseline" "$RUNS/base.json" "$RUNS/first"
  [ "$status" -eq 0 ]
  jq -e '.load_runs | length == 1' "$RUNS/base.json"
  AFPBENCH_TESTS=none AFPBENCH_LOAD=1,4:2 AFPBENCH_BASELINE="$RUNS/base.json" \
    AFPBENCH_RESULTS="$RUNS/second" run "$SCRIPTS/gate"
  echo "$output" | tail -n 3
  # a one-session baseline cannot fail a timing: pass or inconclusive
  [ "$status" -eq 0 ] || [ "$status" -eq 2 ]
  local v="$RUNS/second/verdict.json"
  jq -e '[.rows[] | select(.group == "load")] | length == 18 and all(.[]; .state != "new" and .baseline != null)' "$v"
  [ "$(row "$v" load.4.errors .state)" = pass ]
  # the same server: each session's afpd peaks as high as before
  [ "$(row "$v" load.4.afpd_hwm_kb .state)" = pass ]
  [ "$(row "$v" load.4.requests_per_s .n_baseline)" -ge 2 ]
  # the chart has both sides
  awk -F'\t' 'NR == 2 && $2 != "NaN" && $3 != "NaN" { ok = 1 } END { exit !ok }' "$RUNS/second/charts/load.tsv"
}

@test "errors that rise over the baseline fail; a session count the run lost is an error row" {
  local d="$BATS_TEST_TMPDIR/worse"
  mkdir -p "$d"
  jq '.load.steps[1].errors.total = 1 | .load.steps[1].errors.dropped = 1' \
    "$RUNS/first/results.json" >"$d/results.json"
  run "$SCRIPTS/compare" --baseline "$RUNS/base.json" --out "$d/verdict.json" "$d/results.json"
  [ "$status" -eq 1 ]
  [ "$(row "$d/verdict.json" load.4.errors .state)" = fail ]
  [[ $(row "$d/verdict.json" load.4.errors .reason) == "errors rose from 0 to 1"* ]]
  jq -e '.notes | any(test("load: 1 errors at 4 sessions \\(1 dropped\\)"))' "$d/verdict.json"
  jq 'del(.load.steps[1])' "$RUNS/first/results.json" >"$d/fewer.json"
  run "$SCRIPTS/compare" --baseline "$RUNS/base.json" --out "$d/v2.json" "$d/fewer.json"
  [ "$status" -eq 3 ]
  [ "$(row "$d/v2.json" load.4.requests_per_s .state)" = error ]
}

@test "A/B: both servers loaded in turn, the base's load kept, throughput judged from pairs" {
  BASE_AFP_HOST=$AFP_HOST BASE_AFP_PORT=$AFP_PORT AFPBENCH_TESTS=none AFPBENCH_LOAD=2:2 \
    AFPBENCH_RESULTS="$RUNS/ab" run "$SCRIPTS/gate"
  echo "$output" | tail -n 3
  [ "$status" -eq 0 ] || [ "$status" -eq 2 ]
  jq -e '.load.steps[0].sessions == 2 and .base.load.steps[0].sessions == 2' "$RUNS/ab/results.json"
  local v="$RUNS/ab/verdict.json"
  jq -e '.mode == "ab"' "$v"
  [ "$(row "$v" load.2.requests_per_s .pairs)" -ge 1 ]
  [ -z "$(jq -r '.rows[] | select(.state == "fail" or .state == "error") | .metric' "$v")" ]
}

@test "bad AFPBENCH_LOAD settings stop the gate before it measures" {
  AFPBENCH_TESTS=none AFPBENCH_LOAD=0 AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/r" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"session count '0' is not within 1-1024"* ]]
  AFPBENCH_TESTS=none AFPBENCH_LOAD=1,8:x AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/r" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  AFPBENCH_TESTS=none AFPBENCH_LOAD=1 AFPBENCH_LOAD_COLD=maybe AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/r" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"AFPBENCH_LOAD_COLD='maybe' must be yes or no"* ]]
  AFPBENCH_TESTS=none AFPBENCH_LOAD=4,1 AFPBENCH_LOAD_WRITERS=1 AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/r" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"AFPBENCH_LOAD_WRITERS=1 leaves no session to read at 1 sessions"* ]]
  AFPBENCH_TESTS=none AFPBENCH_LOAD=4 AFPBENCH_LOAD_WRITERS=0 AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/r" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"AFPBENCH_LOAD_WRITERS='0' is not a whole number above 0"* ]]
  [ ! -e "$BATS_TEST_TMPDIR/r/verdict.json" ]
}

@test "AFPBENCH_LOAD_WRITERS: the coherence step, a writer touching what the readers cached, through the gate" {
  AFPBENCH_TESTS=none AFPBENCH_LOAD=3:1 AFPBENCH_LOAD_MIX=stat:8,enumerate AFPBENCH_LOAD_WRITERS=1 \
    AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/r" run "$SCRIPTS/gate"
  echo "$output" | tail -n 5
  [ "$status" -eq 0 ]
  jq -e '.load.config.writers == 1 and .load.steps[0].errors.total == 0
         and .load.steps[0].ops.touch.requests == .load.steps[0].sessions_detail[0].requests' \
    "$BATS_TEST_TMPDIR/r/load.json"
  jq -e '.settings.AFPBENCH_LOAD_WRITERS == "1"' "$BATS_TEST_TMPDIR/r/plan.json"
}
