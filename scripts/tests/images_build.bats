#!/usr/bin/env bats
# Both images build with podman, offline, from compose.yaml's build sections;
# they hold what they should; and the server image's own entrypoint serves AFP
# when run under chroot with compose's environment. Needs root, podman, gcc and
# docker-compose; uses port 10601 (and 14601 for CNID).
# Prints the build times (a cold build is the first on a machine). One more
# server build, of NETATALK_VERSION=4.5.1 (Debian's from testing, under a tag
# of its own, removed after its entrypoint served AFP), costs about a minute.

# "run !" (a command that must fail) needs bats 1.5
bats_require_minimum_version 1.5.0

load lib/podman

readonly SERVER_PORT=10601

setup_file() {
  # compose interpolates these: the port the server listens on.
  export AFP_PORT=$SERVER_PORT
  unset AFP_USER AFP_PASS SHARE_NAME NETATALK_VERSION SERVER_TARGET
  images_base_image
  make -C "$IMAGES_ROOT/src/afpbench" -s WERROR=1 >&2
}

teardown_file() {
  container_remove server
  container_remove server-netatalk451
  podman rmi "$(images_tag server-netatalk451)" >/dev/null 2>&1 || true
}

# timed_build SERVICE: build a service's image and print how long it took.
timed_build() {
  local start=$SECONDS log="$BATS_FILE_TMPDIR/build-$1.log"
  if ! images_build "$1" >"$log" 2>&1; then
    tail -n 40 "$log"
    return 1
  fi
  printf '# %s image built in %d s\n' "$1" $((SECONDS - start)) >&3
}

# in_image SERVICE CMD...: run a command in the image's read-only root fs.
in_image() {
  local tag root status=0
  tag=$(images_tag "$1")
  shift
  root=$(podman image mount "$tag")
  chroot "$root" "$@" || status=$?
  podman image unmount "$tag" >/dev/null
  return "$status"
}

# serve SERVICE SPEC LOG: the service's image (SERVICE's tag) served by its
# entrypoint under chroot with the service's compose SPEC, on loopback and a
# CNID port of our own (the host's network is shared), until its health check
# passes; ROOT is its root directory after.
ROOT=""
serve() {
  local service=$1 spec=$2 log=$3 img pid
  img=$(images_config "$(images_tag "$service")")
  ROOT=$(container_create "$service")
  chroot_prepare "$ROOT"
  pid=$(chroot_start "$ROOT" "$spec" "$img" "$log" \
    AFP_LISTEN=127.0.0.1 AFP_CNID_LISTEN=127.0.0.1:$((SERVER_PORT + 4000)))
  run wait_healthy "$ROOT" "$spec" "$img" "$pid"
  echo "$output"
  cat "$log"
  [ "$status" -eq 0 ]
}

# smoke_login SPEC: afpbench smoke with the service's credentials and share
# (log in, write, read back, delete, log out).
smoke_login() {
  run env AFP_USER="$(jq -r '.environment.AFP_USER' <<<"$1")" \
    AFP_PASS="$(jq -r '.environment.AFP_PASS' <<<"$1")" \
    SHARE_NAME="$(jq -r '.environment.SHARE_NAME' <<<"$1")" \
    timeout 60 "$IMAGES_ROOT/src/afpbench/afpbench" smoke -h 127.0.0.1 -p "$SERVER_PORT"
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "the server image builds offline from compose.yaml's build section" {
  run timed_build server
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "the client image builds offline from compose.yaml's build section" {
  run timed_build client
  echo "$output"
  [ "$status" -eq 0 ]
}

@test "a second build of both images is served from the layer cache" {
  local log="$BATS_TEST_TMPDIR/rebuild.log" service steps cached
  for service in server client; do
    images_build "$service" >"$log" 2>&1 || {
      cat "$log"
      false
    }
    # Every step but FROM reports a cache hit: nothing ran again.
    steps=$(grep -E '^(\[[0-9/]+\] )?STEP [0-9/]+: ' "$log" | grep -vcE 'STEP [0-9/]+: FROM ')
    cached=$(grep -c '^--> Using cache ' "$log")
    echo "$service: $cached of $steps steps from the cache"
    ((steps > 0 && cached == steps))
  done
}

@test "the client image runs afpbench and has jq and gnuplot but no compiler" {
  run in_image client /usr/local/bin/afpbench --version
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == "afpbench "* ]]
  run in_image client jq --version
  [ "$status" -eq 0 ]
  run in_image client gnuplot --version
  [ "$status" -eq 0 ]
  # The compiler stayed in the build stage.
  run in_image client sh -c '! command -v gcc && ! command -v cc && ! command -v make'
  echo "$output"
  [ "$status" -eq 0 ]
  run in_image client test -x /opt/afpbench/scripts/client-entrypoint.sh
  [ "$status" -eq 0 ]
  run images_config "$(images_tag client)"
  [ "$(jq -r '.Entrypoint | join(" ")' <<<"$output")" = /opt/afpbench/scripts/client-entrypoint.sh ]
}

@test "the server image has netatalk, exposes 548 and has an AFP health check; the nofile cap is not preloaded globally" {
  run in_image server sh -c 'command -v netatalk afpd cnid_metad'
  echo "$output"
  [ "$status" -eq 0 ]
  run images_config "$(images_tag server)"
  local config=$output
  echo "$config"
  jq -e '.ExposedPorts | has("548/tcp")' <<<"$config"
  jq -e '.Healthcheck.Test | length > 1' <<<"$config"
  # The entrypoint preloads the cap only where the hard limit is low (and says
  # so): never the image's environment or ld.so.preload.
  run ! jq -e '.Env[] | select(startswith("LD_PRELOAD="))' <<<"$config"
  run in_image server test -e /etc/ld.so.preload
  [ "$status" -ne 0 ]
  run in_image server test -f /usr/local/lib/afpbench/rlimit-cap.so
  [ "$status" -eq 0 ]
  # and netatalk's stop of a Spotlight indexer that never ran stays quiet
  run in_image server sh -c 'dpkg-divert --list /usr/bin/localsearch; DBUS_SESSION_BUS_ADDRESS= /usr/bin/localsearch daemon -t'
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *localsearch.real* ]]
}

@test "the instrumented server image (compose profile instr) builds, with valgrind and no test preload" {
  run timed_build server-instr
  echo "$output"
  [ "$status" -eq 0 ]
  # (valgrind itself needs a /proc, which a chroot into the image lacks)
  # shellcheck disable=SC2016  # the inner sh expands ${Version}'s escape
  run in_image server-instr sh -c 'test -x /usr/sbin/netatalk && test -x /usr/sbin/afpd &&
    test -x /usr/bin/valgrind && dpkg-query -W -f="\${Version}" valgrind'
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *:3.* ]]
  run images_config "$(images_tag server-instr)"
  local config=$output
  jq -e '.Env | index("AFP_INSTRUMENT=callgrind") and index("AFP_INSTR_DIR=/instr")' <<<"$config"
  run ! jq -e '.Env[] | select(startswith("LD_PRELOAD="))' <<<"$config"
  run in_image server-instr sh -c 'ls /usr/local/lib/afpbench/test-preload.so /etc/ld.so.preload'
  [ "$status" -ne 0 ]
}

@test "NETATALK_VERSION=4.5.1 builds Debian's 4.5.1 from testing into the server image, on trixie's C library" {
  # compose passes the version on as the build argument
  local spec tag start=$SECONDS root
  tag=$(images_tag server-netatalk451)
  spec=$(NETATALK_VERSION=4.5.1 compose_service server)
  [ "$(jq -r '.build.args.NETATALK_VERSION' <<<"$spec")" = 4.5.1 ]
  # built as images_build builds the server, under a tag of its own (the
  # default server image stays what the other tests use)
  images_base_image
  run podman build --isolation chroot --network host --pull=never --layers --format docker \
    --build-arg "BASE_IMAGE=$IMAGES_BASE_TAG" --build-arg NETATALK_VERSION=4.5.1 \
    --build-context "afpbench-scripts=$IMAGES_ROOT/scripts" --target server \
    -f "$IMAGES_ROOT/Dockerfile.server" -t "$tag" "$IMAGES_ROOT"
  echo "$output" | tail -n 30
  [ "$status" -eq 0 ]
  printf '# server image with netatalk 4.5.1 built in %d s\n' $((SECONDS - start)) >&3
  [[ $output == *"from Debian testing or unstable: "*"netatalk 4.5.1~ds-1"* ]]
  root=$(podman image mount "$tag")
  run chroot "$root" afpd -V
  [[ ${lines[0]} == "afpd 4.5.1 "* ]]
  run chroot "$root" dpkg-query -W -f="\${Version}" libc6
  [[ $output == 2.41-* ]]
  [ ! -e "$root/etc/apt/sources.list.d/afpbench-newer.sources" ]
  podman image unmount "$tag" >/dev/null
}

@test "the 4.5.1 server image's entrypoint serves AFP: the server names itself 4.5.1, and a login writes and reads" {
  # the image the test above built; without it this test has nothing to serve
  local service=server-netatalk451 spec
  podman image exists "$(images_tag "$service")"
  spec=$(NETATALK_VERSION=4.5.1 compose_service server)
  serve "$service" "$spec" "$BATS_TEST_TMPDIR/server45.log"
  run "$IMAGES_ROOT/src/afpbench/afpbench" status "127.0.0.1:$SERVER_PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"machine type: Netatalk4.5.1"* ]]
  smoke_login "$spec"
  container_remove "$service"
  podman rmi "$(images_tag "$service")" >/dev/null
}

@test "the server image's entrypoint serves AFP under chroot with compose's environment" {
  local spec root log="$BATS_TEST_TMPDIR/server.log"
  spec=$(compose_service server)
  serve server "$spec" "$log"
  root=$ROOT
  # This machine's hard nofile limit is below cnid_metad's 65535: the
  # entrypoint lowers its request itself and says so.
  if (($(ulimit -Hn) < 65535)); then
    grep -q 'cnid_metad asks for: its request is lowered' "$log"
  fi

  run "$IMAGES_ROOT/src/afpbench/afpbench" status "127.0.0.1:$SERVER_PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  # Log in with compose's credentials, write, read back, delete, log out.
  smoke_login "$spec"
  # The effective afp.conf is logged, without the password.
  grep -q "afp port = $SERVER_PORT" "$log"
  run ! grep -q 'afpbench:afpbench' "$log"

  container_remove server
  run chroot_pids "$root"
  [ -z "$output" ]
  run "$IMAGES_ROOT/src/afpbench/afpbench" status "127.0.0.1:$SERVER_PORT"
  [ "$status" -ne 0 ]
}
