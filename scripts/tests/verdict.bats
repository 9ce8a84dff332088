#!/usr/bin/env bats
# The verdict rule (scripts/compare + scripts/jq/verdict.jq) on results from
# REAL afpbench runs against netatalk (fixtures/README.md). Variants are made
# from them with jq (fixtures/verdict-helpers.bash) and named for what they
# change. No server needed.

# The "gate:" tests export AFPBENCH_BASELINE_TIMINGS for themselves alone:
# each bats test runs in a subshell of its own.
# shellcheck disable=SC2030,SC2031

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  # "quiet": the real run with its timings pulled towards their medians, so
  # that timing rows can pass; IO counts are the measured ones.
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  results_dir "$T/base" "$T/a-quiet.json"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base" 2>/dev/null
}

# compare_with VARIANT_RAW: run compare on a raw file against the baseline.
compare_with() {
  merged "$1" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/current.json"
}

@test "identical low-noise results pass" {
  compare_with "$T/a-quiet.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r .status "$T/verdict.json")" = pass ]
  # timings against a stored baseline are shown (info), everything else passes
  no_row_where "$T/verdict.json" '.state != "pass" and .state != "info"'
  no_row_where "$T/verdict.json" '.state == "info" and (.kind | IN("time", "cpu", "throughput") | not) and (.kind | endswith("_info") | not)'
  # all five aggregate ids the action reads are there, with ratio 1
  for id in time_per_op afpd_r_per_op afpd_w_per_op cnid_r_per_op cnid_w_per_op; do
    [ "$(jq -r ".rows[] | select(.metric == \"aggregate.$id\") | .ratio" "$T/verdict.json")" = 1 ]
  done
}

@test "afpd writes per op raised 5 % fails, naming the metric" {
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  compare_with "$T/w5.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r .status "$T/verdict.json")" = fail ]
  jq -e '.decided_by | index("aggregate.afpd_w_per_op")' "$T/verdict.json"
  jq -e '.summary | contains("afpd writes/op")' "$T/verdict.json"
  # reads did not change: they still pass
  [ "$(jq -r '.rows[] | select(.metric == "aggregate.afpd_r_per_op") | .state' "$T/verdict.json")" = pass ]
}

@test "against a stored baseline timings are shown, never deciding: 30 % slower and 2x faster both pass" {
  transform "$T/a-quiet.json" "$T/slow.json" "$SLOWER_30PCT"
  two_session_baseline "$T/baseline.json" "$T/a-quiet.json"
  compare_with "$T/slow.json"
  [ "$status" -eq 0 ]
  jq -e '.timings == "shown"' "$T/verdict.json"
  # the reading is kept: what the rule would have said, and the ratio
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op")
         | .state == "info" and .reading == "fail" and .ratio == 1.3 and (.reason | startswith("shown, not gated"))' "$T/verdict.json"
  jq -e '.notes | any(startswith("timings shown, not gated"))' "$T/verdict.json"
  transform "$T/a-quiet.json" "$T/fast.json" "$FASTER_2X"
  compare_with "$T/fast.json"
  [ "$status" -eq 0 ]
  no_row_where "$T/verdict.json" '.state == "improved" or .state == "fail" or .state == "inconclusive"'
  # the deterministic rows still decide: afpd writes +5 % fails
  transform "$T/slow.json" "$T/slow-w5.json" "$SCALE_AFPD_W_5PCT"
  compare_with "$T/slow-w5.json"
  [ "$status" -eq 1 ]
  jq -e '(.decided_by | index("aggregate.afpd_w_per_op")) and all(.decided_by[]; endswith("afpd_w") or endswith("afpd_w_per_op"))' "$T/verdict.json"
}

@test "AFPBENCH_BASELINE_TIMINGS other than show or gate is an error naming it" {
  merged "$T/a-quiet.json" >"$T/current.json"
  AFPBENCH_BASELINE_TIMINGS=always run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 3 ]
  jq -e '.errors[0] | test("AFPBENCH_BASELINE_TIMINGS=\"always\" must be show or gate")' "$T/verdict.json"
}

# The timing rule against a stored baseline, for a quiet, dedicated machine
# that opts in with AFPBENCH_BASELINE_TIMINGS=gate.
@test "gate: a one-session baseline never fails a timing: 30 % slower is inconclusive, saying why" {
  export AFPBENCH_BASELINE_TIMINGS=gate
  transform "$T/a-quiet.json" "$T/slow.json" "$SLOWER_30PCT"
  compare_with "$T/slow.json"
  [ "$status" -eq 2 ]
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op")
         | .state == "inconclusive" and .baseline_sessions == 1 and (.reason | test("baseline is one session"))' "$T/verdict.json"
  no_row_where "$T/verdict.json" '.state == "fail"'
}

@test "gate: timings 30 % slower with low noise fail on time against a two-session baseline" {
  export AFPBENCH_BASELINE_TIMINGS=gate
  two_session_baseline "$T/baseline.json" "$T/a-quiet.json"
  transform "$T/a-quiet.json" "$T/slow.json" "$SLOWER_30PCT"
  compare_with "$T/slow.json"
  [ "$status" -eq 1 ]
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op") | .baseline_sessions == 2' "$T/verdict.json"
  jq -e '.decided_by | index("aggregate.time_per_op")' "$T/verdict.json"
  [ "$(jq -r '.rows[] | select(.metric == "aggregate.time_per_op") | .ratio' "$T/verdict.json")" = 1.3 ]
  # IO did not change and does not fail
  some_row_where "$T/verdict.json" '.kind == "io"'
  no_row_where "$T/verdict.json" '.kind == "io" and .state == "fail"'
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op") | .p_value < 0.05' "$T/verdict.json"
}

@test "gate: timings with 40 % spread are inconclusive and say how many iterations would settle it" {
  export AFPBENCH_BASELINE_TIMINGS=gate
  two_session_baseline "$T/baseline.json" "$T/a-quiet.json"
  transform "$T/a-quiet.json" "$T/spread.json" "$SPREAD_40PCT"
  compare_with "$T/spread.json"
  [ "$status" -eq 2 ]
  [ "$(jq -r .status "$T/verdict.json")" = inconclusive ]
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op")
         | .state == "inconclusive" and (.reason | test("iterations")) and .iterations_needed > 5' "$T/verdict.json"
}

@test "gate: 2x faster passes with improved and a hint to refresh the baseline" {
  export AFPBENCH_BASELINE_TIMINGS=gate
  two_session_baseline "$T/baseline.json" "$T/a-quiet.json"
  transform "$T/a-quiet.json" "$T/fast.json" "$FASTER_2X"
  compare_with "$T/fast.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r .status "$T/verdict.json")" = pass ]
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op") | .state == "improved" and (.reason | test("baseline"))' "$T/verdict.json"
  jq -e '.summary | test("improved")' "$T/verdict.json"
}

@test "a real second run never fails on IO against the first" {
  results_dir "$T/real-a" "$FIXTURES/lantest-a.json"
  "$SCRIPTS/baseline" "$T/real-baseline.json" "$T/real-a"
  merged "$FIXTURES/lantest-b.json" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/real-baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -ne 3 ]
  some_row_where "$T/verdict.json" '.kind == "io"'
  no_row_where "$T/verdict.json" '.kind == "io" and .state == "fail"'
}

@test "malformed results give a clear error, exit 3 and still a verdict.json" {
  printf '{"schema": "afpbench-results/1", "tests": [' >"$T/broken.json"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/broken.json"
  [ "$status" -eq 3 ]
  [[ $output == *"broken.json: not valid JSON"* ]]
  [ "$(jq -r .status "$T/verdict.json")" = error ]
  # valid JSON, wrong shape: a negative time
  jq '.tests[0].samples[0].us = -5' "$T/a-quiet.json" >"$T/neg.json"
  merged "$T/a-quiet.json" | jq '.tests[0].samples[0].us = -5' >"$T/neg-merged.json"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/neg-merged.json"
  [ "$status" -eq 3 ]
  [[ $output == *'bad "us" -5'* ]]
}

@test "run metadata of the wrong type gives a clear error naming the field, exit 3" {
  jq '.server = "garbage"' "$T/a-quiet.json" >"$T/bad-server.json"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/bad-server.json"
  [ "$status" -eq 3 ]
  [[ $output == *"bad-server.json: server is string, not an object"* ]]
  merged "$T/a-quiet.json" | jq '.runs[0].client_cpu = 5' >"$T/bad-cpu.json"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/bad-cpu.json"
  [ "$status" -eq 3 ]
  [[ $output == *"bad-cpu.json: runs[0].client_cpu is number, not an object"* ]]
  jq -e '.status == "error" and (.errors[0] | contains("runs[0].client_cpu"))' "$T/verdict.json"
}

@test "a missing baseline file is an error, exit 3" {
  merged "$T/a-quiet.json" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/nope.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 3 ]
  [[ $output == *"nope.json: no such file"* ]]
  jq -e '.errors[0] | test("no such file")' "$T/verdict.json"
}

@test "a baseline of another schema version is refused, exit 3" {
  jq '.schema = "afpbench-baseline/2"' "$T/baseline.json" >"$T/v2.json"
  merged "$T/a-quiet.json" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/v2.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 3 ]
  [[ $output == *'baseline schema "afpbench-baseline/2" is not supported'* ]]
}

@test "a selected test missing from the results is an error, exit 3" {
  # test 4 stays selected in config.tests but its results are gone
  jq 'del(.tests[] | select(.key == "lantest.4"))' "$T/a-quiet.json" >"$T/no4.json"
  compare_with "$T/no4.json"
  [ "$status" -eq 3 ]
  jq -e '.rows[] | select(.metric == "lantest.4.time") | .state == "error" and (.reason | test("missing"))' "$T/verdict.json"
  # the aggregates still cover the tests that are there
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op") | .state != "error"' "$T/verdict.json"
}

@test "a test that errored in this run is an error, never a result" {
  jq '(.tests[] | select(.key == "lantest.1")) |= (.status = "error" | .error = {"message": "read-back mismatch"})' \
    "$T/a-quiet.json" >"$T/err1.json"
  compare_with "$T/err1.json"
  [ "$status" -eq 3 ]
  jq -e '.rows[] | select(.metric == "lantest.1.time") | .reason | test("read-back mismatch")' "$T/verdict.json"
}

@test "a changed suite version is an error" {
  jq '.suite_version = "lantest-13/1"' "$T/a-quiet.json" >"$T/suite13.json"
  compare_with "$T/suite13.json"
  [ "$status" -eq 3 ]
  jq -e '.errors[] | select(test("suite lantest changed"))' "$T/verdict.json"
}

@test "a test not in the baseline is new and does not fail" {
  jq '.tests[-1].samples' "$T/a-quiet.json" >/dev/null
  jq 'del(.tests[] | select(.key == "lantest.12")) | .config.tests -= [12]' "$T/a-quiet.json" >"$T/no12.json"
  results_dir "$T/base11" "$T/no12.json"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base11" 2>/dev/null
  compare_with "$T/a-quiet.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.rows[] | select(.metric == "lantest.12.time") | .state' "$T/verdict.json")" = new ]
}

@test "gate: a baseline from another machine makes timing rows inconclusive, IO still gates" {
  export AFPBENCH_BASELINE_TIMINGS=gate
  jq '.provenance.runner.cpu_model = "Some Other CPU"' "$T/baseline.json" >"$T/other.json"
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  merged "$T/w5.json" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/other.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 1 ]
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op") | .state == "inconclusive" and (.reason | test("another machine"))' "$T/verdict.json"
  jq -e '.decided_by | index("aggregate.afpd_w_per_op")' "$T/verdict.json"
  # identical IO from another machine: inconclusive (timings), not pass
  merged "$T/a-quiet.json" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/other.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 2 ]
}

@test "gate: another kernel build alone is a note, not another machine: timings are still compared" {
  export AFPBENCH_BASELINE_TIMINGS=gate
  two_session_baseline "$T/baseline.json" "$T/a-quiet.json"
  jq '.provenance.runner.kernel = "6.1.0-other"' "$T/baseline.json" >"$T/other-kernel.json"
  merged "$T/a-quiet.json" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/other-kernel.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 0 ]
  jq -e '.notes | any(startswith("the baseline'"'"'s kernel differs (6.1.0-other → "))' "$T/verdict.json"
  jq -e '.notes | all(startswith("timings not gated") | not)' "$T/verdict.json"
  # another core count is another machine
  jq '.provenance.runner.cores = 64' "$T/baseline.json" >"$T/other-cores.json"
  run "$SCRIPTS/compare" --baseline "$T/other-cores.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 2 ]
  jq -e '.notes | any(startswith("timings not gated: baseline from another machine"))' "$T/verdict.json"
}

@test "no baseline: measure only, every metric new, pass" {
  merged "$T/a-quiet.json" >"$T/current.json"
  run "$SCRIPTS/compare" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 0 ]
  no_row_where "$T/verdict.json" '.state != "new"'
  jq -e '.summary | test("no baseline")' "$T/verdict.json"
}

@test "thresholds: environment overrides defaults, a per-metric entry overrides both" {
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  merged "$T/w5.json" >"$T/current.json"
  AFPBENCH_IO_THRESHOLD=8 run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.rows[] | select(.metric == "aggregate.afpd_w_per_op") | .threshold' "$T/verdict.json")" = 8 ]
  printf '{"schema": "afpbench-thresholds/1", "defaults": {"io": 20},
           "metrics": {"aggregate.afpd_w_per_op": 1, "lantest.*.afpd_w": 30}}' >"$T/th.json"
  AFPBENCH_IO_THRESHOLD=8 run "$SCRIPTS/compare" --baseline "$T/baseline.json" --thresholds "$T/th.json" \
    --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r '.decided_by | join(" ")' "$T/verdict.json")" = aggregate.afpd_w_per_op ]
  [ "$(jq -r '.rows[] | select(.metric == "lantest.1.afpd_w") | .threshold' "$T/verdict.json")" = 30 ]
  [ "$(jq -r '.rows[] | select(.metric == "lantest.1.afpd_r") | .threshold' "$T/verdict.json")" = 8 ]
}

@test "bad thresholds are errors that name the cause" {
  merged "$T/a-quiet.json" >"$T/current.json"
  AFPBENCH_TIME_THRESHOLD=ten run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 3 ]
  [[ $output == *'AFPBENCH_TIME_THRESHOLD="ten" is not a percentage'* ]]
  printf '{"schema": "afpbench-thresholds/1", "metrics": {"lantest.1.time": "x"}}' >"$T/th.json"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" --thresholds "$T/th.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -eq 3 ]
  [[ $output == *'metrics["lantest.1.time"]'* ]]
}

@test "a percentage has the same bounds in a thresholds file, in the environment and in the gate's grammar: above 0, at most 1000" {
  merged "$T/a-quiet.json" >"$T/current.json"
  local v gate_ok jq_ok
  for v in 0 0.1 2.5 1000 1000.5; do
    gate_ok=yes jq_ok=yes
    AFPBENCH_IO_THRESHOLD=$v "$SCRIPTS/gate" --check >/dev/null 2>&1 || gate_ok=no
    printf '{"schema": "afpbench-thresholds/1", "defaults": {"io": %s}}' "$v" >"$T/th.json"
    "$SCRIPTS/compare" --baseline "$T/baseline.json" --thresholds "$T/th.json" --out "$T/v.json" "$T/current.json" \
      >/dev/null 2>&1 || { (($? == 3)) && jq_ok=no; }
    [ "$gate_ok" = "$jq_ok" ] || {
      echo "$v: the gate says $gate_ok, a thresholds file $jq_ok" >&2
      return 1
    }
    if [[ $v == 0 || $v == 1000.5 ]]; then [ "$gate_ok" = no ]; else [ "$gate_ok" = yes ]; fi
  done
}

@test "statistics: medians, the median interval and exact Mann-Whitney p-values" {
  run jq -n -c -L "$SCRIPTS/jq" 'include "stats";
    [([1,2,3,4,5] | median), ([4,1,3,2] | median),
     ([range(1;21)] | median_interval | [.lo, .hi]),
     (mw_p_greater([6,7,8,9,10]; [1,2,3,4,5]) * 252 | round),
     (mw_p_greater([1,2,3,4,5]; [6,7,8,9,10])),
     (mw_counts(3; 3) | add)]'
  [ "$status" -eq 0 ]
  # 1/252 for total separation of 5 vs 5; C(6,3) = 20 orderings of 3 vs 3
  [ "$output" = '[3,2.5,[6,15],1,1,20]' ]
}
