#!/usr/bin/env bats
# A/B end to end, the timings: two REAL netatalk servers (scripts/local-server,
# ports 10640 = base and 10641 = head, scripts/tests/lib/gate-ab.bash) measured
# together through scripts/gate (BASE_AFP_HOST/BASE_AFP_PORT). An A/A never
# fails (sequential pairs, as the gate's default); a slowdown injected into
# the head's afpd (scripts/tests/lib/inject-slowdown.c, built here, tests
# only) fails its time. These judge wall
# time: scripts/test-all runs this file beside one other job at most (cpu!),
# as a shared CI runner would; the pairs carry that load to both sides
# alike. The counts-only A/B tests
# are in gate_ab_counts.bats. Needs root, like the server tests.

bats_require_minimum_version 1.5.0

# shellcheck disable=SC2034  # read by lib/gate-ab.bash
readonly BASE_PORT=10640 HEAD_PORT=10641

load lib/gate-ab

@test "a slowdown injected into the head's afpd (CPU per reply, no IO) fails time and server CPU, never IO" {
  AFPBENCH_INJECT_US=40 restart_head --preload "$AB_DIR/inject.so"
  ab_gate slow
  [ "$status" -eq 1 ]
  local v="$AB_DIR/slow/verdict.json"
  jq -e '.decided_by | index("aggregate.time_per_op") and index("aggregate.afpd_cpu_per_op")' "$v"
  [[ $(row slow aggregate.time_per_op .reason) == "time worse by "* ]]
  some_row_where "$v" '.kind == "io"'
  # IO is decided per test; the aggregate reads and writes per op are shown only (info)
  no_row_where "$v" '.kind == "io" and (.state | IN("pass", "info") | not)'
  no_row_where "$v" '.kind == "io" and .state == "info" and (.metric | startswith("aggregate.") | not)'
}

# The A/A of this file: sequential, as the gate runs A/B by default (one A/A
# run here, not two: this file judges wall time and runs nearly alone).
@test "A/A on two identical servers, sequential: never a fail; 2 pairs get more while a timing is undecided, up to the budget; both sides' samples and the pairing kept; the report says so" {
  restart_head
  AB_PAIRS=2 AB_BUDGET=30 ab_gate seq
  [ "$status" -eq 0 ] || [ "$status" -eq 2 ]
  local r="$AB_DIR/seq/lantest.json" v="$AB_DIR/seq/verdict.json" n
  local results="$AB_DIR/seq/results.json"
  jq -e '.pairing.scheme == "abba" and (.base.tests | length) == 2 and (.tests | length) == 2' "$results"
  jq -e '[.tests[].samples[] | .order, .afpd_cpu_us, .afpd_rchar] | all(type == "number")' "$results"
  jq -e '.mode == "ab"' "$v"
  # α split between the 3 aggregates and the 4 per-test timing rows (time and
  # server CPU of each test), each group's share halved again (two groups)
  [ "$(row seq aggregate.time_per_op .family)" -eq 6 ]
  [ "$(row seq lantest.4.time .family)" -eq 8 ]
  grep -q 'measured together;' "$AB_DIR/seq/report.md"
  # both servers' test directories are gone from their shares (the base's end in b)
  local share
  for share in "/var/cache/afpbench/server/instances/"{"$BASE_PORT","$HEAD_PORT"}/root/mnt/afpshare; do
    [ -d "$share" ]
    [ -z "$(find "$share" -maxdepth 1 -name 'LanTest-*')" ]
  done
  # 2 pairs cannot decide the aggregates (a fail needs 7): a round at least
  jq -e '.config.settle | .first_pairs == 2 and .rounds >= 1 and .pairs > 2 and .budget_s == 30
         and (.stopped | IN("settled", "budget", "noise"))' "$r"
  n=$(jq '.config.settle.pairs' "$r")
  # every test has that many pairs, numbered 1..n on both sides, each pair's
  # two sides in opposite order
  jq -e --argjson n "$n" '.config.iterations == $n and .base.config.iterations == $n
         and all(.tests[], .base.tests[]; [.samples[].iteration] == [range(1; $n + 1)])
         and ([.tests[] as $t | $t.samples[] as $s | .base.tests[] | select(.key == $t.key)
               | .samples[] | select(.iteration == $s.iteration) | .order + $s.order == 3] | all)' "$r"
  # the rounds' raw files are kept
  [ -s "$AB_DIR/seq/settle/lantest-1.json" ]
  # the pairs ran on one CPU with both servers' processes (AFPBENCH_CPU=auto,
  # A/B's default), and the volumes' cnid_dbd are back on every CPU after
  local f pid mine
  for f in "$r" "$AB_DIR/seq/settle/lantest-1.json"; do
    jq -e '.cpu_pin.asked == "auto" and (.cpu_pin.cpu | type) == "number" and .cpu_pin.note == null' "$f"
  done
  mine=$(sed -n 's/^Cpus_allowed_list:\s*//p' /proc/self/status)
  for pid in $(jq -r '.io_monitoring.cnid_dbd_pid, .base.io_monitoring.cnid_dbd_pid' "$r"); do
    [ "$(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$pid/status")" = "$mine" ]
  done
  [ "$(row seq aggregate.time_per_op .pairs)" -eq "$n" ]
  no_row_where "$v" '.state == "fail" or .state == "error"'
  jq -e --argjson n "$n" 'any(.notes[]; startswith("A/B, sequential: 2 pairs, then \($n - 2) more in "))' "$v"
  # a timing still undecided says what the run could have seen
  if [ "$status" -eq 2 ]; then
    jq -e '[.rows[] | select(.state == "inconclusive" and .pairs != null)] | length > 0
           and all(.limit_pct > 0 and .limit_confidence == 95)' "$v"
    jq -e '.summary | test("no change above \\+[0-9.]+ % seen$")' "$v"
    # the report keeps "+35 %" together with a no-break space (two bytes:
    # a "." would match it only in a UTF-8 locale)
    grep -qE "no change above \+[0-9.]+($(printf '\xc2\xa0')| )% seen" "$AB_DIR/seq/report.md"
  fi
}
