#!/usr/bin/env bats
# scripts/client-entrypoint.sh on the host: its bounded wait for the server,
# its input checks, and its IO monitoring set-up. Needs root (mount, unshare).
# The whole entrypoint in the client image is run by images_stack.bats.

load lib/podman

ENTRYPOINT="$IMAGES_ROOT/scripts/client-entrypoint.sh"

setup_file() {
  make -C "$IMAGES_ROOT/src/afpbench" -s WERROR=1 >&2
}

setup() {
  export AFPBENCH_BIN="$IMAGES_ROOT/src/afpbench/afpbench"
  export AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/results"
  export AFP_HOST=127.0.0.1
  export AFP_PORT=10609 # images' range; nothing listens there
  unset AFPBENCH_WAIT_SECONDS PROC_IO
}

# io_setup_in_namespace PROC_IO [SETUP_COMMAND]: source the entrypoint in a new
# PID and mount namespace (so mounts vanish with it) and set up IO monitoring.
io_setup_in_namespace() {
  # shellcheck disable=SC2016  # expanded by the inner bash
  unshare --pid --fork --mount --propagation private bash -c '
    set -euo pipefail
    source "$1"
    PROC_IO=$2
    eval "${3:-}"
    setup_io_monitoring
    echo "procfs at PROC_IO: $(stat -f -c %T "$PROC_IO")"
    grep -hsx afpd "$PROC_IO"/[0-9]*/comm || true
    unmount_proc_io
    echo "after unmount: $(stat -f -c %T "$PROC_IO")"
  ' bash "$ENTRYPOINT" "$1" "${2:-}"
}

@test "a server that never answers ends the run in bounded time with status 3 naming it" {
  local start=$SECONDS
  AFPBENCH_WAIT_SECONDS=2 run "$ENTRYPOINT"
  echo "$output"
  [ "$status" -eq 3 ]
  [[ $output == *"127.0.0.1:10609 did not answer DSIGetStatus within 2 s"* ]]
  ((SECONDS - start < 30))
  [ ! -e "$AFPBENCH_RESULTS/verdict.json" ]
}

@test "A/B: the base server is waited for as well, and a silent one is named with its variables" {
  # The head does not answer either, but the wait for the base is what is called here.
  run bash -c 'source "$1"; AFPBENCH_WAIT_SECONDS=1
    wait_for_server 127.0.0.1 10608 "the base AFP server (A/B)" BASE_AFP_HOST/BASE_AFP_PORT' \
    bash "$ENTRYPOINT"
  echo "$output"
  [ "$status" -eq 3 ]
  [[ $output == *"the base AFP server (A/B) at 127.0.0.1:10608 did not answer DSIGetStatus within 1 s"* ]]
  [[ $output == *"are BASE_AFP_HOST/BASE_AFP_PORT right?"* ]]
  # main waits for it only in A/B (scripts/plan --place's AB: BASE_AFP_HOST or
  # BASE_AFP_PORT set), after the head
  # shellcheck disable=SC2016  # a line of the entrypoint, matched as written
  grep -qE '^  if \[\[ \$AB == yes \]\]; then$' "$ENTRYPOINT"
  BASE_AFP_PORT=549 run "$IMAGES_ROOT/scripts/plan" --place
  [[ $output == *"AB=yes"* && $output == *"BASE_AFP_HOST=127.0.0.1"* ]]
}

@test "a wait that is not a number is refused by name" {
  AFPBENCH_WAIT_SECONDS=soon run "$ENTRYPOINT"
  [ "$status" -eq 3 ]
  [[ $output == *"AFPBENCH_WAIT_SECONDS='soon' must be whole seconds from 1 to 604800"* ]]
}

@test "a missing afpbench binary is named" {
  AFPBENCH_BIN=/nonexistent/afpbench run "$ENTRYPOINT"
  [ "$status" -eq 3 ]
  [[ $output == *"afpbench binary '/nonexistent/afpbench' not found"* ]]
}

@test "IO monitoring is reported OFF, with the reason, when /proc_io cannot be mounted" {
  run io_setup_in_namespace /proc/sys/afpbench-cannot-mkdir-here
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"IO monitoring is OFF: cannot mount a procfs at /proc/sys/afpbench-cannot-mkdir-here"* ]]
  [[ $output == *CAP_SYS_ADMIN* ]]
}

@test "IO monitoring is reported OFF when no afpd is visible (not the server's PID namespace)" {
  run io_setup_in_namespace "$BATS_TEST_TMPDIR/proc_io"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"mounted a procfs (hidepid=0) at $BATS_TEST_TMPDIR/proc_io"* ]]
  [[ $output == *"procfs at PROC_IO: proc"* ]]
  [[ $output == *"IO monitoring is OFF: no afpd process is visible"*'pid: "service:server"'* ]]
  [[ $output != *"after unmount: proc"* ]]
}

@test "IO monitoring is on when an afpd shares the PID namespace" {
  # A process named afpd (a copy of sleep) stands in for the server here; the
  # real server's afpd is found by images_stack.bats.
  cp /bin/sleep "$BATS_TEST_TMPDIR/afpd"
  run io_setup_in_namespace "$BATS_TEST_TMPDIR/proc_io" "'$BATS_TEST_TMPDIR/afpd' 30 &"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"procfs at PROC_IO: proc"* ]]
  [[ $output == *$'\nafpd'* ]]
  [[ $output != *"IO monitoring is OFF"* ]]
  [[ $output != *"after unmount: proc"* ]]
}

@test "IO monitoring is on when afpd runs under valgrind (the instr profile)" {
  # valgrind's process is named after the tool (callgrind-amd64) and its
  # command line names afpd; a copy of bash named so stands in for it.
  cp /bin/bash "$BATS_TEST_TMPDIR/callgrind-amd64-linux"
  run io_setup_in_namespace "$BATS_TEST_TMPDIR/proc_io" \
    "'$BATS_TEST_TMPDIR/callgrind-amd64-linux' -c 'sleep 30; :' /usr/sbin/afpd &"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"procfs at PROC_IO: proc"* ]]
  [[ $output != *"IO monitoring is OFF"* ]]
}

@test "a procfs already mounted at PROC_IO is used as it is" {
  run io_setup_in_namespace "$BATS_TEST_TMPDIR/proc_io" \
    "mkdir -p '$BATS_TEST_TMPDIR/proc_io'; mount -t proc proc '$BATS_TEST_TMPDIR/proc_io'"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"a procfs is already mounted at $BATS_TEST_TMPDIR/proc_io"* ]]
  # Not ours to unmount.
  [[ $output == *"after unmount: proc"* ]]
}

@test "the verdict is printed as a table from verdict.json" {
  mkdir -p "$AFPBENCH_RESULTS"
  cat >"$AFPBENCH_RESULTS/verdict.json" <<'EOF'
{"status": "fail", "summary": "1 of 2 metrics failed", "notes": ["IO monitoring: off"],
 "rows": [{"metric": "lantest.1.time_us", "state": "fail", "baseline": 1000.4444,
           "current": 1500, "ratio": 1.4994, "threshold": 10},
          {"metric": "lantest.1.afpd_r", "state": "pass", "baseline": 8003, "current": 8003,
           "ratio": 1, "threshold": 2}]}
EOF
  run bash -c 'source "$1"; print_verdict' bash "$ENTRYPOINT"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "verdict: FAIL - 1 of 2 metrics failed" ]
  [ "${lines[1]}" = "note: IO monitoring: off" ]
  [[ ${lines[2]} =~ ^metric\ +state\ +baseline ]]
  [[ ${lines[3]} =~ ^lantest.1.time_us\ +fail\ +1000.444\ +1500\ +1.499\ +10$ ]]
  [[ ${lines[4]} =~ ^lantest.1.afpd_r\ +pass\ +8003 ]]
}

@test "a missing verdict is said, not hidden" {
  run bash -c 'source "$1"; print_verdict' bash "$ENTRYPOINT"
  [ "$status" -eq 0 ]
  [[ $output == *"no verdict: $AFPBENCH_RESULTS/verdict.json was not written"* ]]
}

@test "reading the io file of the login's afpd needs CAP_SYS_PTRACE (why compose grants it)" {
  # A process with the share owner's UID stands in for the session afpd.
  setpriv --reuid 1548 --regid 1548 --clear-groups sleep 30 3>&- &
  local pid=$!
  sleep 0.2
  run cat "/proc/$pid/io"
  [ "$status" -eq 0 ]
  [[ $output == *syscr:* ]]
  # root, less that one capability (dropped from the bounding set before exec)
  run setpriv --bounding-set -sys_ptrace --inh-caps -sys_ptrace cat "/proc/$pid/io"
  kill "$pid"
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *"Permission denied"* ]]
}

@test "the results go to AFPBENCH_RESULTS_OWNER, else the non-root owner of the results, else of /baselines" {
  local base="$BATS_TEST_TMPDIR/baselines"
  mkdir -p "$AFPBENCH_RESULTS/charts" "$base"
  touch "$AFPBENCH_RESULTS/verdict.json" "$AFPBENCH_RESULTS/charts/a.png"
  # shellcheck disable=SC2016  # expanded by the inner bash
  local probe='source "$1"; AFPBENCH_BASELINES_MOUNT=$2; owner=$(results_owner); echo "owner=$owner"
    give_results "$owner"; stat -c %u:%g "$AFPBENCH_RESULTS" "$AFPBENCH_RESULTS/charts/a.png"'
  # all root (a directory Docker made, a checkout of root's): left as it is
  run bash -c "$probe" bash "$ENTRYPOINT" "$base"
  [ "${lines[0]}" = "owner=" ]
  # the checkout's owner when the results directory is root's (Docker made it)
  chown 1234:2345 "$base"
  run bash -c "$probe" bash "$ENTRYPOINT" "$base"
  echo "$output"
  [ "${lines[0]}" = "owner=1234:2345" ]
  [ "${lines[1]}" = 1234:2345 ]
  [ "${lines[2]}" = 1234:2345 ]
  # the results directory's own non-root owner comes first
  chown 3456:3456 "$AFPBENCH_RESULTS"
  run bash -c "$probe" bash "$ENTRYPOINT" "$base"
  [ "${lines[0]}" = "owner=3456:3456" ]
  [ "${lines[2]}" = 3456:3456 ]
  # AFPBENCH_RESULTS_OWNER above all; a bad one is refused by name
  AFPBENCH_RESULTS_OWNER=42:43 run bash -c "$probe" bash "$ENTRYPOINT" "$base"
  [ "${lines[0]}" = "owner=42:43" ]
  [ "${lines[2]}" = 42:43 ]
  AFPBENCH_RESULTS_OWNER=runner run bash -c "$probe" bash "$ENTRYPOINT" "$base"
  [[ $output == *"AFPBENCH_RESULTS_OWNER must be UID:GID"* ]]
}

@test "a stop signal reaches the whole run, and the entrypoint ends with the gate's status" {
  # A stand-in gate that runs a child the way scripts/gate runs afpbench
  # (under timeout(1), in a process group of its own) and reports its end.
  local scripts="$BATS_TEST_TMPDIR/scripts"
  mkdir -p "$scripts/lib"
  cp "$ENTRYPOINT" "$scripts/client-entrypoint.sh"
  cp "$IMAGES_ROOT/scripts/lib/common.sh" "$IMAGES_ROOT/scripts/lib/plan.sh" "$scripts/lib/"
  # the place's defaults and checks (the entrypoint asks scripts/plan --place)
  cp "$IMAGES_ROOT/scripts/plan" "$IMAGES_ROOT/scripts/settings.json" "$IMAGES_ROOT/scripts/lantest-tests.json" "$scripts/"
  cat >"$scripts/gate" <<'GATE'
#!/usr/bin/env bash
trap 'echo "gate: stopped"; exit 3' TERM
timeout 60 bash -c 'trap "echo child: stopped; exit 5" TERM; sleep 50 & wait' &
wait
GATE
  chmod +x "$scripts/gate"
  # shellcheck disable=SC2016  # expanded by the inner bash
  run timeout 30 bash -c '
    source "$1"
    AFPBENCH_RESULTS=$2 AFPBENCH_WAIT_SECONDS=1
    wait_for_server() { :; }
    setup_io_monitoring() { :; }
    (sleep 2; kill -TERM $$) &
    main' bash "$scripts/client-entrypoint.sh" "$AFPBENCH_RESULTS"
  echo "$output"
  [ "$status" -eq 3 ]
  [[ $output == *"stopped by SIGTERM"* ]]
  [[ $output == *"child: stopped"* ]]
  [[ $output == *"gate: stopped"* ]]
}
