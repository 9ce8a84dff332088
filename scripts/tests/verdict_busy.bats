#!/usr/bin/env bats
# How busy the machine was: the share of the time afpd had work that it spent
# waiting for a CPU (the samples' afpd_wait_us against afpd_cpu_us), in
# verdict.json (cpu_wait of each side), in the report's Environment table, and
# as a note when it passes busy_wait_pct (10 %). On REAL runs (fixtures/README.md,
# "Waiting for a CPU"): one with a core to spare, one beside two busy loops. The
# note never changes a state. No server needed.

setup() {
  bats_require_minimum_version 1.5.0
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  IDLE="$FIXTURES/lantest-wait-idle.json"
  BUSY="$FIXTURES/lantest-wait-busy.json"
}

# wait_pct RAW: the share from a raw fixture, computed here from its samples.
wait_pct() {
  jq '[.tests[].samples[]] | (map(.afpd_wait_us) | add) as $w | (map(.afpd_cpu_us) | add) as $c
      | $w / ($w + $c) * 100' "$1"
}

@test "the fixtures are what they claim: every sample has afpd's wait, the busy run waited more than 10 %, the idle one less" {
  jq -e '[.tests[].samples[] | .afpd_wait_us | numbers] | length == 10' "$IDLE"
  jq -e '[.tests[].samples[] | .afpd_wait_us | numbers] | length == 10' "$BUSY"
  awk -v i="$(wait_pct "$IDLE")" -v b="$(wait_pct "$BUSY")" 'BEGIN { exit !(i < 10 && b > 10) }'
}

@test "a quiet run against a quiet baseline: both shares in verdict.json and the Environment table, no note" {
  results_dir "$T/a" "$IDLE"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/a" 2>/dev/null
  results_dir "$T/b" "$IDLE"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/b/verdict.json" "$T/b/results.json"
  [ "$status" -eq 0 ]
  local v="$T/b/verdict.json"
  jq -e --argjson p "$(wait_pct "$IDLE")" '
    (.current.cpu_wait.pct - $p | fabs) < 0.05 and (.baseline.cpu_wait.pct - $p | fabs) < 0.05
    and .current.cpu_wait.wait_us > 0 and .current.cpu_wait.cpu_us > 0' "$v"
  jq -e '.notes | all(test("busy") | not)' "$v"
  "$SCRIPTS/report" "$T/b" 2>/dev/null
  grep -E '^\| afpd waiting for a CPU \| [0-9.]+ % \| [0-9.]+ % \|$' "$T/b/report.md"
  run ! grep -q 'machine was busy' "$T/b/report.md"
}

@test "a busy run: the note names the share of both sides and says the counts are not affected; the rows' states are those of the quiet run" {
  results_dir "$T/a" "$IDLE"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/a" 2>/dev/null
  results_dir "$T/b" "$BUSY"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/b/verdict.json" "$T/b/results.json"
  [ "$status" -ne 3 ]
  local v="$T/b/verdict.json" busy idle
  busy=$(jq '.current.cpu_wait.pct' "$v")
  idle=$(jq '.baseline.cpu_wait.pct' "$v")
  jq -e --argjson p "$(wait_pct "$BUSY")" '(.current.cpu_wait.pct - $p | fabs) < 0.05' "$v"
  jq -e --arg b "$busy" --arg i "$idle" \
    '[.notes[] | select(startswith("the machine was busy: afpd waited for a CPU \($b) % of the time it had work (baseline: \($i) %)"))
     | select(endswith("(the counts are not affected)"))] | length == 1' "$v"
  # against a stored baseline a busy machine is said, not judged: the same
  # states as the busy run's counts give without the waits
  jq 'del(.tests[].samples[].afpd_wait_us)' "$BUSY" >"$T/nowait.json"
  results_dir "$T/c" "$T/nowait.json"
  "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/c/verdict.json" "$T/c/results.json" || true
  [ "$(jq -c '[.rows[] | [.metric, .state]]' "$v")" = "$(jq -c '[.rows[] | [.metric, .state]]' "$T/c/verdict.json")" ]
  jq -e '.current.cpu_wait == null and (.notes | all(test("busy") | not))' "$T/c/verdict.json"
  "$SCRIPTS/report" "$T/b" 2>/dev/null
  grep -qF "the machine was busy: afpd waited for a CPU $busy %" "$T/b/report.md"
}

@test "A/B: a busy base side alone is enough for the note, which names the base (transform of the real A/B run: base waited 30 %, head 2 %)" {
  # wait = cpu * share / (1 - share), per sample
  jq '.tests[].samples[] |= . + {afpd_wait_us: (.afpd_cpu_us * 2 / 98 | floor)}
      | .base.tests[].samples[] |= . + {afpd_wait_us: (.afpd_cpu_us * 30 / 70 | floor)}' \
    "$FIXTURES/lantest-ab.json" >"$T/ab.json"
  results_dir "$T/r" "$T/ab.json"
  "$SCRIPTS/compare" --out "$T/r/verdict.json" "$T/r/results.json" 2>/dev/null || true
  jq -e '(.baseline.cpu_wait.pct - 30 | fabs) < 0.1 and (.current.cpu_wait.pct - 2 | fabs) < 0.1' "$T/r/verdict.json"
  jq -e '[.notes[] | select(. == "the machine was busy: afpd waited for a CPU 2 % of the time it had work (base: 30 %); timings swing with the other work on it (the counts are not affected)")]
          | length == 1' "$T/r/verdict.json"
  "$SCRIPTS/report" "$T/r" 2>/dev/null
  grep -E '^\| afpd waiting for a CPU \| 30 % \| 2 % \|$' "$T/r/report.md"
}

@test "runs from before afpd's wait was measured: no cpu_wait, no note, no Environment row" {
  results_dir "$T/a" "$FIXTURES/lantest-a.json"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/a" 2>/dev/null
  results_dir "$T/b" "$FIXTURES/lantest-b.json"
  "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/b/verdict.json" "$T/b/results.json" || true
  jq -e '.current.cpu_wait == null and .baseline.cpu_wait == null' "$T/b/verdict.json"
  jq -e '.notes | all(test("busy") | not)' "$T/b/verdict.json"
  "$SCRIPTS/report" "$T/b" 2>/dev/null
  run ! grep -q 'waiting for a CPU' "$T/b/report.md"
}
