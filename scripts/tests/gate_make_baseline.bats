#!/usr/bin/env bats
# scripts/run-gate --make-baseline: one command that makes a baseline on this
# machine (issue 12, "a first run that works"). The option checks run without a
# server; the real run starts scripts/local-server on port 10632 (natively, as
# run-gate does without Docker) and needs root like the other server tests.

bats_require_minimum_version 1.5.0

readonly MB_PORT=10632

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  RUN_GATE=$ROOT/scripts/run-gate
}

@test "--help names --make-baseline, its default path and --sessions" {
  run "$RUN_GATE" --help
  [ "$status" -eq 0 ]
  [[ $output == *"--make-baseline [PATH] [--sessions N]"* ]]
  [[ $output == *".github/afpbench/baseline.json"* ]]
  [[ $output == *"(default 2)"* ]]
}

@test "bad options stop before anything runs, naming the cause" {
  cd "$BATS_TEST_TMPDIR"
  run -3 "$RUN_GATE" --make-baseline --sessions 0
  [[ $output == *"--sessions '0' is not a number of sessions from 1 to 10"* ]]
  run -3 "$RUN_GATE" --make-baseline --sessions two
  [[ $output == *"--sessions 'two'"* ]]
  run -3 "$RUN_GATE" --sessions 2
  [[ $output == *"--sessions goes with --make-baseline"* ]]
  mkdir out
  run -3 "$RUN_GATE" --make-baseline out
  [[ $output == *"'out' is a directory"* ]]
  run -3 "$RUN_GATE" --native --compose
  [[ $output == *"exclude each other"* ]]
  BASE_AFP_HOST=127.0.0.1 run -3 "$RUN_GATE" --make-baseline
  [[ $output == *"BASE_AFP_HOST is set"* ]]
  run -3 "$RUN_GATE" --frobnicate
  [[ $output == *"unknown option '--frobnicate'"* ]]
  # nothing written, not even the default's directory
  [ ! -e .github ]
}

@test "a real native run: two sessions pooled into .github/afpbench/baseline.json, and what to commit" {
  [[ $(id -u) -eq 0 ]] || skip "needs root (scripts/local-server)"
  cd "$BATS_TEST_TMPDIR"
  AFPBENCH_NATIVE_PORT=$MB_PORT AFPBENCH_TESTS=4 AFPBENCH_ITERATIONS=2 \
    AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/res" AFPBENCH_BASELINE=/nonexistent/ignored.json \
    run --separate-stderr "$RUN_GATE" --native --make-baseline
  # shellcheck disable=SC2154 # bats sets it (run --separate-stderr)
  echo "$stderr" | tail -n 5
  [ "$status" -eq 0 ]
  local b=$BATS_TEST_TMPDIR/.github/afpbench/baseline.json
  [[ $output == *"Baseline written: $b"* ]]
  [[ $output == *"git add -- '.github/afpbench/baseline.json'"* ]]
  [[ $output == *"baseline: .github/afpbench/baseline.json"* ]]
  jq -e '.schema == "afpbench-baseline/1" and .provenance.runs == 2
         and (.tests | map(.key) == ["lantest.4"])
         and ([.tests[0].samples[].run] | unique == [0, 1])
         and (.label | test("run-gate --make-baseline \\(native\\), 2 session"))' "$b"
  # each session measured without comparing
  jq -e '.status == "pass"' "$BATS_TEST_TMPDIR/res/make-baseline/session-1/verdict.json"
  jq -e '.status == "pass"' "$BATS_TEST_TMPDIR/res/make-baseline/session-2/verdict.json"
  # the server it started is stopped again
  run -3 "$ROOT/scripts/local-server" status --port "$MB_PORT"
  [[ $output == *"port $MB_PORT: not running"* ]]
  # and the verdict compares with it: IO rows judged, no error
  run "$ROOT/scripts/compare" --baseline "$b" --out "$BATS_TEST_TMPDIR/v.json" \
    "$BATS_TEST_TMPDIR/res/make-baseline/session-1/results.json"
  [ "$status" -ne 3 ]
  jq -e '[.rows[] | select(.kind == "io")] | length > 0' "$BATS_TEST_TMPDIR/v.json"
}

@test "a relative PATH is taken from the current directory; its directories are made" {
  [[ $(id -u) -eq 0 ]] || skip "needs root (scripts/local-server)"
  cd "$BATS_TEST_TMPDIR"
  AFPBENCH_NATIVE_PORT=$MB_PORT AFPBENCH_TESTS=4 AFPBENCH_ITERATIONS=1 \
    AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/res" \
    run --separate-stderr "$RUN_GATE" --native --make-baseline baselines/mine.json --sessions 1
  # shellcheck disable=SC2154 # bats sets it (run --separate-stderr)
  echo "$stderr" | tail -n 5
  [ "$status" -eq 0 ]
  jq -e '.provenance.runs == 1' "$BATS_TEST_TMPDIR/baselines/mine.json"
  [[ $output == *"git add -- 'baselines/mine.json'"* ]]
}
