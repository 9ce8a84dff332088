#!/usr/bin/env bash
# TEST ONLY: a netatalk source tree the workspace carries beside the project
# (../shared/netatalk/netatalk-SERIES.*.tar.xz), unpacked once into
# $AFPBENCH_CACHE/netatalk-SERIES. The trees build offline: each has the
# bstring its meson wrap names in subprojects/.
#
#   scripts/tests/lib/netatalk-tree.sh SERIES    prints the source tree's path
#
# SERIES: 4.4 (netatalk's main branch at 4.4.0, SQLite CNID backend and the
# directory cache settings of netatalk's own CI) or 4.5 (Debian's source
# package of the 4.5.1 release, 4.5.1~ds-1). AFPBENCH_NETATALK_TARBALL names
# the tarball elsewhere. With no tarball beside the checkout and no tree
# unpacked before, it says so in one line on stderr and exits 77, which the
# tests turn into a skip with that reason (as lib/netatalk-44.sh does); any
# other failure is an error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
readonly ROOT
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"

# the exit status that means "no tree here", as automake's test drivers skip
readonly NO_TREE=77

# tree_in DIR: the netatalk tree (the directory with meson.build) unpacked in DIR.
tree_in() {
  { find "$1" -mindepth 2 -maxdepth 2 -name meson.build -printf '%h\n' 2>/dev/null || true; } | sort | tail -n 1
}

main() {
  local series=${1:-}
  [[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "usage: netatalk-tree.sh SERIES (e.g. 4.4, 4.5)"
  local tarball=${AFPBENCH_NETATALK_TARBALL:-} cache="$AFPBENCH_CACHE/netatalk-$series" tmp
  if [[ -z $tarball ]]; then
    tarball=$(find "$ROOT/../shared/netatalk" -maxdepth 1 -name "netatalk-$series.*.tar.xz" 2>/dev/null | sort | tail -n 1 || true)
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
    printf 'no netatalk %s source tree: no tarball in %s, none unpacked in %s (set AFPBENCH_NETATALK_TARBALL)\n' \
      "$series" "$(cd "$ROOT/.." && pwd)/shared/netatalk" "$cache" >&2
    exit "$NO_TREE"
  fi
  [[ -f $tarball ]] || die "AFPBENCH_NETATALK_TARBALL=$tarball: no such file"
  local name tree
  name=$(basename "$tarball" .tar.xz)
  tree=$(tree_in "$cache/$name")
  if [[ -z $tree ]]; then
    mkdir -p "$cache"
    tmp=$(mktemp -d "$cache/.unpack.XXXXXX")
    tar -C "$tmp" -xJf "$tarball" || die "cannot unpack $tarball"
    rm -rf "${cache:?}/$name"
    mv "$tmp" "$cache/$name"
    tree=$(tree_in "$cache/$name")
  fi
  [[ -n $tree ]] || die "$tarball holds no netatalk source tree (no meson.build)"
  printf '%s\n' "$tree"
}

main "$@"
