#!/usr/bin/env bats
# The real netatalk server (scripts/local-server, scripts/server-entrypoint.sh,
# scripts/install-netatalk.sh) driven over AFP by afpbench. Nothing is mocked:
# Debian trixie's netatalk runs under chroot on 127.0.0.1.
#
# Needs root, debootstrap, gcc and the Debian mirror the first time (the root
# filesystem is then cached in $AFPBENCH_CACHE). Ports 10550-10559 (and their
# CNID ports 14550-14559) must be free.
#
#   bats scripts/tests/server.bats

# "run !" (a command that must fail) needs bats 1.5
bats_require_minimum_version 1.5.0

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT
  export LOCAL_SERVER="$ROOT/scripts/local-server"
  export ENTRYPOINT="$ROOT/scripts/server-entrypoint.sh"
  export AFPBENCH="$ROOT/src/afpbench/afpbench"
  export CACHE=${AFPBENCH_CACHE:-/var/cache/afpbench}
  export SHARED_PORT=10550
  # these tests are of the default instance, on disk (CI runs its other
  # servers on a tmpfs: scripts/test-all); --tmpfs has its own test
  unset LOCAL_SERVER_TMPFS
  make -C "$ROOT/src/afpbench" -s >&2
  "$LOCAL_SERVER" stop --port 10550 --port 10551 --port 10552 --port 10553 \
    --port 10554 --port 10555 --port 10556 --port 10558 --port 10559 >/dev/null 2>&1 || true
  # /proc_io's state before any server of ours, to check stop restores it.
  if mountpoint -q /proc_io; then echo 1; else echo 0; fi >"$BATS_FILE_TMPDIR/proc_io_before"
  # One server for the tests that only talk to it, with a non-default password
  # (8 bytes, with a colon) so a leak in a log is detectable.
  AFP_PASS='Pa55:wd!' "$LOCAL_SERVER" start --port "$SHARED_PORT" >"$BATS_FILE_TMPDIR/shared.env"
}

teardown_file() {
  "$LOCAL_SERVER" stop --port 10550 --port 10551 --port 10552 --port 10553 \
    --port 10554 --port 10555 --port 10556 --port 10558 --port 10559 >/dev/null 2>&1 || true
}

# --- helpers (independent of local-server's own process and mount logic)

instance_root() { printf '%s/server/instances/%s/root\n' "$CACHE" "$1"; }

# server_processes PORT: "pid comm" of every live process chrooted in the instance.
server_processes() {
  local root dir
  root=$(instance_root "$1")
  for dir in /proc/[0-9]*; do
    if [[ $(readlink "$dir/root" 2>/dev/null) == "$root" ]]; then
      printf '%s %s\n' "${dir#/proc/}" "$(cat "$dir/comm" 2>/dev/null)"
    fi
  done
}

mounts_under_instance() {
  awk -v dir="$CACHE/server/instances/$1" 'index($5, dir) == 1 { print $5 }' /proc/self/mountinfo
}

port_listens() {
  local hex
  printf -v hex '%04X' "$1"
  awk -v p="$hex" '$4 == "0A" && $2 ~ (":" p "$") { f = 1 } END { exit !f }' /proc/net/tcp /proc/net/tcp6
}

# read_reply FD: read one DSI reply, print its 16-byte header in hex.
read_reply() {
  local header
  header=$(timeout 5 head -c 16 <&"$1" | od -An -v -tx1 | tr -d ' \n')
  [[ $header =~ ^[0-9a-f]{32}$ ]] || return 1
  local length=$((16#${header:16:8}))
  ((length <= 65536)) || return 1
  ((length == 0)) || timeout 5 head -c "$length" <&"$1" >/dev/null
  printf '%s\n' "$header"
}

# drop_session PORT: log in as afpbench/afpbench with the cleartext UAM and
# close the connection without FPLogout, as a crashed client would. netatalk
# keeps such a session (its afpd child) alive for hours.
drop_session() {
  local fd reply
  exec {fd}<>"/dev/tcp/127.0.0.1/$1"
  # DSIOpenSession (request id 1) with one option: attention quantum 0.
  printf '\x00\x04\x00\x01\x00\x00\x00\x00\x00\x00\x00\x06\x00\x00\x00\x00' >&"$fd"
  printf '\x01\x04\x00\x00\x00\x00' >&"$fd"
  read_reply "$fd" >/dev/null
  # FPLogin (request id 2, 42 bytes): AFP3.4, "Cleartxt Passwrd", user, password.
  printf '\x00\x02\x00\x02\x00\x00\x00\x00\x00\x00\x00\x2a\x00\x00\x00\x00' >&"$fd"
  printf '\x12\x06AFP3.4\x10Cleartxt Passwrd\x08afpbenchafpbench' >&"$fd"
  reply=$(read_reply "$fd")
  exec {fd}>&-
  echo "login reply header: $reply"
  # A reply to DSICommand, request id 2, error code 0: logged in.
  [[ $reply == 010200020000000000000000* ]]
}

smoke() { # smoke PORT PASS VOLUME
  timeout 60 "$AFPBENCH" smoke -h 127.0.0.1 -p "$1" -u afpbench -w "$2" -s "$3"
}

# --- one shared server

@test "start prints the connection settings for eval" {
  run cat "$BATS_FILE_TMPDIR/shared.env"
  [[ $output == *"AFP_HOST=127.0.0.1"* ]]
  eval "$(cat "$BATS_FILE_TMPDIR/shared.env")"
  [ "$AFP_HOST" = 127.0.0.1 ]
  [ "$AFP_PORT" = "$SHARED_PORT" ]
  [ "$AFP_USER" = afpbench ]
  [ "$AFP_PASS" = 'Pa55:wd!' ]
  [ "$SHARE_NAME" = "File Sharing" ]
  [ "$PROC_IO" = /proc_io ]
  mountpoint -q /proc_io
  # The second procfs shows the server's processes and their IO counters.
  local pid
  pid=$(server_processes "$SHARED_PORT" | awk '$2 == "afpd" { print $1; exit }')
  [ -n "$pid" ]
  grep -q '^syscr:' "/proc_io/$pid/io"
}

@test "a fresh server passes the smoke test: cleartext login, volume, create/write/read/delete" {
  eval "$(cat "$BATS_FILE_TMPDIR/shared.env")"
  run smoke "$AFP_PORT" "$AFP_PASS" "$SHARE_NAME"
  echo "$output"
  [ "$status" -eq 0 ]
  # The share's CNID daemon ran for the volume the smoke test opened.
  server_processes "$SHARED_PORT" | grep -q ' cnid_dbd$'
}

@test "afpbench status and the image's health probe both get DSIGetStatus answers" {
  run timeout 30 "$AFPBENCH" status "127.0.0.1:$SHARED_PORT"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"Cleartxt Passwrd"* ]]
  [[ $output == *"Netatalk4"* ]]
  [[ $output == *"afpbench-server"* ]]
  AFP_PORT=$SHARED_PORT run "$ENTRYPOINT" --healthcheck
  [ "$status" -eq 0 ]
  AFP_PORT=10557 run "$ENTRYPOINT" --healthcheck # nothing listens there
  [ "$status" -ne 0 ]
}

@test "a wrong password is a login error: afpbench exits 10" {
  run smoke "$SHARED_PORT" wrongpw "File Sharing"
  echo "$output"
  [ "$status" -eq 10 ]
  [[ ${output,,} == *login* ]]
}

@test "a missing volume is a volume error: afpbench exits 9" {
  run smoke "$SHARED_PORT" 'Pa55:wd!' "No Such Volume"
  echo "$output"
  [ "$status" -eq 9 ]
  [[ $output == *"No Such Volume"* ]]
}

@test "the server log shows the effective afp.conf and never the password" {
  local inst="$CACHE/server/instances/$SHARED_PORT"
  grep -q 'effective afp.conf' "$inst/server.log"
  grep -q 'afp port = 10550' "$inst/server.log"
  grep -q 'uam list = .*uams_clrtxt.so' "$inst/server.log"
  run ! grep -rqF 'Pa55:wd!' "$inst/server.log" "$inst/root/var/log/"
}

@test "starting a second server on a port in use fails with a clear error" {
  run "$LOCAL_SERVER" start --port "$SHARED_PORT"
  [ "$status" -ne 0 ]
  [[ $output == *"already runs on port $SHARED_PORT"* ]]
  # ... and leaves the running one alone.
  run timeout 30 "$AFPBENCH" status "127.0.0.1:$SHARED_PORT"
  [ "$status" -eq 0 ]
}

# --- servers of their own

@test "two servers on two ports serve at once, each with its own processes and lock file" {
  "$LOCAL_SERVER" start --port 10551 >/dev/null
  "$LOCAL_SERVER" start --port 10552 >/dev/null
  run smoke 10551 afpbench "File Sharing"
  echo "$output"
  [ "$status" -eq 0 ]
  run smoke 10552 afpbench "File Sharing"
  echo "$output"
  [ "$status" -eq 0 ]
  local master1 master2
  master1=$(server_processes 10551 | awk '$2 == "netatalk" { print $1 }')
  master2=$(server_processes 10552 | awk '$2 == "netatalk" { print $1 }')
  [ -n "$master1" ] && [ -n "$master2" ] && [ "$master1" != "$master2" ]
  # netatalk's lock file (compiled in as /var/lock/netatalk) is per server.
  [ "$(tr -dc 0-9 <"$(instance_root 10551)/run/lock/netatalk")" = "$master1" ]
  [ "$(tr -dc 0-9 <"$(instance_root 10552)/run/lock/netatalk")" = "$master2" ]
  port_listens 14551 && port_listens 14552
  run "$LOCAL_SERVER" status
  [ "$status" -eq 0 ]
  [[ $output == *"port 10551: running"* && $output == *"port 10552: running"* ]]
  "$LOCAL_SERVER" stop --port 10551 --port 10552
}

@test "stop ends every process of the server, dropped sessions too, and unmounts what start mounted" {
  "$LOCAL_SERVER" start --port 10553 >/dev/null
  run smoke 10553 afpbench "File Sharing"
  [ "$status" -eq 0 ]
  drop_session 10553
  drop_session 10553
  run server_processes 10553
  echo "$output"
  [ "$(grep -c ' afpd$' <<<"$output")" -ge 3 ] # the master and two lingering sessions
  [[ $output == *" netatalk"* ]]
  [[ $output == *" cnid_metad"* && $output == *" cnid_dbd"* ]]
  [ -n "$(mounts_under_instance 10553)" ]

  run "$LOCAL_SERVER" stop --port 10553
  [ "$status" -eq 0 ]
  [ -z "$(server_processes 10553)" ]
  [ -z "$(mounts_under_instance 10553)" ]
  run ! port_listens 10553
  run ! port_listens 14553
  run "$LOCAL_SERVER" status --port 10553
  [ "$status" -eq 3 ]
  [[ $output == *"not running"* ]]
  # nothing of it is left on disk
  [ ! -e "$CACHE/server/instances/10553" ]
  # A second stop is a quiet success.
  run "$LOCAL_SERVER" stop --port 10553
  [ "$status" -eq 0 ]
}

@test "a maxdebug server's log is capped (LOCAL_SERVER_LOG_MAX_MB) and it goes on serving; stop --keep keeps the instance, stop removes it" {
  local inst="$CACHE/server/instances/10558" i log
  log="$inst/root/var/log/afpd.log"
  LOCAL_SERVER_LOG_MAX_MB=1 AFP_LOGLEVEL=default:maxdebug "$LOCAL_SERVER" start --port 10558 >/dev/null
  # every AFP call is logged: sessions until the watcher has emptied it once
  for ((i = 0; i < 100; i++)); do
    run smoke 10558 afpbench "File Sharing"
    [ "$status" -eq 0 ]
    grep -q 'passed its cap of 1 MiB' "$log" && break
  done
  echo "# the watcher emptied afpd.log after $i sessions" >&3
  ((i < 100))
  # at most the cap and what a second of logging adds
  [ "$(stat -c %s "$log")" -lt $((4 * 1024 * 1024)) ]
  run smoke 10558 afpbench "File Sharing"
  [ "$status" -eq 0 ]
  LOCAL_SERVER_LOG_MAX_MB=1 run "$LOCAL_SERVER" status --port 10558
  [[ $output == *"(passed the 1 MiB cap: emptied on the way)"* ]]
  LOCAL_SERVER_LOG_MAX_MB=1 run "$LOCAL_SERVER" stop --port 10558 --keep
  [ "$status" -eq 0 ]
  [[ $output == *"passed the log cap of 1 MiB"*"root/var/log/afpd.log"* ]]
  [[ $output == *"kept $inst"* ]]
  [ -z "$(mounts_under_instance 10558)" ]
  [ -s "$inst/upper/var/log/afpd.log" ] && [ -s "$inst/server.log" ]
  # the watcher ended with the server
  run pgrep -f "local-server start --port 10558"
  [ "$status" -ne 0 ]
  run "$LOCAL_SERVER" stop --port 10558
  [ "$status" -eq 0 ]
  [ ! -e "$inst" ]
}

@test "the last stop restores /proc_io as it was" {
  "$LOCAL_SERVER" stop --port "$SHARED_PORT"
  [ -z "$(server_processes "$SHARED_PORT")" ]
  if "$LOCAL_SERVER" status >/dev/null; then
    skip "another local server (not this test's) still runs and keeps /proc_io"
  fi
  if mountpoint -q /proc_io; then now=1; else now=0; fi
  [ "$now" = "$(cat "$BATS_FILE_TMPDIR/proc_io_before")" ]
}

@test "AFP_CNID_TMPFS=1 keeps the CNID database on a tmpfs that stop unmounts" {
  AFP_CNID_TMPFS=1 "$LOCAL_SERVER" start --port 10555 >/dev/null
  run smoke 10555 afpbench "File Sharing"
  echo "$output"
  [ "$status" -eq 0 ]
  local cnid_dir
  cnid_dir="$(instance_root 10555)/var/lib/netatalk/CNID"
  [ "$(stat -f -c %T "$cnid_dir")" = tmpfs ]
  # The share's database was created there, in memory.
  [ -n "$(find "$cnid_dir" -name 'cnid2.db' -print -quit)" ]
  "$LOCAL_SERVER" stop --port 10555
  [ -z "$(mounts_under_instance 10555)" ]
}

@test "--tmpfs keeps the instance in memory: it serves, stop --keep keeps it mounted, the next start and stop remove it" {
  local inst="$CACHE/server/instances/10559"
  "$LOCAL_SERVER" start --port 10559 --tmpfs >/dev/null
  [ "$(findmnt -n -o FSTYPE --mountpoint "$inst")" = tmpfs ]
  run smoke 10559 afpbench "File Sharing"
  echo "$output"
  [ "$status" -eq 0 ]
  # the share and its CNID database are written in memory, under the overlay
  [ -n "$(find "$inst/upper" -name 'cnid2.db' -print -quit)" ]
  "$LOCAL_SERVER" stop --port 10559 --keep
  [ "$(mounts_under_instance 10559)" = "$inst" ]
  [ -n "$(find "$inst/upper" -name 'cnid2.db' -print -quit)" ]
  # a start without it begins afresh on disk: the kept tmpfs is gone
  "$LOCAL_SERVER" start --port 10559 >/dev/null
  [ "$(findmnt -n -o FSTYPE --mountpoint "$inst" || true)" = "" ]
  "$LOCAL_SERVER" stop --port 10559
  [ -z "$(mounts_under_instance 10559)" ]
  [ ! -e "$inst" ]
  LOCAL_SERVER_TMPFS=yes run "$LOCAL_SERVER" start --port 10559
  [ "$status" -ne 0 ]
  [[ $output == *"LOCAL_SERVER_TMPFS='yes': 1 (the instance on a tmpfs) or 0"* ]]
}

@test "AFP_UID and AFP_GID move the image's share owner; the share belongs to them" {
  AFP_UID=2001 AFP_GID=2002 "$LOCAL_SERVER" start --port 10556 >/dev/null
  run smoke 10556 afpbench "File Sharing"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(stat -c %u:%g "$(instance_root 10556)/mnt/afpshare")" = 2001:2002 ]
  grep -q '^afpbench:x:2001:2002:' "$(instance_root 10556)/etc/passwd"
  "$LOCAL_SERVER" stop --port 10556
}

@test "an over-long password is refused by the entrypoint with a clear error" {
  AFP_PASS=123456789 run "$LOCAL_SERVER" start --port 10554
  echo "$output"
  [ "$status" -ne 0 ]
  [[ $output == *"AFP_PASS is 9 bytes long"* ]]
  [[ $output == *"at most 8"* ]]
  [ -z "$(server_processes 10554)" ]
  [ -z "$(mounts_under_instance 10554)" ]
}

@test "a bad port is refused before anything starts" {
  run "$LOCAL_SERVER" start --port 99999
  [ "$status" -ne 0 ]
  [[ $output == *"bad port '99999'"* ]]
  run "$LOCAL_SERVER" start --port 12ab
  [ "$status" -ne 0 ]
  [[ $output == *"bad port '12ab'"* ]]
}

# --- the entrypoint on its own (no server needed)

@test "the entrypoint renders afp.conf from the environment, secrets redacted" {
  run env -i PATH="$PATH" AFP_PORT=10555 AFP_LISTEN=127.0.0.1 AFP_CNID_LISTEN=127.0.0.1:14555 \
    AFP_USER=bench AFP_PASS=sekrit99 SHARE_NAME="Bench Vol" NETATALK_SHARE_DIR=/srv/vol \
    SERVER_NAME=srv1 AFP_LOGLEVEL=default:info AFP_LOG_FILE=/var/log/x.log \
    AFP_EXTRA_GLOBAL=$'server quantum = 262144\ncnid mysql pw = hunter2' \
    AFP_EXTRA_VOLUME='ea = ad' "$ENTRYPOINT" --print-config
  echo "$output"
  [ "$status" -eq 0 ]
  # Sections in order, each option under the right one.
  [ "$(grep -n '^\[Global\]$' <<<"$output" | cut -d: -f1)" -lt "$(grep -n '^\[Bench Vol\]$' <<<"$output" | cut -d: -f1)" ]
  global=$(sed -n '/^\[Global\]$/,/^\[Bench Vol\]$/p' <<<"$output")
  volume=$(sed -n '/^\[Bench Vol\]$/,$p' <<<"$output")
  grep -qx 'afp port = 10555' <<<"$global"
  grep -qx 'afp listen = 127.0.0.1' <<<"$global"
  grep -qx 'cnid listen = 127.0.0.1:14555' <<<"$global"
  grep -qx 'cnid server = 127.0.0.1:14555' <<<"$global"
  grep -qx 'server name = srv1' <<<"$global"
  grep -qx 'log level = default:info' <<<"$global"
  grep -qx 'log file = /var/log/x.log' <<<"$global"
  grep -qx 'uam list = uams_clrtxt.so uams_dhx2.so' <<<"$global"
  grep -qx 'server quantum = 262144' <<<"$global"
  grep -qx 'cnid mysql pw = \*\*\*' <<<"$global"
  grep -qx 'path = /srv/vol' <<<"$volume"
  grep -qx 'valid users = bench' <<<"$volume"
  grep -qx 'ea = ad' <<<"$volume"
  # each section's extras under the marker afpbench names them by (results.json)
  grep -A1 -x '; afpbench: settings under test' <<<"$global" | grep -qx 'server quantum = 262144'
  grep -A1 -x '; afpbench: settings under test' <<<"$volume" | grep -qx 'ea = ad'
  [[ $output != *hunter2* && $output != *sekrit99* ]]
}

@test "the entrypoint's defaults: port 548, share 'File Sharing', log level default:severe" {
  run env -i PATH="$PATH" "$ENTRYPOINT" --print-config
  [ "$status" -eq 0 ]
  grep -qx 'afp port = 548' <<<"$output"
  grep -qx '\[File Sharing\]' <<<"$output"
  grep -qx 'log level = default:severe' <<<"$output"
  grep -qx 'valid users = afpbench' <<<"$output"
  run ! grep -q '^afp listen' <<<"$output"
  # no extras, no marker: the report names no settings under test
  run ! grep -q 'afpbench: settings under test' <<<"$output"
}

@test "the entrypoint refuses bad settings and names the variable" {
  run env -i PATH="$PATH" AFP_PASS=123456789 "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"AFP_PASS is 9 bytes long"* ]]
  # Bytes, not characters: five two-byte letters are 10 bytes.
  run env -i PATH="$PATH" AFP_PASS=ééééé "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"AFP_PASS is 10 bytes long"* ]]
  run env -i PATH="$PATH" AFP_PORT=70000 "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"AFP_PORT '70000'"* ]]
  run env -i PATH="$PATH" SHARE_NAME='a]b' "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"SHARE_NAME"* ]]
  run env -i PATH="$PATH" SHARE_NAME=$'a\n[Global]' "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"SHARE_NAME must be a single line"* ]]
  run env -i PATH="$PATH" AFP_UID=0 "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"AFP_UID '0'"* ]]
  run env -i PATH="$PATH" AFP_CNID_TMPFS_SIZE='1m,exec' "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"AFP_CNID_TMPFS_SIZE"* ]]
  run env -i PATH="$PATH" AFP_LOGLEVEL='severe; rm' "$ENTRYPOINT" --print-config
  [ "$status" -ne 0 ]
  [[ $output == *"AFP_LOGLEVEL"* ]]
}

@test "the README documents every variable the entrypoint reads" {
  local readme="$BATS_TEST_DIRNAME/../../README.md" var missing=()
  # Every upper-case name the script expands, less the shell's own (and the
  # loader's LD_PRELOAD, which it only extends) and its constants (readonly).
  # shellcheck disable=SC2016  # tr deletes the characters $ and {, literally
  while read -r var; do
    case $var in PATH | BASH_REMATCH | LD_PRELOAD) continue ;; esac
    grep -qE "^readonly $var=" "$ENTRYPOINT" && continue
    grep -q "^| \`$var\`" "$readme" || missing+=("$var")
  done < <(grep -oE '\$\{?[A-Z][A-Z0-9_]+' "$ENTRYPOINT" | tr -d '${' | sort -u)
  [ "${#missing[@]}" -eq 0 ] || {
    echo "not in the README's variable table: ${missing[*]}"
    false
  }
}
