#!/usr/bin/env bats
# The instruction rows of the verdict (scripts/jq/instr.jq, verdict.jq), the
# report's "Functions that moved" and scripts/instr-functions, on two REAL
# instrumented runs (fixtures/instr-{a,b}.json) and variants derived from
# them. The real instrumented server is driven in instr.bats.

bats_require_minimum_version 1.5.0

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  merged "$FIXTURES/instr-a.json" >"$T/a.json"
  merged "$FIXTURES/instr-b.json" >"$T/b.json"
}

# rows FILE FILTER: "metric state" of the instr rows matching FILTER
instr_rows() { jq -r '.rows[] | select(.kind == "instr") | "\(.metric) \(.state)"' "$1"; }
field() { jq -r --arg m "$2" ".rows[] | select(.metric == \$m) | $3" "$1"; }

# +N % of afpd instructions in test KEY, all on function FN (per session)
inject() {
  jq --arg k "$2" --arg f "$3" --argjson pct "$4" '
    .tests |= map(if .key == $k then
      ((.samples | map(.afpd_instr) | add / length) * $pct / 100 | round) as $add
      | .samples[] |= (.afpd_instr += $add)
      | .instr_functions[$f] = ((.instr_functions[$f] // 0) + $add)
    else . end)' "$1"
}

@test "two real runs of the same server: the instr rows pass, per test and aggregate" {
  run "$SCRIPTS/compare" --baseline "$T/a.json" --out "$T/v.json" "$T/b.json"
  instr_rows "$T/v.json"
  [ "$(instr_rows "$T/v.json")" = "$(printf '%s\n' 'aggregate.afpd_instr_per_op pass' \
    'lantest.4.afpd_instr_per_op pass' 'lantest.8.afpd_instr_per_op pass')" ]
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .unit)" = instr/op ]
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .threshold)" = 2 ]
  # timings under valgrind are not gated, and the note says so
  jq -e '.notes | any(startswith("timings not gated: measured under valgrind"))' "$T/v.json"
  jq -e '.notes | any(startswith("instructions: afpd only"))' "$T/v.json"
  [ -z "$(jq -r '.rows[] | select(.state == "fail") | .metric' "$T/v.json")" ]
}

@test "+3 % of work in one function fails its test and the aggregate, and names that function first" {
  inject "$T/b.json" lantest.8 dircache_search_by_did 3 >"$T/b3.json"
  run "$SCRIPTS/compare" --baseline "$T/a.json" --out "$T/v.json" "$T/b3.json"
  [ "$status" -eq 1 ]
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .state)" = fail ]
  [ "$(field "$T/v.json" lantest.4.afpd_instr_per_op .state)" = pass ]
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op '.movers[0].function')" = dircache_search_by_did ]
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op '.movers | length')" -eq 5 ]
  # movers carry base, current, change and percent
  jq -e '.rows[] | select(.metric == "lantest.8.afpd_instr_per_op") | .movers[0]
         | .change > 0 and .current - .baseline == .change and (.change_pct | type) == "number"' "$T/v.json"
  # the report shows them for the failing row; the full table is a file
  mkdir -p "$T/r" && cp "$T/v.json" "$T/r/verdict.json"
  "$SCRIPTS/report" "$T/r"
  grep -q '^\*\*Functions that moved\*\*' "$T/r/report.md"
  grep -q '^| dircache\\_search\\_by\\_did | ' "$T/r/report.md"
  "$SCRIPTS/instr-functions" "$T/b3.json" "$T/a.json" >"$T/f.tsv"
  head -1 "$T/f.tsv" | grep -qx $'test\tfunction\tbaseline\tcurrent\tchange\tchange_pct'
  grep -qP '^lantest\.8\tdircache_search_by_did\t' "$T/f.tsv"
}

@test "+1 % stays within the 2 % threshold; AFPBENCH_INSTR_THRESHOLD=0.5 makes it fail" {
  inject "$T/a.json" lantest.8 ochdir 1 >"$T/a1.json"
  run "$SCRIPTS/compare" --baseline "$T/a.json" --out "$T/v.json" "$T/a1.json"
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .state)" = pass ]
  AFPBENCH_INSTR_THRESHOLD=0.5 run "$SCRIPTS/compare" --baseline "$T/a.json" --out "$T/v.json" "$T/a1.json"
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .threshold)" = 0.5 ]
  # beyond 0.5 % and beyond the spread of these samples (0.4 %)
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .state)" = fail ]
}

@test "a baseline without counts: the rows are new; a run without counts against one with: a note, no rows" {
  run "$SCRIPTS/compare" --baseline "$FIXTURES/lantest-a.json" --out "$T/v.json" "$T/b.json"
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .state)" = new ]
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .reason)" = "the baseline has no afpd instruction counts" ]
  run "$SCRIPTS/compare" --baseline "$T/a.json" --out "$T/v.json" "$(
    merged "$FIXTURES/lantest-b.json" >"$T/plain.json"
    echo "$T/plain.json"
  )"
  [ -z "$(instr_rows "$T/v.json")" ]
  jq -e '.notes | any(test("the baseline has afpd instruction counts, this run does not"))' "$T/v.json"
}

@test "counted with another tool: inconclusive; on a CPU with other flags: a note, still gated" {
  jq '.runs[0].instr.tool = "cachegrind"' "$T/a.json" >"$T/a-cg.json"
  run "$SCRIPTS/compare" --baseline "$T/a-cg.json" --out "$T/v.json" "$T/b.json"
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .state)" = inconclusive ]
  [[ $(field "$T/v.json" lantest.8.afpd_instr_per_op .reason) == "not comparable: counted with cachegrind in the baseline, callgrind now" ]]
  jq '.runs[0].instr.cpu_flags = "fpu sse2"' "$T/a.json" >"$T/a-cpu.json"
  inject "$T/b.json" lantest.8 ochdir 3 >"$T/b3.json"
  run "$SCRIPTS/compare" --baseline "$T/a-cpu.json" --out "$T/v.json" "$T/b3.json"
  jq -e '.notes | any(test("other feature flags"))' "$T/v.json"
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .state)" = fail ]
}

@test "malformed counts from a file are never trusted: that test's rows say not measured" {
  jq '.tests[1].samples[0].afpd_instr = -5 | .tests[1].instr_functions = {"x": "y"}' "$T/b.json" >"$T/bad.json"
  run "$SCRIPTS/compare" --baseline "$T/a.json" --out "$T/v.json" "$T/bad.json"
  [ "$(field "$T/v.json" lantest.8.afpd_instr_per_op .state)" = inconclusive ]
  [[ $(field "$T/v.json" lantest.8.afpd_instr_per_op .reason) == "not measured in this run"* ]]
  "$SCRIPTS/instr-functions" "$T/bad.json" "$T/a.json" >/dev/null
}

@test "under valgrind an IO row that would fail is shown, not gated; without counts it still fails" {
  # afpd writes doubled: beyond any threshold and spread
  transform "$T/b.json" "$T/b-io.json" '.tests[].samples[] |= (.afpd_w *= 2)'
  run "$SCRIPTS/compare" --baseline "$T/a.json" --out "$T/v.json" "$T/b-io.json"
  [ "$(field "$T/v.json" lantest.8.afpd_w .state)" = info ]
  [ "$(field "$T/v.json" lantest.8.afpd_w .reading)" = fail ]
  [[ $(field "$T/v.json" lantest.8.afpd_w .reason) == "measured under valgrind"* ]]
  # the same files without their instr blocks: a plain IO failure
  jq 'del(.runs[].instr)' "$T/a.json" >"$T/a-plain.json"
  jq 'del(.runs[].instr)' "$T/b-io.json" >"$T/b-plain.json"
  run "$SCRIPTS/compare" --baseline "$T/a-plain.json" --out "$T/v.json" "$T/b-plain.json"
  [ "$(field "$T/v.json" lantest.8.afpd_w .state)" = fail ]
}
