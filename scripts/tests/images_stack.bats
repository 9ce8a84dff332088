#!/usr/bin/env bats
# The two images run together the way `docker compose up` runs them, with the
# environment, volumes, health check, depends_on and PID sharing read from
# compose.yaml itself: the server image's entrypoint and then the client
# image's, each under chroot in a writable copy of its image. The client must
# wait for the server, measure it with IO monitoring on, and write a results
# directory with a verdict. Needs root, podman, gcc; uses port 10602 (CNID 14602).
#
# Mocked because it cannot exist here (see lib/podman.bash): the compose
# network (the chroots share the host's loopback; `server` is named in the
# client's /etc/hosts). scripts/tests/compose_engine.bats runs the same stack on
# a real Docker Engine.

# "run !" (a command that must fail) needs bats 1.5
bats_require_minimum_version 1.5.0

load lib/podman

readonly STACK_PORT=10602

setup_file() {
  # What `docker compose up` would interpolate: the port both sides use, where
  # the results land, and a short run (two lantest tests, one iteration).
  unset AFP_USER AFP_PASS SHARE_NAME AFPBENCH_BASELINES_DIR
  export AFP_PORT=$STACK_PORT
  export AFPBENCH_RESULTS_DIR="$BATS_FILE_TMPDIR/results"
  export AFPBENCH_TESTS=${IMAGES_STACK_TESTS:-1,8}
  export AFPBENCH_ITERATIONS=${IMAGES_STACK_ITERATIONS:-1}
  # the run as a plan in the results directory, as scripts/run-gate --compose
  # writes it: compose passes the client its path, no run setting
  mkdir -p "$AFPBENCH_RESULTS_DIR"
  (cd "$IMAGES_ROOT" && AFPBENCH_BASELINE=baselines/default.json scripts/gate --check) >"$AFPBENCH_RESULTS_DIR/plan.json"
  export AFPBENCH_PLAN=/results/plan.json
  export COMPOSE_JSON="$BATS_FILE_TMPDIR/compose.json"
  compose_config_json >"$COMPOSE_JSON"
  make -C "$IMAGES_ROOT/src/afpbench" -s WERROR=1 >&2
  local service
  for service in server client; do
    images_build "$service" >"$BATS_FILE_TMPDIR/build-$service.log" 2>&1 || {
      tail -n 40 "$BATS_FILE_TMPDIR/build-$service.log" >&2
      return 1
    }
  done
}

teardown_file() {
  container_remove client
  container_remove server
}

service_spec() { jq -c --arg s "$1" '.services[$s]' "$COMPOSE_JSON"; }

# start_server: the server as compose starts it; waits for its health check,
# as the client's depends_on (condition: service_healthy) makes compose do.
start_server() {
  local spec img root pid
  spec=$(service_spec server)
  img=$(images_config "$(images_tag server)")
  root=$(container_create server)
  chroot_prepare "$root"
  # Shared host network: listen on loopback only, CNID on our own port. The
  # entrypoint lowers cnid_metad's nofile request to this machine's hard limit.
  pid=$(chroot_start "$root" "$spec" "$img" "$BATS_FILE_TMPDIR/server.log" \
    AFP_LISTEN=127.0.0.1 AFP_CNID_LISTEN=127.0.0.1:$((STACK_PORT + 4000)))
  [[ $(jq -r '.depends_on.server.condition' <<<"$(service_spec client)") == service_healthy ]] ||
    die "compose.yaml: the client does not wait for a healthy server"
  wait_healthy "$root" "$spec" "$img" "$pid"
}

# run_client: the client as compose runs it, in the foreground; its log goes
# to client.log and its exit status is returned.
run_client() {
  local spec img root status=0
  spec=$(service_spec client)
  img=$(images_config "$(images_tag client)")
  # pid: "service:server" is what lets the client see afpd; a chroot gives it
  # by sharing the host's PID namespace, so make sure compose asks for it.
  [[ $(jq -r '.pid' <<<"$spec") == service:server ]] ||
    die "compose.yaml: the client does not share the server's PID namespace"
  root=$(container_create client)
  chroot_prepare "$root"
  chroot_volumes "$root" "$spec"
  printf '127.0.0.1\tlocalhost server\n' >"$root/etc/hosts"
  chroot_start "$root" "$spec" "$img" "$BATS_FILE_TMPDIR/client.log" >/dev/null
  # Bounded: a hang fails the test instead of the whole CI run.
  wait_exit "$BATS_FILE_TMPDIR/client.log" 900 || status=$?
  return "$status"
}

@test "the server and the client run together as compose runs them; the client writes a verdict" {
  run start_server
  echo "$output"
  [ "$status" -eq 0 ]

  local start=$SECONDS
  run run_client
  local client_status=$status
  cat "$BATS_FILE_TMPDIR/client.log"
  printf '# client ran %d s, exit %d\n' $((SECONDS - start)) "$client_status" >&3

  local results="$AFPBENCH_RESULTS_DIR"
  [ -f "$results/verdict.json" ]
  [ -f "$results/results.json" ]
  [ -f "$results/report.md" ]
  # The exit status is the verdict's.
  local verdict
  verdict=$(jq -r .status "$results/verdict.json")
  case $verdict in
    pass) [ "$client_status" -eq 0 ] ;;
    fail) [ "$client_status" -eq 1 ] ;;
    inconclusive) [ "$client_status" -eq 2 ] ;;
    *) false ;; # error: the stack did not work
  esac
  # It compared with the baseline its plan carries, named as the plan names it
  # (made in the checkout: relative to it)
  run jq -r '.baseline.file' "$results/verdict.json"
  [ "$output" = baselines/default.json ]
  [ "$(jq -r '.files.baseline.sha256' "$results/plan.json")" = "$(sha256sum <"$IMAGES_ROOT/baselines/default.json" | cut -d' ' -f1)" ]
  run jq -r '[.rows[] | select(.baseline != null and .current != null)] | length' "$results/verdict.json"
  echo "compared metrics: $output"
  ((output > 0))
  # The verdict table is in the container log, the password is not.
  grep -q "^verdict: ${verdict^^}" "$BATS_FILE_TMPDIR/client.log"
  run ! grep -q 'afpbench:afpbench\|-w afpbench' "$BATS_FILE_TMPDIR/client.log"
}

@test "the client measured the selected tests against the real server with IO monitoring on" {
  local results="$AFPBENCH_RESULTS_DIR/results.json"
  [ -f "$results" ]
  run jq -r '[.tests[] | select(.status == "ok") | .key] | join(" ")' "$results"
  echo "$output"
  [ "$output" = "lantest.1 lantest.8" ]
  run jq -r '.runs[0].server.machine_type' "$results"
  [[ $output == Netatalk* ]]
  run jq -r '.runs[0].io_monitoring | "\(.enabled) \(.proc_root)"' "$results"
  echo "$output"
  [ "$output" = "true /proc_io" ]
  # Server-side syscall counts were read: every sample has them, and afpd
  # did read or write in each (it answers every AFP request over its socket).
  jq -c '.tests[] | {key, afpd_r: [.samples[].afpd_r], afpd_w: [.samples[].afpd_w]}' "$results"
  run jq -r '[.tests[].samples[] | (.afpd_r | type == "number") and (.afpd_w | type == "number")
              and .afpd_r + .afpd_w > 0] | length > 0 and all' "$results"
  [ "$output" = true ]
  run ! grep -q 'IO monitoring is OFF' "$BATS_FILE_TMPDIR/client.log"
}

@test "stopping the stack leaves no process and no mount behind" {
  local server_root client_root
  server_root=$(container_root server)
  client_root=$(container_root client)
  container_remove client
  container_remove server
  run chroot_pids "$server_root"
  [ -z "$output" ]
  run grep -F -e "$server_root" -e "$client_root" /proc/self/mounts
  [ -z "$output" ]
  run "$IMAGES_ROOT/src/afpbench/afpbench" status "127.0.0.1:$STACK_PORT"
  [ "$status" -ne 0 ]
}
