# shellcheck shell=bash
# Shared helpers for afpbench-action's scripts. Source it; do not execute it.
#
# Everything here writes to stderr: stdout of our scripts is reserved for their
# results (CSV, shell variables, JSON).

# Cache directory for slow-to-build things (root filesystems, image layers).
# Outside the checkout so that a fresh clone reuses it and `git clean` keeps it.
AFPBENCH_CACHE=${AFPBENCH_CACHE:-/var/cache/afpbench}

# jq 1.7 where scripts/install-deps put it beside a system jq 1.6 (ten times
# slower on the verdict's programs); AFPBENCH_JQ=system keeps the system's,
# even where a parent put ours on PATH.
if [[ ${AFPBENCH_JQ:-} == system ]]; then
  PATH=${PATH//"$AFPBENCH_CACHE/tools/jq/bin:"/}
elif [[ -x $AFPBENCH_CACHE/tools/jq/bin/jq && :$PATH: != *":$AFPBENCH_CACHE/tools/jq/bin:"* ]]; then
  PATH="$AFPBENCH_CACHE/tools/jq/bin:$PATH"
fi

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
die() {
  printf '%s: error: %s\n' "${0##*/}" "$*" >&2
  exit "${DIE_STATUS:-1}"
}

# require_cmd CMD [PACKAGE]: fail with the Debian package to install.
require_cmd() {
  command -v "$1" >/dev/null 2>&1 ||
    die "'$1' not found; install it (apt-get install ${2:-$1}) or run scripts/install-deps"
}

# run_settings DIR: the settings a gate run went by (the plan DIR/plan.json,
# written by scripts/gate), as one JSON object of name -> value; {} when the
# directory has none (compare run by hand). Fails when the file is not one.
run_settings() {
  local file=$1/plan.json
  if [[ ! -e $file ]]; then
    printf '{}\n'
    return 0
  fi
  jq -c -e 'select(.schema == "afpbench-plan/2") | .settings | objects' "$file" 2>/dev/null
}

# run_file DIR NAME OUT: the file NAME (baseline, thresholds, reference,
# trend) that the run's plan carried, written to OUT; fails when it carried
# none (or DIR has no plan).
run_file() {
  [[ -f $1/plan.json ]] &&
    jq -e --arg n "$2" 'select(.schema == "afpbench-plan/2") | .files[$n].content | objects' "$1/plan.json" >"$3" 2>/dev/null
}

# find_afpbench: set AFPBENCH to the binary to run (AFPBENCH_BIN, else the
# one on PATH, else this checkout's, built when needed; SCRIPTS is the
# caller's scripts/).
# shellcheck disable=SC2034 # AFPBENCH is the caller's
find_afpbench() {
  if [[ -n ${AFPBENCH_BIN:-} ]]; then
    AFPBENCH=$(command -v "$AFPBENCH_BIN") || die "AFPBENCH_BIN='$AFPBENCH_BIN' is not an executable"
  elif command -v afpbench >/dev/null 2>&1; then
    AFPBENCH=$(command -v afpbench)
  else
    local src="$SCRIPTS/../src/afpbench"
    if [[ ! -x $src/afpbench ]]; then
      [[ -f $src/Makefile ]] || die "no afpbench on PATH and no source at $src"
      log "building afpbench (make -C src/afpbench)"
      make -C "$src" -s >&2 || die "building afpbench failed"
    fi
    AFPBENCH="$(cd "$src" && pwd)/afpbench"
  fi
}
