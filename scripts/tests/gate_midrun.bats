#!/usr/bin/env bats
# Issue 10 against a REAL netatalk (scripts/local-server, port 10810, CNID 14810):
# a gate run whose afpd is killed in lantest test 5, and a gate run stopped by
# AFPBENCH_DEADLINE. In both, what was measured is kept on disk and judged, the
# verdict is error and names the cause. Needs root, like the server tests.

readonly MIDRUN_PORT=10810

setup_file() {
  local root env
  root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  make -C "$root/src/afpbench" -s >&2
  env=$("$root/scripts/local-server" start --port "$MIDRUN_PORT")
  eval "$env"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export AFPBENCH_BIN="$root/src/afpbench/afpbench"
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$MIDRUN_PORT" || true
}

setup() { load fixtures/verdict-helpers; }

@test "afpd killed in lantest test 5: tests 1-4 judged, verdict error naming test 5, raw results kept" {
  local out="$BATS_TEST_TMPDIR/results" log="$BATS_TEST_TMPDIR/gate.log"
  AFPBENCH_TESTS=1-12 AFPBENCH_ITERATIONS=1 AFPBENCH_RESULTS="$out" "$SCRIPTS/gate" >"$log" 2>&1 &
  local gate=$! i afpd=""
  # test 4's result line: test 5 starts now
  for ((i = 0; i < 600; i++)); do
    (($(grep -c '^Run 1 => ' "$log") >= 4)) && break
    sleep 0.1
  done
  afpd=$(sed -n 's/^IO monitoring enabled (afpd: \([0-9]*\) .*/\1/p' "$log")
  [ -n "$afpd" ]
  kill -9 "$afpd"
  local rc=0 start=$SECONDS
  wait "$gate" || rc=$?
  echo "# gate exited $rc, $((SECONDS - start)) s after the kill" >&3
  cat "$log"
  [ "$rc" -eq 3 ]
  [ -s "$out/lantest.json" ] && [ -s "$out/lantest.csv" ] && [ -s "$out/results.json" ]
  jq -e '.tests[] | select(.key == "lantest.5") | .status == "error" and (.error | type) == "string"' "$out/lantest.json"
  jq -e '.status == "error"' "$out/verdict.json"
  # every test measured before the kill has rows that are judged (new: no baseline)
  jq -e '[.rows[] | select(.test == "lantest.1" or .test == "lantest.4") | select(.state == "new")] | length >= 2' "$out/verdict.json"
  jq -e '.rows[] | select(.test == "lantest.5") | .state == "error" and (.reason | startswith("test failed in this run"))' "$out/verdict.json"
  jq -e '.summary | contains("lantest.5") or contains("test 5")' "$out/verdict.json"
  grep -q 'Open, stat and read 512 bytes' "$out/report-full.md"
  # the comment names the test that failed, in words
  grep -q '^| Creating dir with 2000 files: .*test failed in this run' "$out/report.md"
}

@test "AFPBENCH_DEADLINE=8 on tests 4 and 11 x 255: stops at 8 s, exit 3, what was measured kept and judged" {
  # One iteration of tests 4 and 11 takes about 0.5 s here (255 would take well over a
  # minute): even on a loaded machine some finish before the deadline, and the
  # run cannot.
  local out="$BATS_TEST_TMPDIR/results" start=$SECONDS
  AFPBENCH_TESTS=4,11 AFPBENCH_ITERATIONS=255 AFPBENCH_DEADLINE=8 AFPBENCH_RESULTS="$out" run "$SCRIPTS/gate"
  echo "# gate exited $status after $((SECONDS - start)) s" >&3
  echo "$output"
  [ "$status" -eq 3 ]
  ((SECONDS - start < 25))
  [[ $output == *"--deadline 8 s) passed"* ]]
  jq -e '.status == "error" and .error.exit_code == 5' "$out/lantest.json"
  jq -e '[.tests[] | select((.samples | length) > 0)] | length >= 1' "$out/lantest.json"
  jq -e '.status == "error" and (.errors | any(contains("deadline")))' "$out/verdict.json"
  jq -e '[.rows[] | select(.state == "new")] | length >= 1' "$out/verdict.json"
}
