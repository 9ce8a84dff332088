# shellcheck shell=bash
# The two real servers of the A/B end-to-end tests (gate_ab.bats, gate_ab_counts.bats):
# scripts/local-server on BASE_PORT (the base) and HEAD_PORT (the head, restarted
# with what a test changes), measured together through scripts/gate. The file that
# loads this sets BASE_PORT and HEAD_PORT first. Needs root, like the server tests.
#
# Two short tests without the set-up of 1000 files (locking, 20,000 requests;
# directory cache hits, 11,000): an A/B run of 8 pairs takes ~60 s alone.
# Their aggregates need 7 pairs for a fail that holds over the 3 of them
# (α / 6); 8 give the interval a pair to spare.
# shellcheck disable=SC2034  # read by the bats files that load this
readonly AB_TESTS=4,9
AB_PAIRS=8

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

# ab_gate NAME: the A/B gate over AB_TESTS x AB_PAIRS, results in $AB_DIR/NAME
# (bats' run: $status, $output). Those pairs only, unless AB_BUDGET gives the
# gate seconds to add more while a timing is undecided (AFPBENCH_AB_BUDGET).
# shellcheck disable=SC2154  # output: set by bats' run
ab_gate() {
  AFPBENCH_TESTS=$AB_TESTS AFPBENCH_ITERATIONS=$AB_PAIRS AFPBENCH_AB_BUDGET=${AB_BUDGET:-0} \
    AFPBENCH_RESULTS="$AB_DIR/$1" run "$SCRIPTS/gate"
  echo "$output" | tail -n 3
}

row() { jq -r --arg m "$2" ".rows[] | select(.metric == \$m) | $3" "$AB_DIR/$1/verdict.json"; }
