# shellcheck shell=bash
# Cached Debian root filesystems for running the real server without Docker and
# for making the podman base image offline. Source after common.sh.
#
# The base is `debootstrap --variant=minbase` of the Debian suite the images use
# (trixie: the first release that packages netatalk 4). It is built once into
# $AFPBENCH_CACHE and reused: building takes about half a minute.

ROOTFS_SUITE=${ROOTFS_SUITE:-trixie}
ROOTFS_MIRROR=${ROOTFS_MIRROR:-http://deb.debian.org/debian}

# rootfs_base: print the path of the cached pristine base root filesystem
# (a directory; treat it as read-only), building it first when missing.
rootfs_base() {
  local dir="$AFPBENCH_CACHE/rootfs/$ROOTFS_SUITE-minbase"
  if [[ -f $dir/.complete ]]; then
    printf '%s\n' "$dir"
    return 0
  fi
  require_cmd debootstrap
  mkdir -p "$AFPBENCH_CACHE/rootfs"
  # Serialise concurrent builders; the loser finds the finished copy.
  exec {lock_fd}>"$AFPBENCH_CACHE/rootfs/.lock"
  flock "$lock_fd"
  if [[ ! -f $dir/.complete ]]; then
    local tmp="$dir.tmp.$$"
    rm -rf "$tmp"
    log "building the $ROOTFS_SUITE base root filesystem (once, cached in $dir)"
    if ! debootstrap --variant=minbase "$ROOTFS_SUITE" "$tmp" "$ROOTFS_MIRROR" >"$tmp.log" 2>&1; then
      tail -n 20 "$tmp.log" >&2
      rm -rf "$tmp"
      exec {lock_fd}>&-
      die "debootstrap $ROOTFS_SUITE failed (log above)"
    fi
    rm -f "$tmp.log"
    rm -rf "$dir"
    touch "$tmp/.complete"
    mv "$tmp" "$dir"
  fi
  exec {lock_fd}>&-
  printf '%s\n' "$dir"
}

# rootfs_copy SRC DEST: copy a root filesystem, keeping owners, modes and links.
rootfs_copy() {
  rm -rf "$2"
  mkdir -p "$2"
  tar -C "$1" -cf - --exclude=./.complete . | tar -C "$2" -xf -
}
