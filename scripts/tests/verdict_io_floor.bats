#!/usr/bin/env bats
# The count rows' floors (docs/verdict-format.md, "IO counts" and "System
# calls"): a count that moves by at most one syscall (afpd) or five (cnid_dbd)
# passes, whatever its percentage; for the per-AFP-op aggregates the move is
# counted in syscalls over the AFP ops of one iteration. On the REAL lantest fixture (fixtures/README.md) with
# named jq transforms (fixtures/verdict-helpers.bash). No server needed.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  # cnid_dbd reads without spread on either side: any rise beyond 2 % would
  # fail on the threshold and spread alone, so only the floor can pass it
  transform "$T/a-quiet.json" "$T/steady.json" "$CNID_R_STEADY"
}

# baseline_of RAW: make $T/baseline.json from one raw results file.
baseline_of() {
  rm -rf "$T/base"
  results_dir "$T/base" "$1"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base" 2>/dev/null
}

# compare_with RAW: compare a raw results file with $T/baseline.json.
compare_with() {
  merged "$1" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/current.json"
}

row() { jq -r --arg m "$1" ".rows[] | select(.metric == \$m) | $2" "$T/verdict.json"; }

@test "the fixture's AFP ops per iteration, which the aggregate reasons below count over" {
  [ "$(jq '[.tests[].afp_ops] | add' "$FIXTURES/lantest-a.json")" -eq 80684 ]
}

@test "cnid_dbd reads: a move of up to five per iteration passes, within five syscalls" {
  # as measured (the idle-gate case): 15 cnid_dbd reads in the baseline's
  # median iteration, with spread; cnid_dbd's counts move by a few requests
  # with nothing changed (docs/verdict-format.md, "System calls")
  baseline_of "$T/a-quiet.json"
  transform "$T/a-quiet.json" "$T/plus1.json" "$CNID_R_TEST1_PLUS_1"
  compare_with "$T/plus1.json"
  [ "$status" -eq 0 ]
  [ "$(row aggregate.cnid_r_per_op .state)" = pass ]
  [ "$(row aggregate.cnid_r_per_op .ratio)" = 1.0667 ]
  [ "$(row aggregate.cnid_r_per_op .reason)" = "within 5 syscalls (15 → 16 over 80,684 AFP ops)" ]
  # per-test row: 0 -> 1, which from a baseline of 0 was a fail
  [ "$(row lantest.1.cnid_r .state)" = pass ]
  [ "$(row lantest.1.cnid_r .reason)" = "within 5 syscalls (0 → 1)" ]

  # without spread on either side (so threshold and spread alone would fail it)
  baseline_of "$T/steady.json"
  transform "$T/steady.json" "$T/steady-plus5.json" "$CNID_R_TEST1_PLUS_5"
  compare_with "$T/steady-plus5.json"
  [ "$status" -eq 0 ]
  jq -e '.rows[] | select(.metric == "aggregate.cnid_r_per_op")
         | .noise == 0 and .ratio > 1.02 and .state == "pass"
           and .reason == "within 5 syscalls (12 → 17 over 80,684 AFP ops)"' "$T/verdict.json"
  jq -e '.rows[] | select(.metric == "lantest.1.cnid_r") | .noise == 0 and .state == "pass"' "$T/verdict.json"
}

@test "cnid_dbd reads: six more beyond the threshold and the spread fail; the floor hides no real rise" {
  baseline_of "$T/steady.json"
  transform "$T/steady.json" "$T/plus6.json" "$CNID_R_TEST1_PLUS_6"
  compare_with "$T/plus6.json"
  [ "$status" -eq 1 ]
  [ "$(row aggregate.cnid_r_per_op .state)" = fail ]
  [[ $(row aggregate.cnid_r_per_op .reason) == "rose +50 % "* ]]
  [ "$(row lantest.1.cnid_r .state)" = fail ]
  jq -e '.decided_by | index("aggregate.cnid_r_per_op") and index("lantest.1.cnid_r")' "$T/verdict.json"
  # only cnid_dbd reads decide
  jq -e '.decided_by | all(test("cnid_r"))' "$T/verdict.json"
}

@test "cnid_dbd reads near zero: 2 -> 0 is no improvement; a fall within the spread says so" {
  baseline_of "$T/steady.json"
  transform "$T/steady.json" "$T/minus2.json" "$CNID_R_TEST8_MINUS_2"
  compare_with "$T/minus2.json"
  [ "$status" -eq 0 ]
  [ "$(row lantest.8.cnid_r .ratio)" = 0 ]
  [ "$(row lantest.8.cnid_r .state)" = pass ]
  [ "$(row lantest.8.cnid_r .reason)" = "within 5 syscalls (2 → 0)" ]
  transform "$T/steady.json" "$T/noisy.json" "$CNID_R_TEST8_MINUS_2_NOISY"
  compare_with "$T/noisy.json"
  [ "$(row lantest.8.cnid_r .state)" = pass ]
}

@test "afpd writes: one more per sample passes within one syscall, two more fail" {
  # a 1 % threshold puts 50 -> 51 (+2 %) beyond it, so only the floor passes it
  baseline_of "$T/a-quiet.json"
  transform "$T/a-quiet.json" "$T/w1.json" "$AFPD_W_TEST6_PLUS_1"
  AFPBENCH_IO_THRESHOLD=1 compare_with "$T/w1.json"
  [ "$(row lantest.6.afpd_w .state)" = pass ]
  [ "$(row lantest.6.afpd_w .reason)" = "within one syscall (50 → 51)" ]
  transform "$T/a-quiet.json" "$T/w2.json" "$AFPD_W_TEST6_PLUS_2"
  AFPBENCH_IO_THRESHOLD=1 compare_with "$T/w2.json"
  [ "$status" -eq 1 ]
  [ "$(row lantest.6.afpd_w .state)" = fail ]
}

@test "afpd writes per op +5 % is thousands of syscalls per iteration: still a fail" {
  baseline_of "$T/a-quiet.json"
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  compare_with "$T/w5.json"
  [ "$status" -eq 1 ]
  [ "$(row aggregate.afpd_w_per_op .state)" = fail ]
  # and a per-test row whose +5 % is a few syscalls: 50 -> 53 in test 6
  [ "$(row lantest.6.afpd_w .state)" = fail ]
}

@test "a test's count that rises within its own samples' spread is shown, not decided; the aggregate decides" {
  # test 10's cnid_dbd writes as measured on unchanged software (bench/unchanged,
  # a two-session baseline, 2026-11-24): 1200 or about 1250 a sample, by when
  # cnid_dbd flushed; the baseline's median between the two, this run's on
  # the upper one
  local b='[1200, 1248, 1254, 1256, 1200, 1200, 1200, 1250, 1253, 1202]' c='[1200, 1251, 1253, 1257, 1201]'
  transform "$T/a-quiet.json" "$T/b10.json" \
    "(.tests[] | select(.key == \"lantest.10\") | .samples) |= [range(10) as \$i | .[\$i % length] + {iteration: (\$i + 1), cnid_w: ($b)[\$i]}]"
  transform "$T/a-quiet.json" "$T/c10.json" \
    "(.tests[] | select(.key == \"lantest.10\") | .samples) |= [to_entries[] | .value + {cnid_w: ($c)[.key]}]"
  baseline_of "$T/b10.json"
  compare_with "$T/c10.json"
  [ "$status" -eq 0 ]
  [ "$(row lantest.10.cnid_w .state)" = info ]
  [ "$(row lantest.10.cnid_w .reading)" = inconclusive ]
  [[ $(row lantest.10.cnid_w .reason) == "undecided, shown: rose +2.1 % but within the spread of the samples (57); the per-AFP-op aggregates decide" ]]
  [ "$(row aggregate.cnid_w_per_op .state)" = pass ]
  # beyond the spread it still fails on its own
  transform "$T/c10.json" "$T/c10-up.json" \
    '(.tests[] | select(.key == "lantest.10") | .samples[].cnid_w) |= . + 80'
  compare_with "$T/c10-up.json"
  [ "$status" -eq 1 ]
  [ "$(row lantest.10.cnid_w .state)" = fail ]
}
