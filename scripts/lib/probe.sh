# shellcheck shell=bash
# shellcheck disable=SC2034,SC2153 # the caller reads CHANGED, CACHED, BUILD_S, MEASURE_S and sets CACHE
# One commit of a netatalk repository built and measured: what scripts/bisect
# and scripts/backfill share. Source it after lib/common.sh; do not execute it.
#
# The caller sets: SCRIPTS, ROOT, WORK (where results and logs go), SRC (a
# clone of the repository, whose work tree the probes check out), CACHE (the
# kept measurements, or "off"), ENGINE (1: build and serve on the Docker
# engine), PORT, AFP_CONF, TESTS, ITERATIONS, AFPBENCH, TREE_NAME (the
# incremental tree of local-server, natively) and PROJECT (the compose
# project, on the engine).
#
# - The rule of what goes into the build (same_build, build_tree_id): a
#   commit whose built files equal its parent's builds the same server.
# - The plan (plan_of): the run's settings as scripts/gate --check prints
#   them; the measurements are kept under its content (cache_key).
# - measure NAME REV [BASELINE [FRESH]]: REV built and measured into WORK/NAME.

# A/A moves of at most this many calls (or bytes) still make a row exact: the
# one tail call a timed iteration may catch or miss, on either side. Bisect
# follows only exact rows; a backfill's steps are checked against it.
readonly EXACT_CALLS=2

# ------------------------------------------------------------ what is built

# The paths of a netatalk 4 checkout that go into no build the recipe
# (scripts/install-netatalk.sh) makes: it sets -Dwith-docs= (no manual, man
# pages or READMEs), -Dwith-init-style=none, -Dwith-tests=false and
# -Dwith-testsuite=false, and no meson.build reads these paths otherwise:
#   .github/            CI workflows, dependabot, templates (the website's
#                       documentation target reads one workflow: docs off)
#   doc/                the manual and man pages (built only with docs on)
#   test/               unit tests and the AFP test suite (tests off)
#   distrib/docker/     the project's own container images (distrib's
#                       meson.build reads initscripts/ only)
#   top-level *.md      README, NEWS, INSTALL... (the readmes docs target)
#   top-level dotfiles, Dockerfile, *.Dockerfile, docker-compose.yml,
#   sonar-project.properties: read by other tools, never by meson
# Conservative: a meson.build or meson_options.txt anywhere always counts
# (netatalk 4.3 reads doc/, test/ and distrib/ unconditionally, and their
# meson.build decides what they add), and so does every other path.
readonly UNBUILT_RE='^(\.github/|doc/|test/|distrib/docker/|[^/]*\.md$|\.[^/]*$|Dockerfile$|[^/]*\.Dockerfile$|docker-compose\.yml$|sonar-project\.properties$)'
readonly MESON_RE='(^|/)(meson\.build|meson_options\.txt|meson\.options)$'

# built_only: the paths on stdin (one a line) that go into the build.
built_only() { awk -v unbuilt="$UNBUILT_RE" -v meson="$MESON_RE" '$0 ~ meson || $0 !~ unbuilt'; }

# same_build A B: status 0 when every file that differs between commits A and
# B of SRC is outside the build; CHANGED then lists those files (for the log).
CHANGED=""
same_build() {
  local diff
  diff=$(git -C "$SRC" diff --name-only --no-renames "$1" "$2") || return 1
  [[ -z $(built_only <<<"$diff") ]] || return 1
  CHANGED=$diff
}

# build_tree_id REV: a hash of REV's files that go into the build (path, mode
# and content): two commits with one id build the same server.
build_tree_id() {
  git -C "$SRC" ls-tree -r --full-tree "$1" |
    awk -F'\t' -v unbuilt="$UNBUILT_RE" -v meson="$MESON_RE" '$2 ~ meson || $2 !~ unbuilt' |
    sha256sum | cut -c1-32
}

# ------------------------------------------------------------ the plan

# The settings of a plan that judge or name a run but do not change what it
# measures (thresholds, the baseline's name, the report's length, labels):
# left out of the cache key, as the plan's files are (the baseline, the
# thresholds file, the reference, the trend). Every other setting, the
# plan's servers, and any setting a later plan adds, are in it.
readonly JUDGE_ONLY='["AFPBENCH_BASELINE_MISSING","AFPBENCH_BASELINE_NAME","AFPBENCH_TIME_THRESHOLD","AFPBENCH_IO_THRESHOLD","AFPBENCH_CPU_THRESHOLD","AFPBENCH_SYS_THRESHOLD","AFPBENCH_INSTR_THRESHOLD","AFPBENCH_BASELINE_TIMINGS","AFPBENCH_REPORT_LIMIT","AFPBENCH_LABEL","AFPBENCH_COMMIT"]'

# plan_of [NAME=VALUE...]: the probes' plan (afpbench-plan/1, JSON) from the
# environment, the probes' tests and iterations, PLAN_EXTRA (settings the
# caller adds for a while) and the assignments given: the one place that
# asks for a plan (scripts/gate --check today).
PLAN_EXTRA=()
plan_of() {
  local assign=(AFPBENCH_ITERATIONS="$ITERATIONS" "${PLAN_EXTRA[@]}")
  [[ -z $TESTS ]] || assign+=(AFPBENCH_TESTS="$TESTS")
  env -u BASE_AFP_HOST -u BASE_AFP_PORT -u AFPBENCH_BASE_SHA "${assign[@]}" "$@" "$SCRIPTS/gate" --check
}

# server_json: what builds and serves the probes beside the tree, as JSON:
# the build recipe, the afp.conf, afpbench, and on the engine the images'
# recipe and compose's server settings.
server_json() {
  local recipe afp_conf="" images=""
  recipe=$(cat "$SCRIPTS/install-netatalk.sh" "$SCRIPTS/server-entrypoint.sh" | sha256sum | cut -c1-64)
  [[ -z $AFP_CONF ]] || afp_conf=$(sha256sum <"$AFP_CONF" | cut -c1-64)
  ((!ENGINE)) || images=$(cat "$ROOT/Dockerfile.server" "$ROOT/Dockerfile.client" "$ROOT/compose.yaml" | sha256sum | cut -c1-64)
  jq -n -c --arg recipe "$recipe" --arg afp_conf "$afp_conf" --arg afpbench "$(sha256sum <"$AFPBENCH" | cut -c1-64)" \
    --arg images "$images" --arg global "${AFP_EXTRA_GLOBAL:-}" --arg volume "${AFP_EXTRA_VOLUME:-}" \
    '{recipe: $recipe, afp_conf: $afp_conf, afpbench: $afpbench}
     + (if $images == "" then {} else {engine: {images: $images, global: $global, volume: $volume}} end)'
}

# cache_key REV: what decides REV's counts, hashed: the canonical form (jq -S
# -c) of the plan's settings that change what is measured, what it derives,
# its servers (version or source, afp.conf, CNID scheme), the build recipe,
# the afp.conf file, afpbench,
# and REV's built files (build_tree_id: a commit that changes no built file
# shares its parent's key). Empty with --cache off; status 1 when no plan
# can be made.
cache_key() {
  [[ $CACHE != off ]] || return 0
  local plan
  plan=$(plan_of 2>/dev/null) || return 1
  jq -S -c --argjson judge "$JUDGE_ONLY" --argjson server "$(server_json)" --arg tree "$(build_tree_id "$1")" \
    '{settings: (.settings | delpaths([$judge[] | [.]])), derived, plan_server: (.server // null),
      plan_base_server: (.base_server // null), server: ($server + {tree: $tree})}' <<<"$plan" | sha256sum | cut -c1-32
}

# ------------------------------------------------------------ kept measurements

# from_cache NAME KEY [BASELINE]: WORK/NAME from the measurement kept under
# KEY, judged again against BASELINE (the compare of this run, not the one it
# was kept from). Status 1 when none is kept.
from_cache() {
  local name=$1 key=$2 baseline=${3:-}
  [[ -n $key && -f $CACHE/$key/results.json ]] || return 1
  rm -rf "${WORK:?}/$name"
  mkdir -p "$WORK/$name"
  cp "$CACHE/$key/results.json" "$WORK/$name/" || return 1
  [[ ! -f $CACHE/$key/plan.json ]] || cp "$CACHE/$key/plan.json" "$WORK/$name/"
  judge "$name" "$baseline"
}

# judge NAME [BASELINE]: WORK/NAME/verdict.json from its results, against
# BASELINE when given (status 1 when no verdict could be made).
judge() {
  local args=()
  [[ -z ${2:-} ]] || args=(--baseline "$2")
  "$SCRIPTS/compare" "${args[@]}" --out "$WORK/$1/verdict.json" "$WORK/$1/results.json" \
    >"$WORK/$1.compare.log" 2>&1 || [[ -f $WORK/$1/verdict.json ]]
}

# to_cache NAME KEY: keep WORK/NAME's measurement under KEY.
to_cache() {
  [[ -n $2 ]] || return 0
  mkdir -p "$CACHE/$2.tmp"
  cp "$WORK/$1/results.json" "$CACHE/$2.tmp/"
  [[ ! -f $WORK/$1/plan.json ]] || cp "$WORK/$1/plan.json" "$CACHE/$2.tmp/"
  rm -rf "${CACHE:?}/$2"
  mv "$CACHE/$2.tmp" "$CACHE/$2"
}

# ------------------------------------------------------------ one probe

STARTED=0
# stop_server: the probe's server (on the engine, its stack) stopped, if one runs.
stop_server() {
  ((STARTED)) || return 0
  if ((ENGINE)); then
    compose down --timeout 10 >/dev/null 2>&1 || true
  else
    "$SCRIPTS/local-server" stop --port "$PORT" >/dev/null 2>&1 || true
  fi
  STARTED=0
}

# measure NAME REV [BASELINE [FRESH]]: REV built (only what changed) and
# served, the gate run on it into WORK/NAME (against BASELINE when given:
# its per-AFP-command pass and traces then name what moved); a measurement
# kept in the cache is taken instead unless FRESH is 1. Status 0 when measured; 2 when REV does not build or its server does not
# start; 3 when it cannot be checked out or its plan cannot be made (WHY says
# which). CACHED says whether it came from the cache.
WHY="" BUILD_S=0 MEASURE_S=0 CACHED=0
measure() {
  local name=$1 rev=$2 baseline=${3:-} fresh=${4:-0} env status=0 t0=$SECONDS key
  BUILD_S=0 MEASURE_S=0 CACHED=0
  # (an || caller turns set -e off in here: every failure is checked)
  if ! git -C "$SRC" checkout -q --force --detach "$rev" 2>"$WORK/$name.checkout.log"; then
    WHY="cannot check out ${rev:0:12}: $(tail -n 1 "$WORK/$name.checkout.log")"
    return 3
  fi
  if ! key=$(cache_key "$rev"); then
    WHY="its plan could not be made: $(plan_of 2>&1 >/dev/null | tail -n 1)"
    return 3
  fi
  if ((!fresh)) && [[ -n $key && -f $CACHE/$key/skip ]]; then
    CACHED=1
    WHY=$(head -c 300 "$CACHE/$key/skip")
    return 2
  fi
  if ((!fresh)) && from_cache "$name" "$key" "$baseline"; then
    CACHED=1
    MEASURE_S=$((SECONDS - t0))
    return 0
  fi
  if ((ENGINE)); then
    measure_engine "$name" "$rev" "$baseline" "$key"
    return
  fi
  # a tree of the caller's own: a server of the same project may run from
  # the default one meanwhile
  env=$("$SCRIPTS/local-server" start --port "$PORT" --netatalk-source "$SRC" --incremental="$TREE_NAME" \
    ${AFP_CONF:+--afp-conf "$AFP_CONF"} 2>"$WORK/$name.server.log") || status=$?
  BUILD_S=$((SECONDS - t0))
  if ((status == 4)); then
    WHY="does not build: $(grep -m1 -E 'error:|Error' "$WORK/$name.server.log" | cut -c1-200 || true)"
    # a tree that does not build never will: kept too (a server that does
    # not start may next time)
    [[ -z $key ]] || { mkdir -p "$CACHE/$key" && printf '%s\n' "$WHY" >"$CACHE/$key/skip"; }
    return 2
  elif ((status != 0)); then
    WHY="its server does not start: $(tail -n 1 "$WORK/$name.server.log")"
    return 2
  fi
  STARTED=1
  t0=$SECONDS
  status=0
  rm -rf "${WORK:?}/$name"
  mkdir -p "$WORK/$name"
  # the run is the probes' plan, its baseline this run's
  if ! plan_of AFPBENCH_BASELINE="$baseline" >"$WORK/$name.plan.json" 2>"$WORK/$name.gate.log"; then
    stop_server
    WHY="its plan could not be made: $(tail -n 1 "$WORK/$name.gate.log")"
    return 3
  fi
  (
    eval "$env"
    export AFP_HOST AFP_PORT AFP_USER AFP_PASS SHARE_NAME PROC_IO
    export AFPBENCH_BIN=$AFPBENCH AFPBENCH_RESULTS=$WORK/$name
    unset AFPBENCH_BASE_SHA BASE_AFP_HOST BASE_AFP_PORT
    "$SCRIPTS/gate" --plan "$WORK/$name.plan.json" >"$WORK/$name.gate.log" 2>&1
  ) || status=$?
  MEASURE_S=$((SECONDS - t0))
  stop_server
  if ((status == 3)) || [[ ! -f $WORK/$name/results.json ]]; then
    WHY="the measurement failed: $(grep -m1 'error' "$WORK/$name.gate.log" || tail -n 1 "$WORK/$name.gate.log")"
    return 2
  fi
  to_cache "$name" "$key"
}

# compose [NAME=VALUE...] ARGS...: docker compose on this repository's
# compose.yaml, as a project of the caller's own (a stack the user runs
# stays apart), building the server from the probe's tree (WORK/tree); the
# assignments go to its environment, and no A/B setting of the caller's does.
compose() {
  local assign=()
  while [[ ${1:-} =~ ^[A-Z_]+= ]]; do
    assign+=("$1")
    shift
  done
  env -u AFPBENCH_BASE_SHA -u BASE_AFP_HOST -u BASE_AFP_PORT -u COMPOSE_PROFILES \
    NETATALK_SOURCE="$WORK/tree" SERVER_TARGET=server-source SERVER_DOCKERFILE="$ROOT/Dockerfile.server" "${assign[@]}" \
    docker compose --project-directory "$ROOT" -f "$ROOT/compose.yaml" -p "$PROJECT" "$@"
}

# export_tree REV: REV's files alone in WORK/tree, the engine's build context:
# git archive's (no .git, whose index and HEAD change with every checkout and
# would make every probe a new image), and the meson subprojects beside them.
export_tree() {
  local sub
  rm -rf "${WORK:?}/tree"
  mkdir -p "$WORK/tree"
  git -C "$SRC" archive --format=tar "$1" | tar -x -C "$WORK/tree" || return 1
  for sub in "$SRC"/subprojects/*/; do
    [[ -d $sub && ! -e $WORK/tree/subprojects/$(basename "$sub") ]] || continue
    cp -a "$sub" "$WORK/tree/subprojects/"
  done
}

# measure_engine NAME REV BASELINE KEY: measure's engine half: REV's server
# image built (the image cache's when this tree was built before), the stack
# run on the tests measured only, and the verdict against BASELINE made here
# (the baseline stays on this side).
measure_engine() {
  local name=$1 rev=$2 baseline=$3 key=$4 status=0 t0=$SECONDS
  if ! export_tree "$rev" 2>"$WORK/$name.checkout.log"; then
    WHY="cannot export ${rev:0:12}: $(tail -n 1 "$WORK/$name.checkout.log")"
    return 3
  fi
  compose build server client >"$WORK/$name.build.log" 2>&1 || status=$?
  BUILD_S=$((SECONDS - t0))
  if ((status != 0)); then
    # (BuildKit's "#11 12.32 " step and time go)
    WHY="does not build: $(grep -m1 -E 'error:|ERROR' "$WORK/$name.build.log" | sed -E 's/^#[0-9]+ [0-9.]+ //' | cut -c1-200 || true)"
    # a build can fail for the engine's sake too (out of disk, no
    # registry): kept as a tree that does not build only when the compiler said so
    if [[ -n $key ]] && grep -q 'error:' "$WORK/$name.build.log"; then
      mkdir -p "$CACHE/$key" && printf '%s\n' "$WHY" >"$CACHE/$key/skip"
    fi
    return 2
  fi
  t0=$SECONDS
  rm -rf "${WORK:?}/$name"
  mkdir -p "$WORK/$name"
  status=0
  # the client's plan: the tests measured only (the verdict is made here)
  plan_of AFPBENCH_BASELINE="" >"$WORK/$name/.probe-plan.json" 2>"$WORK/$name.gate.log" || {
    WHY="its plan could not be made: $(tail -n 1 "$WORK/$name.gate.log")"
    return 3
  }
  local run=(AFPBENCH_RESULTS_DIR="$WORK/$name" AFPBENCH_PLAN=/results/.probe-plan.json
    AFPBENCH_RESULTS_OWNER="$(id -u):$(id -g)")
  STARTED=1
  compose "${run[@]}" up --abort-on-container-exit --exit-code-from client >"$WORK/$name.gate.log" 2>&1 || status=$?
  stop_server
  MEASURE_S=$((SECONDS - t0))
  if [[ ! -f $WORK/$name/results.json ]]; then
    if grep -qE 'unhealthy|dependency failed' "$WORK/$name.gate.log"; then
      WHY="its server does not start: $(grep -m1 -E 'unhealthy|dependency failed' "$WORK/$name.gate.log" | cut -c1-200)"
    else
      WHY="the measurement failed (compose exited $status): $(tail -n 1 "$WORK/$name.gate.log" | cut -c1-200)"
    fi
    return 2
  fi
  judge "$name" "$baseline" || {
    WHY="its verdict could not be made: $(tail -n 1 "$WORK/$name.compare.log")"
    return 2
  }
  to_cache "$name" "$key"
}

# copy_subprojects REPO: the meson subprojects REPO's work tree has
# downloaded (git ignores them) copied into SRC, so that the probes build
# offline as that tree does.
copy_subprojects() {
  local sub
  while IFS= read -r sub; do
    mkdir -p "$SRC/$(dirname "$sub")"
    cp -a "$1/$sub" "$SRC/$(dirname "$sub")/"
  done < <(git -C "$1" ls-files --others --ignored --exclude-standard --directory -- subprojects 2>/dev/null | sed 's:/$::')
}
