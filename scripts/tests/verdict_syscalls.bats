#!/usr/bin/env bats
# The server's system calls in the verdict (docs/verdict-format.md, "System
# calls"): families gated like IO counts, the timing-following calls shown,
# bulk transfers' data calls shown, cnid_dbd's floor, the calls that moved
# named, and no rows (one note) where a side counted none. On two REAL runs
# with counts (fixtures/README.md, "System calls"), one of them under two busy
# loops; variants are named jq transforms. No server needed.

bats_require_minimum_version 1.5.0

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  A=$FIXTURES/lantest-sys-a.json
  B=$FIXTURES/lantest-sys-b.json
  results_dir "$T/base" "$A"
  "$SCRIPTS/baseline" "$T/baseline.json" "$T/base" 2>/dev/null
}

# compare_with RAW [BASELINE]: compare a raw results file with the baseline.
compare_with() {
  mkdir -p "$T/run"
  merged "$1" >"$T/run/results.json"
  run "$SCRIPTS/compare" --baseline "${2:-$T/baseline.json}" --out "$T/run/verdict.json" "$T/run/results.json"
}

row() { jq -r --arg m "$1" ".rows[] | select(.metric == \$m) | $2" "$T/run/verdict.json"; }

# cnid_dbd's work calls in test 1 raised by N (fcntl: its locking)
cnid_test1_plus() { printf '(.tests[] | select(.key == "lantest.1") | .samples[]) |= (.cnid_sys.fcntl = ((.cnid_sys.fcntl // 0) + %d))' "$1"; }

@test "the fixtures carry every sample's system calls, by name, for afpd and cnid_dbd" {
  jq -e '.io_monitoring.syscalls.counted and .io_monitoring.syscalls.cnid_dbd' "$A" "$B"
  jq -e '[.tests[].samples[] | .afpd_sys, .cnid_sys] | all(type == "object")' "$A" "$B"
  jq -e '.tests[] | select(.key == "lantest.12") | .samples[0].afpd_sys.newfstatat > 100000' "$A"
}

@test "A/A, one of the two under busy loops: every system call row passes or is shown" {
  compare_with "$B"
  [ "$status" -eq 0 ]
  some_row_where "$T/run/verdict.json" '.kind == "sys" and .group == "aggregate"'
  [ "$(jq '[.rows[] | select(.kind == "sys")] | length' "$T/run/verdict.json")" -gt 90 ]
  no_row_where "$T/run/verdict.json" '(.kind | startswith("sys")) and .state != "pass" and .state != "info"'
  # per family and in total, per test and per AFP op; cnid_dbd in total
  for m in aggregate.afpd_sys_total_per_op aggregate.afpd_sys_stat_per_op aggregate.cnid_sys_total_per_op \
    lantest.12.afpd_sys_stat lantest.12.afpd_sys_directory lantest.12.afpd_sys_xattr lantest.5.cnid_sys_total; do
    [ "$(row "$m" .kind)" = sys ]
  done
  [ "$(row lantest.12.afpd_sys_stat .unit)" = syscalls ]
  [ "$(row aggregate.afpd_sys_stat_per_op .unit)" = syscalls/op ]
  # the timing-following calls are a family of their own, never gated
  [ "$(row aggregate.afpd_sys_wait_per_op .kind)" = sys_info ]
  # a bulk transfer's data calls (and so its total) follow the socket: shown
  [ "$(row lantest.3.afpd_sys_data .kind)" = sys_info ]
  [ "$(row lantest.3.afpd_sys_total .kind)" = sys_info ]
  [ "$(row lantest.3.afpd_sys_stat .kind)" = sys ]
  jq -e '.thresholds.sys == 2' "$T/run/verdict.json"
}

@test "no baseline (measure only): the system call rows are there, new, and the run passes" {
  mkdir -p "$T/run"
  merged "$A" >"$T/run/results.json"
  run "$SCRIPTS/compare" --out "$T/run/verdict.json" "$T/run/results.json"
  [ "$status" -eq 0 ]
  some_row_where "$T/run/verdict.json" '.kind == "sys" and .group == "aggregate"'
  some_row_where "$T/run/verdict.json" '.metric == "lantest.12.afpd_sys_stat"'
  no_row_where "$T/run/verdict.json" '(.kind | startswith("sys")) and .state != "new"'
  # no baseline: its column is empty
  "$SCRIPTS/syscall-table" "$T/run/results.json" | grep -qP '^lantest\.12\tafpd\tstat\tnewfstatat\t30000\t\t129900\t$'
}

@test "one more lstat per request fails, naming the call in the headline and the movers" {
  transform "$B" "$T/lstat.json" "$LSTAT_PER_REQUEST_TEST9"
  compare_with "$T/lstat.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("lantest.9.afpd_sys_stat") and index("aggregate.afpd_sys_stat_per_op")' "$T/run/verdict.json"
  jq -e '.decided_by | all(test("_sys_(stat|total)"))' "$T/run/verdict.json"
  jq -e '.rows[] | select(.metric == "lantest.9.afpd_sys_stat")
         | .movers[0] == {call: "lstat", baseline: 0, current: 11000, change_pct: null, process: "afpd"}' "$T/run/verdict.json"
  "$SCRIPTS/report" "$T/run" 2>/dev/null
  local head
  # no-break spaces keep "+20 %" on one line: compared as plain spaces
  head=$(sed -n 2p "$T/run/report.md" | sed 's/\xc2\xa0/ /g')
  [[ $head == '### ❌ afpbench: **fail** — Directory cache hits (100 dirs + 1000 files): afpd stat calls +20 % (limit 2 %): lstat 0 → 1 /op; '* ]]
  # the headline is at most 140 characters as a reader sees it
  local visible=${head#\#\#\# }
  visible=${visible//\*\*/}
  # characters, not bytes (the icon and the arrows are several bytes each)
  [ "$(printf '%s' "$visible" | LC_ALL=C.UTF-8 wc -m)" -le 140 ]
  grep -q '^<details><summary><b>System calls that moved</b>' "$T/run/report.md"
  grep -q '^| Directory cache hits (100 dirs + 1000 files) | afpd lstat | 0 | 1 | new |$' "$T/run/report.md"
  # the full table of calls, for the artifact
  "$SCRIPTS/syscall-table" "$T/run/results.json" "$T/baseline.json" >"$T/run/syscalls.tsv"
  [ "$(head -1 "$T/run/syscalls.tsv")" = "$(printf 'test\tprocess\tfamily\tcall\tafp_ops\tbaseline\tcurrent\tchange_pct')" ]
  grep -qP '^lantest\.9\tafpd\tstat\tlstat\t11000\t0\t11000\t$' "$T/run/syscalls.tsv"
  grep -qP '^lantest\.12\tafpd\tstat\tnewfstatat\t30000\t129900\t129900\t0$' "$T/run/syscalls.tsv"
}

@test "a test of one AFP command names it from its timed samples; a test of several kinds needs the pass" {
  # the fixtures have no per-command pass: test 9 sends FPGetFileDirParms
  # only (scripts/lantest-tests.json), test 1 five kinds
  transform "$B" "$T/lstat.json" "$LSTAT_PER_REQUEST_TEST9"
  jq '(.tests[] | select(.key == "lantest.1") | .samples[]) |= (.afpd_sys.lstat = ((.afpd_sys.lstat // 0) + 8000))' \
    "$T/lstat.json" >"$T/lstat1.json"
  compare_with "$T/lstat1.json"
  [ "$status" -eq 1 ]
  jq -e '.rows[] | select(.metric == "lantest.9.afpd_sys_stat") | .commands
         | length == 1 and .[0].command == "FPGetFileDirParms" and .[0].calls == {baseline: 11000, current: 11000}
           and .[0].moves[0] == {call: "lstat", baseline: 0, current: 1}' "$T/run/verdict.json"
  jq -e '.rows[] | select(.metric == "lantest.1.afpd_sys_stat")
         | .commands == null and (.commands_note | startswith("this run has no per-command pass"))' "$T/run/verdict.json"
  # the aggregate over both: named only where every test it covers is
  jq -e '.rows[] | select(.metric == "aggregate.afpd_sys_stat_per_op") | .commands == null' "$T/run/verdict.json"
}

@test "fewer calls beyond the threshold improve, naming the call" {
  # test 12's newfstatat down by 43 %, as a dircache setting did on netatalk 4.4
  transform "$B" "$T/fewer.json" '(.tests[] | select(.key == "lantest.12") | .samples[]) |= (.afpd_sys.newfstatat = (.afpd_sys.newfstatat * 0.57 | round))'
  compare_with "$T/fewer.json"
  [ "$status" -eq 0 ]
  [ "$(row lantest.12.afpd_sys_stat .state)" = improved ]
  jq -e '.rows[] | select(.metric == "lantest.12.afpd_sys_stat") | .movers[0].call == "newfstatat" and .movers[0].change_pct == -43' "$T/run/verdict.json"
}

@test "cnid_dbd's total moves by up to 50 calls a sample with nothing changed: 40 more pass, 60 more fail" {
  transform "$A" "$T/c40.json" "$(cnid_test1_plus 40)"
  compare_with "$T/c40.json"
  [ "$(row lantest.1.cnid_sys_total .state)" = pass ]
  [[ $(row lantest.1.cnid_sys_total .reason) == "within 50 syscalls ("* ]]
  transform "$A" "$T/c60.json" "$(cnid_test1_plus 60)"
  compare_with "$T/c60.json"
  [ "$status" -eq 1 ]
  [ "$(row lantest.1.cnid_sys_total .state)" = fail ]
  jq -e '.rows[] | select(.metric == "lantest.1.cnid_sys_total") | .movers[0] | .call == "fcntl" and .process == "cnid"' "$T/run/verdict.json"
}

@test "a baseline without system call counts: no per-test rows, the aggregates are new, one note" {
  jq '.tests[].samples[] |= del(.afpd_sys, .cnid_sys) | del(.io_monitoring.syscalls)' "$A" >"$T/old.json"
  results_dir "$T/old-base" "$T/old.json"
  "$SCRIPTS/baseline" "$T/old-baseline.json" "$T/old-base" 2>/dev/null
  compare_with "$B" "$T/old-baseline.json"
  [ "$status" -eq 0 ]
  no_row_where "$T/run/verdict.json" '(.kind | startswith("sys")) and .group != "aggregate"'
  jq -e '[.rows[] | select(.kind | startswith("sys"))] | length > 0 and all(.state == "new")' "$T/run/verdict.json"
  [[ $(row aggregate.afpd_sys_total_per_op .reason) == "the baseline has no system call counts for these tests" ]]
}

@test "counting refused in this run: no system call rows and the cause said once, never silently" {
  jq '.tests[].samples[] |= (.afpd_sys = null | .cnid_sys = null)
      | .io_monitoring.syscalls = {counted: false, method: null, cnid_dbd: false, share_fs: null,
                                   reason: "system call counting off: loading the counting program: Operation not permitted (needs root)"}' \
    "$B" >"$T/off.json"
  compare_with "$T/off.json"
  [ "$status" -eq 0 ]
  no_row_where "$T/run/verdict.json" '.kind | startswith("sys")'
  jq -e '[.notes[] | select(test("system call counting off: loading the counting program"))] | length == 1' "$T/run/verdict.json"
}

@test "the share on another filesystem than the baseline's: system call rows are shown, not compared" {
  jq '.io_monitoring.syscalls.share_fs = "xfs"' "$B" >"$T/xfs.json"
  transform "$T/xfs.json" "$T/xfs-lstat.json" "$LSTAT_PER_REQUEST_TEST9"
  compare_with "$T/xfs-lstat.json"
  [ "$status" -eq 0 ]
  [ "$(row lantest.9.afpd_sys_stat .state)" = info ]
  [ "$(row lantest.9.afpd_sys_stat .reason)" = "not compared: the share is on xfs now and was on overlay in the baseline" ]
  # IO still gates
  some_row_where "$T/run/verdict.json" '.kind == "io" and .state == "pass"'
}

@test "A/B: system calls compare head with base, and the report names the call" {
  jq -n --slurpfile a "$A" --slurpfile b "$B" '$b[0] + {base: $a[0], pairing: {scheme: "abba", unit: "test", pair_key: ["key", "iteration"]}}' \
    >"$T/ab.json"
  transform "$T/ab.json" "$T/ab-lstat.json" "$LSTAT_PER_REQUEST_TEST9"
  mkdir -p "$T/run"
  merged "$T/ab-lstat.json" >"$T/run/results.json"
  run "$SCRIPTS/compare" --out "$T/run/verdict.json" "$T/run/results.json"
  [ "$status" -eq 1 ]
  jq -e '.mode == "ab" and (.decided_by | index("lantest.9.afpd_sys_stat"))' "$T/run/verdict.json"
  # the table of calls takes the base from the results when no baseline is given
  "$SCRIPTS/syscall-table" "$T/run/results.json" >"$T/run/syscalls.tsv"
  grep -qP '^lantest\.9\tafpd\tstat\tlstat\t11000\t0\t11000\t$' "$T/run/syscalls.tsv"
}

@test "a CNID backend inside afpd (netatalk 4.4, cnid scheme = sqlite: a real run): no cnid_dbd rows, one note" {
  local q=$FIXTURES/lantest-sqlite.json
  jq -e '.io_monitoring.cnid_dbd_pid == null and .io_monitoring.syscalls.counted' "$q"
  results_dir "$T/q-base" "$q"
  "$SCRIPTS/baseline" "$T/q-baseline.json" "$T/q-base" 2>/dev/null
  compare_with "$q" "$T/q-baseline.json"
  [ "$status" -eq 0 ]
  no_row_where "$T/run/verdict.json" '.metric | test("cnid_")'
  some_row_where "$T/run/verdict.json" '.kind == "sys" and .metric == "aggregate.afpd_sys_total_per_op"'
  jq -e '[.notes[] | select(startswith("no cnid_dbd in this run or the baseline"))] | length == 1' "$T/run/verdict.json"
  # A/B: the base with a cnid_dbd (4.2.3), the head without (4.4 on SQLite):
  # cnid_dbd's rows go rather than read as "not measured"
  jq -n --slurpfile a "$A" --slurpfile q "$q" \
    '$q[0] + {base: ($a[0] | .tests |= map(select(.key as $k | ["lantest.1", "lantest.8", "lantest.9", "lantest.12"] | index($k)))),
              pairing: {scheme: "abba", unit: "test", pair_key: ["key", "iteration"]}}' >"$T/ab-q.json"
  mkdir -p "$T/abq"
  merged "$T/ab-q.json" >"$T/abq/results.json"
  run "$SCRIPTS/compare" --out "$T/abq/verdict.json" "$T/abq/results.json"
  no_row_where "$T/abq/verdict.json" '(.metric | test("cnid_")) or .state == "error"'
  jq -e '.notes | any(startswith("no cnid_dbd in this run (a CNID backend inside afpd"))' "$T/abq/verdict.json"
}

@test "a call table that is not one (hostile or broken file) is an error naming the test" {
  local bad
  for bad in '.afpd_sys = {"newfstatat": -4}' '.cnid_sys = {"../../etc": 1}' '.afpd_sys = "lots"' \
    '.afpd_sys = {"newfstatat": 1.5}'; do
    jq ".tests[0].samples[0] |= ($bad)" "$A" >"$T/bad.json"
    run "$SCRIPTS/compare" --baseline "$T/baseline.json" --out "$T/verdict.json" "$T/bad.json"
    [ "$status" -eq 3 ]
    jq -e '.errors[0] | test("test lantest.1 has a sample whose afpd_sys or cnid_sys is not a table of call names and counts")' "$T/verdict.json"
  done
}
