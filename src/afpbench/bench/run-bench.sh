#!/usr/bin/env bash
# Performance figures of afpbench itself (a benchmark that prints figures,
# not a timed test):
#   - the client's CPU time per AFP op over a full lantest run (-n 1);
#   - speedtest Read and Write MB/s at -r 1 and -r 4 over loopback, next to
#     local mode (-L) on the same disk as the server's share.
#
#   src/afpbench/bench/run-bench.sh [SIZE_MIB]     (default 64)
#
# Uses the server in AFP_HOST/AFP_PORT/... when AFP_PORT is set; otherwise
# starts scripts/local-server on port 10572 and stops it afterwards.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
readonly ROOT
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

readonly AFPBENCH="$ROOT/src/afpbench/afpbench"
readonly BENCH_PORT=10572
STARTED_SERVER=""
WORK=""

cleanup() {
  [[ -n $WORK ]] && rm -rf "$WORK"
  if [[ -n $STARTED_SERVER ]]; then
    "$ROOT/scripts/local-server" stop --port "$BENCH_PORT" || true
  fi
}

# speedtest_mbs ARGS...: mean MB/s of the one test the arguments select
speedtest_mbs() {
  local json="$WORK/speed.json"
  "$AFPBENCH" speedtest "$@" --json "$json" >/dev/null 2>"$WORK/speed.err" ||
    die "speedtest $* failed: $(tail -n 3 "$WORK/speed.err")"
  jq -r '.tests[0] | [.samples[] | .bytes / 1048576 / (.us / 1e6)] | add / length
         | . * 100 | round / 100' "$json"
}

main() {
  local size=${1:-64}
  require_cmd jq
  trap cleanup EXIT
  make -C "$ROOT/src/afpbench" -s afpbench >&2
  WORK=$(mktemp -d "${AFPBENCH_CACHE}/bench.XXXXXX") ||
    die "cannot make a work directory in $AFPBENCH_CACHE"

  if [[ -z ${AFP_PORT:-} ]]; then
    log "starting a server on port $BENCH_PORT"
    eval "$("$ROOT/scripts/local-server" start --port "$BENCH_PORT")"
    STARTED_SERVER=1
  fi
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO

  log "lantest -n 1 (all 12 tests)"
  "$AFPBENCH" lantest -n 1 --json "$WORK/lantest.json" >/dev/null 2>"$WORK/lantest.err" ||
    die "lantest failed: $(tail -n 3 "$WORK/lantest.err")"
  jq -r '.client_cpu | "client CPU per AFP op (lantest -n 1): \(.us_per_op) us  (user \(.user_us) us + sys \(.sys_us) us over \(.afp_ops) AFP ops)"' \
    "$WORK/lantest.json"
  jq -r '"lantest time per AFP op: \(([.tests[].samples[0].us] | add) / ([.tests[].afp_ops] | add) | . * 1000 | round / 1000) us"' \
    "$WORK/lantest.json"

  local local_dir="$WORK/local"
  mkdir -p "$local_dir"
  printf '\n%-10s %12s %12s %12s %12s\n' "op" "AFP -r 1" "AFP -r 4" "local" "local -D"
  local op
  for op in Read Write; do
    log "speedtest $op ${size} MiB"
    printf '%-10s %12s %12s %12s %12s\n' "$op" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -r 1)" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -r 4)" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -P "$local_dir")" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -P "$local_dir" -D)"
  done
  printf '(MB/s = MiB/s, mean of 3 runs after 1 warm-up, %s MiB file; local in %s)\n' \
    "$size" "$AFPBENCH_CACHE"
}

main "$@"
