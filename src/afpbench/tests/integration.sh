#!/usr/bin/env bash
# Integration tests of the AFP client layer against a real netatalk server:
# `afpbench status` and `afpbench smoke`, their exit codes for a wrong
# password, a missing volume, an unreachable host, and a server whose session
# process dies or stops answering mid-transfer.
#
#   src/afpbench/tests/integration.sh
#
# Uses the server named by AFP_HOST, AFP_PORT, AFP_USER, AFP_PASS, SHARE_NAME
# when AFP_HOST is set; otherwise starts its own with scripts/local-server on
# INTEGRATION_PORT (default 10562) and stops it at the end. Needs root for
# local-server, `ss` (iproute2) to find the afpd serving our connection, and
# a built src/afpbench/afpbench (AFPBENCH_BIN overrides). Prints one line
# "N passed, N failed"; exits non-zero when any test failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
readonly HERE ROOT
AFPBENCH=${AFPBENCH_BIN:-$ROOT/src/afpbench/afpbench}
readonly AFPBENCH
passed=0
failed=0
started_server=""
work=$(mktemp -d /tmp/afpbench-integration.XXXXXX)
readonly work

cleanup() {
  if [[ -n $started_server ]]; then
    "$ROOT/scripts/local-server" stop --port "$started_server" >&2 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

ok() {
  passed=$((passed + 1))
  echo "ok - $1"
}

not_ok() {
  failed=$((failed + 1))
  echo "FAIL - $1"
  [[ -f $work/err ]] && sed 's/^/    stderr: /' "$work/err" | tail -n 5
  return 0
}

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS and its stdout+stderr
# match the extended regex PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 3
  local status=0
  "$@" >"$work/out" 2>"$work/err" || status=$?
  if ((status != want)); then
    not_ok "$name: exit $status, want $want"
  elif ! grep -qE "$pattern" "$work/out" "$work/err"; then
    not_ok "$name: output does not match /$pattern/"
  else
    ok "$name"
  fi
}

start_server_if_needed() {
  if [[ -n ${AFP_HOST:-} ]]; then
    return 0
  fi
  local port=${INTEGRATION_PORT:-10562} env
  env=$("$ROOT/scripts/local-server" start --port "$port")
  started_server=$port
  eval "$env"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME
}

# A loopback port nobody listens on.
closed_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# session_afpd PID: the afpd holding the server end of the TCP connection that
# process PID has open to AFP_PORT (empty until the connection exists).
session_afpd() {
  local client_pid=$1 local_port
  local_port=$(ss -Htnp state established "( dport = :$AFP_PORT )" 2>/dev/null |
    awk -v pid="pid=$client_pid," '$0 ~ pid { n = split($3, a, ":"); print a[n]; exit }')
  [[ -n $local_port ]] || return 0
  ss -Htnp state established "( sport = :$AFP_PORT and dport = :$local_port )" 2>/dev/null |
    grep -oE 'afpd",pid=[0-9]+' | head -n 1 | cut -d= -f2
}

# wait_for_afpd PID: poll up to 10 s for session_afpd.
wait_for_afpd() {
  local i pid
  for ((i = 0; i < 100; i++)); do
    pid=$(session_afpd "$1")
    if [[ -n $pid ]]; then
      echo "$pid"
      return 0
    fi
    sleep 0.1
  done
}

# start_long_smoke [ARGS...]: a 2 GB smoke transfer in the background (ARGS
# added), and the afpd serving it: sets smoke and afpd. Returns 1, with smoke
# ended, when that afpd is not found.
start_long_smoke() {
  "$AFPBENCH" smoke -b 2000000000 -r 4 "$@" >"$work/out" 2>"$work/err" &
  smoke=$!
  afpd=$(wait_for_afpd "$smoke")
  if [[ -z $afpd ]]; then
    kill "$smoke" 2>/dev/null || true
    wait "$smoke" || true
    return 1
  fi
}

# A transfer whose server process is killed: a clear network error (5).
test_server_dies_mid_transfer() {
  local status=0 smoke afpd
  if ! start_long_smoke; then
    not_ok "server dies mid-transfer: could not find the session's afpd"
    return 0
  fi
  sleep 0.5
  kill -KILL "$afpd"
  wait "$smoke" || status=$?
  if ((status == 5)) && grep -qE 'closed the connection|connection lost' "$work/err"; then
    ok "server dies mid-transfer: exit 5 with a clear message"
  else
    not_ok "server dies mid-transfer: exit $status, want 5"
  fi
}

# A server that stops answering: the per-wait timeout ends it (5), no hang.
test_server_goes_silent() {
  local status=0 smoke afpd start=$SECONDS
  if ! start_long_smoke -t 2; then
    not_ok "silent server: could not find the session's afpd"
    return 0
  fi
  sleep 0.5
  kill -STOP "$afpd"
  wait "$smoke" || status=$?
  # The session was dropped without a logout: end its process (it would linger).
  kill -KILL "$afpd" 2>/dev/null || true
  if ((status == 5)) && grep -qE 'no data from the server|stopped reading|no complete reply within' "$work/err" &&
    ((SECONDS - start < 30)); then
    ok "silent server: exit 5 after the timeout"
  else
    not_ok "silent server: exit $status after $((SECONDS - start)) s, want 5 within the timeout"
  fi
}

main() {
  [[ -x $AFPBENCH ]] || {
    echo "integration.sh: $AFPBENCH not built (make -C src/afpbench)" >&2
    exit 1
  }
  command -v ss >/dev/null || {
    echo "integration.sh: 'ss' not found (apt-get install iproute2)" >&2
    exit 1
  }
  start_server_if_needed
  local closed
  closed=$(closed_port)

  expect "status answers" 0 'AFP3\.4' "$AFPBENCH" status "$AFP_HOST:$AFP_PORT"
  expect "status lists Cleartxt" 0 'Cleartxt Passwrd' "$AFPBENCH" status "$AFP_HOST:$AFP_PORT"
  expect "status of a closed port" 5 'no AFP server answered.*refused' \
    "$AFPBENCH" status -t 2 "127.0.0.1:$closed"
  expect "status usage error" 1 'usage' "$AFPBENCH" status
  expect "smoke round trip" 0 'smoke: OK' "$AFPBENCH" smoke
  expect "smoke pipelined window 8, 20 MB" 0 'smoke: OK' "$AFPBENCH" smoke -r 8 -b 20000000
  expect "smoke one byte, window 1" 0 'smoke: OK' "$AFPBENCH" smoke -r 1 -b 1
  expect "smoke wrong password" 10 'kFPUserNotAuth.*|uams_clrtxt' \
    "$AFPBENCH" smoke -w wrongpw
  expect "smoke missing volume" 9 "volume 'no-such-volume' not found" \
    "$AFPBENCH" smoke -s no-such-volume
  expect "smoke unreachable host" 5 'refused' "$AFPBENCH" smoke -p "$closed"
  expect "smoke password too long" 8 'longer than 8' "$AFPBENCH" smoke -w 123456789
  test_server_dies_mid_transfer
  test_server_goes_silent
  # The server must still serve new sessions after all that.
  expect "smoke after the failures" 0 'smoke: OK' "$AFPBENCH" smoke

  echo "$passed passed, $failed failed"
  ((failed == 0))
}

main "$@"
