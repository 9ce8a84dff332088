#!/usr/bin/env bats
# The compose stack on a REAL Docker Engine with Compose v2: the README's
# reproduction command, `up --build --wait` with the gate in the client, and
# `scripts/run-gate --compose` (on netatalk 4.5.1), offline (a base image
# imported from the cached debootstrap tree; nothing is pulled). Needs
# DOCKER_HOST (and DOCKER_CONFIG) of a running engine, as `scripts/test-all
# compose` sets them after `scripts/docker-engine start`. Without one every test FAILS, saying so: it
# never skips.
#
# Prints the timings of `up --build` (cold on a fresh engine, warm after).

# Each test sets its own AFPBENCH_RESULTS_DIR (a subshell per test, on purpose).
# shellcheck disable=SC2030,SC2031

# "run !" (a command that must fail) needs bats 1.5
bats_require_minimum_version 1.5.0

load lib/podman

readonly REPRODUCE='docker compose up --build --abort-on-container-exit --exit-code-from client'

setup_file() {
  engine_base_image
  # A project of our own; a short run: lantest 4 and 10, two iterations each.
  export COMPOSE_PROJECT_NAME="afpbench-ci-$$"
  unset AFP_USER AFP_PASS AFP_PORT SHARE_NAME AFPBENCH_BASELINES_DIR AFPBENCH_RESULTS_OWNER
  export AFPBENCH_TESTS=4,10 AFPBENCH_ITERATIONS=2
  # The server's CPU per op and time are timings; this is about the stack.
  export AFPBENCH_TIME_THRESHOLD=1000 AFPBENCH_CPU_THRESHOLD=1000
}

setup() {
  cd "$IMAGES_ROOT" || return 1
}

teardown() {
  docker compose down --volumes --timeout 10 >/dev/null 2>&1 || true
}

# plan_in DIR: the run's plan (scripts/gate --check on this test's settings,
# the baseline carried whole) in the results directory DIR, which compose
# mounts at /results, and named for the client (AFPBENCH_PLAN): compose
# passes no run setting itself.
plan_in() {
  mkdir -p "$1"
  # (the count directories are the place's: compose's client-instr sets them)
  local gate=(env -u BASE_AFPBENCH_INSTR_DIR "$IMAGES_ROOT/scripts/gate" --check)
  if [[ -n ${BASE_AFP_PORT:-} ]]; then
    "${gate[@]}" >"$1/plan.json"
  else
    AFPBENCH_BASELINE=$IMAGES_ROOT/baselines/default.json "${gate[@]}" >"$1/plan.json"
  fi
  export AFPBENCH_PLAN=/results/plan.json
}

# verdict_status DIR: the exit status a verdict stands for.
verdict_status() {
  case $(jq -r .status "$1/verdict.json") in
    pass) echo 0 ;; fail) echo 1 ;; inconclusive) echo 2 ;; *) echo 3 ;;
  esac
}

@test "the README's reproduction command runs the gate on a real engine, offline" {
  grep -qF "$REPRODUCE" "$IMAGES_ROOT/README.md"
  export AFPBENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/results"
  # A results directory that someone other than root made: they get the results.
  plan_in "$AFPBENCH_RESULTS_DIR"
  chown 4321:4321 "$AFPBENCH_RESULTS_DIR"
  local start=$SECONDS reproduce
  read -ra reproduce <<<"$REPRODUCE"
  run "${reproduce[@]}"
  local took=$((SECONDS - start))
  echo "$output" | tail -n 40
  printf '# %s: %d s (exit %d; cold when the data root is empty)\n' "up --build" "$took" "$status" >&3
  # The exit status is the verdict's, and it measured with IO monitoring on.
  [ -f "$AFPBENCH_RESULTS_DIR/verdict.json" ]
  [ "$status" -eq "$(verdict_status "$AFPBENCH_RESULTS_DIR")" ]
  [ "$status" -le 2 ]
  run jq -r '.runs[0].io_monitoring.enabled' "$AFPBENCH_RESULTS_DIR/results.json"
  [ "$output" = true ]
  # and the server's system calls counted from the client container (eBPF,
  # with compose.yaml's capabilities), matched in the server's PID namespace
  jq -e '.runs[0].io_monitoring.syscalls.counted and .runs[0].io_monitoring.syscalls.cnid_dbd' \
    "$AFPBENCH_RESULTS_DIR/results.json"
  # reads and writes by descriptor kind too (the kernel's BTF seen from the
  # container): test 4's replies are afpd's writes on the network
  jq -r '.runs[0].io_monitoring.syscalls.by_descriptor' "$AFPBENCH_RESULTS_DIR/results.json"
  jq -e '.runs[0].io_monitoring.syscalls.by_descriptor.counted' "$AFPBENCH_RESULTS_DIR/results.json"
  jq -e '[.tests[] | select(.key == "lantest.4") | .samples[] | .afpd_net_w] | length > 0 and all(. > 0)' \
    "$AFPBENCH_RESULTS_DIR/results.json"
  # (test 10 walks the tree; test 4 writes one file and may stat nothing)
  jq -e '[.tests[] | select(.key == "lantest.10") | .samples[] | .afpd_sys.newfstatat] |
    length > 0 and all(. > 0)' "$AFPBENCH_RESULTS_DIR/results.json"
  jq -e 'any(.rows[]; .kind == "sys" and .state == "pass")' "$AFPBENCH_RESULTS_DIR/verdict.json"
  run jq -r '[.tests[] | select(.status == "ok") | .key] | join(" ")' "$AFPBENCH_RESULTS_DIR/results.json"
  [ "$output" = "lantest.4 lantest.10" ]
  # Owned by the results directory's owner, not by the client's root.
  run find "$AFPBENCH_RESULTS_DIR" ! -uid 4321
  [ -z "$output" ]
  # The server's log: no tracker or avahi noise; the low nofile limit said once.
  local server_log
  server_log=$(docker compose logs --no-log-prefix server)
  echo "$server_log"
  run ! grep -Ei 'critical|avahi|Found 0 PIDs' <<<"$server_log"
  if (($(ulimit -Hn) < 65535)); then
    grep -q 'cnid_metad asks for: its request is lowered' <<<"$server_log"
  fi
}

@test "up --build --wait: the server becomes healthy, then the gate runs in the client (the action's way)" {
  export AFPBENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/results"
  plan_in "$AFPBENCH_RESULTS_DIR"
  local start=$SECONDS
  run docker compose up --build --wait server
  echo "$output"
  printf '# %s: %d s (warm)\n' "up --build --wait server" $((SECONDS - start)) >&3
  [ "$status" -eq 0 ]
  run docker inspect --format '{{.State.Health.Status}}' "$COMPOSE_PROJECT_NAME-server-1"
  [ "$output" = healthy ]
  # It answered DSIGetStatus once; later checks only look for the listener.
  run docker compose exec -T server cat /run/afpbench/server-answered
  [ "$output" = 548 ]
  AFPBENCH_RESULTS_OWNER=1234:1234 run docker compose run --rm -T client
  echo "$output" | tail -n 30
  [ "$status" -eq "$(verdict_status "$AFPBENCH_RESULTS_DIR")" ]
  [ "$status" -le 2 ]
  [[ $output == *"results owned by 1234:1234"* ]]
  run find "$AFPBENCH_RESULTS_DIR" ! -uid 1234
  [ -z "$output" ]
  # Still healthy after the run: the later checks cost afpd nothing.
  run docker inspect --format '{{.State.Health.Status}} {{len .State.Health.Log}}' "$COMPOSE_PROJECT_NAME-server-1"
  echo "$output"
  [[ $output == healthy* ]]
}

# (on netatalk 4.5.1, the current release: the one the other tests here do
# not build, served by compose and compared with its own bundled baseline)
@test "scripts/run-gate --compose runs the README's command on netatalk 4.5.1, against its bundled baseline, and tears the stack down" {
  export AFPBENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/results" NETATALK_VERSION=4.5.1
  local start=$SECONDS
  run "$IMAGES_ROOT/scripts/run-gate" --compose
  echo "$output" | tail -n 30
  printf '# %s: %d s (the 4.5.1 server image built)\n' "run-gate --compose" $((SECONDS - start)) >&3
  [[ $output == *"running: $REPRODUCE (the plan: "* ]]
  [[ $output == *"netatalk 4.5.1: comparing with the bundled baselines/netatalk-4.5.1.json"* ]]
  [ "$status" -eq "$(verdict_status "$AFPBENCH_RESULTS_DIR")" ]
  [ "$status" -le 2 ]
  # the server that answered is 4.5.1, and the counts were judged against its baseline
  jq -e '.provenance.netatalk.version | startswith("4.5.1")' "$AFPBENCH_RESULTS_DIR/results.json"
  # the run went by run-gate's plan: this test's settings, the server it
  # served and the bundled baseline, carried whole
  # (named relative to the working directory when under it)
  jq -e --arg sum "$(sha256sum <"$IMAGES_ROOT/baselines/netatalk-4.5.1.json" | cut -d' ' -f1)" '.settings.AFPBENCH_TESTS == "4,10"
    and .server.netatalk_version == "4.5.1" and (.files.baseline.name | endswith("baselines/netatalk-4.5.1.json"))
    and .files.baseline.sha256 == $sum' "$AFPBENCH_RESULTS_DIR/plan.json"
  jq -e '[.rows[] | select(.kind == "sys" or .kind == "io")] | length > 0 and all(.state != "fail")' \
    "$AFPBENCH_RESULTS_DIR/verdict.json"
  run docker compose ps -a -q
  [ -z "$output" ]
}

# The plan is the whole run in compose too: a run with an afp.conf and a
# netatalk version, replayed from its plan.json alone (gate_plan_replay.bats
# does the same natively).
@test "a run's plan.json alone replays it in compose: the same server (netatalk 4.5.1, ea = ad), the same verdict" {
  cd "$BATS_TEST_TMPDIR"
  printf '[Global]\n[Share]\nea = ad\n' >ea-ad.conf
  AFPBENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/first" NETATALK_VERSION=4.5.1 AFP_CONF=ea-ad.conf \
    AFPBENCH_TESTS=1 AFPBENCH_ITERATIONS=1 run "$IMAGES_ROOT/scripts/run-gate" --compose
  echo "$output" | tail -n 20
  local first=$status
  # ea = ad moves afpd's calls in test 1: a fail against 4.5.1's own baseline
  [ "$first" -eq 1 ]
  jq -e '.server.netatalk_version == "4.5.1" and .server.afp_conf.volume == ["ea = ad"]' first/plan.json
  # its plan alone, elsewhere: the afp.conf file gone, nothing of the first
  # run's environment
  mkdir elsewhere
  cp first/plan.json elsewhere/plan.json
  rm ea-ad.conf
  cd elsewhere
  AFPBENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/again" run "$IMAGES_ROOT/scripts/run-gate" --compose --plan plan.json
  echo "$output" | tail -n 20
  [ "$status" -eq "$first" ]
  jq -e '(.provenance.netatalk.version | startswith("4.5.1")) and .provenance.afp_conf_settings == "ea = ad"' \
    ../again/results.json
  jq -e --slurpfile a ../first/plan.json '.settings == $a[0].settings and .files == $a[0].files and .server == $a[0].server' \
    ../again/plan.json
  diff <(jq -c '.decided_by | sort' ../first/verdict.json) <(jq -c '.decided_by | sort' ../again/verdict.json)
  cd "$IMAGES_ROOT"
  run docker compose ps -a -q
  [ -z "$output" ]
}

@test "scripts/run-gate --compose refuses an engine older than compose.yaml needs, naming the minimum" {
  local fake="$BATS_TEST_TMPDIR/bin"
  mkdir -p "$fake"
  printf '#!/bin/sh\ncase "$*" in\n  version*) echo 20.10.24+dfsg1 ;;\n  "compose version --short") echo 2.26.1 ;;\n  *) exit 99 ;;\nesac\n' >"$fake/docker"
  chmod +x "$fake/docker"
  PATH="$fake:$PATH" run "$IMAGES_ROOT/scripts/run-gate" --compose
  echo "$output"
  [ "$status" -eq 3 ]
  [[ $output == *"needs Docker Engine 23.0 or later with Compose v2 2.17 or later"*"this is Docker Engine 20.10.24+dfsg1"* ]]
}

@test "the instr and ab-instr profiles: afpd under valgrind on both sides, instructions counted, the IO found (A/A)" {
  export AFPBENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/results" AFPBENCH_TESTS=9 AFPBENCH_ITERATIONS=2
  # The README's command for A/B with instructions (compose.yaml, base-server-instr)
  export COMPOSE_PROFILES=instr,ab-instr BASE_AFP_PORT=549 BASE_AFPBENCH_INSTR_DIR=/instr-base
  plan_in "$AFPBENCH_RESULTS_DIR"
  local start=$SECONDS
  run docker compose up --build --abort-on-container-exit --exit-code-from client-instr \
    client-instr base-server-instr
  echo "$output" | tail -n 40
  printf '# %s: %d s\n' "ab-instr: up --build, lantest 9 x 2 pairs under valgrind" $((SECONDS - start)) >&3
  [ "$status" -eq "$(verdict_status "$AFPBENCH_RESULTS_DIR")" ]
  [ "$status" -le 2 ]
  # the client found the valgrind'd afpd: IO monitoring is not reported off
  [[ $output != *"IO monitoring is OFF"* ]]
  local v="$AFPBENCH_RESULTS_DIR/verdict.json"
  jq -e '.current.provenance.io_monitoring' "$v"
  # both sides counted; the same netatalk on both: within the 2 % threshold
  jq -e '.rows[] | select(.metric == "aggregate.afpd_instr_per_op")
         | .state == "pass" and .baseline > 1000 and .current > 1000' "$v"
  printf '# ab-instr: afpd instructions per op, base %s, head %s\n' \
    "$(jq -r '.rows[] | select(.metric == "aggregate.afpd_instr_per_op") | .baseline' "$v")" \
    "$(jq -r '.rows[] | select(.metric == "aggregate.afpd_instr_per_op") | .current' "$v")" >&3
  docker compose down --volumes --timeout 10 >/dev/null 2>&1
}
