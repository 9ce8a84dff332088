#!/usr/bin/env bats
# scripts/test-all's tally: what a stage's log reports becomes the closing
# line's counts; a skipped test is counted neither passed nor failed and is
# named, with its reason, before that line (never a silent pass).

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  LOG=$BATS_TEST_TMPDIR/step.log
}

# tally LOG_TEXT: count_results on a log holding LOG_TEXT; prints the totals.
tally() {
  printf '%s\n' "$1" >"$LOG"
  TEST_LOG_DIR=$BATS_TEST_TMPDIR/logs bash -c '
    source "$1/scripts/test-all"
    count_results "$2" verdict/example
    echo "passed=$passed failed=$failed counts=$step_counts"
    ((${#skipped[@]} == 0)) || printf "skipped: %s\n" "${skipped[@]}"' _ "$ROOT" "$LOG"
}

@test "bats: a skip is not a pass; its reason is kept" {
  run tally $'1..3\nok 1 first\nok 2 second # skip no netatalk 4.4 source tree: no tarball\nnot ok 3 third'
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "passed=1 failed=1 counts=1 passed, 1 failed, 1 skipped" ]]
  [[ ${lines[1]} == "skipped: verdict/example: second — no netatalk 4.4 source tree: no tarball" ]]
}

@test "Vitest: the skipped count and the test's own 'not run:' line" {
  run tally $'stdout | e2e/x.test.ts\nnot run: no netatalk 4.4 source tree\n      Tests  1 skipped | 4 passed (5)'
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "passed=4 failed=0 counts=4 passed, 0 failed, 1 skipped" ]]
  [[ ${lines[1]} == "skipped: verdict/example: 1 test(s) — no netatalk 4.4 source tree" ]]
}

@test "the C harness's line and TAP add up; nothing skipped, nothing named" {
  run tally $'13042 passed, 0 failed\nok 1 a\nok 2 b'
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "passed=13044 failed=0 counts=13044 passed, 0 failed" ]]
  [ "${#lines[@]}" -eq 1 ]
}
