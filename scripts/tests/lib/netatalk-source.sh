#!/usr/bin/env bash
# TEST ONLY: a netatalk 4 source tree for the build-from-source tests, from
# Debian's archive (the upstream tarball of trixie's netatalk source package),
# fetched once through the cached base root filesystem and kept in
# $AFPBENCH_CACHE/netatalk-source.
#
#   scripts/tests/lib/netatalk-source.sh     prints the source tree's path
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
readonly ROOT
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/rootfs.sh
source "$ROOT/scripts/lib/rootfs.sh"

tmp=""

cleanup() {
  [[ -n $tmp ]] || return 0
  if mountpoint -q "$tmp/root/proc"; then umount "$tmp/root/proc"; fi
  rm -rf "$tmp"
}

main() {
  local cache="$AFPBENCH_CACHE/netatalk-source" tree
  tree=$(find "$cache" -mindepth 2 -maxdepth 2 -name meson.build -printf '%h\n' 2>/dev/null | head -n 1 || true)
  if [[ -n $tree ]]; then
    printf '%s\n' "$tree"
    return 0
  fi
  ((EUID == 0)) || die "must run as root (chroot)"
  local base
  base=$(rootfs_base)
  tmp=$(mktemp -d "${AFPBENCH_CACHE}/netatalk-source.tmp.XXXXXX")
  trap cleanup EXIT
  rootfs_copy "$base" "$tmp/root"
  cp /etc/resolv.conf "$tmp/root/etc/resolv.conf"
  printf 'deb-src %s %s main\n' "$ROOTFS_MIRROR" "$ROOTFS_SUITE" >"$tmp/root/etc/apt/sources.list.d/src.list"
  mount -t proc proc "$tmp/root/proc"
  log "fetching netatalk's source package from Debian $ROOTFS_SUITE (once)"
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$tmp/root" sh -c \
    'apt-get update -qq && mkdir -p /src && cd /src && apt-get source --download-only -qq netatalk' >&2 ||
    die "apt-get source netatalk failed"
  umount "$tmp/root/proc"
  local orig
  orig=$(find "$tmp/root/src" -name 'netatalk_*.orig.tar.*' | head -n 1)
  [[ -n $orig ]] || die "no upstream tarball in netatalk's source package"
  mkdir -p "$tmp/out"
  tar -C "$tmp/out" -xf "$orig"
  rm -rf "$cache"
  mv "$tmp/out" "$cache"
  find "$cache" -mindepth 2 -maxdepth 2 -name meson.build -printf '%h\n' | head -n 1
}

main "$@"
