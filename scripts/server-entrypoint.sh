#!/usr/bin/env bash
# Entrypoint of the netatalk server: in the Dockerfile.server image, and in the
# root filesystem scripts/local-server runs under chroot. It is self-contained
# (the image holds only this file), configured by environment only, and needs
# no init system.
#
#   server-entrypoint               write afp.conf from the environment, then
#                                   exec `netatalk -d` (foreground; signals reach it)
#   server-entrypoint --print-config  print the afp.conf the environment gives
#                                   (secrets redacted) and exit; changes nothing
#   server-entrypoint --prepare     create the share owner and directories (image build)
#   server-entrypoint --healthcheck exit 0 when the server on 127.0.0.1:$AFP_PORT
#                                   answers DSIGetStatus
#
# Every variable, with its default, is documented in docs/server.md.
set -euo pipefail

readonly MAX_CLEARTEXT_PASS=8 # the cleartext UAM sends a fixed 8-byte password field
# cnid_metad raises RLIMIT_NOFILE to this at start and exits when it may not.
readonly CNID_METAD_NOFILE=65535
# Lowers that request to the hard limit (scripts/lib/server-rlimit-cap.c).
readonly RLIMIT_CAP_LIB=/usr/local/lib/afpbench/rlimit-cap.so
# Written once the server has answered DSIGetStatus (--healthcheck). Its
# directory is made when the server starts (in its container or chroot), so a
# health check run anywhere else always probes over AFP.
readonly ANSWERED_MARKER=/run/afpbench/server-answered

log() { printf 'server-entrypoint: %s\n' "$*" >&2; }
warn() { printf 'server-entrypoint: warning: %s\n' "$*" >&2; }
die() {
  printf 'server-entrypoint: error: %s\n' "$*" >&2
  exit 1
}

# load_settings: read the environment into globals, with defaults. No side effects.
load_settings() {
  AFP_USER=${AFP_USER:-afpbench}
  AFP_PASS=${AFP_PASS:-afpbench}
  AFP_UID=${AFP_UID:-1548}
  AFP_GID=${AFP_GID:-$AFP_UID}
  SHARE_NAME=${SHARE_NAME:-File Sharing}
  NETATALK_SHARE_DIR=${NETATALK_SHARE_DIR:-/mnt/afpshare}
  NETATALK_CONFDIR=${NETATALK_CONFDIR:-/etc/netatalk}
  SERVER_NAME=${SERVER_NAME:-afpbench-server}
  AFP_PORT=${AFP_PORT:-548}
  AFP_LISTEN=${AFP_LISTEN:-}
  AFP_CNID_LISTEN=${AFP_CNID_LISTEN:-127.0.0.1:4700}
  AFP_UAMS=${AFP_UAMS:-uams_clrtxt.so uams_dhx2.so}
  AFP_LOGLEVEL=${AFP_LOGLEVEL:-default:severe}
  AFP_LOG_FILE=${AFP_LOG_FILE:-/var/log/afpd.log}
  AFP_CNID_DIR=${AFP_CNID_DIR:-/var/lib/netatalk/CNID}
  AFP_CNID_TMPFS=${AFP_CNID_TMPFS:-0}
  AFP_CNID_TMPFS_SIZE=${AFP_CNID_TMPFS_SIZE:-256m}
  AFP_EXTRA_GLOBAL=${AFP_EXTRA_GLOBAL:-}
  AFP_EXTRA_VOLUME=${AFP_EXTRA_VOLUME:-}
  AFP_CONFIG_FILE=${AFP_CONFIG_FILE:-}
  AFP_INSTRUMENT=${AFP_INSTRUMENT:-}
  AFP_INSTR_DIR=${AFP_INSTR_DIR:-/var/lib/afpbench/instr}
}

# byte_length STRING: length in bytes, not characters (the UAM limit is bytes).
byte_length() {
  local LC_ALL=C
  printf '%s' "${#1}"
}

# Decimal without leading zeros: bash arithmetic would read 0755 as octal.
is_port() { [[ $1 =~ ^[1-9][0-9]{0,4}$ ]] && (($1 <= 65535)); }
is_id() { [[ $1 =~ ^[1-9][0-9]{0,4}$ ]] && (($1 < 65534)); }

# check_one_line NAME VALUE: a newline would inject afp.conf lines.
check_one_line() {
  [[ $2 != *$'\n'* && $2 != *$'\r'* ]] || die "$1 must be a single line"
}

# validate_settings: refuse bad input with the variable's name in the message.
validate_settings() {
  [[ $AFP_USER =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] ||
    die "AFP_USER '$AFP_USER' is not a valid user name (lower case letters, digits, _ and -, at most 32)"
  [[ -n $AFP_PASS ]] || die "AFP_PASS is empty"
  check_one_line AFP_PASS "$AFP_PASS"
  local pass_bytes
  pass_bytes=$(byte_length "$AFP_PASS")
  ((pass_bytes <= MAX_CLEARTEXT_PASS)) ||
    die "AFP_PASS is $pass_bytes bytes long; the cleartext UAM (uams_clrtxt.so) that afpbench logs in with allows at most $MAX_CLEARTEXT_PASS: choose a shorter password"
  is_id "$AFP_UID" ||
    die "AFP_UID '$AFP_UID' must be a number from 1 to 65533 (the share owner is never root)"
  is_id "$AFP_GID" ||
    die "AFP_GID '$AFP_GID' must be a number from 1 to 65533"
  [[ -n $SHARE_NAME ]] || die "SHARE_NAME is empty"
  check_one_line SHARE_NAME "$SHARE_NAME"
  [[ $SHARE_NAME != *[][]* ]] || die "SHARE_NAME '$SHARE_NAME' must not contain '[' or ']' (afp.conf section syntax)"
  [[ $SHARE_NAME != [Gg]lobal && $SHARE_NAME != [Hh]omes ]] ||
    die "SHARE_NAME '$SHARE_NAME' is reserved by afp.conf"
  ((${#SHARE_NAME} <= 27)) || die "SHARE_NAME '$SHARE_NAME' is longer than 27 characters (AFP volume name limit)"
  is_port "$AFP_PORT" || die "AFP_PORT '$AFP_PORT' is not a TCP port number"
  [[ $AFP_CNID_LISTEN =~ ^[^[:space:]]+:([0-9]+)$ ]] ||
    die "AFP_CNID_LISTEN '$AFP_CNID_LISTEN' must be ADDRESS:PORT"
  is_port "${BASH_REMATCH[1]}" || die "AFP_CNID_LISTEN '$AFP_CNID_LISTEN' has a bad port"
  [[ $AFP_LOGLEVEL =~ ^[A-Za-z]+:[A-Za-z0-9]+([ ,]+[A-Za-z]+:[A-Za-z0-9]+)*$ ]] ||
    die "AFP_LOGLEVEL '$AFP_LOGLEVEL' must look like 'default:severe' (type:level ...)"
  [[ $NETATALK_SHARE_DIR == /* && $AFP_CNID_DIR == /* && $AFP_LOG_FILE == /* ]] ||
    die "NETATALK_SHARE_DIR, AFP_CNID_DIR and AFP_LOG_FILE must be absolute paths"
  local name
  for name in AFP_LISTEN AFP_UAMS SERVER_NAME NETATALK_SHARE_DIR AFP_CNID_DIR AFP_LOG_FILE; do
    check_one_line "$name" "${!name}"
  done
  [[ $AFP_CNID_TMPFS == [01] ]] || die "AFP_CNID_TMPFS '$AFP_CNID_TMPFS' must be 0 or 1"
  # It becomes a mount option: a size only, nothing else.
  [[ $AFP_CNID_TMPFS_SIZE =~ ^[1-9][0-9]*[kmgKMG%]?$ ]] ||
    die "AFP_CNID_TMPFS_SIZE '$AFP_CNID_TMPFS_SIZE' must be a size like 256m"
  [[ -z $AFP_INSTRUMENT || $AFP_INSTRUMENT == callgrind || $AFP_INSTRUMENT == cachegrind ]] ||
    die "AFP_INSTRUMENT '$AFP_INSTRUMENT' must be empty, callgrind or cachegrind"
  [[ $AFP_INSTR_DIR == /* ]] || die "AFP_INSTR_DIR '$AFP_INSTR_DIR' must be an absolute path"
  check_one_line AFP_INSTR_DIR "$AFP_INSTR_DIR"
  if [[ -n $AFP_CONFIG_FILE && ! -r $AFP_CONFIG_FILE ]]; then
    die "AFP_CONFIG_FILE '$AFP_CONFIG_FILE' is not a readable file"
  fi
  # afpbench logs in with the cleartext UAM only; other UAMs are extras.
  [[ " $AFP_UAMS " == *" uams_clrtxt.so "* ]] ||
    warn "AFP_UAMS '$AFP_UAMS' lacks uams_clrtxt.so: afpbench will not be able to log in"
}

# render_config: print afp.conf for the settings on stdout.
render_config() {
  printf '; Written by server-entrypoint from the environment; see docs/server.md.\n'
  printf '[Global]\n'
  printf 'server name = %s\n' "$SERVER_NAME"
  printf 'afp port = %s\n' "$AFP_PORT"
  [[ -z $AFP_LISTEN ]] || printf 'afp listen = %s\n' "$AFP_LISTEN"
  # Two servers on one host need distinct CNID ports; afpd must use the same one.
  printf 'cnid listen = %s\n' "$AFP_CNID_LISTEN"
  printf 'cnid server = %s\n' "$AFP_CNID_LISTEN"
  printf 'vol dbpath = %s\n' "$AFP_CNID_DIR"
  printf 'uam list = %s\n' "$AFP_UAMS"
  printf 'log level = %s\n' "$AFP_LOGLEVEL"
  printf 'log file = %s\n' "$AFP_LOG_FILE"
  # No Bonjour registration: a benchmark server needs none, and without an
  # avahi-daemon (none runs in a container) it only logs errors.
  printf 'zeroconf = no\n'
  # The marker tells afpbench which settings the run is about (it records
  # them in results.json and the report names them); the fingerprint skips it.
  [[ -z $AFP_EXTRA_GLOBAL ]] || printf '; afpbench: settings under test\n%s\n' "$AFP_EXTRA_GLOBAL"
  printf '\n[%s]\n' "$SHARE_NAME"
  printf 'path = %s\n' "$NETATALK_SHARE_DIR"
  printf 'valid users = %s\n' "$AFP_USER"
  [[ -z $AFP_EXTRA_VOLUME ]] || printf '; afpbench: settings under test\n%s\n' "$AFP_EXTRA_VOLUME"
}

# redact: hide the values of options that hold secrets ("cnid mysql pw", or
# whatever raw lines add). The AFP password itself is never in afp.conf: it is
# the share owner's system password.
redact() {
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line =~ ^([[:space:]]*[^\;#=]*(pw|pass|secret|key)[^=]*=) ]]; then
      line="${BASH_REMATCH[1]} ***"
    fi
    printf '%s\n' "$line"
  done
}

# effective_config: the afp.conf netatalk will read.
effective_config() {
  if [[ -n $AFP_CONFIG_FILE ]]; then
    cat -- "$AFP_CONFIG_FILE"
  else
    render_config
  fi
}

# ensure_owner: the non-root user that owns the share and logs in over AFP.
# The image was built with the defaults; other AFP_UID/AFP_GID values move the
# existing user and group.
ensure_owner() {
  local group_gid
  # getent exits 2 when there is no such group yet (a fresh image build).
  group_gid=$(getent group "$AFP_USER" | cut -d: -f3) || group_gid=
  if [[ -n $group_gid ]]; then
    if [[ $group_gid != "$AFP_GID" ]]; then
      groupmod --gid "$AFP_GID" "$AFP_USER" ||
        die "cannot change the gid of group $AFP_USER to $AFP_GID"
    fi
  elif ! getent group "$AFP_GID" >/dev/null; then
    groupadd --gid "$AFP_GID" "$AFP_USER" ||
      die "cannot create group $AFP_USER (gid $AFP_GID)"
  fi
  if id -u "$AFP_USER" >/dev/null 2>&1; then
    if [[ $(id -u "$AFP_USER") != "$AFP_UID" || $(id -g "$AFP_USER") != "$AFP_GID" ]]; then
      usermod --uid "$AFP_UID" --gid "$AFP_GID" "$AFP_USER" ||
        die "cannot give $AFP_USER uid $AFP_UID and gid $AFP_GID"
    fi
  else
    # A login shell listed in /etc/shells: netatalk refuses users without one.
    useradd --uid "$AFP_UID" --gid "$AFP_GID" --no-create-home \
      --home-dir "$NETATALK_SHARE_DIR" --shell /bin/sh "$AFP_USER" ||
      die "cannot create user $AFP_USER (uid $AFP_UID)"
  fi
  mkdir -p -- "$NETATALK_SHARE_DIR" "$AFP_CNID_DIR" "$(dirname -- "$AFP_LOG_FILE")"
  chown "$AFP_UID:$AFP_GID" -- "$NETATALK_SHARE_DIR"
}

set_password() {
  # chpasswd reads the secret on stdin: it never shows up in a process list.
  printf '%s:%s\n' "$AFP_USER" "$AFP_PASS" | chpasswd ||
    die "cannot set the password of $AFP_USER"
}

# cnid_on_tmpfs: keep the CNID database in memory, so a benchmark measures
# netatalk rather than the disk under the database.
cnid_on_tmpfs() {
  [[ $AFP_CNID_TMPFS == 1 ]] || return 0
  if [[ $(stat -f -c %T -- "$AFP_CNID_DIR") == tmpfs ]]; then
    log "CNID database on tmpfs (already mounted at $AFP_CNID_DIR)"
    return 0
  fi
  mount -t tmpfs -o "mode=0755,size=$AFP_CNID_TMPFS_SIZE" tmpfs "$AFP_CNID_DIR" ||
    die "AFP_CNID_TMPFS=1 but no tmpfs could be mounted on $AFP_CNID_DIR (needs CAP_SYS_ADMIN); mount one there yourself instead (compose: tmpfs: [$AFP_CNID_DIR])"
  log "CNID database on tmpfs ($AFP_CNID_TMPFS_SIZE at $AFP_CNID_DIR)"
}

# probe_status PORT: send DSIGetStatus to 127.0.0.1:PORT and check the reply
# header: a reply (flags 1) to GetStatus (command 3) for our request id 1, with
# error code 0 and a payload length from 1 byte to 64 KiB.
probe_status() {
  local port=$1 fd hex
  { exec {fd}<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  printf '\000\003\000\001\000\000\000\000\000\000\000\000\000\000\000\000' >&"$fd" || return 1
  hex=$(timeout 5 head -c 16 <&"$fd" | od -An -v -tx1 | tr -d ' \n') || true
  exec {fd}>&-
  [[ $hex =~ ^0103000100000000([0-9a-f]{8})00000000$ ]] || return 1
  local length=$((16#${BASH_REMATCH[1]}))
  ((length >= 1 && length <= 65536))
}

# listening PORT: a TCP socket of this network namespace listens on PORT.
listening() {
  local hex
  printf -v hex '%04X' "$1"
  # /proc/net/tcp{,6}: local address "ADDR:PORT" (hex), state 0A = LISTEN.
  awk -v p=":$hex" '$2 ~ p "$" && $4 == "0A" { found = 1 } END { exit !found }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# healthcheck: DSIGetStatus until the server has answered once; after that,
# whether the port still listens. A DSIGetStatus makes afpd fork a session
# process, which periodic checks would add to the measurements.
healthcheck() {
  is_port "$AFP_PORT" || die "AFP_PORT '$AFP_PORT' is not a TCP port number"
  if [[ -f $ANSWERED_MARKER ]] && [[ $(<"$ANSWERED_MARKER") == "$AFP_PORT" ]]; then
    listening "$AFP_PORT"
    return
  fi
  # afpbench's status command when the image has it; our own probe otherwise.
  if command -v afpbench >/dev/null 2>&1; then
    afpbench status "127.0.0.1:$AFP_PORT" >/dev/null || return 1
  else
    probe_status "$AFP_PORT" || return 1
  fi
  if [[ -d ${ANSWERED_MARKER%/*} ]]; then
    printf '%s\n' "$AFP_PORT" >"$ANSWERED_MARKER" 2>/dev/null || true
  fi
}

# cap_nofile_request: where the hard limit of open files is below what
# cnid_metad asks for and cannot be raised, preload the library that lowers its
# request to the hard limit (without it cnid_metad exits and every FPOpenVol
# fails), and say so.
cap_nofile_request() {
  local hard
  hard=$(ulimit -Hn)
  [[ $hard != unlimited ]] && ((hard < CNID_METAD_NOFILE)) || return 0
  if [[ " ${LD_PRELOAD:-} " == *" $RLIMIT_CAP_LIB "* ]]; then
    return 0
  fi
  local raise="raise it (compose: ulimits: nofile: $CNID_METAD_NOFILE; docker run --ulimit nofile=$CNID_METAD_NOFILE)"
  if [[ ! -r $RLIMIT_CAP_LIB ]]; then
    warn "the hard limit of open files is $hard, below the $CNID_METAD_NOFILE cnid_metad asks for," \
      "and $RLIMIT_CAP_LIB is missing: cnid_metad will exit and every FPOpenVol fail; $raise"
    return 0
  fi
  export LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD }$RLIMIT_CAP_LIB"
  log "the hard limit of open files is $hard, below the $CNID_METAD_NOFILE cnid_metad asks for:" \
    "its request is lowered to $hard ($RLIMIT_CAP_LIB); to serve with netatalk's own limit, $raise"
}

run_server() {
  ((EUID == 0)) || die "must run as root: afpd switches to the logged-in user itself"
  command -v netatalk >/dev/null 2>&1 || die "netatalk is not installed (PATH=$PATH)"
  ensure_owner
  set_password
  cnid_on_tmpfs
  local conf=$AFP_CONFIG_FILE
  if [[ -z $conf ]]; then
    conf=$NETATALK_CONFDIR/afp.conf
    mkdir -p -- "$NETATALK_CONFDIR"
    # Write a new file and rename it: never rewrite a file in place that may
    # be shared (a hard link or a lower layer).
    render_config >"$conf.new"
    mv -f -- "$conf.new" "$conf"
  fi
  log "user $AFP_USER (uid $AFP_UID), share '$SHARE_NAME' at $NETATALK_SHARE_DIR, port $AFP_PORT"
  log "effective afp.conf ($conf, secrets redacted):"
  effective_config | redact | sed 's/^/    /' >&2
  # A lock file left by an earlier run of this container would stop netatalk.
  rm -f /var/lock/netatalk /run/lock/netatalk "$ANSWERED_MARKER"
  mkdir -p -- "${ANSWERED_MARKER%/*}"
  cap_nofile_request
  if [[ -n $AFP_INSTRUMENT ]]; then
    exec_instrumented "$conf"
  fi
  exec netatalk -d -F "$conf"
}

# exec_instrumented CONF: netatalk under valgrind (AFP_INSTRUMENT). Every afpd
# session process writes AFP_INSTR_DIR/<tool>.out.<pid> when it ends, which
# afpbench --instr-dir reads. PAM's setuid helper must run natively (valgrind
# cannot run a setuid program, and every login would fail); cnid_metad and
# cnid_dbd run natively too (not counted, and faster). Callgrind counts only
# inside afp_over_dsi, the session's request loop, so that a session process
# does not inherit the master afpd's count at fork, which grows with every
# session (docs/verdict-format.md, "Instructions").
exec_instrumented() {
  local conf=$1 tool=$AFP_INSTRUMENT
  command -v valgrind >/dev/null 2>&1 ||
    die "AFP_INSTRUMENT=$tool but valgrind is not installed (install-netatalk --with-valgrind)"
  mkdir -p -- "$AFP_INSTR_DIR"
  # Session processes run as the logged-in user when they write their file.
  chmod 1777 -- "$AFP_INSTR_DIR"
  local args=(-q --tool="$tool" --trace-children=yes --child-silent-after-fork=yes
    "--trace-children-skip=*unix_chkpwd*,*/cnid_metad,*/cnid_dbd"
    "--$tool-out-file=$AFP_INSTR_DIR/$tool.out.%p")
  if [[ $tool == cachegrind ]]; then
    args+=(--cache-sim=no)
  else
    args+=(--collect-atstart=no --toggle-collect=afp_over_dsi --toggle-collect=readt)
  fi
  log "instrumented: afpd under valgrind --tool=$tool; per-session counts in $AFP_INSTR_DIR"
  exec valgrind "${args[@]}" netatalk -d -F "$conf"
}

main() {
  load_settings
  case ${1:-} in
    "")
      validate_settings
      run_server
      ;;
    --print-config)
      validate_settings
      effective_config | redact
      ;;
    --prepare)
      ((EUID == 0)) || die "--prepare must run as root"
      validate_settings
      ensure_owner
      ;;
    --healthcheck) healthcheck ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
}

main "$@"
