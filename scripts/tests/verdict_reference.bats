#!/usr/bin/env bats
# main's own run as the counts' reference (scripts/jq/reference.jq,
# docs/history.md "The reference"): a stored baseline made before main took a
# step fails a pull request that only carries main; with main's run at the
# merge-base as the reference it passes, and says at the top that the move is
# already on main. A regression on top of main still fails, naming only its
# own rows. On the REAL system call fixtures (fixtures/README.md) with named jq
# transforms. No server needed.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  # the stored baseline, made before main's step: afpd's writes halved
  transform "$FIXTURES/lantest-sys-a.json" "$T/stale-raw.json" \
    '.tests[].samples[] |= (.afpd_w |= (if . == null then null else (. / 2 | floor) end))'
  results_dir "$T/base" "$T/stale-raw.json"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base" 2>/dev/null
  # main at its merge-base: the software as it is now (the second real run)
  results_dir "$T/main" "$FIXTURES/lantest-sys-b.json"
  "$SCRIPTS/compare" --out "$T/main/verdict.json" "$T/main/results.json" >/dev/null 2>&1 || true
  reference_of "$T/main/verdict.json" "$T/reference.json"
}

# reference_of VERDICT OUT: main's run as the action hands it over: the count
# rows of main's record (io, sys, instr; src/action/reference.ts) and a step
# in main's history at c5c5c5c on afpd's writes per op.
reference_of() {
  jq '{schema: "afpbench-reference/1", commit: ("c3" * 20), merge_base: ("c3" * 20), behind: 0,
       date: "2026-11-25T10:00:00.000Z", branch: "main", runner: (.current.provenance.runner
         | "\(.cpu_model), \(.cores) cores\(if .container then ", container" else "" end)"),
       netatalk: .current.provenance.netatalk.version,
       values: ([.rows[] | select(.kind == "io" or .kind == "sys" or .kind == "instr") | select(.current != null)
                 | {key: .metric, value: .current}] | from_entries),
       steps: [{metric: "aggregate.afpd_w_per_op", commit: ("c5" * 20)}]}' "$1" >"$2"
}

# judge DIR RAW [ARGS...]: compare RAW with the stale baseline (ARGS: more
# compare options), then the report.
judge() {
  local dir=$1 raw=$2
  shift 2
  results_dir "$dir" "$raw"
  run "$SCRIPTS/compare" --baseline "$T/baseline.json" "$@" --out "$dir/verdict.json" "$dir/results.json"
  report_with "$dir" >/dev/null 2>&1
}

@test "a pull request equal to main: the stale baseline fails it; main's run as the reference passes it, naming the step" {
  judge "$T/without" "$FIXTURES/lantest-sys-b.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("aggregate.afpd_w_per_op")' "$T/without/verdict.json"
  judge "$T/with" "$FIXTURES/lantest-sys-b.json" --reference "$T/reference.json"
  [ "$status" -eq 0 ]
  local v="$T/with/verdict.json"
  # every afpd write row moved on main, none here: on_main, the step named
  jq -e '.reference.on_main | length >= 11 and (map(.metric) | index("aggregate.afpd_w_per_op"))' "$v"
  jq -e '.rows[] | select(.metric == "aggregate.afpd_w_per_op")
         | .state == "pass" and .main.on_main and .main.stored_state == "fail" and .main.since == ("c5" * 20)
           and (.reason | startswith("moved on main, not here (a step at c5c5c5c): against the stored baseline it rose +100 %"))' "$v"
  # timings still against the stored baseline (shown, not gated)
  jq -e '.rows[] | select(.metric == "aggregate.time_per_op") | .main == null and .state == "info"' "$v"
  # said at the top: the headline, then the line naming the step and the reference
  sed -n 2p "$T/with/report.md" | grep -q '✅ afpbench: \*\*pass\*\* — .*; 11 moved on main, not here'
  # shellcheck disable=SC2016  # backticks of Markdown, not a command
  sed -n 4p "$T/with/report.md" | grep -q '^\*\*Already on main\*\* since `c5c5c5c`: afpd writes per AFP op 0.528 → 1.06; '
  # shellcheck disable=SC2016  # backticks of Markdown, not a command
  sed -n 4p "$T/with/report.md" | grep -qF 'judged against `main` at `c3c3c3c` (the merge-base)'
  jq -e '.notes | any(startswith("the stored baseline trails main: 11 count rows moved on main"))' "$v"
}

@test "a regression on top of main still fails, and names only its own rows" {
  # the pull request adds one lstat per sample of test 9 to main's software
  transform "$FIXTURES/lantest-sys-b.json" "$T/pr-raw.json" \
    '(.tests[] | select(.id == 9) | .samples[]) |= (.afpd_sys.lstat = ((.afpd_sys.lstat // 0) + 11000))'
  judge "$T/pr" "$T/pr-raw.json" --reference "$T/reference.json"
  [ "$status" -eq 1 ]
  local v="$T/pr/verdict.json"
  # what failed is the stat calls of test 9 (and the per-op aggregates they
  # carry), never the writes main took
  jq -e '.decided_by | length > 0 and all(test("stat|sys_total"))' "$v"
  jq -e '[.rows[] | select(.state == "fail") | .reason] | all(test("against main at c3c3c3c"))' "$v"
  jq -e '.rows[] | select(.metric == "aggregate.afpd_w_per_op") | .state == "pass" and .main.on_main' "$v"
  sed -n 2p "$T/pr/report.md" | grep -q 'fail.*stat'
}

@test "a broken or foreign reference is an error naming it; an A/B run has no reference" {
  printf '{"schema": "afpbench-reference/1", "commit": "x", "values": {"a": "1"}}\n' >"$T/bad.json"
  judge "$T/bad" "$FIXTURES/lantest-sys-b.json" --reference "$T/bad.json"
  [ "$status" -eq 3 ]
  jq -e --arg f "$T/bad.json" '.errors | any(. == "reference \($f): not an afpbench-reference/1 file (schema, commit and numeric values)")' "$T/bad/verdict.json"
  judge "$T/missing" "$FIXTURES/lantest-sys-b.json" --reference "$T/nothing.json"
  [ "$status" -eq 3 ]
  jq -e '.errors | any(test("nothing.json: no such file"))' "$T/missing/verdict.json"
  # A/B: the base was measured with the head; main's figures play no part
  mkdir -p "$T/ab"
  cp "$FIXTURES/lantest-ab.json" "$T/ab/lantest.json"
  merged "$FIXTURES/lantest-ab.json" >"$T/ab/results.json"
  run "$SCRIPTS/compare" --reference "$T/reference.json" --out "$T/ab/verdict.json" "$T/ab/results.json"
  jq -e '.mode == "ab" and .reference == null and all(.rows[]; .main == null)' "$T/ab/verdict.json"
}

@test "a row whose stored baseline is far from main's figure keeps no per-call breakdown, which compared with that baseline" {
  # a stored baseline with half of test 9's newfstatat calls: its per-call
  # movers would name newfstatat, a move main made
  transform "$FIXTURES/lantest-sys-a.json" "$T/halfstat-raw.json" \
    '(.tests[] | select(.id == 9) | .samples[]) |= (.afpd_sys.newfstatat = (.afpd_sys.newfstatat / 2 | floor))'
  results_dir "$T/base2" "$T/halfstat-raw.json"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base2" 2>/dev/null
  judge "$T/far" "$FIXTURES/lantest-sys-b.json" --reference "$T/reference.json"
  local v="$T/far/verdict.json"
  jq -e '.rows[] | select(.metric == "lantest.9.afpd_sys_stat") | .state == "pass" and .main.on_main and .main.breakdown != null' "$v"
  jq -e '[.rows[] | select(.main.breakdown != null)] | length > 0 and all(.movers == null and .commands == null)' "$v"
  # without the reference the same row names the call
  judge "$T/far0" "$FIXTURES/lantest-sys-b.json"
  jq -e '[.rows[] | select(.metric == "lantest.9.afpd_sys_stat") | .movers[0].call] == ["newfstatat"]' "$T/far0/verdict.json"
}
