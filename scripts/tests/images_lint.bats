#!/usr/bin/env bats
# Static checks of the images and the compose stack: hadolint on both
# Dockerfiles, compose.yaml against the compose specification (two ways), and
# the stack's wiring that issue 5 asks for. No podman, no server needed.

load lib/podman

setup_file() {
  # The defaults, whatever the caller's environment sets.
  unset AFP_USER AFP_PASS AFP_PORT SHARE_NAME AFPBENCH_TESTS AFPBENCH_ITERATIONS \
    AFPBENCH_RESULTS_DIR AFPBENCH_BASELINES_DIR
  export COMPOSE_JSON="$BATS_FILE_TMPDIR/compose.json"
  compose_config_json >"$COMPOSE_JSON"
}

# compose_spec_schema: the compose specification's JSON schema that Debian's
# docker-compose package ships (compose/config/compose_spec.json).
compose_spec_schema() {
  "$IMAGES_PYTHON" -c 'import compose.config, os
print(os.path.join(os.path.dirname(compose.config.__file__), "compose_spec.json"))'
}

# validate_against_spec FILE: validate a compose file against the schema.
validate_against_spec() {
  "$IMAGES_PYTHON" - "$(compose_spec_schema)" "$1" <<'EOF'
import json, sys, yaml
from jsonschema import Draft201909Validator
schema = json.load(open(sys.argv[1]))
doc = yaml.safe_load(open(sys.argv[2]))
errors = sorted(Draft201909Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors:
    print("%s: %s" % ("/".join(map(str, e.path)) or "(top)", e.message))
sys.exit(1 if errors else 0)
EOF
}

@test "Dockerfile.client passes hadolint" {
  run "$(hadolint_bin)" --config "$IMAGES_ROOT/.hadolint.yaml" "$IMAGES_ROOT/Dockerfile.client"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "Dockerfile.server passes hadolint" {
  run "$(hadolint_bin)" --config "$IMAGES_ROOT/.hadolint.yaml" "$IMAGES_ROOT/Dockerfile.server"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "hadolint finds a known Dockerfile mistake (the check can fail)" {
  printf 'FROM debian:trixie-slim\nRUN cd /tmp && apt-get install curl\n' >"$BATS_TEST_TMPDIR/Dockerfile"
  run "$(hadolint_bin)" --config "$IMAGES_ROOT/.hadolint.yaml" "$BATS_TEST_TMPDIR/Dockerfile"
  [ "$status" -ne 0 ]
  [[ $output == *DL3003* ]] # cd instead of WORKDIR
}

@test "compose.yaml passes docker-compose config" {
  run docker-compose --project-directory "$IMAGES_ROOT" -f "$IMAGES_ROOT/compose.yaml" config --quiet
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "compose.yaml validates against the compose specification's JSON schema" {
  run validate_against_spec "$IMAGES_ROOT/compose.yaml"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "the schema check rejects a wrong key and a wrong type (the check can fail)" {
  sed -e 's/^  server:$/  server:\n    no_such_key: 1/' -e 's/^      retries: [0-9]*$/      retries: many/' \
    "$IMAGES_ROOT/compose.yaml" >"$BATS_TEST_TMPDIR/compose.yaml"
  run validate_against_spec "$BATS_TEST_TMPDIR/compose.yaml"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *no_such_key* ]]
  [[ $output == *many* ]]
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
  [ "$output" = "SYS_ADMIN,SYS_PTRACE" ]
  run jq -r '.services | map(.privileged // false) | any' "$COMPOSE_JSON"
  [ "$output" = false ]
}

@test "the client mounts ./results and ./baselines (read-only) from the project" {
  run jq -r '.services.client.volumes[]' "$COMPOSE_JSON"
  echo "$output"
  [[ $output == *"$IMAGES_ROOT/results:/results:rw"* ]]
  [[ $output == *"$IMAGES_ROOT/baselines:/baselines:ro"* ]]
}

@test "settings come from the environment: login shared, pass-through unset when unset" {
  AFP_PASS=secret1 AFPBENCH_ITERATIONS=7 AFPBENCH_TESTS=1,5 run compose_config_json
  [ "$status" -eq 0 ]
  local json=$output
  run jq -r '[.services.server.environment.AFP_PASS, .services.client.environment.AFP_PASS,
              .services.client.environment.AFPBENCH_ITERATIONS,
              .services.client.environment.AFPBENCH_TESTS] | join(" ")' <<<"$json"
  [ "$output" = "secret1 secret1 7 1,5" ]
  # Unset on the host: compose passes nothing, so the default lives in scripts/gate.
  run jq -r '.services.client.environment.AFPBENCH_ITERATIONS' "$COMPOSE_JSON"
  [ "$output" = null ]
}

@test "the README's reproduction command is in docs/images.md" {
  grep -qF 'docker compose up --build --abort-on-container-exit --exit-code-from client' \
    "$IMAGES_ROOT/docs/images.md"
}
