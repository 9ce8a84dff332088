#!/usr/bin/env bats
# netatalk 4.5.1, the current release, as the server: Debian's package from
# testing/unstable on the trixie base (scripts/install-netatalk.sh --version,
# pinned), served by scripts/local-server and measured by afpbench and the
# gate against the bundled baselines/netatalk-4.5.1.json. Nothing is mocked.
#
# Needs root, debootstrap, gcc and the Debian mirror with testing (or
# unstable) the first time; the root filesystem is then cached in
# $AFPBENCH_CACHE (about a minute to build). Ports 10565, 10566 and 10568
# (and 14565, 14566, 14568) must be free.
#
#   bats scripts/tests/server_netatalk45.bats

# Each test exports the gate's settings for itself alone: each bats test runs
# in a subshell of its own.
# shellcheck disable=SC2030,SC2031

bats_require_minimum_version 1.5.0

readonly PORT45=10565 PORT_MISSING=10566 PORT42=10568

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT
  export LOCAL_SERVER="$ROOT/scripts/local-server"
  export AFPBENCH="$ROOT/src/afpbench/afpbench"
  export CACHE=${AFPBENCH_CACHE:-/var/cache/afpbench}
  make -C "$ROOT/src/afpbench" -s >&2
  "$LOCAL_SERVER" stop --port "$PORT45" --port "$PORT_MISSING" --port "$PORT42" >/dev/null 2>&1 || true
  # the first start builds the tree (testing's netatalk on trixie): allow for it
  export LOCAL_SERVER_START_TIMEOUT=60
  "$LOCAL_SERVER" start --port "$PORT45" --netatalk-version 4.5.1 \
    >"$BATS_FILE_TMPDIR/server.env" 2>"$BATS_FILE_TMPDIR/server.log" || {
    cat "$BATS_FILE_TMPDIR/server.log" >&2
    return 1
  }
}

teardown_file() {
  "$LOCAL_SERVER" stop --port "$PORT45" --port "$PORT_MISSING" --port "$PORT42" >/dev/null 2>&1 || true
}

@test "4.5.1 from Debian testing serves natively and says so in DSIGetStatus; trixie stays the base" {
  run "$AFPBENCH" status "127.0.0.1:$PORT45"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"machine type: Netatalk4.5.1"* ]]
  [[ $output == *"AFP3.4"* ]]
  # the instance names the exact Debian version it serves
  grep -qx 'NETATALK_VERSION=4.5.1~ds-1' "$CACHE/server/instances/$PORT45/instance.env"
  run "$LOCAL_SERVER" status --port "$PORT45"
  [[ $output == *"netatalk 4.5.1~ds-1"* ]]
  # only what 4.5.1 needs came from testing: the C library is trixie's, and no
  # testing or unstable source is left behind in the server's root
  local rootfs
  rootfs=$(sed -n 's/^ROOTFS=//p' "$CACHE/server/instances/$PORT45/instance.env")
  run chroot "$rootfs" dpkg-query -W -f="\${Version}" libc6
  [[ $output == 2.41-* ]]
  run chroot "$rootfs" dpkg-query -W -f="\${Version}" libbstring1
  [[ $output == 1.1.0* ]]
  [ ! -e "$rootfs/etc/apt/sources.list.d/afpbench-newer.sources" ]
  [ ! -e "$rootfs/etc/apt/preferences.d/afpbench-newer" ]
  # the build log says which packages came from where
  grep -q 'from Debian testing or unstable: .*libatalk 4.5.1~ds-1' "$rootfs.build.log"
}

@test "the gate's lantest run on 4.5.1 passes against the bundled baselines/netatalk-4.5.1.json; Spotlight and a large directory beside it are new there" {
  eval "$(cat "$BATS_FILE_TMPDIR/server.env")"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export AFPBENCH_BIN=$AFPBENCH AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/run"
  export AFPBENCH_BASELINE="$ROOT/baselines/netatalk-4.5.1.json" AFPBENCH_ITERATIONS=2
  export AFPBENCH_SPOTLIGHT=200:2 AFPBENCH_BIGDIR=500
  run "$ROOT/scripts/gate"
  echo "$output" | tail -n 20
  jq -c '[.rows[] | select(.state != "pass" and .state != "show") | {metric, state, reason}]' \
    "$AFPBENCH_RESULTS/verdict.json" || true
  [ "$status" -eq 0 ]
  jq -e '.status == "pass"' "$AFPBENCH_RESULTS/verdict.json"
  # all twelve tests, the server named, IO and system calls counted
  jq -e '(.tests | map(select(.key | startswith("lantest."))) | length) == 12
         and .provenance.netatalk.version == "4.5.1"' "$AFPBENCH_RESULTS/results.json"
  jq -e '.provenance.netatalk.version == "4.5.1"' "$ROOT/baselines/netatalk-4.5.1.json"
  # a pass pays for no attribution: no per-command pass ran
  jq -e '.needed == false' "$AFPBENCH_RESULTS/attribution.json"
  jq -e 'all(.tests[]; .commands == null)' "$AFPBENCH_RESULTS/results.json"
  # the AFP commands each test's timed part sends, as the per-command pass
  # (scripts/attribute's) sees them, are those afpbench's catalogue names
  # (scripts/lantest-tests.json)
  local by="$BATS_TEST_TMPDIR/by-command.json"
  "$AFPBENCH" lantest -f 1-12 --by-command-only -c --json "$by" >/dev/null
  jq -e --slurpfile cat "$ROOT/scripts/lantest-tests.json" '
    [.tests[] | {key, c: ([.commands.list[].command] | sort)}]
    == [$cat[0].tests[] | {key, c: (.commands | sort)}]' "$by"
  # the Spotlight suite merged beside lantest: its rows are new against a
  # baseline without it, and decide nothing
  jq -e '.spotlight.files == 200 and any(.tests[]; .key == "spotlight.200")' "$AFPBENCH_RESULTS/results.json"
  jq -e '[.rows[] | select(.group == "spotlight")] | length > 5 and all(.state == "new")
         and any(.metric == "spotlight.200.time") and any(.metric == "spotlight.200.cnid_sys_total")' \
    "$AFPBENCH_RESULTS/verdict.json"
  jq -e '[.rows[] | select(.group == "bigdir") | .metric] | index("bigdir.500.enumerate.time") and index("bigdir.500.stat.afpd_sys_total")' \
    "$AFPBENCH_RESULTS/verdict.json"
  jq -e '.settings.AFPBENCH_SPOTLIGHT == "200:2" and .settings.AFPBENCH_BIGDIR == "500"' "$AFPBENCH_RESULTS/plan.json"
}

@test "afpbench spotlight on 4.5.1: every search finds the files it made, timed with the server's work; nothing left behind" {
  eval "$(cat "$BATS_FILE_TMPDIR/server.env")"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  local j="$BATS_TEST_TMPDIR/spotlight.json"
  run "$AFPBENCH" spotlight -n 2 --files 300 --queries 3 --json "$j"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"Run 2 => Spotlight search by name, 300 files found"* ]]
  jq -e '.suite == "spotlight" and .status == "ok" and (.tests | length) == 1
         and .tests[0].key == "spotlight.300" and (.tests[0].samples | length) == 2
         and .spotlight.files == 300 and .spotlight.searches == 6
         and .spotlight.fetches_per_search >= 1' "$j"
  # each search: an open, a fetch at least, a close; and the server's work,
  # afpd's and cnid_dbd's (the cnid backend asks cnid_dbd for every result)
  jq -e '.tests[0].samples | all(.afp_ops >= 9
         and .us > 0 and .afpd_cpu_us > 0 and .cnid_w >= 300)' "$j"
  python3 - "$ROOT/docs/results.schema.json" "$j" <<'EOF'
import json, sys
import jsonschema
jsonschema.Draft7Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))
EOF
  # the files were removed after the searches
  [ -z "$(find "$CACHE/server/instances/$PORT45/root/mnt/afpshare" -maxdepth 1 \
    -name 'afpbench-spotlight-*' -print -quit)" ]
}

@test "coherence on 4.5.1: a session touching files the others cached sends them 22-byte cache hints, read in whole; without a writer none" {
  eval "$(cat "$BATS_FILE_TMPDIR/server.env")"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  local w
  for w in 0 1; do
    run "$AFPBENCH" load -N 3 -T 2 --warmup 0.5 --dirs 4 --files 4 --mix stat:8,enumerate \
      --writers "$w" --proc-root "$PROC_IO" --json "$BATS_TEST_TMPDIR/w$w.json"
    echo "$output"
    [ "$status" -eq 0 ]
  done
  # afpd reads its clients' requests with recv(), which /proc's rchar leaves
  # out: the bytes it read() are those of the hint pipe, 14-byte header and
  # 8-byte payload per hint, drained whole
  jq -e '.load.steps[0] | .errors.total == 0 and .server.afpd_sampled == 3
         and .ops.touch.requests > 0 and .server.afpd_rchar > 0
         and .server.afpd_rchar % 22 == 0' "$BATS_TEST_TMPDIR/w1.json"
  jq -e '.load.steps[0] | .errors.total == 0 and .ops.touch == null
         and .server.afpd_rchar == 0' "$BATS_TEST_TMPDIR/w0.json"
}

@test "a release against a release, live: 4.2.3 as base and 4.5.1 as head fail A/B, the versions in the first lines and 4.5's hint reads named as pipe reads" {
  "$LOCAL_SERVER" start --port "$PORT42" >"$BATS_TEST_TMPDIR/base.env"
  eval "$(sed 's/^/BASE_/' "$BATS_TEST_TMPDIR/base.env")"
  eval "$(cat "$BATS_FILE_TMPDIR/server.env")"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export BASE_AFP_HOST BASE_AFP_PORT BASE_AFP_USER BASE_AFP_PASS BASE_SHARE_NAME BASE_PROC_IO
  export AFPBENCH_BIN=$AFPBENCH AFPBENCH_RESULTS="$BATS_TEST_TMPDIR/ab" AFPBENCH_TESTS=1 AFPBENCH_ITERATIONS=2
  # counts decide: no pairs added for an undecided timing
  export AFPBENCH_AB_BUDGET=0
  run "$ROOT/scripts/gate"
  echo "$output" | tail -n 5
  "$LOCAL_SERVER" stop --port "$PORT42"
  [ "$status" -eq 1 ]
  local report="$AFPBENCH_RESULTS/report.md"
  sed -n '2,4p' "$report" | grep -q 'head runs netatalk 4.5.1, base 4.2.3'
  # one read of the hint pipe after every command, and it fails as such
  grep -q '^| afpd pipe reads | 0 | ' "$report"
  jq -e '.rows[] | select(.metric == "aggregate.afpd_pipe_r_per_op") | .state == "fail"' \
    "$AFPBENCH_RESULTS/verdict.json"
  jq -e '.rows[] | select(.metric == "aggregate.afpd_r_per_op") | .state == "info"' "$AFPBENCH_RESULTS/verdict.json"
}

@test "a netatalk version no Debian suite has is an error naming it and the source-tree way out" {
  run "$LOCAL_SERVER" start --port "$PORT_MISSING" --netatalk-version 4.5.99
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *"netatalk 4.5.99 is not in Debian trixie, testing or unstable"* ]]
  [[ $output == *"4.5.1~ds-1"* ]]
  [[ $output == *"--netatalk-source DIR"* ]]
  # nothing left half-built or running
  run "$LOCAL_SERVER" status --port "$PORT_MISSING"
  [ "$status" -eq 3 ]
  local left
  left=$(find "$CACHE/server/rootfs" -maxdepth 1 -type d -name 'netatalk-4.5.99-*')
  [ -z "$left" ]
}
