#!/usr/bin/env bats
# End to end against a REAL netatalk server (scripts/local-server, port 10582):
# two lantest runs through scripts/gate, the first made a baseline, the second
# compared. Needs root, debootstrap and the network once (the server's cached
# root filesystem), like the server tests.

# "run !" (a command that must fail) needs bats 1.5
bats_require_minimum_version 1.5.0

# A password that differs from every other word in the output, so a leak shows.
readonly E2E_PASS=Zq7pW3xk
readonly E2E_PORT=10582
# Short tests without set-up of 1000 files: keeps each run to ~20 s.
readonly E2E_TESTS=4,9,11,12

setup_file() {
  local root
  root=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  make -C "$root/src/afpbench" -s >&2
  local env
  env=$(AFP_PASS=$E2E_PASS "$root/scripts/local-server" start --port "$E2E_PORT")
  eval "$env"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export AFPBENCH_BIN="$root/src/afpbench/afpbench"
  export E2E_DIR="$BATS_FILE_TMPDIR"
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port "$E2E_PORT" || true
}

setup() { load fixtures/verdict-helpers; }

@test "two real lantest runs: the second never fails on IO against the first" {
  AFPBENCH_TESTS=$E2E_TESTS AFPBENCH_ITERATIONS=3 AFPBENCH_RESULTS="$E2E_DIR/first" \
    run "$SCRIPTS/gate"
  [ "$status" -eq 0 ]
  [ -s "$E2E_DIR/first/lantest.json" ]
  [ -s "$E2E_DIR/first/lantest.csv" ]
  head -1 "$E2E_DIR/first/lantest.csv" | grep -q '^Test,Time_ms'
  jq -e '.suite == "merged" and (.tests | length) == 4 and .provenance.netatalk.version != null' \
    "$E2E_DIR/first/results.json"
  jq -e '[.tests[].samples[].afpd_w] | all(. != null)' "$E2E_DIR/first/results.json"
  run "$SCRIPTS/baseline" "$E2E_DIR/baseline.json" "$E2E_DIR/first"
  [ "$status" -eq 0 ]

  AFPBENCH_TESTS=$E2E_TESTS AFPBENCH_ITERATIONS=3 AFPBENCH_RESULTS="$E2E_DIR/second" \
    AFPBENCH_BASELINE="$E2E_DIR/baseline.json" run "$SCRIPTS/gate"
  echo "$output" | tail -n 3
  # pass or inconclusive; on this shared machine timings may drift, IO may not
  [ "$status" -ne 3 ]
  local v="$E2E_DIR/second/verdict.json"
  jq -r '.rows[] | select(.state != "pass") | "\(.metric) \(.state): \(.reason)"' "$v"
  some_row_where "$v" '.kind == "io"'
  no_row_where "$v" '.kind == "io" and (.state == "fail" or .state == "error")'
  # the aggregates of time, CPU and IO: the four plain counts (shown: their
  # kinds decide) and afpd's writes on the network (its replies) among the
  # counts by descriptor kind; the server's system calls beside them, none failed
  jq -e '[.rows[] | select(.group == "aggregate" and (.kind | startswith("sys") | not)) | .metric]
         | (index("aggregate.time_per_op") != null) and (index("aggregate.cnid_w_per_op") != null)
           and (index("aggregate.afpd_net_w_per_op") != null)' "$v"
  some_row_where "$v" '.group == "aggregate" and .kind == "sys"'
  no_row_where "$v" '.kind == "sys" and (.state == "fail" or .state == "error")'
  [ "$(sed -n 1p "$E2E_DIR/second/report.md")" = '<!-- afpbench-action:report -->' ]
  [ -s "$E2E_DIR/second/charts/ratios.png" ]
  [ -s "$E2E_DIR/second/charts/io_per_op.svg" ]
}

@test "the password appears nowhere: not in logs, results, verdict, report or charts" {
  AFPBENCH_TESTS=11 AFPBENCH_ITERATIONS=1 AFPBENCH_RESULTS="$E2E_DIR/secret" run "$SCRIPTS/gate"
  [ "$status" -eq 0 ]
  [[ $output != *"$E2E_PASS"* ]]
  run ! grep -rqF "$E2E_PASS" "$E2E_DIR/secret"
  # afpbench got the password from its environment: its argv (which any process
  # can read) has no password option at all.
  jq -e '.argv | length > 0 and index("-w") == null' "$E2E_DIR/secret/lantest.json"
}

@test "afp.conf in provenance: afpbench's hash of the server's file, unless AFPBENCH_AFP_CONF names one" {
  local conf="${AFPBENCH_CACHE:-/var/cache/afpbench}/server/instances/$E2E_PORT/root/etc/netatalk/afp.conf"
  [ -f "$conf" ]
  AFPBENCH_TESTS=11 AFPBENCH_ITERATIONS=1 AFPBENCH_RESULTS="$E2E_DIR/conf" run "$SCRIPTS/gate"
  [ "$status" -eq 0 ]
  local read_hash
  read_hash=$(jq -r '.server.afp_conf_sha256 // "null"' "$E2E_DIR/conf/lantest.json")
  [ "$(jq -r '.provenance.afp_conf_sha256 // "null"' "$E2E_DIR/conf/results.json")" = "$read_hash" ]
  # an afpbench from before server.afp_conf_sha256 writes none (null); a newer
  # one hashes the file the server runs with
  if jq -e '.server | has("afp_conf_sha256")' "$E2E_DIR/conf/lantest.json" >/dev/null; then
    [ "$read_hash" = "$("$AFPBENCH_BIN" conf-hash "$conf")" ]
  fi
  # the environment wins, and a file that is not the server's is pointed out
  printf '[Global]\n; not the server s afp.conf\n' >"$E2E_DIR/other.conf"
  AFPBENCH_AFP_CONF="$E2E_DIR/other.conf" AFPBENCH_TESTS=11 AFPBENCH_ITERATIONS=1 \
    AFPBENCH_RESULTS="$E2E_DIR/conf-env" run "$SCRIPTS/gate"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.provenance.afp_conf_sha256' "$E2E_DIR/conf-env/results.json")" = \
    "$("$AFPBENCH_BIN" conf-hash "$E2E_DIR/other.conf")" ]
  if [ "$read_hash" != null ]; then
    [[ $output == *"is not the afp.conf afpbench read from the server (sha256 $read_hash)"* ]]
  fi
}

@test "a wrong password: clear error, exit 3, what was written is kept" {
  AFP_PASS=wrongpw AFPBENCH_TESTS=11 AFPBENCH_ITERATIONS=1 AFPBENCH_RESULTS="$E2E_DIR/login" \
    run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"afpbench lantest exited 10 (login failed)"* ]]
  jq -e '.status == "error" and (.errors | any(test("login failed")))' "$E2E_DIR/login/verdict.json"
  sed -n 2p "$E2E_DIR/login/report.md" | grep -q 'afpbench: \*\*error\*\*'
}

@test "nothing listening: the error says so in the kernel's words, exit 3" {
  AFP_PORT=10999 AFPBENCH_TESTS=9 AFPBENCH_ITERATIONS=1 AFPBENCH_RESULTS="$E2E_DIR/refused" \
    run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  jq -e '.errors | any(test("exited 5 \\(network or protocol error\\): .*Connection refused"))' \
    "$E2E_DIR/refused/verdict.json"
  sed -n 2p "$E2E_DIR/refused/report.md" | grep -q 'Connection refused'
}

@test "speedtest through the gate: CSV, JSON, throughput and IO rows, the size chart" {
  AFPBENCH_TESTS=none AFPBENCH_SPEEDTEST=Read,Write:1,4 AFPBENCH_ITERATIONS=5 \
    AFPBENCH_RESULTS="$E2E_DIR/speed" run "$SCRIPTS/gate"
  [ "$status" -eq 0 ]
  [ -s "$E2E_DIR/speed/speedtest.csv" ]
  local v="$E2E_DIR/speed/verdict.json"
  jq -e '[.rows[] | select(.group == "speedtest" and .kind == "throughput")] | length == 4' "$v"
  jq -e '.rows[] | select(.metric == "speedtest.Read.4194304.mbps") | .current > 0' "$v"
  # the gate hands PROC_IO to speedtest as to lantest, and the IO rows carry counts
  jq -e --arg p "$PROC_IO" '.argv | index("--proc-root") as $i | $i != null and .[$i + 1] == $p' \
    "$E2E_DIR/speed/speedtest.json"
  jq -e '.io_monitoring.enabled == true' "$E2E_DIR/speed/speedtest.json"
  # every speedtest test has IO rows (by descriptor kind: those with calls), all measured
  jq -e '[.rows[] | select(.group == "speedtest" and .kind == "io")] | (group_by(.test) | length) == 4 and all(.current != null)' "$v"
  # measured on netatalk 4.2.3: afpd answers each 1 MiB read with one
  # sendfile, a read of the file and a write to the client, so 4 MiB read
  # gives at least 4 of each
  jq -e '.rows[] | select(.metric == "speedtest.Read.4194304.afpd_net_w") | .current >= 4' "$v"
  jq -e '.rows[] | select(.metric == "speedtest.Read.4194304.afpd_file_r") | .current >= 4' "$v"
  [ -s "$E2E_DIR/speed/charts/speedtest.png" ]
}
