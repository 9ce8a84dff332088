#!/usr/bin/env bats
# scripts/gate's configuration checks: each bad setting stops the gate before
# it measures, with a message naming the setting, exit 3, and an error
# verdict.json and report.md in the results directory. No server needed.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  export AFPBENCH_RESULTS="$T/results" AFP_HOST=127.0.0.1 AFP_PORT=9 AFPBENCH_BIN=/bin/false
  unset AFPBENCH_TESTS AFPBENCH_SPEEDTEST AFPBENCH_ITERATIONS AFPBENCH_BASELINE AFPBENCH_THRESHOLDS
}

# gate_fails_with TEXT: the gate exited 3, said TEXT, and left an error verdict.
gate_fails_with() {
  run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"$1"* ]]
  [ "$(jq -r .status "$AFPBENCH_RESULTS/verdict.json")" = error ]
  jq -e --arg t "$1" '.errors | any(contains($t))' "$AFPBENCH_RESULTS/verdict.json"
  sed -n 2p "$AFPBENCH_RESULTS/report.md" | grep -q 'afpbench: \*\*error\*\*'
  # nothing was measured
  [ ! -e "$AFPBENCH_RESULTS/lantest.json" ]
}

@test "a bad lantest selection is refused" {
  AFPBENCH_TESTS=1-13 gate_fails_with "AFPBENCH_TESTS='1-13': '1-13' is not within the lantest tests 1-12"
  AFPBENCH_TESTS=abc gate_fails_with "AFPBENCH_TESTS='abc' is not a test list"
}

@test "an unknown speedtest operation or bad sizes are refused" {
  AFPBENCH_SPEEDTEST=Read,Fly:1 gate_fails_with "unknown operation 'Fly'"
  AFPBENCH_SPEEDTEST=Read:1,big gate_fails_with "sizes must be MiB numbers"
}

@test "iterations out of range are refused" {
  AFPBENCH_ITERATIONS=0 gate_fails_with "AFPBENCH_ITERATIONS='0' must be a whole number from 1 to 255"
  AFPBENCH_ITERATIONS=five gate_fails_with "AFPBENCH_ITERATIONS='five'"
}

@test "a missing baseline is refused before measuring" {
  AFPBENCH_BASELINE="$T/none.json" gate_fails_with "AFPBENCH_BASELINE=$T/none.json: no such file"
}

@test "a baseline of another schema version is refused before measuring" {
  echo '{"schema": "afpbench-baseline/7", "tests": []}' >"$T/v7.json"
  AFPBENCH_BASELINE="$T/v7.json" gate_fails_with 'baseline schema "afpbench-baseline/7" is not supported'
}

@test "bad thresholds and nothing to run are refused" {
  AFPBENCH_TIME_THRESHOLD=lots gate_fails_with "AFPBENCH_TIME_THRESHOLD='lots' is not a percentage"
  AFPBENCH_TESTS=none gate_fails_with "nothing to run"
}

@test "results of an earlier run in the directory are not mixed into this one" {
  mkdir -p "$AFPBENCH_RESULTS"
  echo stale >"$AFPBENCH_RESULTS/lantest.json"
  echo keep >"$AFPBENCH_RESULTS/notes.txt"
  AFPBENCH_TESTS=x run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [ ! -e "$AFPBENCH_RESULTS/lantest.json" ]
  [ "$(cat "$AFPBENCH_RESULTS/notes.txt")" = keep ]
}
