#!/usr/bin/env bats
# The verdict, report and baseline jq programs under jq 1.7 (GitHub's runners,
# the client image, and this machine's scripts: scripts/install-deps puts
# Debian trixie's jq in $AFPBENCH_CACHE/tools/jq where the system's is older)
# as well as the system's jq (1.6 on Debian bookworm, AFPBENCH_JQ=system): same
# verdict.json, same report.md.

setup_file() {
  # (not common.sh: it would put jq 1.7 on this file's PATH)
  local jq17="${AFPBENCH_CACHE:-/var/cache/afpbench}/tools/jq/bin"
  if [[ ! -x $jq17/jq ]]; then
    # a system jq of 1.7 or later needs no copy
    jq17=$(dirname "$(command -v jq)")
  fi
  export JQ17_BIN=$jq17
}

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
}

# pipeline_with PATH_PREFIX DIR: baseline, compare (afpd writes +5 %, and one
# more cnid_dbd read per iteration for the IO rule's one-syscall floor), plot, report.
# PATH is changed in a subshell on purpose: only that pipeline sees jq 1.7; an
# empty PATH_PREFIX is the system's jq (AFPBENCH_JQ=system).
# shellcheck disable=SC2030,SC2031
pipeline_with() {
  local dir=$2
  (
    if [[ -z $1 ]]; then
      export AFPBENCH_JQ=system
    else
      PATH="$1:$PATH"
    fi
    mkdir -p "$dir/base"
    transform "$FIXTURES/lantest-a.json" "$dir/a.json" "$QUIET_TIMES"
    transform "$dir/a.json" "$dir/w5.json" "$SCALE_AFPD_W_5PCT"
    transform "$dir/w5.json" "$dir/w5.json.tmp" "$CNID_R_TEST1_PLUS_1"
    mv "$dir/w5.json.tmp" "$dir/w5.json"
    results_dir "$dir/base" "$dir/a.json" "$FIXTURES/speedtest-a.json"
    AFPBENCH_BASELINE_LABEL=fixed "$SCRIPTS/baseline" "$dir/baseline.json" "$dir/base"
    results_dir "$dir/run" "$dir/w5.json" "$FIXTURES/speedtest-a.json"
    "$SCRIPTS/compare" --baseline "$dir/baseline.json" --out "$dir/run/verdict.json" "$dir/run/results.json" || true
    "$SCRIPTS/plot" "$dir/run"
    "$SCRIPTS/report" "$dir/run"
  ) 2>"$dir.log"
}

@test "jq 1.7 is the one under test" {
  run "$JQ17_BIN/jq" --version
  [[ $output == jq-1.7* ]]
}

@test "jq 1.7 and the system's jq reach the same verdict and the same report" {
  pipeline_with "" "$T/host"
  pipeline_with "$JQ17_BIN" "$T/jq17"
  [ "$(jq -r .status "$T/jq17/run/verdict.json")" = fail ]
  jq -e '.rows[] | select(.metric == "aggregate.cnid_r_per_op")
         | .state == "pass" and .reason == "within 5 syscalls (15 → 16 over 80,684 AFP ops)"' "$T/jq17/run/verdict.json"
  # the two differ only in creation time and their own paths (numbers
  # compared as numbers: jq 1.7 keeps an input's "270.050" as written, 1.6
  # prints 270.05)
  local same='walk(if type == "number" then . + 0 else . end)'
  diff <(jq -S "del(.created_at, .sources[].file) | $same" "$T/host/baseline.json") \
    <(jq -S "del(.created_at, .sources[].file) | $same" "$T/jq17/baseline.json")
  diff <(jq -S "del(.baseline.file) | $same" "$T/host/run/verdict.json") <(jq -S "del(.baseline.file) | $same" "$T/jq17/run/verdict.json")
  # the reports name their own baseline paths, the rest is the same
  local f
  for f in report.md report-full.md; do
    diff <(sed 's|host/baseline.json|B|' "$T/host/run/$f") <(sed 's|jq17/baseline.json|B|' "$T/jq17/run/$f")
  done
  diff "$T/host/run/charts/ratios.tsv" "$T/jq17/run/charts/ratios.tsv"
}

@test "jq 1.7: error paths (bad schema, bad thresholds) give the same messages" {
  (
    # shellcheck disable=SC2030,SC2031  # jq 1.7 for this subshell only
    PATH="$JQ17_BIN:$PATH"
    results_dir "$T/r" "$FIXTURES/lantest-a.json"
    echo '{"schema": "afpbench-baseline/2"}' >"$T/v2.json"
    run "$SCRIPTS/compare" --baseline "$T/v2.json" --out "$T/v.json" "$T/r/results.json"
    [ "$status" -eq 3 ]
    [[ $output == *'baseline schema "afpbench-baseline/2" is not supported'* ]]
    AFPBENCH_IO_THRESHOLD=x run "$SCRIPTS/compare" --out "$T/v.json" "$T/r/results.json"
    [ "$status" -eq 3 ]
    [[ $output == *'AFPBENCH_IO_THRESHOLD="x" is not a percentage'* ]]
  )
}
