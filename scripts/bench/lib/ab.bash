# shellcheck shell=bash
# The A/B benchmarks' shared parts (scripts/bench/verdict-ab, syscalls-ab): two
# fresh local servers, a CPU hog, one A/B gate run. The caller sets ROOT, OUT
# (with inject.so built there), PORT (base on PORT, head on PORT+1),
# ITERATIONS and HOG, and declares HOG_PIDS=().

ab_cleanup() {
  stop_hog
  "$ROOT/scripts/local-server" stop --port "$((PORT + 1))" >/dev/null 2>&1 || true
  "$ROOT/scripts/local-server" stop --port "$PORT" >/dev/null 2>&1 || true
}

start_hog() {
  local i
  for ((i = 0; i < HOG; i++)); do
    (while :; do :; done) &>/dev/null &
    HOG_PIDS+=("$!")
  done
}

stop_hog() {
  ((${#HOG_PIDS[@]})) || return 0
  kill "${HOG_PIDS[@]}" 2>/dev/null || true
  wait "${HOG_PIDS[@]}" 2>/dev/null || true
  HOG_PIDS=()
}

# start_servers [VAR=VALUE]: both servers afresh (as a CI job starts them, so
# neither carries the state of earlier runs), of NETATALK_VERSION where it is
# set (a Debian version, as scripts/local-server takes it); with VAR=VALUE,
# the head runs the test-only injector (scripts/tests/lib/inject-slowdown.c)
# set by it.
start_servers() {
  local env version=()
  [[ -z ${NETATALK_VERSION:-} ]] || version=(--netatalk-version "$NETATALK_VERSION")
  "$ROOT/scripts/local-server" stop --port "$((PORT + 1))" >/dev/null 2>&1 || true
  "$ROOT/scripts/local-server" stop --port "$PORT" >/dev/null 2>&1 || true
  env=$("$ROOT/scripts/local-server" start --port "$PORT" "${version[@]}" 2>/dev/null)
  eval "$env"
  export BASE_AFP_HOST=$AFP_HOST BASE_AFP_PORT=$AFP_PORT BASE_PROC_IO=$PROC_IO
  if [[ -n ${1:-} ]]; then
    env=$(env "$1" "$ROOT/scripts/local-server" start --port "$((PORT + 1))" "${version[@]}" \
      --preload "$OUT/inject.so" 2>/dev/null)
  else
    env=$("$ROOT/scripts/local-server" start --port "$((PORT + 1))" "${version[@]}" 2>/dev/null)
  fi
  eval "$env"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
}

# gate_run NAME TESTS [HOG_AFTER_S]: one A/B gate into $OUT/NAME; prints the
# exit status. With HOG_AFTER_S, the hog starts that long into the run.
gate_run() {
  local name=$1 tests=$2 hog_after=${3:-} status=0 pid
  AFPBENCH_TESTS=$tests AFPBENCH_ITERATIONS=$ITERATIONS AFPBENCH_RESULTS="$OUT/$name" \
    env ${BUDGET:+AFPBENCH_AB_BUDGET="$BUDGET"} "$ROOT/scripts/gate" >"$OUT/$name.log" 2>&1 &
  pid=$!
  if [[ -n $hog_after ]]; then
    sleep "$hog_after"
    start_hog
  fi
  wait "$pid" || status=$?
  stop_hog
  printf '%s\n' "$status"
}

# build_injector: OUT/inject.so, the test-only server injector.
build_injector() {
  gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$OUT/inject.so" \
    "$ROOT/scripts/tests/lib/inject-slowdown.c" -ldl
}
