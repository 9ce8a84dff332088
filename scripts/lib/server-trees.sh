# shellcheck shell=bash
# The server's trees for scripts/local-server: the cached root filesystems
# that serve netatalk: a Debian package version's, a source checkout's built
# once (keyed by its tree) or incrementally (one tree per project, meson's
# build directory kept), the build-dependencies tree they start from, and
# their pruning. Sourced by scripts/local-server after its constants
# (SERVER_CACHE, INSTALLER, the paths inside a tree) and scripts/lib/rootfs.sh.
# shellcheck disable=SC2154 # the constants are local-server's

# recipe_id: changes whenever what goes into the cached tree changes.
recipe_id() {
  cat "$INSTALLER" "$RLIMIT_CAP_SRC" | sha256sum | cut -c1-12
}

# source_id DIR: a netatalk checkout's identity for the cache: the tree hash of
# HEAD for a clean git checkout, else a hash of all its files (less .git and
# build directories), so an edit makes a new build.
source_id() {
  local dir=$1
  if git -C "$dir" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
    [[ -z $(git -C "$dir" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
    git -C "$dir" rev-parse 'HEAD^{tree}' | cut -c1-16
  else
    (cd "$dir" && find . \( -name .git -o -name build -o -name 'build-*' \) -prune -o -type f -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
  fi
}

# project_id DIR: a checkout's project for the incremental trees: the first
# commit of its history (any clone of one project shares a tree and its
# build), else the directory's path.
project_id() {
  local id
  id=$(git -C "$1" rev-list --max-parents=0 HEAD 2>/dev/null | tail -n 1) || id=""
  [[ -n $id ]] || id=$(cd "$1" && pwd)
  printf '%s' "$id" | sha256sum | cut -c1-16
}

# server_rootfs VERSION [SOURCE [VALGRIND [INCREMENTAL [NAME]]]]: print the cached tree
# with netatalk VERSION (empty: the suite's current package) or built from the
# checkout SOURCE, building it first when missing. VALGRIND=1: the
# instrumented tree (valgrind installed too), named apart ("valgrind+netatalk-…")
# so that neither kind prunes the other. INCREMENTAL=1: one tree per project
# whose build directory stays; every start builds SOURCE again in it, and
# only what changed since the last start compiles; NAME: a tree of that name.
server_rootfs() {
  local version=$1 source=${2:-} valgrind=${3:-0} incremental=${4:-0} incremental_name=${5:-} dir prefix=
  ((valgrind)) && prefix=valgrind+
  if ((incremental)); then
    dir="$SERVER_CACHE/rootfs/${prefix}netatalk-inc-$(project_id "$source")${incremental_name:+.$incremental_name}-$(recipe_id)"
    incremental_rootfs "$dir" "$source" "$valgrind"
    printf '%s\n' "$dir"
    return 0
  fi
  if [[ -n $source ]]; then
    dir="$SERVER_CACHE/rootfs/${prefix}netatalk-src-$(source_id "$source")-$(recipe_id)"
  else
    dir="$SERVER_CACHE/rootfs/${prefix}netatalk-${version:-$ROOTFS_SUITE}-$(recipe_id)"
  fi
  if [[ ! -f $dir/.complete ]]; then
    mkdir -p "$SERVER_CACHE/rootfs"
    local build_lock
    exec {build_lock}>"$SERVER_CACHE/rootfs/.lock"
    flock "$build_lock"
    [[ -f $dir/.complete ]] || build_server_rootfs "$version" "$dir" "$source" "$valgrind"
    exec {build_lock}>&-
    prune_rootfs "$dir"
  fi
  printf '%s\n' "$dir"
}

# incremental_rootfs DIR SOURCE VALGRIND: the incremental tree DIR, made once
# as build_server_rootfs makes a source tree but keeping the checkout's copy
# (/usr/src/netatalk) and meson's build directory; afterwards SOURCE is copied
# over that copy (file times kept, so ninja sees what changed) and built again.
# A build that fails is an error (status 4); as every start builds first, a
# server never runs an older build than its checkout.
incremental_rootfs() {
  local dir=$1 source=$2 valgrind=$3 build_lock inst status=0 buildlog="$1.build.log"
  mkdir -p "$SERVER_CACHE/rootfs"
  exec {build_lock}>"$SERVER_CACHE/rootfs/.lock"
  flock "$build_lock"
  local seed=""
  [[ -f $dir/.complete ]] || seed=$(sibling_tree "$dir")
  if [[ -n $seed ]]; then
    # the same project's other tree has the build dependencies and a meson
    # build directory: a copy of it builds only what differs, where a tree
    # made from nothing takes minutes (the build lock is held: no build is
    # writing it, and a server reading it is no matter)
    log "making $dir from $seed (the same project's other tree)"
    rm -rf "$dir.tmp"
    cp -a "$seed" "$dir.tmp"
    mv "$dir.tmp" "$dir"
  fi
  if [[ ! -f $dir/.complete ]]; then
    build_server_rootfs "" "$dir" "$source" "$valgrind" 1
    prune_rootfs "$dir"
  else
    # its files change under the build: no server may serve it meanwhile
    for inst in "$INSTANCES"/*; do
      if grep -qsxF "ROOTFS=$dir" "$inst/instance.env" && mountpoint -q "$inst/root"; then
        die "the local server on port ${inst##*/} serves $dir; stop it before building $source into it"
      fi
    done
    copy_source "$source" "$dir$SOURCE_IN_ROOT"
    log "building netatalk from $source again (only what changed; log $buildlog)"
    mount -t proc proc "$dir/proc"
    build_in_root "$dir" --build-source "$SOURCE_IN_ROOT" --build-dir "$BUILD_IN_ROOT" >"$buildlog" 2>&1 || status=$?
    umount "$dir/proc"
    if ((status != 0)); then
      tail -n 15 "$buildlog" >&2
      log "building netatalk from $source failed (log above, full log $buildlog)"
      exit 4
    fi
    printf 'source %s (%s)\n' "$(source_id "$source")" \
      "$(env -i PATH="$CHROOT_PATH" chroot "$dir" afpd -V 2>&1 | head -n 1)" >"$dir/.netatalk-version"
  fi
  exec {build_lock}>&-
}

# sibling_tree DIR: another complete incremental tree of DIR's project and
# build recipe (the default one, or one of another NAME), or nothing.
sibling_tree() {
  local dir=$1 base recipe t
  base=${dir##*/}
  recipe=${base##*-}
  base=${base%-*}
  base=${base%%.*}
  for t in "${dir%/*}/$base-$recipe" "${dir%/*}/$base".*-"$recipe"; do
    [[ $t != "$dir" && -f $t/.complete ]] || continue
    printf '%s\n' "$t"
    return 0
  done
}

# build_in_root ROOT INSTALLER_ARGS...: install-netatalk in ROOT (its /proc
# mounted by the caller), with the shared compiler cache bound in for the
# run; its output goes where the caller sends it.
build_in_root() {
  local root=$1 status=0
  shift
  mkdir -p "$CCACHE_DIR_HOST" "$root$CCACHE_IN_ROOT"
  mount --bind "$CCACHE_DIR_HOST" "$root$CCACHE_IN_ROOT"
  env -i PATH="$CHROOT_PATH" LANG=C.UTF-8 CCACHE_DIR="$CCACHE_IN_ROOT" chroot "$root" \
    "$INSTALLER_IN_ROOT" "$@" || status=$?
  umount "$root$CCACHE_IN_ROOT"
  return "$status"
}

# copy_source SRC DEST: the files of the checkout SRC (less .git and build
# directories) into DEST with their times, and DEST's files that SRC no longer
# has removed.
copy_source() {
  local src=$1 dest=$2
  mkdir -p "$dest"
  tar -C "$src" --exclude=.git --exclude=build --exclude='build-*' -cf - . | tar -C "$dest" -xf -
  comm -13 <(cd "$src" && find . \( -name .git -o -name build -o -name 'build-*' \) -prune -o -type f -print | LC_ALL=C sort) \
    <(cd "$dest" && find . -type f -print | LC_ALL=C sort) | (cd "$dest" && xargs -r -d '\n' rm -f --)
}

# build_server_rootfs VERSION DIR [SOURCE [VALGRIND [KEEP]]]: KEEP=1 keeps the
# checkout's copy and meson's build directory (incremental_rootfs).
build_server_rootfs() {
  local version=$1 dir=$2 source=${3:-} valgrind=${4:-0} keep=${5:-0} base tmp="$2.tmp" buildlog="$2.build.log"
  local extra=() build_args=()
  ((valgrind)) && extra=(--with-valgrind)
  ((keep)) && build_args=(--build-dir "$BUILD_IN_ROOT")
  require_cmd gcc
  if [[ -n $source ]]; then
    base=$(build_deps_rootfs)
  else
    base=$(rootfs_base)
  fi
  log "building the netatalk root filesystem (once; cached in $dir)"
  unmount_under "$tmp"
  rootfs_copy "$base" "$tmp"
  mount -t proc proc "$tmp/proc"
  cp /etc/resolv.conf "$tmp/etc/resolv.conf"
  install -D -m 755 "$INSTALLER" "$tmp$INSTALLER_IN_ROOT"
  install -D -m 755 "$ENTRYPOINT" "$tmp$ENTRYPOINT_IN_ROOT"
  local status=0
  if [[ -n $source ]]; then
    # The same steps as Dockerfile.server's server-source target.
    log "building netatalk from $source (once: minutes; log $buildlog)"
    copy_source "$source" "$tmp$SOURCE_IN_ROOT"
    {
      build_in_root "$tmp" --build-source "$SOURCE_IN_ROOT" "${build_args[@]}" 2>"$buildlog" &&
        env -i PATH="$CHROOT_PATH" LANG=C.UTF-8 chroot "$tmp" \
          "$INSTALLER_IN_ROOT" --runtime-deps "${extra[@]}" 2>>"$buildlog" &&
        env -i PATH="$CHROOT_PATH" chroot "$tmp" "$ENTRYPOINT_IN_ROOT" --prepare 2>>"$buildlog" &&
        printf 'source %s (%s)\n' "$(source_id "$source")" \
          "$(env -i PATH="$CHROOT_PATH" chroot "$tmp" afpd -V 2>&1 | head -n 1)" >"$tmp/.netatalk-version"
    } || status=$?
    ((keep)) || rm -rf "${tmp:?}$SOURCE_IN_ROOT"
  else
    # The same two steps as Dockerfile.server's RUN.
    env -i PATH="$CHROOT_PATH" LANG=C.UTF-8 chroot "$tmp" \
      "$INSTALLER_IN_ROOT" --version "$version" "${extra[@]}" >"$tmp/.netatalk-version" 2>"$buildlog" &&
      env -i PATH="$CHROOT_PATH" chroot "$tmp" "$ENTRYPOINT_IN_ROOT" --prepare 2>>"$buildlog" ||
      status=$?
  fi
  umount "$tmp/proc"
  if ((status != 0)); then
    tail -n 25 "$buildlog" >&2
    rm -rf "$tmp"
    die "installing netatalk into the root filesystem failed (log above, full log $buildlog)"
  fi
  # Built with the host's compiler: it only needs a glibc at least as old.
  mkdir -p "$tmp$(dirname "$RLIMIT_CAP_IN_ROOT")"
  gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$tmp$RLIMIT_CAP_IN_ROOT" "$RLIMIT_CAP_SRC" -ldl ||
    die "cannot build $RLIMIT_CAP_SRC"
  touch "$tmp/.complete"
  mv "$tmp" "$dir"
  log "netatalk $(cat "$dir/.netatalk-version") installed"
}

# build_deps_rootfs: the base tree with netatalk's build dependencies
# installed, made once per build recipe (the caller holds the build lock):
# every source build starts from a copy of it instead of installing them
# again (a minute of apt each).
build_deps_rootfs() {
  local dir tmp status=0
  dir="$SERVER_CACHE/rootfs/build-deps-$(recipe_id)"
  if [[ ! -f $dir/.complete ]]; then
    tmp=$dir.tmp
    log "installing netatalk's build dependencies into a root filesystem (once; cached in $dir)"
    unmount_under "$tmp"
    rootfs_copy "$(rootfs_base)" "$tmp"
    mount -t proc proc "$tmp/proc"
    cp /etc/resolv.conf "$tmp/etc/resolv.conf"
    install -D -m 755 "$INSTALLER" "$tmp$INSTALLER_IN_ROOT"
    env -i PATH="$CHROOT_PATH" LANG=C.UTF-8 chroot "$tmp" "$INSTALLER_IN_ROOT" --build-deps \
      >"$dir.build.log" 2>&1 || status=$?
    umount "$tmp/proc"
    if ((status != 0)); then
      tail -n 25 "$dir.build.log" >&2
      rm -rf "$tmp"
      die "installing netatalk's build dependencies failed (log above, full log $dir.build.log)"
    fi
    touch "$tmp/.complete"
    mv "$tmp" "$dir"
    prune_rootfs "$dir"
  fi
  printf '%s\n' "$dir"
}

# prune_rootfs KEEP: remove trees of older recipes that no server uses.
prune_rootfs() {
  local keep=$1 dir inst
  for dir in "${keep%-*}"-*; do
    [[ $dir == "$keep" || ! -f $dir/.complete ]] && continue
    for inst in "$INSTANCES"/*; do
      if grep -qsxF "ROOTFS=$dir" "$inst/instance.env" && mountpoint -q "$inst/root"; then
        continue 2
      fi
    done
    log "removing the outdated $dir"
    rm -rf "$dir" "$dir.build.log"
  done
}
