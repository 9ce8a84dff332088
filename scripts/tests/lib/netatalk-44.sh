#!/usr/bin/env bash
# TEST ONLY: the netatalk 4.4 source tree the workspace carries beside the
# project (../shared/netatalk/netatalk-4.4.0-*.tar.xz: netatalk's main branch,
# which builds offline), unpacked once into $AFPBENCH_CACHE/netatalk-4.4.
# netatalk 4.4 has the SQLite CNID backend and the directory cache settings
# of netatalk's own CI; Debian's 4.2.3 has neither.
#
#   scripts/tests/lib/netatalk-44.sh     prints the source tree's path
#
# AFPBENCH_NETATALK44_TARBALL names the tarball elsewhere. With no tarball
# beside the checkout and no tree unpacked before (a clone on a machine
# without the workspace's shared/), it prints one line saying so on stderr and
# exits 77, which the tests that need the tree turn into a skip with that
# reason; any other failure is an error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
readonly ROOT
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

# the exit status that means "no tree here", as automake's test drivers skip
readonly NO_TREE=77

main() {
  local tarball=${AFPBENCH_NETATALK44_TARBALL:-} cache="$AFPBENCH_CACHE/netatalk-4.4" tmp
  if [[ -z $tarball ]]; then
    tarball=$(find "$ROOT/../shared/netatalk" -maxdepth 1 -name 'netatalk-4.4.*.tar.xz' 2>/dev/null | sort | tail -n 1 || true)
  fi
  if [[ -z $tarball ]]; then
    # a checkout elsewhere (a clone in /tmp): a tree this machine unpacked before
    local unpacked
    unpacked=$(find "$cache" -mindepth 3 -maxdepth 3 -name meson.build -printf '%h\n' 2>/dev/null | sort | tail -n 1 || true)
    if [[ -n $unpacked ]]; then
      log "no tarball beside this checkout; using the tree unpacked before in $unpacked"
      printf '%s\n' "$unpacked"
      return 0
    fi
  fi
  if [[ -z $tarball ]]; then
    printf 'no netatalk 4.4 source tree: no tarball in %s, none unpacked in %s (set AFPBENCH_NETATALK44_TARBALL)\n' \
      "$(cd "$ROOT/.." && pwd)/shared/netatalk" "$cache" >&2
    exit "$NO_TREE"
  fi
  [[ -f $tarball ]] || die "AFPBENCH_NETATALK44_TARBALL=$tarball: no such file"
  local name
  name=$(basename "$tarball" .tar.xz)
  if [[ ! -f $cache/$name/netatalk-4.4.0/meson.build ]]; then
    mkdir -p "$cache"
    tmp=$(mktemp -d "$cache/.unpack.XXXXXX")
    tar -C "$tmp" -xJf "$tarball" || die "cannot unpack $tarball"
    rm -rf "${cache:?}/$name"
    mv "$tmp" "$cache/$name"
  fi
  local tree
  tree=$(find "$cache/$name" -mindepth 2 -maxdepth 2 -name meson.build -printf '%h\n' | head -n 1)
  [[ -n $tree ]] || die "$tarball holds no netatalk source tree (no meson.build)"
  printf '%s\n' "$tree"
}

main "$@"
