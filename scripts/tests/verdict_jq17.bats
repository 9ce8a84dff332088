#!/usr/bin/env bats
# The verdict, report and baseline jq programs under jq 1.7 (GitHub's runners)
# as well as the host's jq (1.6 on Debian bookworm): same verdict.json, same
# report.md. jq 1.7 comes from Debian trixie, installed into a copy of the
# cached trixie root filesystem (scripts/lib/rootfs.sh) and run with that
# tree's own loader and libraries. Needs root and the Debian mirror once.

setup_file() {
  local root
  root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  # shellcheck source=scripts/lib/common.sh
  source "$root/scripts/lib/common.sh"
  # shellcheck source=scripts/lib/rootfs.sh
  source "$root/scripts/lib/rootfs.sh"
  local tree="$AFPBENCH_CACHE/verdict-jq17"
  if [[ ! -f $tree/.complete ]]; then
    rootfs_copy "$(rootfs_base)" "$tree.tmp"
    cp /etc/resolv.conf "$tree.tmp/etc/resolv.conf"
    chroot "$tree.tmp" apt-get install -y -qq --no-install-recommends jq >&2
    touch "$tree.tmp/.complete"
    rm -rf "$tree"
    mv "$tree.tmp" "$tree"
  fi
  mkdir -p "$BATS_FILE_TMPDIR/bin"
  cat >"$BATS_FILE_TMPDIR/bin/jq" <<WRAP
#!/bin/sh
exec "$tree/lib64/ld-linux-x86-64.so.2" --library-path "$tree/lib/x86_64-linux-gnu:$tree/usr/lib/x86_64-linux-gnu" "$tree/usr/bin/jq" "\$@"
WRAP
  chmod +x "$BATS_FILE_TMPDIR/bin/jq"
  export JQ17_BIN="$BATS_FILE_TMPDIR/bin"
}

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
}

# pipeline_with PATH_PREFIX DIR: baseline, compare (afpd writes +5 %, and one
# more cnid_dbd read per iteration for the IO rule's one-syscall floor), plot, report.
# PATH is changed in a subshell on purpose: only that pipeline sees jq 1.7.
# shellcheck disable=SC2030,SC2031
pipeline_with() {
  local dir=$2
  (
    [[ -z $1 ]] || PATH="$1:$PATH"
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

@test "jq 1.7 and the host's jq reach the same verdict and the same report" {
  pipeline_with "" "$T/host"
  pipeline_with "$JQ17_BIN" "$T/jq17"
  [ "$(jq -r .status "$T/jq17/run/verdict.json")" = fail ]
  jq -e '.rows[] | select(.metric == "aggregate.cnid_r_per_op")
         | .state == "pass" and .reason == "within 5 syscalls (15 → 16 over 80,684 AFP ops)"' "$T/jq17/run/verdict.json"
  # the two differ only in creation time and their own paths
  diff <(jq -S 'del(.created_at, .sources[].file)' "$T/host/baseline.json") <(jq -S 'del(.created_at, .sources[].file)' "$T/jq17/baseline.json")
  diff <(jq -S 'del(.baseline.file)' "$T/host/run/verdict.json") <(jq -S 'del(.baseline.file)' "$T/jq17/run/verdict.json")
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
