#!/usr/bin/env bats
# The client under AddressSanitizer and UndefinedBehaviorSanitizer
# (src/afpbench's `make afpbench-san`) against the real netatalk server: the
# suites' own paths (bulk transfers, the load suite's event loop and its
# MSG_TRUNC discards, the A/B driver's set-up and teardown) that the unit
# tests' scripted server does not reach. A sanitizer report fails the test.
# Server on port 10586; nothing may listen on 10587. Needs root.

PORT=10586
NO_SERVER_PORT=10587
ROOT_DIR=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
AFPBENCH_SAN="$ROOT_DIR/src/afpbench/afpbench-san"

setup_file() {
  if [[ ! -x $ROOT_DIR/scripts/local-server ]]; then
    skip "scripts/local-server is absent: no real server to test against"
  fi
  make -C "$ROOT_DIR/src/afpbench" -s WERROR=1 afpbench-san >&2
  local env_out
  env_out=$("$ROOT_DIR/scripts/local-server" start --port "$PORT")
  eval "$env_out"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  # exit codes of their own, so that a report is never taken for a usage error
  export ASAN_OPTIONS=exitcode=86:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:exitcode=87
}

teardown_file() {
  if [[ -x $ROOT_DIR/scripts/local-server ]]; then
    "$ROOT_DIR/scripts/local-server" stop --port "$PORT"
  fi
}

# san_run WANT SUITE ARGS...: run the sanitized client; fail with its output
# unless it exits WANT without a sanitizer's report and writes its JSON.
san_run() {
  local want=$1 json=$BATS_TEST_TMPDIR/run.json
  shift
  rm -f "$json"
  run "$AFPBENCH_SAN" "$@" --json "$json"
  if [[ $status -ne $want || $output == *Sanitizer* || $output == *"runtime error"* ]]; then
    echo "afpbench $*: exit $status, want $want"
    echo "$output" | tail -n 40
    return 1
  fi
  jq -e .schema "$json" >/dev/null || {
    echo "afpbench $*: no JSON"
    return 1
  }
}

@test "lantest, speedtest and load in A/A under the sanitizers: exit 0, no report" {
  local ab=(--base-host "$AFP_HOST" --base-port "$AFP_PORT")
  san_run 0 lantest -f 2,3,4,5,6,7,9,12 -n 1 "${ab[@]}"
  san_run 0 speedtest -z 0.0625,4 -n 2 -W 1 -r 4 -f Read,Write,Copy,ServerCopy "${ab[@]}"
  san_run 0 load -N 1,4 -T 0.5 --warmup 0.2 --mix read:4,stat,enumerate,create,write,delete \
    --files 6 --max-size 2 "${ab[@]}"
  san_run 0 load -N 2 -T 0.3 --warmup 0 --verify-all
}

@test "a base or a head that is not there, under the sanitizers: exit 5 and the JSON" {
  local suite
  for suite in "lantest -f 4 -n 1" "speedtest -d 1 -n 1" "load -N 1 -T 0.3"; do
    # shellcheck disable=SC2086 # the suite's words
    san_run 5 $suite --base-host "$AFP_HOST" --base-port "$NO_SERVER_PORT"
    # shellcheck disable=SC2086
    san_run 5 $suite -p "$NO_SERVER_PORT" --base-host "$AFP_HOST" --base-port "$AFP_PORT"
  done
}
