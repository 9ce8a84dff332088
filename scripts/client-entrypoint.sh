#!/usr/bin/env bash
# Entrypoint of the client image (Dockerfile.client): wait until the AFP server
# answers, set up IO monitoring (/proc_io), run the gate pipeline into
# $AFPBENCH_RESULTS, print the verdict and exit with the gate's status:
# 0 pass, 1 fail, 2 inconclusive, 3 error.
#
# The run is a plan (AFPBENCH_PLAN, a file in the container: scripts/gate
# --plan); the place is the environment, as scripts/gate's: AFP_HOST, AFP_PORT,
# AFP_USER, AFP_PASS, SHARE_NAME, PROC_IO, BASE_* (A/B: the base server, waited
# for too; see docs/images.md). Without a plan the gate runs on its defaults
# and what else the environment sets, compared with /baselines/default.json
# unless AFPBENCH_BASELINE is set or a base is named (A/B). Own settings:
#   AFPBENCH_PLAN           the plan to run (scripts/gate --check writes one)
#   AFPBENCH_WAIT_SECONDS   how long to wait for the server (the table's default: 120)
#   AFPBENCH_BIN            the afpbench binary (default: afpbench on PATH)
#   AFPBENCH_RESULTS_OWNER  UID:GID to give the results to (default: the owner
#                           of $AFPBENCH_RESULTS when not root, else that of
#                           /baselines: the checkout compose mounts them from)
#
# A stop signal (TERM, INT, HUP) is passed on to the run, which stops at its
# next wait and keeps what it measured.
set -euo pipefail

SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPTS_DIR
# shellcheck source=scripts/lib/common.sh
source "$SCRIPTS_DIR/lib/common.sh"
DIE_STATUS=3 # the gate's "error"

# A single status probe must not hang on a server that accepts and stays silent.
readonly PROBE_TIMEOUT_SECONDS=10

mounted_proc_io=""

# wait_for_server [HOST PORT WHAT VARS]: poll DSIGetStatus until the server
# answers or the wait ends. Default: the head server at AFP_HOST:AFP_PORT.
wait_for_server() {
  local host=${1:-$AFP_HOST} port=${2:-$AFP_PORT} what=${3:-the AFP server}
  local vars=${4:-AFP_HOST/AFP_PORT}
  local deadline=$((SECONDS + AFPBENCH_WAIT_SECONDS)) err attempt=0
  err=$(mktemp)
  log "waiting up to ${AFPBENCH_WAIT_SECONDS} s for $what at $host:$port"
  until timeout "$PROBE_TIMEOUT_SECONDS" "$AFPBENCH_BIN" status "$host:$port" \
    >/dev/null 2>"$err"; do
    attempt=$((attempt + 1))
    if ((SECONDS >= deadline)); then
      warn "last answer: $(tail -n 1 "$err")"
      rm -f "$err"
      die "$what at $host:$port did not answer DSIGetStatus within" \
        "${AFPBENCH_WAIT_SECONDS} s ($attempt attempts); is it running, and are" \
        "$vars right?"
    fi
    sleep 1
  done
  rm -f "$err"
  log "$what answers"
}

is_procfs() { [[ $(stat -f -c %T "$1" 2>/dev/null) == proc ]]; }

# io_monitoring_off REASON: say loudly that server IO will not be measured.
io_monitoring_off() {
  warn "IO monitoring is OFF: $*"
  warn "timings are still measured; afpd/cnid_dbd syscall counts will be null in the results"
}

# setup_io_monitoring: make $PROC_IO a procfs without hidepid that shows the
# server's processes, or explain why it is not.
setup_io_monitoring() {
  if [[ -z $PROC_IO ]]; then
    io_monitoring_off "PROC_IO is empty"
    return 0
  fi
  if is_procfs "$PROC_IO"; then
    log "IO monitoring: a procfs is already mounted at $PROC_IO"
  else
    local err
    if ! err=$(mkdir -p "$PROC_IO" 2>&1 && mount -t proc -o hidepid=0 proc "$PROC_IO" 2>&1); then
      io_monitoring_off "cannot mount a procfs at $PROC_IO (${err//$'\n'/ }); the client" \
        "needs CAP_SYS_ADMIN and no AppArmor mount denial (compose.yaml grants" \
        "cap_add: SYS_ADMIN and security_opt: apparmor=unconfined)"
      return 0
    fi
    mounted_proc_io=$PROC_IO
    log "IO monitoring: mounted a procfs (hidepid=0) at $PROC_IO"
  fi
  # afpd by name, or under valgrind (the instr profile: the process is named
  # callgrind-amd64 and its command line names afpd; "afp[d]" keeps this
  # grep from finding its own command line)
  if ! grep -qsx afpd "$PROC_IO"/[0-9]*/comm &&
    ! grep -qsazE '(^|/)afp[d]$' "$PROC_IO"/[0-9]*/cmdline; then
    io_monitoring_off "no afpd process is visible in $PROC_IO; the client must share" \
      "the server's PID namespace (compose.yaml: pid: \"service:server\")"
  fi
}

# results_owner: UID:GID for the results: AFPBENCH_RESULTS_OWNER, else the
# owner of the results directory when that is not root (the user who made it
# on the host), else the owner of /baselines (the checkout). Prints nothing
# when all of those are root.
results_owner() {
  local owner=${AFPBENCH_RESULTS_OWNER:-} dir
  if [[ -n $owner ]]; then
    [[ $owner =~ ^[0-9]+:[0-9]+$ ]] ||
      die "AFPBENCH_RESULTS_OWNER must be UID:GID (numbers), not '$owner'"
    printf '%s\n' "$owner"
    return 0
  fi
  for dir in "$AFPBENCH_RESULTS" "${AFPBENCH_BASELINES_MOUNT:-/baselines}"; do
    [[ -d $dir ]] || continue
    owner=$(stat -c %u:%g "$dir")
    if [[ $owner != 0:* ]]; then
      printf '%s\n' "$owner"
      return 0
    fi
  done
}

# give_results OWNER: hand the results directory and everything in it to OWNER.
give_results() {
  [[ -n $1 ]] || return 0
  chown -R "$1" "$AFPBENCH_RESULTS" ||
    warn "could not give the results in $AFPBENCH_RESULTS to $1"
}

# descendants PID: every process below PID, one per line, parents first.
descendants() {
  local -A children=()
  local stat line pid ppid
  for stat in /proc/[0-9]*/stat; do
    { read -r line <"$stat"; } 2>/dev/null || continue
    pid=${line%% *}
    line=${line##*) } # after the command name, which may hold spaces
    read -r _ ppid _ <<<"$line"
    children[$ppid]+=" $pid"
  done
  local queue=("$1") child
  while ((${#queue[@]})); do
    for child in ${children[${queue[0]}]:-}; do
      printf '%s\n' "$child"
      queue+=("$child")
    done
    queue=("${queue[@]:1}")
  done
}

# stop_run SIGNAL: pass a stop signal on to the gate and everything it runs
# (timeout(1) keeps afpbench in a process group of its own).
stop_run() {
  warn "stopped by SIG$1: stopping the run (what it measured is kept)"
  [[ -n ${gate_pid:-} ]] || exit 3
  # shellcheck disable=SC2046 # one PID per word
  kill -TERM "$gate_pid" $(descendants "$gate_pid") 2>/dev/null || true
}

unmount_proc_io() {
  if [[ -n $mounted_proc_io ]]; then
    umount "$mounted_proc_io" || warn "could not unmount $mounted_proc_io"
  fi
}

# print_verdict: the verdict and its table from verdict.json, for the log.
print_verdict() {
  local verdict="$AFPBENCH_RESULTS/verdict.json"
  if [[ ! -f $verdict ]]; then
    warn "no verdict: $verdict was not written"
    return 0
  fi
  jq -r '
    def cell: if . == null then "-" elif type == "number" then (. * 1000 | round / 1000 | tostring)
              else tostring end;
    def pad($n): cell | if length < $n then . + (" " * ($n - length)) else . end;
    "verdict: \(.status | ascii_upcase) - \(.summary // "")",
    ((.notes // [])[] | "note: \(.)"),
    "",
    "\("metric" | pad(44)) \("state" | pad(12)) \("baseline" | pad(12)) \("current" | pad(12)) \("ratio" | pad(8)) threshold",
    ((.rows // [])[]
      | "\(.metric | pad(44)) \(.state | pad(12)) \(.baseline | pad(12)) \(.current | pad(12)) \(.ratio | pad(8)) \(.threshold | cell)")
  ' "$verdict" || warn "could not read $verdict"
}

main() {
  # the place's defaults and checks are the settings table's, as the gate's
  # (scripts/plan --place): the server's address and port, the base's, how
  # long to wait. First: it sets every place setting, defaults included
  # (the client's procfs is /proc_io unless set, even to nothing).
  export PROC_IO=${PROC_IO-/proc_io}
  local place
  place=$("$SCRIPTS_DIR/plan" --place) || exit 3
  eval "$place"
  AFPBENCH_RESULTS=${AFPBENCH_RESULTS:-/results}
  AFPBENCH_BIN=${AFPBENCH_BIN:-afpbench}
  command -v "$AFPBENCH_BIN" >/dev/null 2>&1 || die "afpbench binary '$AFPBENCH_BIN' not found"
  [[ -x $SCRIPTS_DIR/gate ]] || die "the gate pipeline $SCRIPTS_DIR/gate is missing"
  mkdir -p "$AFPBENCH_RESULTS" || die "cannot create the results directory $AFPBENCH_RESULTS"
  export AFP_HOST AFP_PORT PROC_IO AFPBENCH_RESULTS AFPBENCH_BIN

  wait_for_server
  # A/B: the base server too (compose's base-server, profile ab: port 549 on
  # the head's loopback). As in the gate, either variable turns A/B on.
  if [[ $AB == yes ]]; then
    wait_for_server "$BASE_AFP_HOST" "$BASE_AFP_PORT" "the base AFP server (A/B)" BASE_AFP_HOST/BASE_AFP_PORT
  fi
  setup_io_monitoring
  local owner
  owner=$(results_owner)

  local status=0
  trap 'stop_run TERM' TERM
  trap 'stop_run INT' INT
  trap 'stop_run HUP' HUP
  local gate_args=()
  if [[ -n ${AFPBENCH_PLAN:-} ]]; then
    gate_args=(--plan "$AFPBENCH_PLAN")
  elif [[ $AB == no ]]; then
    # the baseline compose mounts from the checkout's baselines/ (A/B
    # measures its own base instead)
    export AFPBENCH_BASELINE=${AFPBENCH_BASELINE-/baselines/default.json}
  fi
  "$SCRIPTS_DIR/gate" "${gate_args[@]}" &
  gate_pid=$!
  # wait returns early (above 128) when a trapped signal arrives: wait again.
  while :; do
    status=0
    wait "$gate_pid" || status=$?
    kill -0 "$gate_pid" 2>/dev/null || break
  done
  trap - TERM INT HUP
  unmount_proc_io
  give_results "$owner"
  [[ -z $owner ]] || log "results owned by $owner"
  print_verdict
  case $status in
    0 | 1 | 2 | 3) ;;
    *)
      warn "scripts/gate exited with $status, which is not a verdict; reporting an error"
      status=3
      ;;
  esac
  log "results in $AFPBENCH_RESULTS; exit $status"
  exit "$status"
}

# Sourced by scripts/tests/images_entrypoint.bats to test its functions.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
