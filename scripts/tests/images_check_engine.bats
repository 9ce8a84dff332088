#!/usr/bin/env bats
# scripts/check-engine: whether this machine's Docker can run compose.yaml,
# the one check for scripts/run-gate and the action's server: compose; and
# scripts/run-gate --compose on an engine that cannot get the base image or
# whose compose fails. A stand-in docker on PATH answers the version questions,
# `image inspect`, `pull` and `compose up/down` (no engine needed).

bats_require_minimum_version 1.5.0

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  BIN=$BATS_TEST_TMPDIR/bin
  mkdir -p "$BIN"
  cat >"$BIN/docker" <<'SH'
#!/bin/sh
case "$*" in
  "version --format {{.Server.Version}}")
    [ -n "$FAKE_ENGINE" ] || { echo "Cannot connect to the Docker daemon" >&2; exit 1; }
    echo "$FAKE_ENGINE" ;;
  "compose version --short")
    [ -n "$FAKE_COMPOSE" ] || { echo "docker: 'compose' is not a docker command." >&2; exit 1; }
    echo "$FAKE_COMPOSE" ;;
  "image inspect "*)
    [ -n "$FAKE_HAS_IMAGE" ] || { echo "Error: No such image: ${3}" >&2; exit 1; } ;;
  "pull "*)
    echo "Error response from daemon: Get \"https://registry-1.docker.io/v2/\": dial tcp: lookup registry-1.docker.io: no such host" >&2
    exit 1 ;;
  "compose up "*)
    echo "compose up: $FAKE_UP_SAYS" >&2
    [ -z "$FAKE_UP_WRITES" ] || echo "{}" >"$FAKE_UP_WRITES"
    exit "${FAKE_UP_STATUS:-0}" ;;
  "compose down "*) exit 0 ;;
  *) exit 99 ;;
esac
SH
  chmod +x "$BIN/docker"
}

check() {
  PATH="$BIN:/usr/bin:/bin" FAKE_ENGINE=$1 FAKE_COMPOSE=$2 run "$ROOT/scripts/check-engine"
}

@test "Docker Engine 23.0 and Compose 2.17 or later can run compose.yaml" {
  check 26.1.5+dfsg1 2.26.1-4
  [ "$status" -eq 0 ] && [ "$output" = "Docker Engine 26.1.5+dfsg1, Compose 2.26.1-4" ]
  check 23.0.0 2.17.0
  [ "$status" -eq 0 ]
  check 28.2.2 v2.36.2
  [ "$status" -eq 0 ]
}

@test "older versions, Compose v1 or an unreadable version: one line that says what is needed" {
  check 20.10.24+dfsg1 2.26.1
  [ "$status" -eq 1 ]
  [[ $output == "compose.yaml needs Docker Engine 23.0 or later with Compose v2 2.17 or later (named build contexts); this is Docker Engine 20.10.24+dfsg1" ]]
  check 24.0.7 2.16.0
  [ "$status" -eq 1 ] && [[ $output == *"; this is Compose 2.16.0" ]]
  check 24.0.7 1.29.2
  [ "$status" -eq 1 ] && [[ $output == *"; this is Compose 1.29.2 (v1)" ]]
  check podman 2.26.1
  [ "$status" -eq 1 ] && [[ $output == *"the engine's version is unreadable: 'podman'" ]]
}

@test "no engine, no Compose plugin, no docker: said" {
  check "" 2.26.1
  [ "$status" -eq 1 ] && [[ $output == "no Docker engine answers: Cannot connect to the Docker daemon" ]]
  check 26.1.5 ""
  [ "$status" -eq 1 ] && [[ $output == "Docker Compose v2 (the docker compose plugin) is missing: "* ]]
  rm "$BIN/docker"
  PATH="$BIN" run /bin/bash "$ROOT/scripts/check-engine"
  [ "$status" -eq 1 ] && [ "$output" = "no docker command" ]
}

# run_gate_compose: scripts/run-gate --compose against the stand-in (a
# suitable engine), results in the test's directory.
run_gate_compose() {
  PATH="$BIN:/usr/bin:/bin" FAKE_ENGINE=26.1.5 FAKE_COMPOSE=2.26.1 \
    AFPBENCH_RESULTS_DIR="$BATS_TEST_TMPDIR/results" run "$ROOT/scripts/run-gate" --compose
}

@test "run-gate on an engine that cannot get the base image: exit 3, the image and the ways out named, no results claimed" {
  unset BASE_IMAGE FAKE_HAS_IMAGE
  run_gate_compose
  echo "$output"
  [ "$status" -eq 3 ]
  local pinned
  pinned=$(sed -n 's/^ARG BASE_IMAGE=//p' "$ROOT/Dockerfile.server")
  [[ $output == *"has no base image $pinned and cannot pull it: Error response from daemon:"*"no such host"* ]]
  [[ $output == *"scripts/run-gate --native"* ]]
  [[ $output == *"docker load -i"* ]]
  [[ $output != *"compose up:"* ]]
  [[ $output != *"results in"* ]]
  # BASE_IMAGE is the image it asks for
  BASE_IMAGE=example/debian:offline run_gate_compose
  [ "$status" -eq 3 ] && [[ $output == *"has no base image example/debian:offline and"* ]]
}

@test "run-gate when compose fails without writing results: exit 3, says so, never 'results in'" {
  FAKE_HAS_IMAGE=1 FAKE_UP_STATUS=17 FAKE_UP_SAYS="failed to solve" run_gate_compose
  echo "$output"
  [ "$status" -eq 3 ]
  [[ $output == *"compose up: failed to solve"* ]]
  [[ $output == *"no results written"* ]]
  [[ $output != *"results in"* ]]
  # a run that wrote its verdict says where (the gate's own status kept)
  FAKE_HAS_IMAGE=1 FAKE_UP_STATUS=1 FAKE_UP_WRITES="$BATS_TEST_TMPDIR/results/verdict.json" run_gate_compose
  [ "$status" -eq 1 ]
  [[ $output == *"results in $BATS_TEST_TMPDIR/results (report.md, verdict.json, charts/)"* ]]
}
