#!/usr/bin/env bash
# Performance figures of afpbench itself (a benchmark that prints figures,
# not a timed test):
#   - the client's CPU time per AFP op over a full lantest run (-n 1);
#   - speedtest Read and Write MB/s at -r 1 and -r 4 over loopback, next to
#     local mode (-L) on the same disk as the server's share;
#   - side by side with the upstream tools (Debian's netatalk-tests:
#     afp_speedtest and afp_lantest of the server's own netatalk build), run
#     in turn A B A B against the same server: throughput ratios of speedtest
#     Read and Write, and the client's CPU per AFP op over lantest 1-6, each
#     with its spread (min / median / max over the pairs). docs/client-speed.md
#     says what is compared and why.
#
#   src/afpbench/bench/run-bench.sh [--pairs N] [--own-only | --upstream-only]
#                                   [--upstream-source TARBALL] [--rt] [SIZE_MIB]
#   src/afpbench/bench/run-bench.sh --instructions
#
#   SIZE_MIB   speedtest file size (default 64)
#   --pairs N  A/B pairs per speedtest case (default 7; lantest: (N + 1) / 2)
#   --upstream-source TARBALL  the upstream afp_speedtest built from a netatalk
#              4 source tarball (e.g. netatalk 4.4's) instead of Debian's
#              package: speedtest only, and per MiB of each side's timed
#              transfers, its system calls and its CPU time. Built once (a few
#              minutes) in $AFPBENCH_CACHE/upstream-tools/src-<hash>, over the
#              build-dependency tree that `scripts/local-server start
#              --netatalk-source DIR` makes (run that once first).
#   --rt       the speedtest pairs with both clients and the server's
#              processes under SCHED_FIFO (priority 10; the server back to
#              SCHED_OTHER at the end): on a machine that other work keeps
#              busy, its load then decides neither side's time
#   --instructions  instead: user-space instructions per AFP request of
#              afpbench and afp_lantest, tests 1-6, both under valgrind in a
#              copy of the server's tree with netatalk-tests and valgrind
#              (deterministic where CPU seconds are noise; a few minutes)
#
# Uses the server in AFP_HOST/AFP_PORT/... when AFP_PORT is set (for the
# side-by-side part it must be a scripts/local-server instance: the upstream
# tools are installed from its root filesystem); otherwise starts
# scripts/local-server on port 10572 and stops it afterwards.
#
# The upstream tools live in $AFPBENCH_CACHE/upstream-tools/netatalk-tests-<tree>:
# a copy of the server's cached root filesystem (which is only read, its
# cache key untouched) with `apt-get install netatalk-tests` of the server's
# netatalk version; built once (a few seconds plus the download), run under
# chroot. Needs root, apt access to Debian, and strace for the op counts.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
readonly ROOT
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/rootfs.sh
source "$ROOT/scripts/lib/rootfs.sh"

readonly AFPBENCH="$ROOT/src/afpbench/afpbench"
readonly BENCH_PORT=10572
readonly CHROOT_PATH=/usr/sbin:/usr/bin:/sbin:/bin
STARTED_SERVER=""
WORK=""
UPSTREAM_ROOT=""
# the upstream speedtest inside UPSTREAM_ROOT; SRC_MOUNT: an overlay to unmount
UPSTREAM_SPEEDTEST=afp_speedtest
SRC_MOUNT=""
# --rt: the clients' command prefix; RT_SERVER set once the server is FIFO
RT=()
RT_SERVER=""

cleanup() {
  [[ -n $WORK ]] && rm -rf "$WORK"
  [[ -n $RT_SERVER ]] && server_policy -o 0
  if [[ -n $SRC_MOUNT ]]; then
    umount "$SRC_MOUNT/proc" 2>/dev/null || true
    umount "$SRC_MOUNT" || true
  fi
  if [[ -n $STARTED_SERVER ]]; then
    "$ROOT/scripts/local-server" stop --port "$BENCH_PORT" || true
  fi
}

# speedtest_mbs ARGS...: mean MB/s of the one test the arguments select
speedtest_mbs() {
  local json="$WORK/speed.json"
  "$AFPBENCH" speedtest "$@" --json "$json" >/dev/null 2>"$WORK/speed.err" ||
    die "speedtest $* failed: $(tail -n 3 "$WORK/speed.err")"
  jq -r '.tests[0] | [.samples[] | .bytes / 1048576 / (.us / 1e6)] | add / length
         | . * 100 | round / 100' "$json"
}

# spread: "min median max" of the numbers on stdin (one a line), 3 decimals
spread() {
  sort -g | awk '{ v[NR] = $1 }
    END {
      if (NR == 0) { print "- - -"; exit }
      m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%.3f %.3f %.3f\n", v[1], m, v[NR]
    }'
}

# median of the numbers on stdin
median() { spread | awk '{ print $2 }'; }

own_figures() {
  local size=$1
  log "lantest -n 1 (all 12 tests)"
  "$AFPBENCH" lantest -n 1 --json "$WORK/lantest.json" >/dev/null 2>"$WORK/lantest.err" ||
    die "lantest failed: $(tail -n 3 "$WORK/lantest.err")"
  jq -r '.client_cpu | "client CPU per AFP op (lantest -n 1): \(.us_per_op) us  (user \(.user_us) us + sys \(.sys_us) us over \(.afp_ops) AFP ops)"' \
    "$WORK/lantest.json"
  jq -r '"lantest time per AFP op: \(([.tests[].samples[0].us] | add) / ([.tests[].afp_ops] | add) | . * 1000 | round / 1000) us"' \
    "$WORK/lantest.json"

  local local_dir="$WORK/local"
  mkdir -p "$local_dir"
  printf '\n%-10s %12s %12s %12s %12s\n' "op" "AFP -r 1" "AFP -r 4" "local" "local -D"
  local op
  for op in Read Write; do
    log "speedtest $op ${size} MiB"
    printf '%-10s %12s %12s %12s %12s\n' "$op" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -r 1)" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -r 4)" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -P "$local_dir")" \
      "$(speedtest_mbs -f "$op" -d "$size" -n 3 -P "$local_dir" -D)"
  done
  printf '(MB/s = MiB/s, mean of 3 runs after 1 warm-up, %s MiB file; local in %s)\n' \
    "$size" "$AFPBENCH_CACHE"
}

# ---------------------------------------------------------------- upstream

# upstream_install [valgrind]: set UPSTREAM_ROOT to a root filesystem holding
# Debian's netatalk-tests of the server's netatalk version, building it once.
# With "valgrind", a tree of its own that also holds Debian's valgrind (and
# the mount points /work and /proc_io), where --instructions runs both tools.
upstream_install() {
  local with_valgrind=${1:-} env="$AFPBENCH_CACHE/server/instances/$AFP_PORT/instance.env" rootfs version
  [[ -f $env ]] ||
    die "no local-server instance on port $AFP_PORT ($env): the upstream tools are installed from its root filesystem"
  rootfs=$(sed -n 's/^ROOTFS=//p' "$env")
  version=$(sed -n 's/^NETATALK_VERSION=//p' "$env")
  [[ -d $rootfs && -n $version ]] || die "cannot read the server's root filesystem from $env"
  local packages="'netatalk-tests=$version'" name=netatalk-tests
  if [[ -n $with_valgrind ]]; then
    packages+=" valgrind"
    name=netatalk-tests+valgrind
  fi
  local dir="$AFPBENCH_CACHE/upstream-tools/$name-${rootfs##*/}"
  UPSTREAM_ROOT=$dir
  [[ -f $dir/.complete ]] && return 0
  mkdir -p "$AFPBENCH_CACHE/upstream-tools"
  local lock
  exec {lock}>"$AFPBENCH_CACHE/upstream-tools/.lock"
  flock "$lock"
  if [[ ! -f $dir/.complete ]]; then
    local tmp="$dir.tmp.$$" status=0
    log "installing ${packages//\'/} beside the server (once; cached in $dir)"
    # A copy: the server's tree is the lower layer of running servers and
    # keeps its cache key; only this copy gains the packages.
    rootfs_copy "$rootfs" "$tmp"
    mount -t proc proc "$tmp/proc"
    cp /etc/resolv.conf "$tmp/etc/resolv.conf"
    env -i PATH="$CHROOT_PATH" LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$tmp" \
      sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends $packages" \
      >"$tmp.log" 2>&1 || status=$?
    umount "$tmp/proc"
    if ((status != 0)) || [[ ! -x $tmp/usr/bin/afp_speedtest || ! -x $tmp/usr/bin/afp_lantest ]] ||
      [[ -n $with_valgrind && ! -x $tmp/usr/bin/valgrind ]]; then
      tail -n 15 "$tmp.log" >&2
      rm -rf "$tmp" "$tmp.log"
      exec {lock}>&-
      die "installing ${packages//\'/} failed (log above)"
    fi
    rm -f "$tmp.log"
    mkdir -p "$tmp/work" "$tmp/proc_io"
    touch "$tmp/.complete"
    mv "$tmp" "$dir"
  fi
  exec {lock}>&-
}

# server_policy POLICY PRIORITY: every process of the server instance (those
# whose root is its tree) to chrt's POLICY (-f, -o) and PRIORITY; sessions
# forked later inherit it. Dies when no process took it.
server_policy() {
  local root="$AFPBENCH_CACHE/server/instances/$AFP_PORT/root" p n=0
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) == "$root" ]] || continue
    chrt -a "$1" -p "$2" "${p#/proc/}" >/dev/null 2>&1 && n=$((n + 1))
  done
  ((n > 0)) || die "could not set the server's processes to chrt $1 $2"
}

# upstream_from_source TARBALL: set UPSTREAM_ROOT to an overlay of the
# build-dependency tree in which afp_speedtest is built from TARBALL (once;
# the build's upper layer is kept in $AFPBENCH_CACHE/upstream-tools).
upstream_from_source() {
  local tarball=$1 deps id dir
  [[ -f $tarball ]] || die "--upstream-source $tarball: no such file"
  deps=$(find "$AFPBENCH_CACHE/server/rootfs" -maxdepth 2 -path '*/build-deps-*/.complete' -printf '%h\n' |
    head -n 1)
  [[ -n $deps ]] ||
    die "no build-dependency tree in $AFPBENCH_CACHE/server/rootfs: run scripts/local-server start --netatalk-source DIR once"
  id=$(sha256sum "$tarball" | cut -c1-12)-${deps##*/}
  dir="$AFPBENCH_CACHE/upstream-tools/src-$id"
  mkdir -p "$dir/upper" "$dir/work" "$dir/merged"
  mount -t overlay overlay -o "lowerdir=$deps,upperdir=$dir/upper,workdir=$dir/work" "$dir/merged"
  SRC_MOUNT=$dir/merged
  mount -t proc proc "$dir/merged/proc"
  UPSTREAM_ROOT=$dir/merged
  UPSTREAM_SPEEDTEST=/src/netatalk/build/test/testsuite/afp_speedtest
  [[ -f $dir/.complete ]] && return 0
  log "building afp_speedtest from $tarball (once; cached in $dir)"
  rm -rf "$dir/merged/src/netatalk"
  mkdir -p "$dir/merged/src/netatalk"
  tar -C "$dir/merged/src/netatalk" --strip-components=1 -xf "$tarball"
  env -i PATH="$CHROOT_PATH" LANG=C.UTF-8 chroot "$dir/merged" sh -c \
    'cd /src/netatalk && meson setup build -Dwith-testsuite=true && ninja -C build test/testsuite/afp_speedtest' \
    >"$dir/build.log" 2>&1 || die "building afp_speedtest failed: $(tail -n 5 "$dir/build.log")"
  touch "$dir/.complete"
}

# upstream_speedtest_us OP ARGS...: the microseconds of one afp_speedtest run
# (4.2.3 runs once per process: see below).
upstream_speedtest_us() {
  local op=$1 pad
  shift
  # afp_speedtest 4.2.3 frees its copy of the -f list before reading the
  # test name from it; 64 commas first put the name past the bytes free()
  # reuses (strtok skips them). Its -n takes no argument (atoi(NULL)
  # crashes), so it always runs once.
  pad=$(printf ',%.0s' {1..64})
  "${RT[@]}" env -i PATH="$CHROOT_PATH" chroot "$UPSTREAM_ROOT" "$UPSTREAM_SPEEDTEST" -h "$AFP_HOST" -p "$AFP_PORT" \
    -u "$AFP_USER" -w "$AFP_PASS" -s "$SHARE_NAME" -f "$pad$op" "$@" >"$WORK/up.out" 2>&1 ||
    die "afp_speedtest -f $op $* failed: $(tail -n 3 "$WORK/up.out")"
  awk '$1 == "1" && $2 ~ /^[0-9]+$/ { print $2; found = 1 } END { exit !found }' "$WORK/up.out" ||
    die "afp_speedtest -f $op $* printed no timing: $(tail -n 3 "$WORK/up.out")"
}

# our_speedtest_us OP ARGS...: the microseconds of one afpbench run under the
# same definition: one timed run on a file the process just made (-n 1 -W 0).
our_speedtest_us() {
  local op=$1
  shift
  "${RT[@]}" "$AFPBENCH" speedtest -f "$op" -n 1 -W 0 "$@" --json "$WORK/our.json" >/dev/null 2>"$WORK/our.err" ||
    die "afpbench speedtest -f $op $* failed: $(tail -n 3 "$WORK/our.err")"
  jq -r '.tests[0].samples[0].us' "$WORK/our.json"
}

# speed_case LABEL PAIRS OP ARGS...: PAIRS pairs A B (afpbench, upstream),
# each side a fresh process; prints MB/s medians and the throughput ratio.
speed_case() {
  local label=$1 pairs=$2 op=$3 size=$4
  shift 4
  local i a b ratios="" as="" bs=""
  for ((i = 0; i < pairs; i++)); do
    a=$(our_speedtest_us "$op" -d "$size" "$@")
    b=$(upstream_speedtest_us "$op" -d "$size" "$@")
    as+="$a"$'\n'
    bs+="$b"$'\n'
    ratios+=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b / a }')$'\n'
  done
  local am bm abest bbest
  am=$(printf '%s' "$as" | median)
  bm=$(printf '%s' "$bs" | median)
  abest=$(printf '%s' "$as" | spread | awk '{ print $1 }')
  bbest=$(printf '%s' "$bs" | spread | awk '{ print $1 }')
  printf '%-28s %9.1f %9.1f   %-20s %s\n' "$label" \
    "$(awk -v u="$am" -v s="$size" 'BEGIN { print s / (u / 1e6) }')" \
    "$(awk -v u="$bm" -v s="$size" 'BEGIN { print s / (u / 1e6) }')" \
    "$(printf '%s' "$ratios" | spread)" "$(awk -v a="$abest" -v b="$bbest" 'BEGIN { printf "%.3f", b / a }')"
}

# syscalls_of CMD...: the system calls CMD's processes made (strace -f -c)
syscalls_of() {
  strace -f -c -o "$WORK/count.strace" "$@" >/dev/null 2>&1 || die "$1 failed under strace"
  awk '$NF == "total" { print $4 }' "$WORK/count.strace"
}

# per_mib LABEL SIZE CMD...: what 10 more timed transfers of SIZE MiB cost
# the client (CMD -n 11 against CMD -n 1: start-up, login and the first
# transfer cancel out), per MiB: system calls (one run each under strace)
# and CPU time (user + sys; the least of 7 runs each, as other work on the
# machine only adds to it). "calls/MiB cpu-us/MiB"
per_mib() {
  local label=$1 size=$2 one eleven i u s ones="" elevens=""
  shift 2
  one=$(syscalls_of "$@" -n 1)
  eleven=$(syscalls_of "$@" -n 11)
  for ((i = 0; i < 7; i++)); do
    cpu_of "$WORK/one.cpu" "$@" -n 1 || die "$label failed"
    read -r u s <"$WORK/one.cpu"
    ones+=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')$'\n'
    cpu_of "$WORK/eleven.cpu" "$@" -n 11 || die "$label failed"
    read -r u s <"$WORK/eleven.cpu"
    elevens+=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')$'\n'
  done
  printf '  %-30s %8.1f %10.1f\n' "$label" \
    "$(awk -v a="$one" -v b="$eleven" -v s="$size" 'BEGIN { print (b - a) / (10 * s) }')" \
    "$(awk -v a="$(printf '%s' "$ones" | spread | cut -d' ' -f1)" \
      -v b="$(printf '%s' "$elevens" | spread | cut -d' ' -f1)" -v s="$size" \
      'BEGIN { print (b - a) * 1e6 / (10 * s) }')"
}

# rt_on / rt_off: with --rt (RT_WANTED), the clients and the server under
# SCHED_FIFO for the pairs, then the server back to SCHED_OTHER
RT_WANTED=""
rt_on() {
  [[ -n $RT_WANTED ]] || return 0
  require_cmd chrt
  RT=(chrt -f 10)
  server_policy -f 10
  RT_SERVER=1
  printf '(--rt: both clients and the server under SCHED_FIFO)\n'
}
rt_off() {
  [[ -n $RT_SERVER ]] || return 0
  server_policy -o 0
  RT=()
  RT_SERVER=""
}

# side_by_side_source SIZE PAIRS TARBALL: speedtest against afp_speedtest
# built from TARBALL, then each side's system calls and CPU per MiB
side_by_side_source() {
  local size=$1 pairs=$2 tarball=$3 op
  require_cmd strace
  upstream_from_source "$tarball"
  rt_on
  printf '\nSide by side with upstream afp_speedtest built from %s,\n' "${tarball##*/}"
  printf 'same server, A B A B, %s pairs, one timed run a process; ratio = afpbench / upstream\n' "$pairs"
  printf 'throughput: min median max over the pairs, and of the fastest run of each side\n\n'
  printf '%-28s %9s %9s   %-20s %s\n' "speedtest, ${size} MiB" "ours MB/s" "up MB/s" \
    "ratio: min med max" "fastest"
  log "speedtest side by side (${size} MiB, $pairs pairs a case)"
  speed_case "Read -r 1" "$pairs" Read "$size" -r 1
  speed_case "Write -r 1 (flush)" "$pairs" Write "$size" -r 1
  speed_case "Write -r 1 -a (no flush)" "$pairs" Write "$size" -r 1 -a
  rt_off
  printf '\nThe client per MiB of timed transfers (-n 11 against -n 1)  calls/MiB  CPU us/MiB\n'
  local pad up=(env -i PATH="$CHROOT_PATH" chroot "$UPSTREAM_ROOT" "$UPSTREAM_SPEEDTEST")
  pad=$(printf ',%.0s' {1..64})
  up+=(-h "$AFP_HOST" -p "$AFP_PORT" -u "$AFP_USER" -w "$AFP_PASS" -s "$SHARE_NAME")
  for op in Read Write; do
    log "speedtest $op: system calls and CPU per MiB"
    per_mib "afpbench $op" "$size" "$AFPBENCH" speedtest -f "$op" -d "$size" -W 0
    per_mib "upstream $op" "$size" "${up[@]}" -f "$pad$op" -d "$size"
  done
}

# cpu_of FILE CMD...: run CMD, write "user sys" (seconds) of it to FILE
cpu_of() {
  local file=$1 TIMEFORMAT='%3U %3S'
  shift
  { time "$@" >/dev/null 2>&1; } 2>"$file"
}

side_by_side() {
  local size=$1 pairs=$2
  require_cmd strace
  upstream_install
  local upver
  upver=$(sed -n 's/^NETATALK_VERSION=//p' "$AFPBENCH_CACHE/server/instances/$AFP_PORT/instance.env")
  printf '\nSide by side with upstream afp_speedtest / afp_lantest (netatalk-tests %s),\n' "$upver"
  printf 'same server, A B A B, %s pairs; ratio = afpbench / upstream throughput (min median max)\n\n' "$pairs"
  printf '%-28s %9s %9s   %-20s %s\n' "speedtest, ${size} MiB" "ours MB/s" "up MB/s" \
    "ratio: min med max" "fastest"
  log "speedtest side by side (${size} MiB, $pairs pairs a case)"
  rt_on
  speed_case "Read -r 1" "$pairs" Read "$size" -r 1
  speed_case "Write -r 1 (flush)" "$pairs" Write "$size" -r 1
  speed_case "Write -r 1 -a (no flush)" "$pairs" Write "$size" -r 1 -a
  speed_case "Read -r 4" "$pairs" Read "$size" -r 4
  speed_case "Write -r 4 (flush)" "$pairs" Write "$size" -r 4
  # without the flush: the transfer alone, where pipelining can show
  speed_case "Write -r 4 -a (no flush)" "$pairs" Write "$size" -r 4 -a
  rt_off

  # lantest: the client's CPU per AFP op over the tests both tools share
  # (1-6; upstream 4.2.3 has 7, its 7th is our 8th). AFP requests: ours from
  # its JSON, upstream's counted once under strace (one writev a request).
  local lpairs=$(((pairs + 1) / 2)) up_ops our_ops i
  local conn=(-h "$AFP_HOST" -p "$AFP_PORT" -u "$AFP_USER" -w "$AFP_PASS" -s "$SHARE_NAME")
  local up_cmd=(env -i PATH="$CHROOT_PATH" chroot "$UPSTREAM_ROOT" afp_lantest "${conn[@]}" -f 123456 -n 1)
  log "lantest 1-6 side by side ($lpairs pairs)"
  strace -f -c -e trace=writev -o "$WORK/up.strace" "${up_cmd[@]}" >/dev/null 2>&1 ||
    die "afp_lantest failed under strace"
  up_ops=$(awk '$NF == "writev" { print $4 }' "$WORK/up.strace")
  [[ $up_ops =~ ^[0-9]+$ ]] || die "cannot count afp_lantest's requests"
  local users="" totals="" ou os uu us
  for ((i = 0; i < lpairs; i++)); do
    cpu_of "$WORK/our.cpu" "$AFPBENCH" lantest "${conn[@]}" -f 123456 -n 1 --json "$WORK/lt.json" ||
      die "afpbench lantest failed"
    cpu_of "$WORK/up.cpu" "${up_cmd[@]}" || die "afp_lantest failed"
    our_ops=$(jq -r '.client_cpu.afp_ops' "$WORK/lt.json")
    read -r ou os <"$WORK/our.cpu"
    read -r uu us <"$WORK/up.cpu"
    users+=$(awk -v a="$ou" -v ao="$our_ops" -v b="$uu" -v bo="$up_ops" \
      'BEGIN { printf "%.4f", (b > 0 ? (a / ao) / (b / bo) : 0) }')$'\n'
    totals+=$(awk -v a="$ou" -v as="$os" -v ao="$our_ops" -v b="$uu" -v bs="$us" -v bo="$up_ops" \
      'BEGIN { printf "%.4f", ((a + as) / ao) / ((b + bs) / bo) }')$'\n'
    printf '  lantest pair %d: afpbench %s s user %s s sys / %s ops; upstream %s s user %s s sys / %s ops\n' \
      "$((i + 1))" "$ou" "$os" "$our_ops" "$uu" "$us" "$up_ops" >&2
  done
  printf '\n%-44s %s\n' "lantest 1-6, client CPU per AFP op" "ratio afpbench / upstream: min median max"
  printf '%-44s %s\n' "  user + sys" "$(printf '%s' "$totals" | spread)"
  printf '%-44s %s\n' "  user" "$(printf '%s' "$users" | spread)"
  printf '(whole-process CPU of each run from the shell; afpbench %s AFP requests a run, upstream %s)\n' \
    "$our_ops" "$up_ops"
}

# ---------------------------------------------------------- instructions

# counted NAME CMD...: run CMD (a path inside UPSTREAM_ROOT) under valgrind
# (cachegrind, no cache simulation) in UPSTREAM_ROOT, in a mount namespace of
# its own (procfs at /proc and /proc_io, WORK at /work), with strace counting
# its sends on TCP sockets. Prints "INSTRUCTIONS REQUESTS": every user-space
# instruction the process ran (valgrind's Ir: the program, libc and the
# loader) and its request sends: one writev (upstream: the DSI header and
# the AFP block; FPWrite data follows in plain writes, not counted) or one
# sendmsg (afpbench: the whole request) per DSI request.
counted() {
  local name=$1
  shift
  # shellcheck disable=SC2016 # the inner shell expands them
  strace --seccomp-bpf -f -y -qq -e trace=writev,sendmsg,sendto -o "$WORK/$name.strace" \
    unshare -m sh -c 'root=$1 work=$2; shift 2
      mount -t proc proc "$root/proc" && mount -t proc proc "$root/proc_io" &&
        mount --bind "$work" "$root/work" &&
        exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$root" "$@"' \
    sh "$UPSTREAM_ROOT" "$WORK" valgrind --tool=cachegrind --cache-sim=no \
    "--cachegrind-out-file=/work/$name.cg" "$@" >"$WORK/$name.out" 2>&1 ||
    die "$* failed under valgrind: $(tail -n 3 "$WORK/$name.out")"
  local ir reqs
  ir=$(awk '$1 == "summary:" { print $2 }' "$WORK/$name.cg")
  reqs=$(grep -c '<socket:\[' "$WORK/$name.strace" || true)
  [[ $ir =~ ^[0-9]+$ && $reqs =~ ^[0-9]+$ ]] || die "no counts from $name"
  echo "$ir $reqs"
}

# instructions: user-space instructions per AFP request of afpbench and
# afp_lantest, test by test (1-6, the tests both run), each tool in the same
# chroot (Debian's glibc and valgrind) against the same server. Per test:
# runs at -n 1 and -n 2; one iteration's cost is the difference (start-up,
# login, the run's own set-up and the report cancel out), over the
# difference in requests. Deterministic: the same binary and server give
# the same figures to within a few instructions per op (afpbench runs
# without its IO monitor: see below).
instructions() {
  require_cmd strace
  require_cmd unshare
  upstream_install valgrind
  cp "$AFPBENCH" "$WORK/afpbench"
  local conn=(-h "$AFP_HOST" -p "$AFP_PORT" -u "$AFP_USER" -w "$AFP_PASS" -s "$SHARE_NAME")
  # afpbench's IO monitor off: upstream has none, and finding our afpd reads
  # the whole machine's /proc/net/tcp (1-2 million instructions a process,
  # varying with the sockets other work holds open), which would drown
  # tests 2 and 3 (about 100 requests an iteration) in noise.
  local ours=(--json /work/our.json --proc-root /nonexistent)
  local t n a1 r1 a2 r2 u1 ur1 u2 ur2 sums=(0 0 0 0 0 0 0 0)
  printf '\nUser-space instructions per AFP request (valgrind Ir; requests counted with strace),\n'
  printf 'one iteration = the -n 2 run minus the -n 1 run; whole = the -n 1 process\n\n'
  printf '%-6s %12s %12s %7s   %12s %12s %7s   %s\n' test "afpbench" "upstream" ratio \
    "whole: ours" "upstream" ratio "requests: ours upstream (one iteration)"
  for t in 1 2 3 4 5 6; do
    log "instructions: test $t"
    read -r a1 r1 < <(counted "our$t.1" /work/afpbench lantest "${conn[@]}" -f "$t" -n 1 "${ours[@]}")
    read -r a2 r2 < <(counted "our$t.2" /work/afpbench lantest "${conn[@]}" -f "$t" -n 2 "${ours[@]}")
    read -r u1 ur1 < <(counted "up$t.1" afp_lantest "${conn[@]}" -f "$t" -n 1)
    read -r u2 ur2 < <(counted "up$t.2" afp_lantest "${conn[@]}" -f "$t" -n 2)
    ((r2 > r1 && ur2 > ur1)) || die "test $t: the second iteration sent no requests"
    awk -v t="$t" -v a1="$a1" -v r1="$r1" -v a2="$a2" -v r2="$r2" \
      -v u1="$u1" -v ur1="$ur1" -v u2="$u2" -v ur2="$ur2" 'BEGIN {
        a = (a2 - a1) / (r2 - r1); u = (u2 - u1) / (ur2 - ur1)
        printf "%-6s %12.0f %12.0f %7.2f   %12.0f %12.0f %7.2f   %d %d\n", t, a, u, a / u,
          a1 / r1, u1 / ur1, (a1 / r1) / (u1 / ur1), r2 - r1, ur2 - ur1 }'
    local v=("$a1" "$r1" "$a2" "$r2" "$u1" "$ur1" "$u2" "$ur2")
    for n in 0 1 2 3 4 5 6 7; do sums[n]=$((sums[n] + v[n])); done
  done
  awk -v a1="${sums[0]}" -v r1="${sums[1]}" -v a2="${sums[2]}" -v r2="${sums[3]}" \
    -v u1="${sums[4]}" -v ur1="${sums[5]}" -v u2="${sums[6]}" -v ur2="${sums[7]}" 'BEGIN {
      a = (a2 - a1) / (r2 - r1); u = (u2 - u1) / (ur2 - ur1)
      printf "%-6s %12.0f %12.0f %7.2f   %12.0f %12.0f %7.2f   %d %d\n", "1-6", a, u, a / u,
        a1 / r1, u1 / ur1, (a1 / r1) / (u1 / ur1), r2 - r1, ur2 - ur1 }'
  printf '(afp_lantest 4.2.3 runs test 2 with 3 and test 5 with 6; ratio = afpbench / upstream)\n'
}

main() {
  local size=64 pairs=7 own=1 upstream=1 instr=0 tarball=""
  while (($#)); do
    case $1 in
      --pairs)
        [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--pairs needs a positive number"
        pairs=$2
        shift 2
        ;;
      --own-only) upstream=0 && shift ;;
      --upstream-only) own=0 && shift ;;
      --instructions) instr=1 && shift ;;
      --rt) RT_WANTED=1 && shift ;;
      --upstream-source)
        [[ -n ${2:-} ]] || die "--upstream-source needs a netatalk source tarball"
        tarball=$2
        shift 2
        ;;
      -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        return 0
        ;;
      *)
        [[ $1 =~ ^[1-9][0-9]*$ ]] || die "unknown argument: $1 (see --help)"
        size=$1
        shift
        ;;
    esac
  done
  require_cmd jq
  trap cleanup EXIT
  make -C "$ROOT/src/afpbench" -s afpbench >&2
  WORK=$(mktemp -d "${AFPBENCH_CACHE}/bench.XXXXXX") ||
    die "cannot make a work directory in $AFPBENCH_CACHE"

  if [[ -z ${AFP_PORT:-} ]]; then
    log "starting a server on port $BENCH_PORT"
    eval "$("$ROOT/scripts/local-server" start --port "$BENCH_PORT")"
    STARTED_SERVER=1
  fi
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO

  if ((instr)); then
    instructions
    return 0
  fi
  ((own)) && own_figures "$size"
  if ((upstream)) && [[ -n $tarball ]]; then
    side_by_side_source "$size" "$pairs" "$tarball"
  elif ((upstream)); then
    side_by_side "$size" "$pairs"
  fi
  return 0
}

main "$@"
