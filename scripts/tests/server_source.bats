#!/usr/bin/env bats
# scripts/local-server --netatalk-source: netatalk built from a source checkout
# (meson, by install-netatalk.sh, the recipe of Dockerfile.server's
# server-source target), cached by the checkout's tree hash, serving AFP. The
# source is Debian trixie's upstream tarball of netatalk 4.2.3
# (lib/netatalk-source.sh, fetched once). Needs root; the first build takes
# minutes, later starts reuse it.

bats_require_minimum_version 1.5.0

readonly SRC_PORT=10560

setup_file() {
  local root
  root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  make -C "$root/src/afpbench" -s >&2
  SOURCE_TREE=$("$BATS_TEST_DIRNAME/lib/netatalk-source.sh")
  export SOURCE_TREE
  # a copy that is ours to edit
  cp -a "$SOURCE_TREE" "$BATS_FILE_TMPDIR/netatalk"
  export LOCAL_SERVER_START_TIMEOUT=60
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$SRC_PORT" || true
}

@test "a server built from a netatalk checkout answers, serves a volume, and says what it is" {
  local ls="$BATS_TEST_DIRNAME/../local-server" afpbench="$BATS_TEST_DIRNAME/../../src/afpbench/afpbench"
  run "$ls" start --port "$SRC_PORT" --netatalk-source "$BATS_FILE_TMPDIR/netatalk"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"AFP_PORT=$SRC_PORT"* ]]
  eval "$(grep -E '^(AFP_|SHARE_NAME|PROC_IO)' <<<"$output")"
  # built by meson into /usr: the instance says it serves a source build
  grep -q '^NETATALK_VERSION=source [0-9a-f]\{16\} (afpd 4\.' \
    "/var/cache/afpbench/server/instances/$SRC_PORT/instance.env"
  run "$afpbench" status "127.0.0.1:$SRC_PORT"
  [ "$status" -eq 0 ]
  [[ $output == *"AFP3.4"* ]]
  AFP_PASS=$AFP_PASS run "$afpbench" smoke -h 127.0.0.1 -p "$SRC_PORT" -u "$AFP_USER" -s "$SHARE_NAME"
  [ "$status" -eq 0 ]
  "$ls" stop --port "$SRC_PORT"
}

@test "built once: a second start reuses the build, cached under the tree hash; a version and a source at once are refused" {
  local ls="$BATS_TEST_DIRNAME/../local-server" start=$SECONDS
  run "$ls" start --port "$SRC_PORT" --netatalk-source "$BATS_FILE_TMPDIR/netatalk"
  [ "$status" -eq 0 ]
  [[ $output != *"building netatalk from"* ]]
  ((SECONDS - start < 60))
  # the cache key follows the tree: one rootfs per tree hash (read while the
  # server runs: stop removes the instance)
  local rootfs
  rootfs=$(sed -n 's/^ROOTFS=//p' "/var/cache/afpbench/server/instances/$SRC_PORT/instance.env")
  [[ $rootfs == */netatalk-src-* ]]
  "$ls" stop --port "$SRC_PORT"
  run "$ls" start --port "$SRC_PORT" --netatalk-source "$BATS_FILE_TMPDIR/netatalk" --netatalk-version 4.2.3
  [ "$status" -ne 0 ]
  [[ $output == *"--netatalk-version and --netatalk-source name two servers"* ]]
  run "$ls" start --port "$SRC_PORT" --netatalk-source "$BATS_FILE_TMPDIR"
  [ "$status" -ne 0 ]
  [[ $output == *"no meson.build there"* ]]
}
