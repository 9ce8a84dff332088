#!/usr/bin/env bats
# A netatalk 4.5 source tree through the source path (scripts/local-server
# --netatalk-source: install-netatalk.sh --build-source, the recipe of
# Dockerfile.server's server-source target): Debian's source package of the
# 4.5.1 release with bstring 1.1.0 in subprojects/ (lib/netatalk-tree.sh 4.5),
# built offline and served. This is the way out when the archive no longer has
# the 4.5.1 package. Needs root; the first build takes about two minutes, later
# starts reuse it (cached by the tree's hash). Port 10567 (and 14567).
# Without the 4.5 tree (../shared/netatalk or the cache) the test is skipped,
# saying so (lib/netatalk-tree.sh exits 77).

bats_require_minimum_version 1.5.0

readonly SRC45_PORT=10567

setup_file() {
  local root
  root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  make -C "$root/src/afpbench" -s >&2
  local rc=0
  SOURCE_TREE=$("$BATS_TEST_DIRNAME/lib/netatalk-tree.sh" 4.5 2>"$BATS_FILE_TMPDIR/tree.err") || rc=$?
  cat "$BATS_FILE_TMPDIR/tree.err" >&2
  ((rc == 0 || rc == 77))
  export SOURCE_TREE TREE_STATUS=$rc
  export LOCAL_SERVER_START_TIMEOUT=60
  export CACHE=${AFPBENCH_CACHE:-/var/cache/afpbench}
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$SRC45_PORT" >/dev/null 2>&1 || true
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$SRC45_PORT" >/dev/null 2>&1 || true
}

@test "a netatalk 4.5.1 source tree builds offline (bstring as a meson subproject) and serves as 4.5.1" {
  # no tree beside the checkout nor in the cache: not run, and said
  ((TREE_STATUS != 77)) || skip "$(tail -n 1 "$BATS_FILE_TMPDIR/tree.err")"
  local ls="$BATS_TEST_DIRNAME/../local-server" afpbench="$BATS_TEST_DIRNAME/../../src/afpbench/afpbench"
  local start=$SECONDS
  run "$ls" start --port "$SRC45_PORT" --netatalk-source "$SOURCE_TREE"
  echo "$output"
  [ "$status" -eq 0 ]
  printf '# started (built when not cached) in %d s\n' $((SECONDS - start)) >&3
  eval "$(grep -E '^(AFP_|SHARE_NAME|PROC_IO)' <<<"$output")"
  grep -q '^NETATALK_VERSION=source [0-9a-f]\{16\} (afpd 4\.5\.1 ' \
    "$CACHE/server/instances/$SRC45_PORT/instance.env"
  # bstring came from the tree's subprojects/, not from a download
  local rootfs
  rootfs=$(sed -n 's/^ROOTFS=//p' "$CACHE/server/instances/$SRC45_PORT/instance.env")
  grep -q 'Executing subproject bstring' "$rootfs.build.log"
  run "$afpbench" status "127.0.0.1:$SRC45_PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"machine type: Netatalk4.5.1"* ]]
  AFP_PASS=$AFP_PASS run "$afpbench" smoke -h 127.0.0.1 -p "$SRC45_PORT" -u "$AFP_USER" -s "$SHARE_NAME"
  echo "$output"
  [ "$status" -eq 0 ]
  "$ls" stop --port "$SRC45_PORT"
}
