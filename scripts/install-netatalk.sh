#!/usr/bin/env bash
# Install netatalk into a Debian root filesystem. The one install recipe for the
# server: Dockerfile.server runs it in its RUN steps and scripts/local-server runs
# it under chroot in a cached root filesystem, so the two cannot drift.
# Self-contained: the image build copies only this file.
#
#   install-netatalk.sh [--version V]  Debian's netatalk package; V is a Debian
#                                      version (4.2.3~ds-1+deb13u2) or an upstream
#                                      one (4.2.3, 4.5.1); empty = the suite's current
#                                      one. A version the base suite (trixie) lacks
#                                      comes from Debian testing or unstable, pinned:
#                                      only that netatalk and the libraries it needs
#                                      newer than trixie's; the rest stays trixie
#   install-netatalk.sh --build-deps   what building netatalk with meson needs
#   install-netatalk.sh --runtime-deps what a netatalk built from source needs to run
#   install-netatalk.sh --build-source DIR [--destdir D] [--meson-args "ARGS"] [--build-dir B]
#                                      build the netatalk checkout in DIR with meson
#                                      (build deps first) and install it into D (default /).
#                                      --build-dir keeps meson's build directory in B:
#                                      the next build of DIR compiles only what changed
#                                      (scripts/bisect's probes)
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
# ccache: meson compiles through it when it is there; it is on only where the
# caller gives it a directory (CCACHE_DIR: Dockerfile.server's cache mount, or the one
# scripts/local-server binds in for its source builds).
readonly BUILD_DEPS=(gcc libc6-dev ccache meson ninja-build pkgconf bison flex perl unicode-data
  libacl1-dev libattr1-dev libcrack2-dev libdb-dev libevent-dev libgcrypt20-dev
  libiniparser-dev libpam0g-dev libsqlite3-dev libtalloc-dev libtirpc-dev)
readonly RUNTIME_DEPS=(libacl1 libattr1 libcrack2 libdb5.3t64 libevent-2.1-7t64
  libgcrypt20 libiniparser4 libpam0g libpam-modules libsqlite3-0 libtalloc2 libtirpc3t64)
# What the entrypoint uses besides netatalk (most are in every Debian base).
readonly ENTRYPOINT_DEPS=(passwd coreutils util-linux)
# Where a netatalk version that the base suite lacks may come from, searched in
# this order (4.5.1~ds-1: testing and unstable, 2026-11). Added only for such a
# version, at a priority below the base's (never an upgrade by itself), and
# removed again after the install.
readonly NEWER_SUITES=(testing unstable)
readonly NEWER_SOURCES=/etc/apt/sources.list.d/afpbench-newer.sources
readonly NEWER_PREFS=/etc/apt/preferences.d/afpbench-newer
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
  rm -f /usr/sbin/policy-rc.d "$NEWER_SOURCES" "$NEWER_PREFS"
  apt-get clean
  rm -rf /var/lib/apt/lists/*
}

# netatalk_versions: every netatalk version the configured apt sources have.
netatalk_versions() {
  apt-cache madison netatalk | awk -F'|' '{gsub(/ /, "", $2); print $2}' | sort -u
}

# match_version WANTED: the Debian version among netatalk_versions that is
# WANTED, or nothing (status 1).
match_version() {
  local wanted=$1 v
  while read -r v; do
    [[ -n $v ]] || continue
    # Exact Debian version, or upstream version: V then ~ or - (never 4.2.30 for 4.2.3).
    if [[ $v == "$wanted" || ${v#*:} == "$wanted"[~-]* ]]; then
      printf '%s\n' "$v"
      return 0
    fi
  done < <(netatalk_versions)
  return 1
}

# base_uri: the Debian archive the base suite comes from (its first source),
# where testing and unstable are looked for too.
base_uri() {
  local uri
  # shellcheck disable=SC2016 # apt's own $(...) template, not the shell's
  uri=$(apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 2>/dev/null | head -n 1)
  printf '%s\n' "${uri:-http://deb.debian.org/debian/}"
}

# add_newer_suites: Debian testing and unstable as apt sources, pinned below
# the base suite: apt takes nothing from them unless asked for by version or
# suite. No Valid-Until check for them: a mirror that is a frozen snapshot
# (the project's machines) serves Release files past their week of validity;
# the signatures are still checked, and what is installed from them is named
# by exact version.
add_newer_suites() {
  local suite uri
  uri=$(base_uri)
  cat >"$NEWER_SOURCES" <<EOF
Types: deb
URIs: $uri
Suites: ${NEWER_SUITES[*]}
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
Check-Valid-Until: no
EOF
  : >"$NEWER_PREFS"
  for suite in "${NEWER_SUITES[@]}"; do
    printf 'Package: *\nPin: release a=%s\nPin-Priority: 100\n\n' "$suite" >>"$NEWER_PREFS"
  done
  log "netatalk $1 is not in $(base_suite): looking in $(or_list "${NEWER_SUITES[@]}")"
  apt-get update -q -o Acquire::Languages=none >&2
}

# or_list A B...: "Debian A, B or C": the suites in words.
or_list() {
  local out="Debian $1"
  shift
  while (($# > 1)); do
    out+=", $1"
    shift
  done
  (($# == 0)) || out+=" or $1"
  printf '%s\n' "$out"
}

# base_codename: the base suite's name (trixie).
base_codename() {
  local codename
  codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
  printf '%s\n' "${codename:-stable}"
}

base_suite() { printf 'Debian %s\n' "$(base_codename)"; }

# suite_of PKG VERSION: the first of NEWER_SUITES that has PKG at VERSION.
suite_of() {
  local suite
  for suite in "${NEWER_SUITES[@]}"; do
    if apt-cache madison "$1" | awk -F'|' -v v="$2" -v s="$suite/" \
      '{ gsub(/ /, "", $2) } $2 == v && index($3, " " s) { found = 1 } END { exit !found }'; then
      printf '%s\n' "$suite"
      return 0
    fi
  done
  return 1
}

# unavailable WHAT: the archive does not have WHAT: say so, and the way out.
unavailable() {
  local have
  have=$(netatalk_versions | paste -sd, - | sed 's/,/, /g')
  die "$1 (netatalk versions there: ${have:-none}). Debian drops a version from testing and unstable once a newer one arrives. To serve it anyway, build it from its source tree: the action's netatalk-source (base-netatalk-source), compose's NETATALK_SOURCE with SERVER_TARGET=server-source, or scripts/local-server start --netatalk-source DIR (docs/server.md)"
}

# newer_deps SUITE PKG=VERSION...: the dependencies of these packages whose
# candidate (the base suite's) is missing or too old, as NAME=VERSION of
# SUITE, each checked to satisfy the dependency (else an error naming it).
# Exact versions, not NAME/SUITE: apt would then take other dependencies from
# SUITE too, where the base's would do.
newer_deps() {
  local suite=$1 spec dep name op ver cand have dop
  shift
  for spec in "$@"; do
    apt-cache show --no-all-versions "$spec" 2>/dev/null | sed -n 's/^Depends: //p' | tr ',' '\n' |
      while read -r dep; do
        # alternatives (a | b) are left to apt
        [[ -n $dep && $dep != *"|"* ]] || continue
        name=${dep%% *} name=${name%%:*} op="" ver=""
        # asked for by version already
        [[ " $* " != *" $name="* ]] || continue
        if [[ $dep =~ \((<<|<=|=|>=|>>)\ *([^\)]+)\) ]]; then
          op=${BASH_REMATCH[1]} ver=${BASH_REMATCH[2]}
        fi
        case $op in
          '<<') dop=lt ;; '<=') dop=le ;; '=') dop=eq ;; '>=') dop=ge ;; '>>') dop=gt ;; *) dop="" ;;
        esac
        cand=$(apt-cache policy "$name" 2>/dev/null | awk '/Candidate:/ { print $2; exit }')
        if [[ -n $cand && $cand != "(none)" ]] && { [[ -z $dop ]] || dpkg --compare-versions "$cand" "$dop" "$ver"; }; then
          continue
        fi
        # the base's candidate does not do: the suite's own version must
        have=$(apt-cache madison "$name" | awk -F'|' -v s="$suite/" '{ gsub(/ /, "", $2) } index($3, " " s) { print $2; exit }')
        # a virtual package (no version anywhere) is apt's to resolve
        [[ -n $have || (-n $cand && $cand != "(none)") ]] || continue
        if [[ -z $have ]] || { [[ -n $dop ]] && ! dpkg --compare-versions "$have" "$dop" "$ver"; }; then
          unavailable "${spec%%=*} ${spec#*=} needs $dep, which neither $(base_suite) nor Debian $suite has"
        fi
        printf '%s=%s\n' "$name" "$have"
      done
  done | sort -u
}

# from_newer_suites: the installed packages whose version is not the base
# suite's, with their versions (what came from testing or unstable).
from_newer_suites() {
  apt list --installed 2>/dev/null | awk -F'[/ ]' -v newer=" ${NEWER_SUITES[*]} " '
    NF >= 3 && $2 != "" {
      n = split($2, suites, ","); base = 0; other = 0
      for (i = 1; i <= n; i++) {
        if (suites[i] == "now") continue
        if (index(newer, " " suites[i] " ")) other = 1; else base = 1
      }
      if (other && !base) printf "%s %s, ", $1, $3
    }' | sed 's/, $//'
}

# build_source DIR DESTDIR MESON_ARGS: netatalk from a source checkout, the
# options every build of ours uses (no init scripts, docs, tests, Spotlight).
# Optimized as a release, and with debug information, so that the gate's
# traces name the function and file:line that made a call (docs/server.md).
build_source() {
  local src=$1 destdir=$2 extra=$3 build=${4:-}
  [[ -f $src/meson.build ]] || die "$src has no meson.build: not a netatalk 4 source checkout"
  if [[ -n ${CCACHE_DIR:-} ]]; then
    # the build directory's name is a new temporary one each time: leave it
    # out of the cache's keys, or no object would ever be found again; and
    # the cache's size capped (a build of netatalk is about 50 MB of it)
    export CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-1G}
  else
    export CCACHE_DISABLE=true
  fi
  if [[ -n $build && -f $build/build.ninja ]]; then
    # configured before: ninja rebuilds what changed (and re-runs meson
    # itself when a meson.build did)
    log "building netatalk from $src again in $build (only what changed)"
    meson compile -C "$build" >&2
    meson install -C "$build" --destdir "$destdir" >&2
    installed_runs "$src" "$destdir"
    return 0
  fi
  apt-get update -q >&2
  apt_install "${BUILD_DEPS[@]}" "${EXTRA_DEPS[@]}"
  local keep=1
  if [[ -z $build ]]; then
    build=$(mktemp -d /tmp/netatalk-build.XXXXXX)
    keep=0
  fi
  rm -rf "$build"
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
  ((keep)) || rm -rf "$build"
  installed_runs "$src" "$destdir"
}

# installed_runs SRC DESTDIR: installed in place, make its libraries (libatalk)
# known to the loader, and check that what was built runs.
installed_runs() {
  [[ $2 == / ]] || return 0
  ldconfig
  afpd -V >/dev/null 2>&1 || die "the netatalk built from $1 does not run: $(afpd -V 2>&1 | head -n 1)"
}

install_package() {
  local wanted=$1 pkgs=(netatalk) newer=()
  apt-get update -q >&2
  if [[ -n $wanted ]]; then
    local v suite=""
    if ! v=$(match_version "$wanted"); then
      add_newer_suites "$wanted"
      v=$(match_version "$wanted") ||
        unavailable "netatalk $wanted is not in $(or_list "$(base_codename)" "${NEWER_SUITES[@]}")"
      suite=$(suite_of netatalk "$v") || unavailable "netatalk $v is not in $(or_list "${NEWER_SUITES[@]}")"
    fi
    # libatalk is netatalk's library; it must be the very same version.
    pkgs=("netatalk=$v" "libatalk=$v")
    if [[ -n $suite ]]; then
      [[ -n $(apt-cache madison libatalk | awk -F'|' -v v="$v" '{ gsub(/ /, "", $2) } $2 == v') ]] ||
        unavailable "libatalk $v (netatalk $v's library) is not in Debian $suite"
      # and what those need in turn, until nothing more is missing
      local frontier=("${pkgs[@]}") deps dep
      while ((${#frontier[@]} > 0)); do
        deps=$(newer_deps "$suite" "${frontier[@]}") || exit 1
        frontier=()
        for dep in $deps; do
          [[ " ${pkgs[*]} ${newer[*]} " == *" ${dep%%=*}="* ]] && continue
          newer+=("$dep") frontier+=("$dep")
        done
      done
      log "installing netatalk $v from Debian $suite, with ${newer[*]:-no other package} from there; everything else from $(base_suite)"
    else
      log "installing netatalk $v"
    fi
  else
    log "installing the current netatalk package"
  fi
  apt_install "${pkgs[@]}" "${newer[@]}" "${ENTRYPOINT_DEPS[@]}" "${EXTRA_DEPS[@]}"
  if ((${#newer[@]} > 0)); then
    log "from $(or_list "${NEWER_SUITES[@]}"): $(from_newer_suites)"
  fi
  quiet_indexer_stop
  dpkg-query -W -f='${Version}\n' netatalk
}

main() {
  ((EUID == 0)) || die "must run as root (inside the image build or the chroot)"
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this installs into Debian only"
  local mode=package version=${NETATALK_VERSION:-} source="" destdir=/ meson_args=${MESON_ARGS:-} build_dir=
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
      --build-dir)
        (($# >= 2)) || die "--build-dir needs a directory"
        build_dir=$2
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
    build-source) build_source "$source" "$destdir" "$meson_args" "$build_dir" ;;
  esac
}

main "$@"
