#!/usr/bin/env bats
# End to end: `afpbench load` against a REAL netatalk server (scripts/local-server,
# port 10910, CNID 14910): the sweep completes, one afpd per session is seen, a
# session whose afpd is killed mid-run is counted and the run completes and writes
# its JSON, every operation of the mix runs without errors, and the settings that
# cannot work are refused. Few seconds per step, small testbeds. Needs root.

bats_require_minimum_version 1.5.0

PORT=10910
ROOT_DIR=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
AFPBENCH="$ROOT_DIR/src/afpbench/afpbench"
SCHEMA="$ROOT_DIR/docs/results.schema.json"
# A small testbed: 4 directories of 4 files (0, 256 KiB, 512 KiB, 1 MiB).
SMALL=(--dirs 4 --files 4 --warmup 0.5)

setup_file() {
  make -C "$ROOT_DIR/src/afpbench" -s WERROR=1 afpbench >&2
  local env_out
  env_out=$("$ROOT_DIR/scripts/local-server" start --port "$PORT")
  eval "$env_out"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export SHARE_DIR="${AFPBENCH_CACHE:-/var/cache/afpbench}/server/instances/$PORT/root/mnt/afpshare"
  # The sweep the tests below read.
  "$AFPBENCH" load -N 1,8,32 -T 2 "${SMALL[@]}" -c --json "$BATS_FILE_TMPDIR/sweep.json" \
    >"$BATS_FILE_TMPDIR/sweep.csv" 2>"$BATS_FILE_TMPDIR/sweep.err"
  echo $? >"$BATS_FILE_TMPDIR/sweep.rc"
}

teardown_file() {
  "$ROOT_DIR/scripts/local-server" stop --port "$PORT"
}

validate() {
  python3 - "$SCHEMA" "$1" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator(schema).validate(json.load(open(sys.argv[2])))
PY
}

@test "load -N 1,8,32 completes against the real server, valid JSON, no errors" {
  cat "$BATS_FILE_TMPDIR/sweep.err"
  [ "$(cat "$BATS_FILE_TMPDIR/sweep.rc")" -eq 0 ]
  local j="$BATS_FILE_TMPDIR/sweep.json"
  validate "$j"
  jq -e '.suite == "load" and .status == "ok" and (.tests | length) == 0' "$j"
  jq -e '[.load.steps[].sessions] == [1, 8, 32]' "$j"
  jq -e 'all(.load.steps[]; .status == "ok" and .logged_in == .sessions and .requests > 0
             and .errors.total == 0 and .mb_per_s > 0
             and .latency_us.p50 <= .latency_us.p99 and .latency_us.p99 <= .latency_us.max
             and (.sessions_detail | length) == .sessions
             and all(.sessions_detail[]; .state == "ok" and .requests > 0))' "$j"
  # the testbed is gone afterwards
  run find "$SHARE_DIR" -maxdepth 1 -name 'afpbench-load-*'
  [ -z "$output" ]
}

@test "one afpd per session: the server processes seen match the session count" {
  local j="$BATS_FILE_TMPDIR/sweep.json"
  # shown when a check below fails: what each step saw, and its sessions' afpd
  jq -c '.load.steps[] | {sessions, server: (.server | {afpd_seen, afpd_sampled, afpd_lost}),
                          pids: [.sessions_detail[].afpd_pid]}' "$j"
  jq -e 'all(.load.steps[]; .server.afpd_seen == .sessions and .server.afpd_sampled == .sessions
             and .server.afpd_lost == 0)' "$j"
  # each session's afpd is its own
  jq -e 'all(.load.steps[]; ([.sessions_detail[].afpd_pid] | unique | length) == .sessions)' "$j"
  jq -e 'all(.load.steps[]; .server.per_request.cpu_us > 0 and .server.per_request.afpd_w > 0
             and .client_cpu.share_of_run_pct > 0)' "$j"
}

@test "load -c prints only the CSV: a header and one row per step" {
  run cat "$BATS_FILE_TMPDIR/sweep.csv"
  [ "${#lines[@]}" -eq 4 ]
  [[ ${lines[0]} == side,sessions,seconds,requests,requests_per_s,* ]]
  [[ ${lines[3]} == head,32,* ]]
}

@test "killing one session's afpd mid-run: that session's error, the run completes and writes its JSON" {
  local j="$BATS_TEST_TMPDIR/kill.json" pid=""
  "$AFPBENCH" load -N 4 -T 4 "${SMALL[@]}" --json "$j" 2>"$BATS_TEST_TMPDIR/kill.err" &
  local bench=$!
  # wait for the 4 sessions' connections (the set-up session has gone by then)
  for _ in $(seq 100); do
    mapfile -t pids < <(ss -tnpH state established "( sport = :$PORT )" |
      grep -o 'afpd",pid=[0-9]*' | grep -o '[0-9]*$' | sort -u)
    ((${#pids[@]} == 4)) && break
    sleep 0.1
  done
  [ "${#pids[@]}" -eq 4 ]
  # inside the measured window: afpbench says when it opens (the sessions'
  # set-up and the warm-up take longer on a busy machine)
  for _ in $(seq 200); do
    grep -q '4 sessions: measuring for' "$BATS_TEST_TMPDIR/kill.err" && break
    sleep 0.05
  done
  grep -q '4 sessions: measuring for 4.0 s' "$BATS_TEST_TMPDIR/kill.err"
  sleep 0.5
  pid=${pids[0]}
  kill -9 "$pid"
  local rc=0
  wait "$bench" || rc=$?
  cat "$BATS_TEST_TMPDIR/kill.err"
  [ "$rc" -eq 0 ]
  validate "$j"
  jq -e '.load.steps[0] | .errors.total == 1 and .errors.dropped == 1 and .logged_in == 4' "$j"
  jq -e --argjson pid "$pid" '.load.steps[0].sessions_detail
         | ([.[] | select(.state == "dropped")] | length == 1 and .[0].afpd_pid == $pid and .[0].errors == 1)
           and ([.[] | select(.state == "ok")] | length == 3)' "$j"
  jq -e '.load.steps[0].server.afpd_lost == 1' "$j"
}

@test "every operation of the mix runs without errors, with a fixed rate (coordinated omission corrected)" {
  local j="$BATS_TEST_TMPDIR/mix.json"
  run "$AFPBENCH" load -N 4 -T 2 "${SMALL[@]}" --mix read:2,stat,enumerate,create,write,delete,touch \
    --rate 400 --json "$j"
  echo "$output"
  [ "$status" -eq 0 ]
  jq -e '.load.steps[0] | .errors.total == 0
         and all(.ops[]; .requests > 0)
         and (.ops | keys | length) == 7
         and .latency_uncorrected_us != null
         and (.coordinated_omission | startswith("corrected"))
         and .requests_per_s > 300 and .requests_per_s < 500' "$j"
  # the scratch files went with the testbed
  run find "$SHARE_DIR" -maxdepth 1 -name 'afpbench-load-*'
  [ -z "$output" ]
}

@test "--writers 1: the first session only touches testbed files, the others only read them; too many writers are refused" {
  local j="$BATS_TEST_TMPDIR/writers.json"
  run "$AFPBENCH" load -N 3 -T 2 "${SMALL[@]}" --mix stat:4,enumerate --writers 1 --proc-root "$PROC_IO" --json "$j"
  echo "$output"
  [ "$status" -eq 0 ]
  jq -e '.load.config.writers == 1 and .load.config.mix == {stat: 4, enumerate: 1}' "$j"
  # session 1 made every touch and nothing else; sessions 2 and 3 every stat and listing
  jq -e '.load.steps[0] | .errors.total == 0 and .ops.touch.requests > 0
         and .ops.touch.requests == .sessions_detail[0].requests
         and .ops.stat.requests + .ops.enumerate.requests
             == (.sessions_detail[1:] | map(.requests) | add)' "$j"
  # netatalk 4.2 tells no other session of a change: its afpds read no
  # message (4.5's cache hints, server_netatalk45.bats, are read with read())
  jq -e '.load.steps[0].server | .afpd_sampled == 3 and .afpd_rchar == 0' "$j"
  run "$AFPBENCH" load -N 4,2 --writers 2
  [ "$status" -eq 1 ]
  [[ $output == *"--writers 2 leaves no session to read at 2 sessions"* ]]
  run "$AFPBENCH" load --writers 1024
  [ "$status" -eq 1 ]
  [[ $output == *"bad --writers '1024'"* ]]
}

@test "--cold says why it could not drop the cache when the server's processes are out of sight" {
  local j="$BATS_TEST_TMPDIR/cold.json"
  run "$AFPBENCH" load -N 1 -T 1 --dirs 4 --files 4 --cold --proc-root /nonexistent --json "$j"
  [ "$status" -eq 0 ]
  jq -e '.load.config.cold and .load.config.warmup_s == 0' "$j"
  jq -e '.load.steps[0].cache | .cold and (.dropped | not) and (.note | test("not dropped: the server.s afpd is not visible"))' "$j"
  jq -e '.load.steps[0].server | .afpd_seen == 0 and .per_request.cpu_us == null and (.note | length > 0)' "$j"
}

@test "settings that cannot work are refused before anything runs" {
  run "$AFPBENCH" load -3 -N 1
  [ "$status" -eq 1 ]
  [[ $output == *"AFP 3.1 or later"* ]]
  run "$AFPBENCH" load -N 0
  [ "$status" -eq 1 ]
  run "$AFPBENCH" load --mix copy
  [ "$status" -eq 1 ]
  [[ $output == *"unknown operation 'copy'"* ]]
  run "$AFPBENCH" load -T 0
  [ "$status" -eq 1 ]
}

@test "a server that is not there: every login fails, exit 5, the JSON says so" {
  local j="$BATS_TEST_TMPDIR/none.json"
  run "$AFPBENCH" load -p 10949 -N 2 -T 1 --timeout 2 --json "$j"
  [ "$status" -eq 5 ]
  jq -e '.status == "error" and .error.exit_code == 5' "$j"
}
