#!/usr/bin/env bats
# scripts/baseline on REAL fixtures (fixtures/README.md). No server needed.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  results_dir "$T/a" "$FIXTURES/lantest-a.json"
  results_dir "$T/b" "$FIXTURES/lantest-b.json"
}

@test "a baseline from two runs keeps every sample, the AFP ops and provenance" {
  run "$SCRIPTS/baseline" --label "test machine" "$T/bl.json" "$T/a" "$T/b/results.json"
  [ "$status" -eq 0 ]
  jq -e '.schema == "afpbench-baseline/1" and .label == "test machine"' "$T/bl.json"
  jq -e '.provenance | .runs == 2 and .netatalk.version == "4.2.3" and .runner.cores > 0
         and .runner.cpu_model != null and (.runner.container | type) == "boolean"
         and .afpbench_version != null and .suite_version == "lantest-12/1" and .date != null' "$T/bl.json"
  local a b n
  a=$(jq '.tests[] | select(.key == "lantest.1") | .samples | length' "$FIXTURES/lantest-a.json")
  b=$(jq '.tests[] | select(.key == "lantest.1") | .samples | length' "$FIXTURES/lantest-b.json")
  n=$(jq '.tests[] | select(.key == "lantest.1") | .samples | length' "$T/bl.json")
  [ "$n" -eq $((a + b)) ]
  jq -e '[.tests[] | select(.key == "lantest.1") | .samples[].run] | unique == [0, 1]' "$T/bl.json"
  jq -e '.tests[] | select(.key == "lantest.4") | .afp_ops == 20000' "$T/bl.json"
}

@test "a baseline compares with itself as pass or inconclusive, never fail" {
  "$SCRIPTS/baseline" "$T/bl.json" "$T/a" 2>/dev/null
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/v.json" "$T/a/results.json"
  [ "$status" -eq 0 ] || [ "$status" -eq 2 ]
  no_row_where "$T/v.json" '.state == "fail" or .state == "error"'
}

@test "runs of different suite versions are refused" {
  jq '.suite_version = "lantest-13/1"' "$T/b/results.json" >"$T/b2.json"
  mkdir -p "$T/c" && mv "$T/b2.json" "$T/c/results.json"
  run "$SCRIPTS/baseline" "$T/bl.json" "$T/a" "$T/c"
  [ "$status" -ne 0 ]
  [[ $output == *"suite version lantest-13/1 differs"* ]]
  [ ! -e "$T/bl.json" ]
}

@test "runs from different machines are refused" {
  jq '.runs[0].environment.cpu_model = "Other CPU" | .provenance.runner.cpu_model = "Other CPU"' \
    "$T/b/results.json" >"$T/other.json"
  mkdir -p "$T/c" && mv "$T/other.json" "$T/c/results.json"
  run "$SCRIPTS/baseline" "$T/bl.json" "$T/a" "$T/c"
  [ "$status" -ne 0 ]
  [[ $output == *"another machine"* ]]
}

@test "a run that stopped early is refused" {
  jq '.status = "error" | .error = {"exit_code": 10, "message": "login failed"}' "$T/a/results.json" >"$T/e.json"
  mkdir -p "$T/c" && mv "$T/e.json" "$T/c/results.json"
  run "$SCRIPTS/baseline" "$T/bl.json" "$T/c"
  [ "$status" -ne 0 ]
  [[ $output == *"stopped early (login failed)"* ]]
}

@test "missing or foreign inputs are refused with the file named" {
  run "$SCRIPTS/baseline" "$T/bl.json" "$T/nowhere"
  [ "$status" -ne 0 ]
  [[ $output == *"nowhere: no results.json there"* ]]
  mkdir -p "$T/c" && echo '{"schema": "something-else/1"}' >"$T/c/results.json"
  run "$SCRIPTS/baseline" "$T/bl.json" "$T/c"
  [ "$status" -ne 0 ]
  [[ $output == *'results schema "something-else/1" is not supported'* ]]
}
