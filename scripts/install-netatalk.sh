#!/usr/bin/env bash
# Install netatalk into a Debian root filesystem. The one install recipe for the
# server: Dockerfile.server runs it in its RUN steps and scripts/local-server runs
# it under chroot in a cached root filesystem, so the two cannot drift.
# Self-contained: the image build copies only this file.
#
#   install-netatalk.sh [--version V]  Debian's netatalk package; V is a Debian
#                                      version (4.2.3~ds-1+deb13u2) or an upstream
#                                      one (4.2.3); empty = the suite's current one
#   install-netatalk.sh --build-deps   what building netatalk with meson needs
#   install-netatalk.sh --runtime-deps what a netatalk built from source needs to run
#   install-netatalk.sh --build-source DIR [--destdir D] [--meson-args "ARGS"]
#                                      build the netatalk checkout in DIR with meson
#                                      (build deps first) and install it into D (default /)
#   --with-valgrind                    (with any mode) also install valgrind, which
#                                      the instrumented server runs afpd under
#                                      (AFP_INSTRUMENT, docs/server.md)
#
# Run as root inside the target (a container build or a chroot). Prints the
# installed netatalk version on stdout for the package mode.
set -euo pipefail

# Libraries and tools of a meson build of netatalk 4 on Debian trixie. Optional
# features whose libraries are missing (Spotlight, Zeroconf, Kerberos) are left
# out by meson's feature detection.
# libsqlite3: netatalk 4.3 and later build their SQLite CNID backend (cnid scheme =
# sqlite, what netatalk's own CI runs) when it is there.
readonly BUILD_DEPS=(gcc libc6-dev meson ninja-build pkgconf bison flex perl unicode-data
  libacl1-dev libattr1-dev libcrack2-dev libdb-dev libevent-dev libgcrypt20-dev
  libiniparser-dev libpam0g-dev libsqlite3-dev libtalloc-dev libtirpc-dev)
readonly RUNTIME_DEPS=(libacl1 libattr1 libcrack2 libdb5.3t64 libevent-2.1-7t64
  libgcrypt20 libiniparser4 libpam0g libpam-modules libsqlite3-0 libtalloc2 libtirpc3t64)
# What the entrypoint uses besides netatalk (most are in every Debian base).
readonly ENTRYPOINT_DEPS=(passwd coreutils util-linux)
# The instrumented server (--with-valgrind): valgrind's tools count afpd's
# instructions; its Perl helpers are not used.
readonly VALGRIND_DEPS=(valgrind)

log() { printf 'install-netatalk: %s\n' "$*" >&2; }
die() {
  printf 'install-netatalk: error: %s\n' "$*" >&2
  exit 1
}

apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2
}

# no_service_starts: package scripts must not start daemons (avahi, dbus) in
# an image build or a chroot; policy-rc.d exit 101 tells invoke-rc.d so.
no_service_starts() {
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
}

# quiet_indexer_stop: netatalk runs "localsearch daemon -t" (stop the Spotlight
# indexer) whenever it stops, Spotlight on or not. Without Spotlight there is
# no session bus and no indexer, and the call only prints GLib-CRITICAL lines
# and "Found 0 PIDs?" into the server's log. A wrapper (dpkg-divert) makes that
# one call a no-op when there is no session bus (netatalk sets
# DBUS_SESSION_BUS_ADDRESS when Spotlight is on) and runs the real program
# otherwise.
quiet_indexer_stop() {
  local bin=/usr/bin/localsearch
  [[ -x $bin && ! -e $bin.real ]] || return 0
  dpkg-divert --quiet --local --rename --divert "$bin.real" --add "$bin"
  cat >"$bin" <<'EOF'
#!/bin/sh
# afpbench (install-netatalk.sh): netatalk's "stop the indexer" is a no-op
# when there is no session bus, i.e. when Spotlight is off; the real program
# is localsearch.real (dpkg-divert).
if [ "${1:-}" = daemon ] && [ "${2:-}" = -t ] && [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  exit 0
fi
exec /usr/bin/localsearch.real "$@"
EOF
  chmod 755 "$bin"
}

cleanup() {
  rm -f /usr/sbin/policy-rc.d
  apt-get clean
  rm -rf /var/lib/apt/lists/*
}

# debian_version V: the Debian version of netatalk to install for V.
debian_version() {
  local wanted=$1 versions v
  versions=$(apt-cache madison netatalk | awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -u)
  [[ -n $versions ]] || die "no netatalk package in the configured apt sources"
  while read -r v; do
    # Exact Debian version, or upstream version: V then ~ or - (never 4.2.30 for 4.2.3).
    if [[ $v == "$wanted" || ${v#*:} == "$wanted"[~-]* ]]; then
      printf '%s\n' "$v"
      return 0
    fi
  done <<<"$versions"
  die "netatalk $wanted is not available; available: $(tr '\n' ' ' <<<"$versions")"
}

# build_source DIR DESTDIR MESON_ARGS: netatalk from a source checkout, the
# options every build of ours uses (no init scripts, docs, tests, Spotlight).
# Optimized as a release, and with debug information, so that the gate's
# traces name the function and file:line that made a call (docs/server.md).
build_source() {
  local src=$1 destdir=$2 extra=$3
  [[ -f $src/meson.build ]] || die "$src has no meson.build: not a netatalk 4 source checkout"
  apt-get update -q >&2
  apt_install "${BUILD_DEPS[@]}" "${EXTRA_DEPS[@]}"
  local build
  build=$(mktemp -d /tmp/netatalk-build.XXXXXX)
  log "building netatalk from $src"
  local args=()
  # MESON_ARGS is a list of options: split it on blanks
  read -ra args <<<"$extra"
  # A tree without the generated Unicode case tables (Debian's repacked
  # upstream tarball drops them) makes them from UnicodeData.txt.
  [[ -f $src/libatalk/unicode/utf16_case.c ]] || args+=(-Dwith-unicode-data=true)
  # libraries where Debian's loader looks (netatalk's own default is lib64)
  local libdir
  libdir=lib/$(gcc -print-multiarch)
  meson setup "$build" "$src" --prefix=/usr --libdir="$libdir" --sysconfdir=/etc --localstatedir=/var \
    --buildtype=debugoptimized \
    -Dwith-init-style=none \
    -Dwith-pkgconfdir-path=/etc/netatalk \
    -Dwith-pam-config-path=/etc/pam.d \
    -Dwith-docs= \
    -Dwith-tests=false \
    -Dwith-testsuite=false \
    -Dwith-spotlight=false \
    -Dwith-dtrace=false \
    -Dwith-tcp-wrappers=false \
    -Dwith-rpath=false \
    "${args[@]}" >&2
  meson compile -C "$build" >&2
  meson install -C "$build" --destdir "$destdir" >&2
  rm -rf "$build"
  # installed in place: make its libraries (libatalk) known to the loader,
  # and check that what was built runs
  if [[ $destdir == / ]]; then
    ldconfig
    afpd -V >/dev/null 2>&1 || die "the netatalk built from $src does not run: $(afpd -V 2>&1 | head -n 1)"
  fi
}

install_package() {
  local wanted=$1 pkgs=(netatalk)
  apt-get update -q >&2
  if [[ -n $wanted ]]; then
    local v
    v=$(debian_version "$wanted")
    log "installing netatalk $v"
    # libatalk is netatalk's library; it must be the very same version.
    pkgs=("netatalk=$v" "libatalk=$v")
  else
    log "installing the current netatalk package"
  fi
  apt_install "${pkgs[@]}" "${ENTRYPOINT_DEPS[@]}" "${EXTRA_DEPS[@]}"
  quiet_indexer_stop
  dpkg-query -W -f='${Version}\n' netatalk
}

main() {
  ((EUID == 0)) || die "must run as root (inside the image build or the chroot)"
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this installs into Debian only"
  local mode=package version=${NETATALK_VERSION:-} source="" destdir=/ meson_args=${MESON_ARGS:-}
  EXTRA_DEPS=()
  while (($# > 0)); do
    case $1 in
      --version)
        (($# >= 2)) || die "--version needs a value"
        version=$2
        shift 2
        ;;
      --with-valgrind)
        EXTRA_DEPS=("${VALGRIND_DEPS[@]}")
        shift
        ;;
      --build-deps | --runtime-deps)
        mode=${1#--}
        shift
        ;;
      --build-source)
        (($# >= 2)) || die "--build-source needs a directory"
        mode=build-source source=$2
        shift 2
        ;;
      --destdir)
        (($# >= 2)) || die "--destdir needs a directory"
        destdir=$2
        shift 2
        ;;
      --meson-args)
        (($# >= 2)) || die "--meson-args needs a value"
        meson_args=$2
        shift 2
        ;;
      -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        return 0
        ;;
      *) die "unknown argument '$1' (try --help)" ;;
    esac
  done
  [[ $version =~ ^[A-Za-z0-9.+:~-]*$ ]] || die "bad netatalk version '$version'"
  no_service_starts
  trap cleanup EXIT
  case $mode in
    package) install_package "$version" ;;
    build-deps)
      apt-get update -q >&2
      apt_install "${BUILD_DEPS[@]}" "${EXTRA_DEPS[@]}"
      ;;
    runtime-deps)
      apt-get update -q >&2
      apt_install "${RUNTIME_DEPS[@]}" "${ENTRYPOINT_DEPS[@]}" "${EXTRA_DEPS[@]}"
      ;;
    build-source) build_source "$source" "$destdir" "$meson_args" ;;
  esac
}

main "$@"
