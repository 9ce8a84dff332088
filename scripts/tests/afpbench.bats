#!/usr/bin/env bats
# End-to-end tests of `afpbench lantest` and `afpbench speedtest` against a
# real netatalk server (scripts/local-server, port 10574, its CNID daemon on
# 14574; nothing may listen on 10578, the "unreachable" port). Needs root, a
# built src/afpbench/afpbench (built here if missing), python3-jsonschema for
# the schema check.

PORT=10574
NO_SERVER_PORT=10578
ROOT_DIR=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
AFPBENCH="$ROOT_DIR/src/afpbench/afpbench"
SCHEMA="$ROOT_DIR/docs/results.schema.json"

setup_file() {
  if [[ ! -x $ROOT_DIR/scripts/local-server ]]; then
    skip "scripts/local-server is absent: no real server to test against"
  fi
  make -C "$ROOT_DIR/src/afpbench" -s WERROR=1 afpbench >&2
  local env_out
  # Log level info: afpd then writes the dircache statistics lantest reports.
  env_out=$(AFP_LOGLEVEL=default:info "$ROOT_DIR/scripts/local-server" start --port "$PORT")
  eval "$env_out"
  export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
  export SHARE_DIR="${AFPBENCH_CACHE:-/var/cache/afpbench}/server/instances/$PORT/root/mnt/afpshare"
  export SERVER_LOG="${AFPBENCH_CACHE:-/var/cache/afpbench}/server/instances/$PORT/root/var/log/afpd.log"
  export SERVER_CONF="${AFPBENCH_CACHE:-/var/cache/afpbench}/server/instances/$PORT/root/etc/netatalk/afp.conf"
  export RUN_DIR="$BATS_FILE_TMPDIR"

  # One full lantest run (all 12 tests, one iteration), shared by the tests
  # below: CSV on stdout, JSON, progress on stderr. No --server-log: the log
  # is found through the afpd's proc root.
  "$AFPBENCH" lantest -n 1 -c --json "$RUN_DIR/lantest.json" \
    >"$RUN_DIR/lantest.csv" 2>"$RUN_DIR/lantest.err"
  echo $? >"$RUN_DIR/lantest.rc"
}

teardown_file() {
  if [[ -x $ROOT_DIR/scripts/local-server ]]; then
    "$ROOT_DIR/scripts/local-server" stop --port "$PORT"
  fi
}

# validate FILE: against docs/results.schema.json
validate() {
  python3 - "$SCHEMA" "$1" <<'EOF'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.Draft7Validator(schema).validate(json.load(open(sys.argv[2])))
EOF
}

@test "lantest -n 1 runs all 12 tests with IO monitoring, non-zero times and IO columns" {
  cat "$RUN_DIR/lantest.err"
  [ "$(cat "$RUN_DIR/lantest.rc")" -eq 0 ]
  run jq -r '[.status, (.tests | length), .io_monitoring.enabled, .io_monitoring.rule,
              .io_monitoring.cnid_dbd_rule] | @tsv' "$RUN_DIR/lantest.json"
  [ "$output" = "$(printf 'ok\t12\ttrue\tsocket\tsocket')" ]
  # every test: ok, one sample, time > 0, afpd counts present, AFP ops counted
  run jq -r '.tests[] | select(.status != "ok" or (.samples | length) != 1
               or .samples[0].us <= 0 or .samples[0].afpd_r == null
               or .samples[0].afpd_w == null or .samples[0].cnid_w == null
               or .samples[0].afp_ops <= 0) | .key' "$RUN_DIR/lantest.json"
  [ -z "$output" ]
  # the op counts really run: 8000 for test 1, 20000 for the lock test
  [ "$(jq '.tests[0].afp_ops' "$RUN_DIR/lantest.json")" -eq 8000 ]
  [ "$(jq '.tests[3].afp_ops' "$RUN_DIR/lantest.json")" -eq 20000 ]
  # afpd sends one reply per AFP op: its write syscalls cover the ops
  [ "$(jq '.tests[3].samples[0].afpd_w' "$RUN_DIR/lantest.json")" -ge 20000 ]
  [ "$(jq '.client_cpu.us_per_op > 0' "$RUN_DIR/lantest.json")" = true ]
}

@test "lantest counts reads and writes by descriptor kind: they add up to afpd's and cnid_dbd's, replies on the network" {
  local j="$RUN_DIR/lantest.json"
  [ "$(jq '.io_monitoring.syscalls.by_descriptor.counted' "$j")" = true ]
  # every sample: afpd's kinds add up to the kernel's own syscr and syscw,
  # to the call: the kinds are counted at a call's entry and syscr/syscw at
  # its end, so a sample boundary inside one call (the reply is on the wire
  # before afpd's writev returns; on a busy machine afpd may not run again
  # before the client reads its counters) puts it on either side.
  run jq -r '.tests[] | .key as $k | .samples[] | ("r", "w") as $d
               | ([("file", "net", "unix", "pipe", "other") as $kind | .["afpd_\($kind)_\($d)"]] | add) as $sum
               | .["afpd_\($d)"] as $plain
               | select(($sum - $plain | fabs) > 1)
               | "\($k) afpd_\($d): \($plain), by kind \($sum)"' "$j"
  echo "$output"
  [ -z "$output" ]
  # cnid_dbd writes its database between requests, after the reply that
  # ends a sample, so a sample's calls land in the next one's window as
  # often as not (73 of 2,347 writes once in test 8, 70 of 6,103 in test 7):
  # over the whole run they add up, within 2 % and a floor of 5
  run jq -r '[.tests[].samples[]] as $all | ("r", "w") as $d
               | ([$all[] | ("file", "net", "unix", "pipe", "other") as $kind | .["cnid_\($kind)_\($d)"]] | add) as $sum
               | ([$all[] | .["cnid_\($d)"]] | add) as $plain
               | select(($sum - $plain | fabs) > 0.02 * $plain + 5)
               | "cnid_\($d) over the run: \($plain), by kind \($sum)"' "$j"
  echo "$output"
  [ -z "$output" ]
  # the lock test: afpd answers each of its 20,000 requests on the client's
  # connection, and touches no file through read or write
  run jq -c '.tests[3].samples[0] | [.afpd_net_w, .afpd_file_r, .afpd_file_w]' "$j"
  [ "$output" = "[20000,0,0]" ]
  # test 1 reads each of its 1000 files once (sendfile from the file)
  [ "$(jq '.tests[0].samples[0].afpd_file_r' "$j")" -eq 1000 ]
}

@test "lantest removes its test directory" {
  [ -d "$SHARE_DIR" ]
  run find "$SHARE_DIR" -maxdepth 1 -name 'LanTest-*'
  [ -z "$output" ]
}

@test "lantest -c prints only CSV, with afp_lantest's exact header" {
  local header='Test,Time_ms,Time±,AFPD_R,AFPD_R±,AFPD_W,AFPD_W±,CNID_R,CNID_R±,CNID_W,CNID_W±,MB/s'
  [ "$(head -n 1 "$RUN_DIR/lantest.csv")" = "$header" ]
  # 1 header + 12 tests + Sum row, every row 12 fields under CSV quoting
  run python3 - "$RUN_DIR/lantest.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
assert len(rows) == 14, len(rows)
assert all(len(r) == 12 for r in rows), [len(r) for r in rows]
assert rows[1][0] == "Open, stat and read 512 bytes from 1000 files [8,000 AFP ops]", rows[1][0]
assert rows[13][0] == "Sum of all AFP OPs = 80686", rows[13][0]
assert all(int(r[1]) >= 0 and r[3] != "" for r in rows[1:13])
print("ok")
EOF
  [ "$status" -eq 0 ]
  [ "$output" = ok ]
  # progress went to stderr
  grep -q '^Run 1 => ' "$RUN_DIR/lantest.err"
  run grep -c '^Run 1 => ' "$RUN_DIR/lantest.csv"
  [ "$output" = 0 ]
}

@test "lantest JSON validates against docs/results.schema.json, and a broken one does not" {
  run validate "$RUN_DIR/lantest.json"
  [ "$status" -eq 0 ]
  jq '.tests[0].samples[0].us = "fast"' "$RUN_DIR/lantest.json" >"$RUN_DIR/broken.json"
  run validate "$RUN_DIR/broken.json"
  [ "$status" -ne 0 ]
}

@test "lantest reports our afpd's dircache statistics, the log found through its proc root" {
  local afpd
  afpd=$(jq -r '.io_monitoring.afpd_pid' "$RUN_DIR/lantest.json")
  [[ $afpd =~ ^[0-9]+$ ]]
  run jq -r '.dircache_stats' "$RUN_DIR/lantest.json"
  [[ $output == *"afpd[$afpd]"*"dircache statistics: entries: "* ]]
  # the same line is in the server's log (the chroot's /var/log/afpd.log)
  grep -qxF "$output" "$SERVER_LOG"
  grep -q "^Server config: /etc/netatalk/afp.conf (through /proc_io/$afpd/root)" "$RUN_DIR/lantest.err"
}

@test "results carry the fingerprint of the server's afp.conf, read through the afpd's proc root" {
  [ -r "$SERVER_CONF" ]
  local want
  want=$("$AFPBENCH" conf-hash "$SERVER_CONF")
  [[ $want =~ ^[0-9a-f]{64}$ ]]
  # the same settings on another port, with another name: the same fingerprint;
  # another setting: another one
  sed -e 's/^afp port = .*/afp port = 1/' -e 's/^server name = .*/server name = other/' \
    "$SERVER_CONF" >"$RUN_DIR/moved.conf"
  [ "$("$AFPBENCH" conf-hash "$RUN_DIR/moved.conf")" = "$want" ]
  [ "$(cmp -s "$SERVER_CONF" "$RUN_DIR/moved.conf" && echo same)" != same ]
  printf 'ea = ad\n' >>"$RUN_DIR/moved.conf"
  [ "$("$AFPBENCH" conf-hash "$RUN_DIR/moved.conf")" != "$want" ]
  [ "$(jq -r '.server.afp_conf_sha256' "$RUN_DIR/lantest.json")" = "$want" ]
  # this server was started without settings under test
  [ "$(jq -r '.server.afp_conf_settings' "$RUN_DIR/lantest.json")" = null ]
  run "$AFPBENCH" speedtest -f Write -d 1 -n 1 --json "$RUN_DIR/conf-speed.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.server.afp_conf_sha256' "$RUN_DIR/conf-speed.json")" = "$want" ]
}

@test "without a usable proc root: afp.conf hash null; --server-log still gives dircache stats" {
  local empty="$RUN_DIR/empty-proc-conf"
  mkdir -p "$empty"
  run "$AFPBENCH" lantest -n 1 -f 4 --proc-root "$empty" --json "$RUN_DIR/noconf.json"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"Server config: unknown: our afpd was not found under $empty"* ]]
  [[ $output == *"no dircache statistics: server log unknown"* ]]
  [ "$(jq -c '[.server.afp_conf_sha256, .dircache_stats]' "$RUN_DIR/noconf.json")" = "[null,null]" ]
  validate "$RUN_DIR/noconf.json"
  # the override: a path on this machine
  run "$AFPBENCH" lantest -n 1 -f 4 --proc-root "$empty" --server-log "$SERVER_LOG" \
    --json "$RUN_DIR/serverlog.json"
  [ "$status" -eq 0 ]
  [[ $(jq -r '.dircache_stats' "$RUN_DIR/serverlog.json") == *"dircache statistics: entries: "* ]]
}

@test "lantest table has the Aggregates Summary and divides by the ops run" {
  run "$AFPBENCH" lantest -n 1 -f 4
  [ "$status" -eq 0 ]
  [[ $output == *"Aggregates Summary:"* ]]
  [[ $output == *"Average AFPD Writes per AFP OP: 1.0"* ]]
  [[ $output == *"divided by the 20000 AFP ops actually run"* ]]
}

@test "lantest --by-command: each test's work calls charged to its AFP commands add up to the timed sample's" {
  "$AFPBENCH" lantest -n 1 -f 1,9,12 --by-command --json "$RUN_DIR/by-command.json" \
    >/dev/null 2>"$RUN_DIR/by-command.err" || {
    cat "$RUN_DIR/by-command.err"
    return 1
  }
  grep -q 'By command => Cache validation efficiency' "$RUN_DIR/by-command.err"
  validate "$RUN_DIR/by-command.json"
  # the commands each test sends, with their counts
  run jq -r '.tests[] | "\(.key): " + ([.commands.list[] | "\(.command)x\(.calls)"] | join(" "))' "$RUN_DIR/by-command.json"
  [ "${lines[0]}" = "lantest.1: FPGetFileDirParmsx3000 FPOpenForkx1000 FPGetForkParmsx2000 FPReadx1000 FPCloseForkx1000" ]
  [ "${lines[1]}" = "lantest.9: FPGetFileDirParmsx11000" ]
  [ "${lines[2]}" = "lantest.12: FPGetFileDirParmsx30000" ]
  # the work calls of tests 9 and 12 equal the timed
  # iteration's, call by call, to within one: the timed region reads the
  # counters as soon as the last reply is in, sometimes before afpd's last
  # call after it (an rt_sigprocmask), which the settled pass does wait for.
  # Left out: the wait family, and afpd's timer (a SIGALRM every few
  # seconds: setitimer, rt_sigreturn), which follow time
  # (a point that did not settle within a second on a loaded machine moves
  # calls between commands, never out of the sum checked below)
  jq -e '[.tests[].commands | .settled > 0 and .overflow == 0] | all' "$RUN_DIR/by-command.json"
  run jq -r -L "$ROOT_DIR/scripts/jq" 'include "syscalls"; sys_family_map as $fm
    | def work: sys_calls_of($fm; "total") | del(.setitimer, .rt_sigreturn);
      def merged: reduce .[] as $m ({}; reduce ($m | to_entries[]) as $e (.; .[$e.key] += $e.value));
      .tests[] | select(.key != "lantest.1")
      | "\(.key) \(.samples[0].afpd_sys | work | tojson) \([.commands.list[].afpd_sys | work] | merged | tojson)"' \
    "$RUN_DIR/by-command.json"
  local line
  for line in "${lines[@]}"; do
    read -r key timed by_cmd <<<"$line"
    jq -e -n --argjson t "$timed" --argjson c "$by_cmd" \
      '[($t + $c | keys[]) as $k | ($t[$k] // 0) - ($c[$k] // 0) | fabs <= 1] | all' >/dev/null || {
      echo "$key: timed $timed, by command $by_cmd"
      return 1
    }
  done
}

@test "lantest --by-command where calls are not counted: the run goes on and says why" {
  AFPBENCH_SYSCALLS=off "$AFPBENCH" lantest -n 1 -f 9 --by-command --json "$RUN_DIR/no-by-command.json" \
    >/dev/null 2>"$RUN_DIR/no-by-command.err"
  grep -q "no per-command pass: the server's system calls are not counted" "$RUN_DIR/no-by-command.err"
  jq -e '(.by_command.note | test("not counted")) and .tests[0].commands == null and .tests[0].status == "ok"' \
    "$RUN_DIR/no-by-command.json"
}

@test "lantest -f reaches tests 10-12" {
  run "$AFPBENCH" lantest -n 1 -f 10,12 --json "$RUN_DIR/f.json"
  [ "$status" -eq 0 ]
  [ "$(jq -c '[.tests[].id]' "$RUN_DIR/f.json")" = "[10,12]" ]
}

@test "speedtest runs Read, Write, Copy and ServerCopy over a small sweep and reads back" {
  run "$AFPBENCH" speedtest -f Read,Write,Copy,ServerCopy -z 0.00390625,1 -n 2 -r 4 \
    --json "$RUN_DIR/speed.json"
  echo "$output"
  [ "$status" -eq 0 ]
  run jq -r '[.status, (.tests | length), .config.window] | @tsv' "$RUN_DIR/speed.json"
  [ "$output" = "$(printf 'ok\t8\t4')" ]
  run jq -r '.tests[] | select((.samples | length) != 2 or .samples[0].bytes != .size_bytes
               or .samples[0].us <= 0) | .key' "$RUN_DIR/speed.json"
  [ -z "$output" ]
  validate "$RUN_DIR/speed.json"
  run find "$SHARE_DIR" -maxdepth 1 -name '*Test-*'
  [ -z "$output" ]
}

@test "speedtest -2 / -1 (AFP 2.x) transfer with FPRead/FPWrite, read back, leave no directory" {
  # netatalk refuses FPReadExt/FPWriteExt after an AFP 2.x login
  # (kFPCallNotSupported, exit 4), so this passes only with the 32-bit calls.
  # Every read is checked against the offset pattern the FPWrites stored (Read
  # reads back what the fill wrote; Write and Copy read their file back after
  # the runs): a wrong byte, a short read or a misreported write end is exit 7.
  run "$AFPBENCH" speedtest -2 -f Read,Write,Copy -z 1 --json "$RUN_DIR/speed2.json"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output != *"could not remove"* ]]
  run jq -r '[.status, .server.afp_version, ([.tests[] | select(.status == "ok"
               and (.samples | length) == 1 and .samples[0].bytes == 1048576
               and .samples[0].us > 0)] | length)] | @tsv' "$RUN_DIR/speed2.json"
  [ "$output" = "$(printf 'ok\tAFP2.2\t3')" ]
  validate "$RUN_DIR/speed2.json"
  # AFP 2.1, pipelined: 4 requests of 256 KiB in flight
  run "$AFPBENCH" speedtest -1 -f Read,Write,Copy -z 1 -r 4 -q 256 --json "$RUN_DIR/speed21.json"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(jq -r '"\(.status) \(.server.afp_version) \(.config.window)"' "$RUN_DIR/speed21.json")" \
    = "ok AFPVersion 2.1 4" ]
  run find "$SHARE_DIR" -maxdepth 1 -name '*Test-*'
  [ -z "$output" ]
}

@test "speedtest -2 refuses a file of 4 GiB (32-bit offsets): exit 8, the directory removed" {
  # Refused before any data moves; the source file's fork was already open,
  # and the test directory must still go.
  run "$AFPBENCH" speedtest -2 -f Read -d 4096 --json "$RUN_DIR/speed2big.json"
  echo "$output"
  [ "$status" -eq 8 ]
  [[ $output == *"with AFP2.2 (FPRead/FPWrite: 32-bit offsets) files are limited to 4 GiB"* ]]
  [[ $output != *"could not remove"* ]]
  [ "$(jq -r '"\(.status) \(.error.exit_code)"' "$RUN_DIR/speed2big.json")" = "error 8" ]
  run find "$SHARE_DIR" -maxdepth 1 -name '*Test-*'
  [ -z "$output" ]
  # lantest speaks AFP 3 only
  run "$AFPBENCH" lantest -2 -n 1
  [ "$status" -eq 1 ]
}

@test "speedtest monitors the server's IO: afpd and cnid_dbd counts in every sample" {
  # -r 1: one request at a time. PROC_IO=/proc_io comes from local-server.
  run "$AFPBENCH" speedtest -f Read,Write,Copy,ServerCopy -z 0.00390625,1 -n 2 -r 1 \
    --json "$RUN_DIR/speedio.json"
  echo "$output"
  [ "$status" -eq 0 ]
  local afpd
  afpd=$(sed -n 's/^IO monitoring enabled (afpd: \([0-9]*\) found by the socket rule.*/\1/p' <<<"$output")
  [ -n "$afpd" ]
  run jq -r '.io_monitoring | [.enabled, .rule, .proc_root, .afpd_pid, .cnid_dbd_rule] | @tsv' \
    "$RUN_DIR/speedio.json"
  [ "$output" = "$(printf 'true\tsocket\t/proc_io\t%s\tsocket' "$afpd")" ]
  # every sample of every (op, size) carries all four counts
  run jq -r '.tests[] | select(.samples | length != 2 or any(.[];
               .afpd_r == null or .afpd_w == null or .cnid_r == null or .cnid_w == null))
             | .key' "$RUN_DIR/speedio.json"
  [ -z "$output" ]
  # counts of the right process: reading a 1 MiB file costs afpd a read syscall
  # (read or sendfile), writing it a write; FPCopyFile makes a new file, whose
  # CNID the volume's cnid_dbd answers for. An idle decoy process shows 0.
  count() { jq "[.tests[] | select(.key == \"$1\") | .samples[].$2] | min" "$RUN_DIR/speedio.json"; }
  [ "$(count speedtest.Read.1048576 afpd_r)" -ge 1 ]
  [ "$(count speedtest.Write.1048576 afpd_w)" -ge 1 ]
  [ "$(count speedtest.Copy.1048576 afpd_w)" -ge 1 ]
  [ "$(count speedtest.ServerCopy.1048576 cnid_w)" -ge 1 ]
  validate "$RUN_DIR/speedio.json"
}

@test "speedtest without a usable proc root: tests still run, IO counts null with the reason" {
  local empty="$RUN_DIR/empty-proc"
  mkdir -p "$empty"
  run "$AFPBENCH" speedtest -f Read,ServerCopy -d 1 -n 2 --proc-root "$empty" \
    --json "$RUN_DIR/noproc.json"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"IO monitoring off: no afpd process visible under $empty"* ]]
  run jq -r '[.status, (.tests | length), .io_monitoring.enabled, .io_monitoring.proc_root,
              .io_monitoring.afpd_pid] | @tsv' "$RUN_DIR/noproc.json"
  [ "$output" = "$(printf 'ok\t2\tfalse\t%s\t' "$empty")" ]
  [[ $(jq -r '.io_monitoring.reason' "$RUN_DIR/noproc.json") == *"no afpd process visible"* ]]
  # measured all the same, with every IO count null (unknown, not 0)
  run jq -r '.tests[] | select(.samples | length != 2 or any(.[]; .us <= 0
               or .afpd_r != null or .afpd_w != null or .cnid_r != null or .cnid_w != null))
             | .key' "$RUN_DIR/noproc.json"
  [ -z "$output" ]
  validate "$RUN_DIR/noproc.json"
  # $PROC_IO is the default proc root, as for lantest
  run env PROC_IO="$empty" "$AFPBENCH" speedtest -f Write -d 1 -n 1 --json "$RUN_DIR/noproc-env.json"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.io_monitoring | "\(.enabled) \(.proc_root)"' "$RUN_DIR/noproc-env.json")" = "false $empty" ]
}

@test "speedtest -c prints the three upstream CSV tables" {
  # stdout only: progress goes to stderr
  run bash -c '"$1" speedtest -c -f Read -z 0.00390625,0.0078125 -n 2 2>/dev/null' _ "$AFPBENCH"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "test_name,iteration,file_size_mb,microseconds,throughput_mbs" ]
  [[ $output == *"# File Size Performance Summary for Read"* ]]
  [[ $output == *"file_size_bytes,file_size_mb,mean_throughput_mbs,median_throughput_mbs,min_throughput_mbs,max_throughput_mbs,stddev_ms,mean_time_ms"* ]]
  [[ $output == *"# TCP Metrics Evolution Summary"* ]]
  [[ $output == *"Read_median,,0.004,"* ]]
}

@test "speedtest local mode runs without a server" {
  mkdir -p "$RUN_DIR/local"
  run "$AFPBENCH" speedtest -L -P "$RUN_DIR/local" -f Read,Write,Copy -d 1 -n 2 \
    --json "$RUN_DIR/local.json"
  [ "$status" -eq 0 ]
  [ "$(jq '.config.local_mode' "$RUN_DIR/local.json")" = true ]
  [ "$(jq '.tests | length' "$RUN_DIR/local.json")" -eq 3 ]
  [ -z "$(ls -A "$RUN_DIR/local")" ]
}

@test "wrong password: exit 10, a clear error, the JSON written, the password nowhere" {
  run "$AFPBENCH" lantest -n 1 -w wr0ngPw --json "$RUN_DIR/badpw.json"
  [ "$status" -eq 10 ]
  [[ $output == *"login as 'afpbench'"* ]]
  [[ $output != *wr0ngPw* ]]
  [ "$(jq -r '.status + " " + (.error.exit_code | tostring)' "$RUN_DIR/badpw.json")" = "error 10" ]
  run grep -c wr0ngPw "$RUN_DIR/badpw.json"
  [ "$output" = 0 ]
}

@test "A/B with the password on the command line and the base's in BASE_AFP_PASS: masked on both sides" {
  # the base logs in with $BASE_AFP_PASS (the same server: an A/A run), and
  # both sides' results keep the command line, the head's -w masked in each
  local suite
  for suite in "lantest -f 11 -n 1" "speedtest -d 0.0625 -n 1 -W 0" "load -N 1 -T 0.2 --warmup 0"; do
    # shellcheck disable=SC2086 # the suite's words
    run env BASE_AFP_PASS="$AFP_PASS" "$AFPBENCH" $suite -w "$AFP_PASS" \
      --base-host "$AFP_HOST" --base-port "$AFP_PORT" --json "$RUN_DIR/masked.json"
    [ "$status" -eq 0 ] || {
      echo "$suite: exit $status: $output"
      return 1
    }
    # the word after -w is masked on both sides, and no word after the
    # program's name is the password (a grep could not tell: the test
    # server's password is "afpbench")
    [ "$(jq -c --arg pw "$AFP_PASS" '([.argv, .base.argv] | map(.[index("-w") + 1])) + [[.argv[1:][], .base.argv[1:][]] | index($pw)]' \
      "$RUN_DIR/masked.json")" = '["***","***",null]' ] || {
      echo "$suite: the password is not masked: $(jq -c '[.argv, .base.argv]' "$RUN_DIR/masked.json")"
      return 1
    }
  done
}

@test "missing volume: exit 9" {
  run "$AFPBENCH" lantest -n 1 -s "No Such Volume" --json "$RUN_DIR/novol.json"
  [ "$status" -eq 9 ]
  [[ $output == *"cannot open volume 'No Such Volume'"* ]]
  [ "$(jq '.error.exit_code' "$RUN_DIR/novol.json")" -eq 9 ]
}

@test "bigdir: a directory of 400 entries and one of 700, each listed whole and every entry statted; the JSON validates; removed after" {
  run "$AFPBENCH" bigdir -n 2 --entries 400,700 --json "$RUN_DIR/bigdir.json"
  echo "$output"
  [ "$status" -eq 0 ]
  local j="$RUN_DIR/bigdir.json"
  jq -e '.suite == "bigdir" and .status == "ok"
         and ([.tests[].key] == ["bigdir.400.enumerate", "bigdir.400.stat", "bigdir.700.enumerate", "bigdir.700.stat"])
         and all(.tests[]; (.samples | length) == 2 and all(.samples[]; .us > 0 and .afpd_w > 0))' "$j"
  # a stat is one request an entry; a listing a few (1,024 entries a request at most)
  jq -e '[.tests[] | select(.key | endswith(".stat")) | .samples[].afp_ops] == [400, 400, 700, 700]' "$j"
  jq -e 'all(.tests[] | select(.key | endswith(".enumerate")) | .samples[]; .afp_ops >= 2 and .afp_ops <= 3)' "$j"
  validate "$j"
  [ -z "$(find "$SHARE_DIR" -maxdepth 1 -name 'afpbench-bigdir-*' -print -quit)" ]
}

@test "spotlight where Spotlight is off (netatalk 4.2): exit 8, the setting named, the JSON kept" {
  run "$AFPBENCH" spotlight -n 1 --files 3 --json "$RUN_DIR/spotlight-off.json"
  echo "$output"
  [ "$status" -eq 8 ]
  [[ $output == *"Spotlight is off on 127.0.0.1 port $PORT"*"kFPCallNotSupported"*"'spotlight = yes'"* ]]
  jq -e '.suite == "spotlight" and .status == "error" and .error.exit_code == 8 and .tests == []' \
    "$RUN_DIR/spotlight-off.json"
  validate "$RUN_DIR/spotlight-off.json"
  # nothing was made on the volume
  [ -z "$(find "$SHARE_DIR" -maxdepth 1 -name 'afpbench-spotlight-*' -print -quit)" ]
}

@test "unreachable host: exit 5" {
  run "$AFPBENCH" lantest -n 1 -p "$NO_SERVER_PORT" --json "$RUN_DIR/unreach.json"
  [ "$status" -eq 5 ]
  [[ $output == *"127.0.0.1 port $NO_SERVER_PORT"* ]]
  [ "$(jq '.error.exit_code' "$RUN_DIR/unreach.json")" -eq 5 ]
}

@test "bad arguments: exit 1 with the reason" {
  run "$AFPBENCH" lantest -f 13,
  [ "$status" -eq 1 ]
  [[ $output == *"no test '13'"* ]]
  run "$AFPBENCH" speedtest -z 0
  [ "$status" -eq 1 ]
  [[ $output == *"bad size '0'"* ]]
}

@test "server closes the connection mid-run: error, non-zero exit, partial results kept" {
  local err="$RUN_DIR/kill.err" out="$RUN_DIR/kill.out"
  "$AFPBENCH" lantest -n 3 -f 1,4,12, --json "$RUN_DIR/kill.json" >"$out" 2>"$err" &
  local bench=$!
  # wait for the first result, then kill the session's afpd
  local i afpd=""
  for ((i = 0; i < 300; i++)); do
    grep -q '^Run 1 => ' "$err" && break
    sleep 0.1
  done
  afpd=$(sed -n 's/^IO monitoring enabled (afpd: \([0-9]*\) .*/\1/p' "$err")
  [ -n "$afpd" ]
  kill -9 "$afpd"
  local rc=0
  wait "$bench" || rc=$?
  cat "$err"
  [ "$rc" -eq 5 ]
  grep -q 'afpbench lantest: error: test ' "$err"
  run jq -r '[.status, .error.exit_code, (.tests[0].samples | length >= 1)] | @tsv' "$RUN_DIR/kill.json"
  [ "$output" = "$(printf 'error\t5\ttrue')" ]
  [ "$(jq '[.tests[] | select(.status == "error")] | length' "$RUN_DIR/kill.json")" -eq 1 ]
  validate "$RUN_DIR/kill.json"
  # the table of what was measured is still printed
  grep -q 'Open, stat and read 512 bytes' "$out"
}
