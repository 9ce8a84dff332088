#!/usr/bin/env bash
# Run the unit-test and corpus-replay binaries given as arguments (from
# src/afpbench), show their failures, and print one total line
# "N passed, N failed". A binary that dies or prints no tally counts as one
# failure. Replay binaries (tests/run_replay_NAME) get fuzz/corpus/NAME.
set -euo pipefail

main() {
  local total_pass=0 total_fail=0 bin out rc tally name
  export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  for bin in "$@"; do
    local args=()
    if [[ $bin == tests/run_replay_* ]]; then
      name=${bin#tests/run_replay_}
      args=("fuzz/corpus/$name")
    fi
    rc=0
    out=$("./$bin" "${args[@]}" 2>&1) || rc=$?
    tally=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1 || true)
    if [[ -z $tally ]]; then
      printf '%s\n' "$out" | tail -n 30
      echo "FAIL $bin: exited $rc without a tally"
      total_fail=$((total_fail + 1))
      continue
    fi
    local p f
    read -r p _ f _ <<<"$tally"
    if ((f > 0 || rc != 0)); then
      printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 40
      if ((f == 0)); then
        echo "FAIL $bin: exited $rc after its tally"
        f=1
      fi
    fi
    printf '  %-36s %s\n' "$bin" "$tally"
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
  done
  echo "$total_pass passed, $total_fail failed"
  ((total_fail == 0))
}

main "$@"
