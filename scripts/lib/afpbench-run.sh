# shellcheck shell=bash
# Running afpbench against the run's place: what the gate and the
# attribution stage (scripts/attribute) share. Source it after common.sh,
# with the place in the environment as scripts/plan --place prints it
# (AFP_HOST ... BASE_PROC_IO, AB) and AFPBENCH set (find_afpbench).

# afpbench_status_meaning CODE: what afpbench's exit status says (afp_lantest's codes).
afpbench_status_meaning() {
  case $1 in
    1) echo "usage error" ;;
    2) echo "out of memory" ;;
    3) echo "a file or directory operation failed" ;;
    4) echo "a fork operation failed" ;;
    5) echo "network or protocol error" ;;
    6) echo "thread error" ;;
    7) echo "read-back validation failed" ;;
    8) echo "bad parameter" ;;
    9) echo "cannot open the volume" ;;
    10) echo "login failed" ;;
    124 | 137) echo "timed out: killed by the gate's own bound (AFPBENCH_DEADLINE + 10 s)" ;;
    *) echo "unexpected exit status" ;;
  esac
}

# connection_args: afpbench's flags for the server(s) of this run (both
# sides in A/B) into the caller's array `common`.
connection_args() {
  common=(-h "$AFP_HOST" -p "$AFP_PORT" -u "$AFP_USER" -s "$SHARE_NAME")
  # every suite measures the server's IO through the same procfs
  [[ -z $PROC_IO ]] || common+=(--proc-root "$PROC_IO")
  common+=(--syscalls "$AFPBENCH_SYSCALLS")
  [[ -z $AFPBENCH_AFP_VERSION ]] || common+=("-$AFPBENCH_AFP_VERSION")
  if [[ $AB == yes ]]; then
    common+=(--base-host "$BASE_AFP_HOST" --base-port "$BASE_AFP_PORT" --base-user "$BASE_AFP_USER"
      --base-volume "$BASE_SHARE_NAME")
    [[ -z $BASE_PROC_IO ]] || common+=(--base-proc-root "$BASE_PROC_IO")
  fi
}

# with_secrets COMMAND...: run afpbench's command with the passwords in its
# environment and nothing else it would read there: the password reaches
# afpbench through its environment (AFP_PASS), never its command line, where
# any process on the machine could read it; everything else it is given by
# flag.
with_secrets() {
  env -u AFP_HOST -u AFP_PORT -u AFP_USER -u SHARE_NAME -u PROC_IO -u AFPBENCH_SYSCALLS \
    AFP_PASS="$AFP_PASS" BASE_AFP_PASS="${BASE_AFP_PASS:-}" "$@"
}

# run_error JSON: ": WHAT" for the error afpbench wrote (the cause in its own
# words: "cannot connect to 127.0.0.1:548: Connection refused"), or nothing.
run_error() {
  local what
  what=$(jq -r '.error | (.message? // .) // empty | tostring | .[0:200]' "$1" 2>/dev/null) || return 0
  [[ -z $what ]] || printf ': %s' "$what"
}

# failed_tests JSON: " in TEST (NAME), ..." for the tests afpbench marked failed
# (our own test names), or nothing.
failed_tests() {
  local names
  names=$(jq -r '[.tests[]? | select(.status == "error") | "\(.key) (\(.name))"] | join(", ")' "$1" 2>/dev/null) || return 0
  [[ -z $names ]] || printf ' in %s' "$names"
}
