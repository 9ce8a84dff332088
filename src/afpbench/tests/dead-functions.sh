#!/usr/bin/env bash
# Dead code: every function the client's sources (*.c here) define with
# external linkage must be called or taken by address from somewhere: another
# function of the client, a unit test, a fuzz target or the test helpers.
# Compiles every source at -O0 (nothing inlined away) with one section per
# function, then reads the relocations: a function that no section but its own
# refers to is reported by name. Run from src/afpbench by `make check` (with CC
# and ALL_CFLAGS from the Makefile); prints one tally line "N passed, N failed".
set -euo pipefail

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

main() {
  local cc=${CC:-cc} src obj
  local -a cflags
  read -r -a cflags <<<"${ALL_CFLAGS:--std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -Igen}"
  # -w: the warnings are the real builds' to judge (-O0 gives other ones)
  for src in *.c tests/*.c fuzz/*.c; do
    obj=$TMP/${src//\//_}.o
    "$cc" "${cflags[@]}" -I. -O0 -w -ffunction-sections -c -o "$obj" "$src"
  done
  # the client's own external functions (its entry point aside)
  local defined
  defined=$(for src in *.c; do nm --defined-only -g "$TMP/$src.o"; done |
    awk '$2 == "T" && $3 != "main" { print $3 }' | sort -u)
  # every symbol a relocation names, outside the section of that symbol itself
  # (a function that only calls itself is not used)
  local used
  used=$(for obj in "$TMP"/*.o; do readelf -rW "$obj"; done | awk '
    /^Relocation section/ { sec = $3; gsub(/\047/, "", sec); sub(/^\.rela?/, "", sec); next }
    NF >= 5 && $1 ~ /^[0-9a-f]+$/ { sym = $5; sub(/@.*/, "", sym)
      if (sec != ".text." sym) print sym }' | sort -u)
  local -a dead
  mapfile -t dead < <(comm -23 <(printf '%s\n' "$defined") <(printf '%s\n' "$used"))
  if ((${#dead[@]})); then
    printf 'FAIL: defined but never called or referenced (remove them, or make them static):\n'
    printf '  %s\n' "${dead[@]}"
    echo "0 passed, 1 failed"
    return 1
  fi
  echo "every one of $(wc -l <<<"$defined") external functions is used"
  echo "1 passed, 0 failed"
}

main "$@"
