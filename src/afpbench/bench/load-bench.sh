#!/usr/bin/env bash
# Figures of `afpbench load` on this machine (a benchmark that prints figures,
# not a timed test): per session count, requests/s, MB/s, p50/p99 latency, the
# afpd processes seen, the server's CPU per request, and the client's own CPU
# (its share of client + server CPU, and of the whole machine), so the claim
# "the client is never the bottleneck" can be checked.
#
#   src/afpbench/bench/load-bench.sh [SESSIONS] [SECONDS] [-- AFPBENCH LOAD ARGS...]
#       (default sessions 1,8,32,256, 5 s each)
#
# Uses the server in AFP_HOST/AFP_PORT/... when AFP_PORT is set; otherwise
# starts scripts/local-server on port 10912 with "max connections = 320" (more
# than netatalk's default 200 sessions) and stops it afterwards.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
readonly ROOT
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

readonly AFPBENCH="$ROOT/src/afpbench/afpbench"
readonly BENCH_PORT=10912
STARTED_SERVER=""
WORK=""

cleanup() {
  [[ -n $WORK ]] && rm -rf "$WORK"
  if [[ -n $STARTED_SERVER ]]; then
    "$ROOT/scripts/local-server" stop --port "$BENCH_PORT" || true
  fi
}

main() {
  local sessions=${1:-1,8,32,256} seconds=${2:-5}
  shift $(($# < 2 ? $# : 2))
  [[ ${1:-} == -- ]] && shift
  trap cleanup EXIT
  WORK=$(mktemp -d)
  make -C "$ROOT/src/afpbench" -s afpbench >&2
  if [[ -z ${AFP_PORT:-} ]]; then
    local env
    env=$(AFP_EXTRA_GLOBAL="max connections = 320" "$ROOT/scripts/local-server" start --port "$BENCH_PORT")
    STARTED_SERVER=yes
    eval "$env"
    export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  fi
  log "afpbench load -N $sessions -T $seconds against $AFP_HOST:$AFP_PORT ($(nproc) cores)"
  "$AFPBENCH" load -N "$sessions" -T "$seconds" --json "$WORK/load.json" "$@" 2>"$WORK/load.err" ||
    die "afpbench load failed: $(tail -n 3 "$WORK/load.err")"
  printf '%-8s %10s %9s %9s %9s %7s %6s %13s %15s %15s\n' sessions 'req/s' 'MB/s' 'p50 ms' 'p99 ms' \
    errors afpd 'srv CPU us/rq' 'client % of run' 'client % of CPUs'
  jq -r '.load.steps[] | [.sessions, (.requests_per_s | round), (.mb_per_s | round),
           (.latency_us.p50 / 1000 * 100 | round / 100), (.latency_us.p99 / 1000 * 100 | round / 100),
           .errors.total, .server.afpd_seen, (.server.per_request.cpu_us // "?" | tostring),
           (.client_cpu.share_of_run_pct // "?" | tostring), (.client_cpu.share_of_machine_pct | tostring)]
         | @tsv' "$WORK/load.json" |
    while IFS=$'\t' read -r n rps mbs p50 p99 err afpd cpu share machine; do
      printf '%-8s %10s %9s %9s %9s %7s %6s %13s %15s %15s\n' "$n" "$rps" "$mbs" "$p50" "$p99" \
        "$err" "$afpd" "$cpu" "$share" "$machine"
    done
}

main "$@"
