#!/usr/bin/env bats
# The A/B verdict: base and head measured together in one run (afpbench
# --base-host; the gate's BASE_AFP_HOST), judged from the pairs. On the REAL
# A/B fixture (fixtures/lantest-ab.json: two local servers, lantest 1-12, 10
# pairs, interleaved); variants are jq transforms named for what they change.
# No server needed.

setup() {
  bats_require_minimum_version 1.5.0
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  # both sides quieted, and the head made a copy of the base: an exact A/A
  jq "($QUIET_TIMES) | .base |= ($QUIET_TIMES) | .tests = .base.tests" \
    "$FIXTURES/lantest-ab.json" >"$T/aa.json"
}

# judge RAW: merge one A/B raw file and compare it (no baseline file).
judge() {
  merged "$1" >"$T/results.json"
  run "$SCRIPTS/compare" --out "$T/verdict.json" "$T/results.json"
}

row() { jq -r --arg m "$1" ".rows[] | select(.metric == \$m) | $2" "$T/verdict.json"; }

@test "the real A/B fixture pairs every test of both sides (a guard against refreshing it wrong)" {
  local f="$FIXTURES/lantest-ab.json"
  jq -e '.pairing.scheme == "abba" and (.base.tests | length) == 12 and (.tests | length) == 12' "$f"
  jq -e '[.tests[], .base.tests[] | .samples | length] | all(. == 10)' "$f"
  # every (test, iteration) of the head has its base, and the two ran in opposite order
  jq -e '[.tests[] as $t | $t.samples[] as $s
          | (.base.tests[] | select(.key == $t.key) | .samples[] | select(.iteration == $s.iteration)) as $b
          | ($b.order + $s.order == 3)] | length == 120 and all' "$f"
  # order alternates from test to test and from iteration to iteration
  jq -e '[.tests[0].samples[].order] == [1, 2, 1, 2, 1, 2, 1, 2, 1, 2] and [.tests[1].samples[].order][0:3] == [2, 1, 2]' "$f"
  jq -e '[.tests[].samples[] | .afpd_cpu_us, .afpd_rchar, .afpd_wchar] | all(type == "number")' "$f"
}

@test "A/A (the head a copy of the base): every row passes, timings with an interval of zero width" {
  judge "$T/aa.json"
  [ "$status" -eq 0 ]
  jq -e '.mode == "ab" and .baseline.source == "base" and .baseline.file == null' "$T/verdict.json"
  jq -e '.notes | any(startswith("A/B: base and head measured together"))' "$T/verdict.json"
  no_row_where "$T/verdict.json" '.state != "pass"'
  [ "$(row aggregate.time_per_op .pairs)" -eq 10 ]
  # lantest 1-12: α split between the 3 aggregates and the 24 per-test timing
  # rows (12 times, 12 afpd CPU times), Bonferroni within each: 2 x 3 and 2 x 24
  [ "$(row aggregate.time_per_op .family)" -eq 6 ]
  [ "$(row lantest.4.time .family)" -eq 48 ]
  [ "$(row aggregate.time_per_op '.interval | join(",")')" = "0,0" ]
  [ "$(row aggregate.time_per_op .interval_confidence)" = 95 ]
  [ "$(row aggregate.afpd_cpu_per_op .kind)" = cpu ]
  [ "$(row lantest.4.afpd_cpu .unit)" = "µs" ]
}

@test "head 30 % slower in every pair fails on time with the interval beyond the threshold; IO still passes" {
  jq '.tests[].samples[] |= (.us = (.us * 1.3 | round))' "$T/aa.json" >"$T/slow.json"
  judge "$T/slow.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("aggregate.time_per_op") and index("lantest.1.time")' "$T/verdict.json"
  [ "$(row aggregate.time_per_op .ratio)" = 1.3 ]
  [[ $(row aggregate.time_per_op .reason) == "time worse by 30 % over 10 pairs: at least +30 % at 99.2 % confidence, beyond the 5 % threshold" ]]
  # the interval shown is the one that decided: the family's
  [ "$(row aggregate.time_per_op '.interval | join(",")')" = "30,30" ]
  [ "$(row aggregate.time_per_op .interval_confidence)" = 99.1667 ]
  some_row_where "$T/verdict.json" '.kind == "io"'
  no_row_where "$T/verdict.json" '.kind == "io" and .state != "pass"'
}

@test "a slowdown in one pair only (the machine got busy once) never fails" {
  # iteration 3: the head 60 % slower, as if a CPU hog ran during its half of the pair
  jq '.tests[].samples[] |= (if .iteration == 3 then .us = (.us * 1.6 | round) | .afpd_cpu_us = (.afpd_cpu_us * 1.6 | round) else . end)' \
    "$T/aa.json" >"$T/once.json"
  judge "$T/once.json"
  [ "$status" -ne 1 ]
  no_row_where "$T/verdict.json" '.state == "fail"'
  # the estimate stays at the other pairs' (no change) and the interval says it is not settled
  [ "$(row aggregate.time_per_op .ratio)" = 1 ]
}

@test "the server's CPU: afpd 20 % busier in every pair fails the cpu rows, with wall time unchanged" {
  jq '.tests[].samples[] |= (.afpd_cpu_us = (.afpd_cpu_us * 1.2 | round))' "$T/aa.json" >"$T/cpu.json"
  judge "$T/cpu.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("aggregate.afpd_cpu_per_op") and all(test("cpu"))' "$T/verdict.json"
  [ "$(row aggregate.time_per_op .state)" = pass ]
}

@test "a slower head that the pairs cannot settle is inconclusive and says how many pairs would" {
  # head 8 % slower on average, pairs from -4 % to +20 %: straddles the 5 % threshold
  jq '.tests[].samples[] |= (.us = (.us * ([0.96, 1.02, 1.08, 1.14, 1.20][(.iteration - 1) % 5]) | round))' \
    "$T/aa.json" >"$T/wide.json"
  judge "$T/wide.json"
  [ "$status" -eq 2 ]
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op")
         | .state == "inconclusive" and .iterations_needed > 5 and (.reason | test("pairs would settle it"))' "$T/verdict.json"
  # what the run could have seen: the upper bound at 95 %, beyond the 5 %
  # threshold (else it would pass), in the summary and the headline
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op")
         | .limit_pct > 5 and .limit_confidence == 95 and .limit_pct < .interval[1]' "$T/verdict.json"
  jq -e '.summary | test("time/op; no change above \\+1[0-9.]+ % seen$")' "$T/verdict.json"
  jq -e '.headline | test("undecided \\(no change above \\+1[0-9].% seen; smaller ones are within this runner.s noise\\)")' \
    "$T/verdict.json"
}

@test "two timings undecided: the headline still says what the run could have seen, in fewer words" {
  # the longest wording (with "smaller ones are within this runner's noise")
  # leaves no room for "; 1 more undecided": the next one keeps the bound
  run jq -n -r -L "$SCRIPTS/jq" 'include "words";
    {state: "inconclusive", group: "aggregate", kind: "cpu", metric: "aggregate.afpd_cpu_per_op",
     ratio: 1.032, limit_pct: 34.7, interval: [-20, 40], threshold: 5} as $cpu
    | ($cpu | .metric = "aggregate.time_per_op" | .kind = "time" | .ratio = 1.01) as $time
    | headline({status: "inconclusive"}; [$cpu, $time]; "ab")'
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"undecided (no change above +35"*"% seen); 1 more undecided" ]]
}

@test "more pairs join as further iterations of both sides (add-pairs.jq); the settle note says what was added and why it stopped" {
  jq --slurpfile more "$FIXTURES/lantest-ab.json" -f "$SCRIPTS/jq/add-pairs.jq" "$FIXTURES/lantest-ab.json" >"$T/joined.json"
  jq -e '.config.iterations == 20 and .base.config.iterations == 20
         and all(.tests[], .base.tests[]; [.samples[].iteration] == [range(1; 21)])' "$T/joined.json"
  # a run stopped inside an iteration (at its cap): only its whole iterations
  # join, every test on both sides, numbered on
  jq '.tests[3].samples |= map(select(.iteration <= 6)) | .base.tests[7].samples |= map(select(.iteration != 3))' \
    "$FIXTURES/lantest-ab.json" >"$T/cut.json"
  jq --slurpfile more "$T/cut.json" -f "$SCRIPTS/jq/add-pairs.jq" "$FIXTURES/lantest-ab.json" >"$T/joined-cut.json"
  jq -e '.config.iterations == 15
         and all(.tests[], .base.tests[]; [.samples[].iteration] == [range(1; 16)])' "$T/joined-cut.json"
  # a plain run cannot be joined to an A/B one
  run jq --slurpfile more "$FIXTURES/lantest-a.json" -f "$SCRIPTS/jq/add-pairs.jq" "$FIXTURES/lantest-ab.json"
  [ "$status" -ne 0 ]
  [[ $output == *"both runs must be A/B runs"* ]]
  jq '.config.settle = {first_pairs: 10, pairs: 20, rounds: 1, budget_s: 300, seconds: 70, stopped: "budget"}' \
    "$T/joined.json" >"$T/settled.json"
  judge "$T/settled.json"
  jq -e '[.rows[] | select(.metric == "aggregate.time_per_op") | .pairs] == [20]' "$T/verdict.json"
  jq -e 'any(.notes[]; . == "A/B, sequential: 10 pairs, then 10 more in 1 round while a timing was undecided (70 s of AFPBENCH_AB_BUDGET=300 s): the budget allowed no more")' \
    "$T/verdict.json"
  # no round, nothing to say; a budget that allowed none says so
  jq '.config.settle = {first_pairs: 10, pairs: 10, rounds: 0, budget_s: 300, seconds: 1, stopped: "settled"}' \
    "$FIXTURES/lantest-ab.json" >"$T/none.json"
  judge "$T/none.json"
  run ! jq -e 'any(.notes[]; test("sequential|AFPBENCH_AB_BUDGET"))' "$T/verdict.json"
}

@test "too few pairs for a fail that holds over the family: 30 % slower is inconclusive, naming how many pairs" {
  # 5 pairs: the signed-rank tail reaches 1/32, not 0.05 / 6 (aggregates) nor
  # 0.05 / 48 (per-test rows)
  jq '(.tests, .base.tests)[] |= (.samples |= map(select(.iteration <= 5)))
      | .tests[].samples[] |= (.us = (.us * 1.3 | round))' "$T/aa.json" >"$T/five.json"
  judge "$T/five.json"
  [ "$status" -eq 2 ]
  [[ $(row aggregate.time_per_op .reason) == "time change +30 % over 5 pairs; a fail needs at least 7 pairs" ]]
  [ "$(row aggregate.time_per_op .iterations_needed)" -eq 7 ]
  [ "$(row lantest.4.time .iterations_needed)" -eq 10 ]
  [ "$(row aggregate.afpd_w_per_op .state)" = pass ]
}

@test "a lantest test's timing the pairs cannot settle is shown (info); the aggregates decide" {
  # one test 8 % slower on average, its pairs from -4 % to +20 %; the rest unchanged
  jq '(.tests[] | select(.key == "lantest.4") | .samples[]) |= (.us = (.us * ([0.96, 1.02, 1.08, 1.14, 1.20][(.iteration - 1) % 5]) | round))' \
    "$T/aa.json" >"$T/one-wide.json"
  judge "$T/one-wide.json"
  [ "$status" -eq 0 ]
  jq -e '.rows[] | select(.metric == "lantest.4.time")
         | .state == "info" and .reading == "inconclusive" and (.reason | test("the per-AFP-op aggregates decide$"))' "$T/verdict.json"
  [ "$(row aggregate.time_per_op .state)" = pass ]
}

@test "IO rows compare head with base: afpd writes +5 % on the head fail" {
  jq '.tests[].samples[] |= (if .afpd_w != null then .afpd_w = (.afpd_w * 1.05 | round) else . end)' \
    "$T/aa.json" >"$T/w5.json"
  judge "$T/w5.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("aggregate.afpd_w_per_op") and index("lantest.4.afpd_w")' "$T/verdict.json"
  # bulk transfers' write calls are shown, not gated
  [ "$(row lantest.2.afpd_w .state)" = info ]
}

@test "an A/B run given a baseline file as well is an error naming both" {
  merged "$T/aa.json" >"$T/results.json"
  merged "$FIXTURES/lantest-a.json" >"$T/other.json"
  run "$SCRIPTS/compare" --baseline "$T/other.json" --out "$T/verdict.json" "$T/results.json"
  [ "$status" -eq 3 ]
  jq -e '.errors[0] | contains("A/B run") and contains("other.json")' "$T/verdict.json"
}

@test "a test that failed on the base is an error row saying so; the other tests are still judged" {
  jq '.base.tests[4].status = "error" | .base.tests[4].error = "test 5, iteration 2: FPCreateFile: server died"' \
    "$T/aa.json" >"$T/base-err.json"
  judge "$T/base-err.json"
  [ "$status" -eq 3 ]
  [[ $(row lantest.5.time .reason) == "test failed in the base: test 5, iteration 2: FPCreateFile: server died" ]]
  [ "$(row lantest.1.time .state)" = pass ]
}

@test "merging A/B files with a plain one is refused, naming it" {
  run jq -n -L "$SCRIPTS/jq" --argjson extra '{}' -f "$SCRIPTS/jq/merge.jq" "$T/aa.json" "$FIXTURES/speedtest-a.json"
  [ "$status" -ne 0 ]
  [[ $output == *"speedtest-a.json without a base next to A/B files"* ]]
}

@test "report: A/B says the sides were measured together and names them Base and Head" {
  mkdir -p "$T/run"
  merged "$T/aa.json" >"$T/run/results.json"
  jq '.tests[].samples[] |= (.us = (.us * 1.3 | round))' "$T/aa.json" >"$T/slow.json"
  merged "$T/slow.json" >"$T/run/results.json"
  "$SCRIPTS/compare" --out "$T/run/verdict.json" "$T/run/results.json" || true
  "$SCRIPTS/report" "$T/run" 2>/dev/null
  grep -q '^Head and base, both netatalk 4.2.3, measured together;' "$T/run/report.md"
  grep -q '^| Measure | Base | Head | Change | Limit | Why |$' "$T/run/report.md"
  # (the findings share one reason here: said once above their table)
  grep -qE '^\| Test: measure \| Base \| Head \| Change \| Limit \|( Why \|)?$' "$T/run/report.md"
  # 30 % slower in every pair: the estimate and the interval say +30 %, and
  # the Head shown is the Base times that estimate, so the figures agree
  grep -q '| ❌.+30.% | 5 % | at least +30.% at 99.2 % confidence, beyond the 5 % limit |' "$T/run/report.md"
  grep -qE '^\| time \(µs\) \| [0-9.]+ \| ≈[0-9.]+ \| ❌' "$T/run/report.md"
}

@test "CPU rows under 20 ms per sample pass unjudged; a zero on both sides of a pair is no change" {
  # cnid_dbd: 20 µs per test on the base, 3x on the head: 240 and 720 µs per
  # iteration of the 12 tests, under the floor
  jq '(.base.tests, .tests)[].samples[] |= (.cnid_cpu_us = 20) | .tests[].samples[] |= (.cnid_cpu_us = 60)' \
    "$T/aa.json" >"$T/tiny.json"
  judge "$T/tiny.json"
  [ "$(row aggregate.cnid_cpu_per_op .state)" = pass ]
  [[ $(row aggregate.cnid_cpu_per_op .reason) == "under 20 ms of CPU per sample on both sides"* ]]
  # zeros on both sides: pairs with no change, not "too few pairs"
  jq '(.base.tests, .tests)[].samples[] |= (.afpd_cpu_us = 0)' "$T/aa.json" >"$T/zero.json"
  judge "$T/zero.json"
  [ "$(row lantest.4.afpd_cpu .state)" = pass ]
}

@test "A/B timings default to a 5 % threshold (10 % against a stored baseline); a set time threshold is used for both" {
  jq '.tests[].samples[] |= (.us = (.us * 1.07 | round))' "$T/aa.json" >"$T/slow7.json"
  judge "$T/slow7.json"
  [ "$status" -eq 1 ]
  [ "$(row aggregate.time_per_op .threshold)" = 5 ]
  [ "$(jq -r .thresholds.time "$T/verdict.json")" = 5 ]
  AFPBENCH_TIME_THRESHOLD=10 run "$SCRIPTS/compare" --out "$T/verdict.json" "$T/results.json"
  [ "$status" -eq 0 ]
  [ "$(row aggregate.time_per_op .threshold)" = 10 ]
}

@test "pairs too noisy for the most the gate can run: no number of pairs, the reason and the report say so" {
  # head pairs from -50 % to +100 % around no change (the scheduling lottery of
  # a busy machine): no pair count up to 255 would settle it
  jq '.tests[].samples[] |= (.us = (.us * ([0.5, 2.0, 0.6, 1.7, 0.8, 1.3, 0.9, 1.15, 1.0, 1.06][(.iteration - 1) % 10]) | round))' \
    "$T/aa.json" >"$T/lottery.json"
  judge "$T/lottery.json"
  [ "$status" -eq 2 ]
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op")
         | .state == "inconclusive" and .iterations_needed == null
           and (.reason | endswith("more than the 255 pairs the gate can run would be needed to settle it"))' "$T/verdict.json"
  # no row anywhere claims a pair count beyond what the gate can run
  jq -e 'all(.rows[]; (.iterations_needed // 0) <= 255)' "$T/verdict.json"
  "$SCRIPTS/report" "$T" 2>/dev/null
  grep -q 'too noisy here to settle' "$T/report.md"
  run ! grep -qE 'about [0-9]{4,} pairs|about 25[6-9] pairs' "$T/report.md"
}
