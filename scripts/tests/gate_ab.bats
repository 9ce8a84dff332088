#!/usr/bin/env bats
# A/B end to end: two REAL netatalk servers (scripts/local-server, ports 10590
# = base and 10591 = head) measured together through scripts/gate
# (BASE_AFP_HOST/BASE_AFP_PORT). The head is restarted with what a test
# changes: a slowdown injected into afpd (scripts/tests/lib/inject-slowdown.c,
# built here, tests only) or other settings (--afp-conf). Needs root, like the
# server tests.

bats_require_minimum_version 1.5.0

readonly BASE_PORT=10590 HEAD_PORT=10591
# Short tests without the set-up of 1000 files: each A/B run takes ~50 s. Their
# aggregates need 7 pairs for a fail that holds over the 3 of them (α / 6);
# 8 give the interval a pair to spare.
readonly AB_TESTS=4,9,11,12 AB_PAIRS=8

setup_file() {
  local root
  root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  make -C "$root/src/afpbench" -s >&2
  gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$BATS_FILE_TMPDIR/inject.so" \
    "$root/scripts/tests/lib/inject-slowdown.c" -ldl
  local env
  env=$("$root/scripts/local-server" start --port "$BASE_PORT")
  eval "$env"
  export BASE_AFP_HOST=$AFP_HOST BASE_AFP_PORT=$AFP_PORT BASE_PROC_IO=$PROC_IO
  env=$("$root/scripts/local-server" start --port "$HEAD_PORT")
  eval "$env"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export AFPBENCH_BIN="$root/src/afpbench/afpbench"
  export AB_DIR="$BATS_FILE_TMPDIR"
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$HEAD_PORT" || true
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$BASE_PORT" || true
}

setup() { load fixtures/verdict-helpers; }

# restart_head ARGS...: the head server again, with local-server start ARGS.
restart_head() {
  "$SCRIPTS/local-server" stop --port "$HEAD_PORT"
  "$SCRIPTS/local-server" start --port "$HEAD_PORT" "$@" >/dev/null
}

ab_gate() {
  AFPBENCH_TESTS=$AB_TESTS AFPBENCH_ITERATIONS=$AB_PAIRS AFPBENCH_RESULTS="$AB_DIR/$1" run "$SCRIPTS/gate"
  echo "$output" | tail -n 3
}

row() { jq -r --arg m "$2" ".rows[] | select(.metric == \$m) | $3" "$AB_DIR/$1/verdict.json"; }

@test "A/A on two identical servers: never a fail; both sides' samples and the pairing kept; the report says so" {
  restart_head
  ab_gate aa
  [ "$status" -eq 0 ] || [ "$status" -eq 2 ]
  local r="$AB_DIR/aa/results.json" v="$AB_DIR/aa/verdict.json"
  jq -e '.pairing.scheme == "abba" and (.base.tests | length) == 4 and (.tests | length) == 4' "$r"
  jq -e '[.tests[].samples[] | .order, .afpd_cpu_us, .afpd_rchar] | all(type == "number")' "$r"
  jq -e '.mode == "ab"' "$v"
  no_row_where "$v" '.state == "fail" or .state == "error"'
  [ "$(row aa aggregate.time_per_op .pairs)" -eq "$AB_PAIRS" ]
  # α split between the 3 aggregates and the 8 per-test timing rows
  [ "$(row aa aggregate.time_per_op .family)" -eq 6 ]
  [ "$(row aa lantest.4.time .family)" -eq 16 ]
  grep -q 'measured together in this run' "$AB_DIR/aa/report.md"
  # both servers' test directories are gone from their shares (the base's end in b)
  local share
  for share in "/var/cache/afpbench/server/instances/"{"$BASE_PORT","$HEAD_PORT"}/root/mnt/afpshare; do
    [ -d "$share" ]
    [ -z "$(find "$share" -maxdepth 1 -name 'LanTest-*')" ]
  done
}

@test "counts-only A/A under load: two busy loops through the whole run, and no IO, byte or system call row fails" {
  restart_head
  local hogs=()
  for _ in 1 2; do
    timeout 300 sh -c 'while :; do :; done' &
    hogs+=($!)
  done
  ab_gate aa-hog
  kill "${hogs[@]}" 2>/dev/null || true
  wait "${hogs[@]}" 2>/dev/null || true
  [ "$status" -ne 3 ]
  local v="$AB_DIR/aa-hog/verdict.json"
  some_row_where "$v" '.kind == "io"'
  # bulk transfers' syscall counts move with load: shown (io_info), never failing
  no_row_where "$v" '(.kind == "io" or .kind == "io_info") and (.state == "fail" or .state == "error")'
  # the server's system calls, per family, counted on both sides
  some_row_where "$v" '.kind == "sys" and .metric == "aggregate.afpd_sys_stat_per_op"'
  no_row_where "$v" '(.kind | startswith("sys")) and (.state == "fail" or .state == "error" or .state == "inconclusive")'
}

@test "a slowdown injected into the head's afpd (CPU per reply, no IO) fails time and server CPU, never IO" {
  AFPBENCH_INJECT_US=40 restart_head --preload "$AB_DIR/inject.so"
  ab_gate slow
  [ "$status" -eq 1 ]
  local v="$AB_DIR/slow/verdict.json"
  jq -e '.decided_by | index("aggregate.time_per_op") and index("aggregate.afpd_cpu_per_op")' "$v"
  [[ $(row slow aggregate.time_per_op .reason) == "time worse by "* ]]
  some_row_where "$v" '.kind == "io"'
  no_row_where "$v" '.kind == "io" and .state != "pass"'
}

@test "settings A/B: the head serving 'ea = ad' (--afp-conf) fails on afpd reads, naming them" {
  printf '[Global]\n; an admin trying a setting\n[File Sharing]\nea = ad\n' >"$AB_DIR/ea.conf"
  restart_head --afp-conf "$AB_DIR/ea.conf"
  ab_gate ea
  [ "$status" -eq 1 ]
  jq -e '.decided_by | any(test("afpd_[rw]"))' "$AB_DIR/ea/verdict.json"
  jq -e '.notes | any(startswith("afp.conf differs from the base'"'"'s"))' "$AB_DIR/ea/verdict.json"
  # the report names what the head was set to, and that the base had nothing set
  jq -e '.current.provenance.afp_conf_settings == "ea = ad" and .baseline.provenance.afp_conf_settings == null' \
    "$AB_DIR/ea/verdict.json"
  # shellcheck disable=SC2016  # backticks: the report's code span, not a command
  grep -qF '| settings under test | – | `ea = ad` |' "$AB_DIR/ea/report.md"
}

@test "A/B settings errors: a baseline file as well, a bad base port, an unreachable base" {
  AFPBENCH_BASELINE="$AB_DIR/x.json" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"AFPBENCH_BASELINE=$AB_DIR/x.json and BASE_AFP_HOST/BASE_AFP_PORT are both set"* ]]
  BASE_AFP_PORT=70000 run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"BASE_AFP_PORT='70000' is not a TCP port"* ]]
  # nothing listens on 10599: the run stops with a network error naming the base
  BASE_AFP_PORT=10599 AFPBENCH_TESTS=4 AFPBENCH_RESULTS="$AB_DIR/nobase" run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  jq -e '.status == "error" and (.errors | any(contains("base server")))' "$AB_DIR/nobase/verdict.json"
}
