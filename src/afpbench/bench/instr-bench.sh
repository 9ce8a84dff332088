#!/usr/bin/env bash
# Figures of the instruction counts (docs/verdict-format.md, "Instructions"):
# a benchmark that prints them, not a timed test. Against the real
# instrumented server (scripts/local-server start --instrument):
#   1. valgrind's cost per tool: lantest TESTS x 1, afpd under callgrind and
#      under cachegrind --cache-sim=no (wall time of afpbench's run);
#   2. the instrumented gate: lantest TESTS x ITERATIONS through scripts/gate
#      twice, the second under two CPU hogs with the first as its baseline:
#      the wall time of each gate, the instr rows' states, and per test the
#      spread of afpd instructions per AFP op within each run and between the
#      two runs' medians.
#
#   src/afpbench/bench/instr-bench.sh [TESTS] [ITERATIONS]   (default 1-12 3)
#
# Ports 10770 and 10771 (CNID +4000). Takes about 15 minutes here.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
readonly ROOT
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

readonly TESTS=${1:-1-12} ITERATIONS=${2:-3}
readonly PORT=10770
readonly AFPBENCH="$ROOT/src/afpbench/afpbench"
WORK=$(mktemp -d /tmp/afpbench-instr-bench.XXXXXX)
readonly WORK
HOGS=()

cleanup() {
  if ((${#HOGS[@]})); then kill "${HOGS[@]}" 2>/dev/null || true; fi
  "$ROOT/scripts/local-server" stop --port "$PORT" >/dev/null 2>&1 || true
}
trap cleanup EXIT

start() { "$ROOT/scripts/local-server" start --port "$PORT" "--instrument=$1" >"$WORK/server.env"; }
stop() { "$ROOT/scripts/local-server" stop --port "$PORT" >&2; }

make -C "$ROOT/src/afpbench" -s >&2

echo "== valgrind's cost: lantest $TESTS x 1, wall time of afpbench's run"
for tool in callgrind cachegrind; do
  start "$tool"
  (
    # shellcheck disable=SC1091
    source "$WORK/server.env"
    export AFP_PASS
    begin=$(date +%s.%N)
    "$AFPBENCH" lantest -h "$AFP_HOST" -p "$AFP_PORT" -u "$AFP_USER" -s "$SHARE_NAME" -n 1 \
      -f "$TESTS" --proc-root "$PROC_IO" --instr-dir "$INSTR_DIR" --json "$WORK/$tool.json" \
      >/dev/null 2>"$WORK/$tool.err" || {
      tail -5 "$WORK/$tool.err" >&2
      exit 1
    }
    end=$(date +%s.%N)
    printf '%-10s %6.1f s  (timed regions: %.1f s; empty session %s instructions)\n' "$tool" \
      "$(echo "$end - $begin" | bc)" "$(jq '[.tests[].samples[].us] | add / 1e6' "$WORK/$tool.json")" \
      "$(jq '.instr.empty_session.afpd_instr' "$WORK/$tool.json")"
  )
  stop
done

echo
echo "== the instrumented gate: lantest $TESTS x $ITERATIONS, twice (the second under 2 CPU hogs)"
start callgrind
gate() {
  (
    # shellcheck disable=SC1091
    source "$WORK/server.env"
    export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
    AFPBENCH_INSTR_DIR=$INSTR_DIR AFPBENCH_TESTS=$TESTS AFPBENCH_ITERATIONS=$ITERATIONS \
      AFPBENCH_RESULTS=$1 AFPBENCH_BASELINE=$2 "$ROOT/scripts/gate" >"$1.log" 2>&1
  ) || true
}
begin=$SECONDS
gate "$WORK/a" ""
printf 'gate A:            %4d s  %s\n' $((SECONDS - begin)) "$(jq -r .summary "$WORK/a/verdict.json")"
for _ in 1 2; do
  timeout 3600 sh -c 'while :; do :; done' &
  HOGS+=($!)
done
begin=$SECONDS
gate "$WORK/b" "$WORK/a/results.json"
printf 'gate B (2 hogs):   %4d s  %s\n' $((SECONDS - begin)) "$(jq -r .summary "$WORK/b/verdict.json")"
kill "${HOGS[@]}" 2>/dev/null || true
HOGS=()
stop

echo
echo "== instr rows of B against A"
jq -r '.rows[] | select(.kind == "instr") | "\(.metric)\t\(.baseline)\t\(.current)\t\(.ratio)\t\(.noise) %\t\(.state)"' \
  "$WORK/b/verdict.json" | column -t -s $'\t'

echo
echo "== afpd instructions per AFP op, per test: spread within a run ((max-min)/median) and between the runs' medians"
jq -n -r --slurpfile a "$WORK/a/results.json" --slurpfile b "$WORK/b/results.json" '
  def per_op: [.samples[] | select(.afpd_instr != null and .instr_afp_ops > 0) | .afpd_instr / .instr_afp_ops];
  def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def spread: if length == 0 then null else (max - min) / median * 100 end;
  def r2: if . == null then "-" else . * 100 | round / 100 | tostring end;
  ($b[0].tests | map({key, value: per_op}) | from_entries) as $bt
  | "test\tinstr/op A\twithin A %\twithin B %\tB vs A %",
    ($a[0].tests[] | .key as $k | per_op as $x | ($bt[$k] // []) as $y
     | [$k, ($x | median | round | tostring), ($x | spread | r2), ($y | spread | r2),
        (if ($y | length) > 0 then (($y | median) / ($x | median) - 1) * 100 | r2 else "-" end)]
     | join("\t"))' | column -t -s $'\t'
echo
echo "results kept in $WORK"
