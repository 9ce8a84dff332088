#!/usr/bin/env bats
# afpbench against a scripted hostile server (scripts/tests/lib/hostile-afp-server.py,
# ports 10820-10829): the misbehaviours of issue 10 that a real netatalk cannot
# be made to show. Nothing hangs (every case has a bound and a measured time to
# exit), nothing balloons (peak RSS under /usr/bin/time -v), what was measured
# is written, and server strings are escaped before they are printed.
# Needs python3 and GNU time; no root, no real server. About 35 s.

ROOT_DIR=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# AFPBENCH_UNDER_TEST: another build to try (e.g. main's, to see these fail there)
AFPBENCH=${AFPBENCH_UNDER_TEST:-$ROOT_DIR/src/afpbench/afpbench}
HOSTILE="$BATS_TEST_DIRNAME/lib/hostile-afp-server.py"

setup_file() {
  make -C "$ROOT_DIR/src/afpbench" -s WERROR=1 afpbench >&2
  [[ -x /usr/bin/time ]] || skip "GNU time (/usr/bin/time) is missing"
}

setup() {
  export AFP_USER=u AFP_PASS=p SHARE_NAME=vol
  unset AFP_HOST AFP_PORT PROC_IO
  SERVER_PID=""
}

teardown() {
  [[ -z $SERVER_PID ]] || kill "$SERVER_PID" 2>/dev/null || true
  [[ -z $SERVER_PID ]] || wait "$SERVER_PID" 2>/dev/null || true
}

# hostile PORT ARGS...: start the scripted server and wait until it listens.
hostile() {
  local port=$1 i
  shift
  python3 "$HOSTILE" --port "$port" "$@" >"$BATS_TEST_TMPDIR/server.out" 2>&1 &
  SERVER_PID=$!
  for ((i = 0; i < 50; i++)); do
    grep -q '^listening' "$BATS_TEST_TMPDIR/server.out" && return 0
    sleep 0.1
  done
  cat "$BATS_TEST_TMPDIR/server.out" >&2
  return 1
}

# timed OUT_PREFIX CMD...: run CMD under GNU time, with 1 GiB of address space
# and 30 s at most (so a regression fails instead of hanging or eating the
# machine); sets rc, secs (wall) and rss_kb (peak), keeps stdout and stderr in
# OUT_PREFIX.out / .err.
timed() {
  local prefix=$1
  shift
  rc=0
  /usr/bin/time -v -o "$prefix.time" bash -c 'ulimit -v 1048576; exec timeout -k 2 30 "$@"' _ "$@" \
    >"$prefix.out" 2>"$prefix.err" || rc=$?
  secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$prefix.time" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$prefix.time")
  # GNU time reports a signal-killed command as "Command terminated by signal"
  if grep -q 'Command exited with non-zero status' "$prefix.time"; then
    rc=$(sed -n 's/.*Command exited with non-zero status //p' "$prefix.time")
  fi
  echo "# $(basename "$prefix"): exit $rc after ${secs}s, peak RSS ${rss_kb} kB" >&3
}

@test "a server that only tickles: status -t 2 and lantest --timeout 2 give up, exit 5" {
  hostile 10820 --tickle-only
  local o="$BATS_TEST_TMPDIR/tickle"
  timed "$o-status" "$AFPBENCH" status -t 2 127.0.0.1:10820
  [ "$rc" -eq 5 ]
  awk -v s="$secs" 'BEGIN { exit !(s >= 1.5 && s < 4) }'
  grep -q "deadline (-t 2 s) passed" "$o-status.err"
  timed "$o-lantest" "$AFPBENCH" lantest -h 127.0.0.1 -p 10820 --timeout 2 -f 1, -n 1 --json "$o.json"
  [ "$rc" -eq 5 ]
  awk -v s="$secs" 'BEGIN { exit !(s >= 1.5 && s < 6) }'
  grep -q 'no complete reply within 2000 ms.*do not extend' "$o-lantest.err"
  [ "$(jq -r '.status, .error.exit_code' "$o.json" | paste -sd' ')" = "error 5" ]
}

@test "DSIGetStatus one byte every 4 s: status -t 5 exits 5 after 5 s, not 4 s per byte" {
  hostile 10821 --trickle 4
  timed "$BATS_TEST_TMPDIR/trickle" "$AFPBENCH" status -t 5 127.0.0.1:10821
  [ "$rc" -eq 5 ]
  awk -v s="$secs" 'BEGIN { exit !(s >= 4.5 && s < 7) }'
  grep -q 'no AFP server answered' "$BATS_TEST_TMPDIR/trickle.err"
}

@test "every request 25 s late: lantest --deadline 4 stops at 4 s, exit 5, the JSON written" {
  hostile 10822 --delay 25
  local o="$BATS_TEST_TMPDIR/late"
  timed "$o" "$AFPBENCH" lantest -h 127.0.0.1 -p 10822 -f 1, -n 3 --json "$o.json" --deadline 4
  cat "$o.err"
  [ "$rc" -eq 5 ]
  awk -v s="$secs" 'BEGIN { exit !(s >= 3.5 && s < 7) }'
  grep -q "the run's deadline (--deadline 4 s) passed" "$o.err"
  jq -e '.status == "error" and .error.exit_code == 5 and (.error.message | contains("--deadline 4 s"))' "$o.json"
}

# timeout(1) sends SIGTERM twice, to afpbench and to its process group; a
# handler reset by the first copy let the second kill the run under load
# (143, no JSON). tests/test_dsi.c test_stop_signal_twice holds that exactly.
@test "SIGTERM (the gate's own timeout) stops the run the same way: exit 5, the JSON written" {
  hostile 10823 --delay 25
  local o="$BATS_TEST_TMPDIR/term"
  timed "$o" timeout --preserve-status -s TERM 2 "$AFPBENCH" lantest -h 127.0.0.1 -p 10823 \
    -f 1, -n 1 --json "$o.json"
  [ "$rc" -eq 5 ]
  awk -v s="$secs" 'BEGIN { exit !(s < 5) }'
  jq -e '.status == "error" and (.error.message | contains("stopped by signal 15"))' "$o.json"
}

@test "a 4 GiB quantum: lantest test 2 and speedtest Write stay under 64 MB, requests capped at 1 MiB" {
  hostile 10824 --quantum 4294967295
  local o="$BATS_TEST_TMPDIR/quantum"
  timed "$o-lantest" "$AFPBENCH" lantest -h 127.0.0.1 -p 10824 -f 2, -n 1 --json "$o-lantest.json"
  cat "$o-lantest.err"
  # the hostile server refuses the test directory: exit 3, after the buffers were made
  [ "$rc" -eq 3 ]
  grep -q 'requests are capped at 1048576 bytes' "$o-lantest.err"
  [ "$rss_kb" -lt 65536 ]
  jq -e '.server.quantum == 4294967295' "$o-lantest.json"
  timed "$o-speed" "$AFPBENCH" speedtest -h 127.0.0.1 -p 10824 -f Write -d 1 -n 1 \
    --json "$o-speed.json"
  [ "$rss_kb" -lt 65536 ]
  jq -e '.config.request_bytes == 1048576' "$o-speed.json"
  # asking for more is honoured up to the quantum: -q 8192 KiB
  timed "$o-speed8" "$AFPBENCH" speedtest -h 127.0.0.1 -p 10824 -f Write -d 1 -n 1 -q 8192 \
    --json "$o-speed8.json"
  jq -e '.config.request_bytes == 8388608' "$o-speed8.json"
}

# no_raw FILE...: no ESC, no CR, and no line that starts a workflow command.
no_raw() {
  local f
  for f in "$@"; do
    if LC_ALL=C grep -n $'\e\|\r' "$f" || grep -nE '^[[:space:]]*::' "$f"; then
      echo "raw server text in $f" >&2
      return 1
    fi
  done
}

@test "server name and UAM with ESC, CR/LF and workflow commands are escaped everywhere" {
  hostile 10825 --name $'evil\e[31m\r\n::error::pwned\n' --uam $'x\n::set-output name=verdict::pass'
  local o="$BATS_TEST_TMPDIR/inject"
  "$AFPBENCH" status 127.0.0.1:10825 >"$o-status.out" 2>&1
  cat "$o-status.out"
  grep -q 'evil\\x1b\[31m\\x0d\\x0a:\\x3aerror:\\x3apwned\\x0a' "$o-status.out"
  no_raw "$o-status.out"
  "$AFPBENCH" lantest -h 127.0.0.1 -p 10825 -f 1, -n 1 -v --json "$o.json" >"$o.out" 2>"$o.err" || true
  no_raw "$o.out" "$o.err"
  jq -e '.server.name | test("evil\\\\x1b") and (contains("\n") | not)' "$o.json"
  jq -e '.server.uams | any(contains("set-output")) and all(contains("\n") | not)' "$o.json"
  # the gate on it: log, verdict, report
  AFP_HOST=127.0.0.1 AFP_PORT=10825 AFPBENCH_TESTS=1 AFPBENCH_ITERATIONS=1 AFPBENCH_BIN="$AFPBENCH" \
    AFPBENCH_RESULTS="$o-results" "$ROOT_DIR/scripts/gate" >"$o-gate.log" 2>&1 || true
  [ -s "$o-results/report.md" ]
  no_raw "$o-gate.log" "$o-results/report.md" "$o-results/verdict.json"
}
