#!/usr/bin/env bats
# Issue 10: nothing measured is lost from the verdict, and no empty or absurd
# baseline passes. REAL fixtures (fixtures/README.md) with one thing changed;
# no server needed (the mid-run kill on a real netatalk is gate_midrun.bats).

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  results_dir "$T/a" "$FIXTURES/lantest-a.json"
  results_dir "$T/b" "$FIXTURES/lantest-b.json"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/a" 2>/dev/null
}

# A run whose afpd died in test 5 of the first iteration, the way afpbench
# writes it: tests 1-4 measured once, test 5 failed (its error a string), the
# run failed (its error an object), tests 6-12 without samples.
readonly DIED_IN_TEST_5='.status = "error"
  | .error = {"exit_code": 5, "message": "test 5 (Creating dir with 2000 files): FPCreateFile: server closed the connection"}
  | .tests[] |= (if .id < 5 then .samples |= .[0:1]
                 elif .id == 5 then .status = "error" | .error = "FPCreateFile: server closed the connection" | .samples = []
                 else .samples = [] end)'

@test "a test that died mid-run: every measured test is judged, the status is error naming the test" {
  transform "$FIXTURES/lantest-b.json" "$T/died.json" "$DIED_IN_TEST_5"
  results_dir "$T/c" "$T/died.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/v.json" "$T/c/results.json"
  [ "$status" -eq 3 ]
  jq -e '.status == "error"' "$T/v.json"
  # tests 1-4 judged on their one sample each, not dropped
  jq -e '[.rows[] | select((.test // "") | test("^lantest\\.[1-4]$")) | select(.state != "error" and .n_current == 1)]
         | length >= 4' "$T/v.json"
  jq -e '.rows[] | select(.test == "lantest.5") | .state == "error" and (.reason | contains("test failed in this run: FPCreateFile"))' "$T/v.json"
  jq -e '.summary | contains("test 5")' "$T/v.json"
  # the report shows the measured rows too, not only the errors
  cp "$T/v.json" "$T/c/verdict.json"
  "$SCRIPTS/report" "$T/c"
  grep -q 'Creating dir with 2000 files.*test failed in this run' "$T/c/report.md"
  grep -q '^| Open, stat and read 512 bytes from 1000 files: .*| ✅' "$T/c/report-full.md"
}

@test "a 0-byte baseline is an error naming the file, in compare and in the gate" {
  : >"$T/empty.json"
  run "$SCRIPTS/compare" --baseline "$T/empty.json" --out "$T/v.json" "$T/b/results.json"
  [ "$status" -eq 3 ]
  jq -e --arg f "$T/empty.json" '.status == "error" and (.errors | any(contains($f) and contains("empty file")))' "$T/v.json"
  AFPBENCH_RESULTS="$T/r" AFPBENCH_BIN=/bin/false AFPBENCH_BASELINE="$T/empty.json" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"AFPBENCH_BASELINE=$T/empty.json: empty file"* ]]
}

@test "a baseline without tests is an error naming the file" {
  jq '.tests = []' "$T/bl.json" >"$T/none.json"
  run "$SCRIPTS/compare" --baseline "$T/none.json" --out "$T/v.json" "$T/b/results.json"
  [ "$status" -eq 3 ]
  jq -e --arg f "$T/none.json" '.errors | any(contains($f) and contains("holds no tests"))' "$T/v.json"
}

@test "a baseline that shares no test with the run is an error" {
  jq '.tests |= map(select(.key == "lantest.1"))' "$T/bl.json" >"$T/only1.json"
  jq '.tests |= map(select(.key != "lantest.1")) | .config.tests = [2,3,4,5,6,7,8,9,10,11,12]' \
    "$FIXTURES/lantest-b.json" >"$T/no1.json"
  results_dir "$T/c" "$T/no1.json"
  run "$SCRIPTS/compare" --baseline "$T/only1.json" --out "$T/v.json" "$T/c/results.json"
  [ "$status" -eq 3 ]
  jq -e --arg f "$T/only1.json" '.errors | any(contains($f) and contains("shares no test"))' "$T/v.json"
}

@test "baseline values outside a sane range (0 us, 1e308) are errors" {
  jq '(.tests[0].samples[0].us) = 0' "$T/bl.json" >"$T/zero.json"
  jq '(.tests[2].samples[1].afpd_w) = 1e308' "$T/bl.json" >"$T/huge.json"
  local f
  for f in zero huge; do
    run "$SCRIPTS/compare" --baseline "$T/$f.json" --out "$T/v.json" "$T/b/results.json"
    [ "$status" -eq 3 ]
    jq -e --arg f "$T/$f.json" '.errors | any(contains($f) and contains("outside a sane range"))' "$T/v.json"
  done
  # the gate refuses it before measuring
  AFPBENCH_RESULTS="$T/r" AFPBENCH_BIN=/bin/false AFPBENCH_BASELINE="$T/zero.json" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"outside a sane range"* ]]
  # the real baseline still passes the check
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/v.json" "$T/b/results.json"
  [ "$status" -ne 3 ]
}
