# shellcheck shell=bash
# The plan's maker, as functions: scripts/plan is its command, and scripts/gate
# sources it to check the plan it runs and the place in its own shell (no
# program started for that). Source after common.sh, with SCRIPTS set and
# `shopt -s inherit_errexit` (a check that dies inside $(...) stops the
# caller), then call plan_init. What a plan is: scripts/plan's header and
# docs/settings.md.

readonly SETTINGS_TABLE="$SCRIPTS/settings.json"
# where compose.yaml's A/B base server listens, beside the head (its default)
readonly COMPOSE_BASE_PORT=549
readonly PLAN_SCHEMA=afpbench-plan/2
readonly SPEED_OPS=(Read Write Copy ServerCopy)
# afpbench speedtest's sweep without sizes (4 KiB to 512 MiB, each twice the
# one before), in MiB, for the deadline: `afpbench speedtest --list-sizes`
# prints afpbench's, and afpbench_cli.bats holds the two equal.
readonly SPEED_DEFAULT_SIZES=0.00390625,0.0078125,0.015625,0.03125,0.0625,0.125,0.25,0.5,1,2,4,8,16,32,64,128,256,512
# The lantest tests and their groups: afpbench's own table, as `afpbench
# lantest --list --json` writes it (afpbench_cli.bats holds the two equal).
readonly LANTEST_CATALOGUE="$SCRIPTS/lantest-tests.json"
MAX_LANTEST=$(jq -e '.tests | length' "$LANTEST_CATALOGUE" 2>/dev/null) ||
  die "cannot read the lantest catalogue $LANTEST_CATALOGUE"
readonly MAX_LANTEST

# trim TEXT: TEXT without blanks at either end.
trim() {
  local t=${1#"${1%%[![:space:]]*}"}
  printf '%s' "${t%"${t##*[![:space:]]}"}"
}

# ------------------------------------------------------------ the grammars

# The selection grammars are the action's too (src/action/inputs.ts), and both
# are tested on one fixture of accepted and refused specs
# (scripts/tests/fixtures/specs.json; scripts/tests/gate.bats, specs.test.ts).

# check_tests SPEC: a lantest selection — numbers and ranges of the
# catalogue's tests ("1-12", "1,4,10", "2-5,9"; a lone number is one test), or
# a group ("all", a group of the catalogue: "files" = 1-8, "cache" = 9-12;
# "none"); blanks around items are ignored ("1 2" is no test), so are empty
# items ("1,,3"). Sets TESTS_SELECTED to the tests, e.g. "1 3 10".
check_tests() {
  local spec=$1 compact item lo hi t selected=() group groups
  compact=$(trim "$spec")
  group=$(jq -r --arg g "${compact,,}" '[.tests[] | select($g == "all" or .group == $g) | .id]
    | map(tostring) | join(",")' "$LANTEST_CATALOGUE")
  [[ -z $group ]] || compact=$group
  groups=$(jq -r '["all"] + [.tests[].group] | unique | join(", ")' "$LANTEST_CATALOGUE")
  local -a items
  IFS=, read -ra items <<<"$compact"
  local -A seen=()
  for item in "${items[@]}"; do
    item=$(trim "$item")
    [[ -n $item ]] || continue
    [[ $item =~ ^([0-9]{1,3})(-([0-9]{1,3}))?$ ]] ||
      die "AFPBENCH_TESTS='$spec': '$item' is not a test number or range of 1-$MAX_LANTEST (use e.g. 1-$MAX_LANTEST, 1,4,10, or a group: $groups, none)"
    lo=$((10#${BASH_REMATCH[1]})) hi=$((10#${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}))
    ((lo >= 1 && hi <= MAX_LANTEST && lo <= hi)) ||
      die "AFPBENCH_TESTS='$spec': '$item' is not a test number or range of 1-$MAX_LANTEST (use e.g. 1-$MAX_LANTEST, 1,4,10, or a group: $groups, none)"
    for ((t = lo; t <= hi; t++)); do seen[$t]=1; done
  done
  for ((t = 1; t <= MAX_LANTEST; t++)); do [[ -z ${seen[$t]:-} ]] || selected+=("$t"); done
  ((${#selected[@]})) || die "AFPBENCH_TESTS='$spec' selects no test"
  TESTS_SELECTED="${selected[*]}"
}

# check_speedtest SPEC: "OPS[:SIZES]" — operations of Read, Write, Copy,
# ServerCopy in any letter case, sizes in MiB from 1 byte to 4096 (at most 32;
# decimals allowed: 0.00390625 is 4 KiB); "none" or empty: no speedtest. Sets
# SPEED_OPS_ARG (canonical names, duplicates dropped) and SPEED_SIZES_ARG.
check_speedtest() {
  local spec=$1 compact ops sizes op name known list size
  compact=$(trim "$spec")
  [[ -n $compact && ${compact,,} != none ]] || return 0
  [[ $compact != *:*:* ]] || die "AFPBENCH_SPEEDTEST='$spec' has more than one ':' (use OPS or OPS:SIZES)"
  ops=$(trim "${compact%%:*}")
  [[ -n $ops ]] || die "AFPBENCH_SPEEDTEST='$spec' names no operation (e.g. Read,Write:1,8,64)"
  IFS=, read -ra list <<<"$ops"
  local canonical=()
  for op in "${list[@]}"; do
    op=$(trim "$op")
    known=""
    for name in "${SPEED_OPS[@]}"; do [[ ${op,,} == "${name,,}" ]] && known=$name; done
    [[ -n $known ]] ||
      die "AFPBENCH_SPEEDTEST='$spec': '$op' is not a speedtest operation (one of: ${SPEED_OPS[*]})"
    [[ " ${canonical[*]} " == *" $known "* ]] || canonical+=("$known")
  done
  SPEED_OPS_ARG=$(
    IFS=,
    printf '%s' "${canonical[*]}"
  )
  [[ $compact == *:* ]] || return 0
  sizes=$(trim "${compact#*:}")
  IFS=, read -ra list <<<"$sizes"
  ((${#list[@]} <= 32)) || die "AFPBENCH_SPEEDTEST='$spec': at most 32 sizes"
  [[ $sizes != *, && $sizes != ,* && $sizes != *,,* && -n $sizes ]] ||
    die "AFPBENCH_SPEEDTEST='$spec': an empty size"
  local trimmed=()
  for size in "${list[@]}"; do
    size=$(trim "$size")
    trimmed+=("$size")
    if [[ ! $size =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
      ! awk -v m="$size" 'BEGIN { exit !(m * 1048576 >= 1 && m <= 4096) }'; then
      die "AFPBENCH_SPEEDTEST='$spec': size '$size' is not a number of MiB between 1 byte and 4096 (e.g. Read,Write:1,64)"
    fi
  done
  SPEED_SIZES_ARG=$(
    IFS=,
    printf '%s' "${trimmed[*]}"
  )
}

# check_load SPEC: "COUNTS[:SECONDS]"; sets LOAD_COUNTS_ARG and LOAD_SECONDS_ARG.
check_load() {
  local spec=$1 counts seconds n list
  # blanks anywhere are ignored: " 1, 8 :5" is 1,8:5
  counts=${spec//[[:space:]]/}
  seconds=${counts#*:}
  [[ $counts == *:* ]] || seconds=5
  counts=${counts%%:*}
  [[ $counts =~ ^[0-9]{1,4}(,[0-9]{1,4}){0,15}$ ]] ||
    die "AFPBENCH_LOAD='$spec' is not session counts with optional seconds, like 1,8,32:5"
  IFS=, read -ra list <<<"$counts"
  for n in "${list[@]}"; do
    ((10#$n >= 1 && 10#$n <= 1024)) || die "AFPBENCH_LOAD='$spec': session count '$n' is not within 1-1024"
    # the writers only touch files: a step needs a session left that reads them
    ((10#$n > 10#${AFPBENCH_LOAD_WRITERS:-0})) ||
      die "AFPBENCH_LOAD_WRITERS=$AFPBENCH_LOAD_WRITERS leaves no session to read at $((10#$n)) sessions (AFPBENCH_LOAD='$spec'): every load step needs more sessions than writers"
  done
  if [[ ! $seconds =~ ^[0-9]{1,5}$ ]] || ((10#$seconds < 1)); then
    die "AFPBENCH_LOAD='$spec': '$seconds' is not whole seconds (1 or more)"
  fi
  LOAD_COUNTS_ARG=$(
    IFS=,
    for n in "${list[@]}"; do printf '%s\n' $((10#$n)); done | paste -sd,
  )
  LOAD_SECONDS_ARG=$((10#$seconds))
}

# check_spotlight SPEC: "FILES[:QUERIES]" (afpbench spotlight's --files and
# --queries); sets SPOT_FILES_ARG and SPOT_QUERIES_ARG.
check_spotlight() {
  local spec=${1//[[:space:]]/} files queries
  files=${spec%%:*}
  queries=${spec#*:}
  [[ $spec == *:* ]] || queries=10
  [[ $files =~ ^[0-9]{1,6}$ && $queries =~ ^[0-9]{1,4}$ ]] ||
    die "AFPBENCH_SPOTLIGHT='$1' is not a file count with optional searches, like 1000 or 10000:3"
  ((10#$files >= 1 && 10#$files <= 100000)) || die "AFPBENCH_SPOTLIGHT='$1': $files files is not within 1-100000"
  ((10#$queries >= 1 && 10#$queries <= 1000)) || die "AFPBENCH_SPOTLIGHT='$1': $queries searches is not within 1-1000"
  SPOT_FILES_ARG=$((10#$files))
  SPOT_QUERIES_ARG=$((10#$queries))
}

# check_bigdir SPEC: "SIZES" (afpbench bigdir's --entries: up to 4 directory
# sizes, each 1-200000); sets BIGDIR_ARG.
check_bigdir() {
  local spec=${1//[[:space:]]/} n list
  [[ $spec =~ ^[0-9]{1,6}(,[0-9]{1,6}){0,3}$ ]] ||
    die "AFPBENCH_BIGDIR='$1' is not up to 4 directory sizes, like 10000,50000"
  IFS=, read -ra list <<<"$spec"
  for n in "${list[@]}"; do
    ((10#$n >= 1 && 10#$n <= 200000)) || die "AFPBENCH_BIGDIR='$1': $n entries is not within 1-200000"
    BIGDIR_ARG+=${BIGDIR_ARG:+,}$((10#$n))
  done
}

# check_port NAME VALUE: a TCP port, or die naming the variable.
check_port() {
  if [[ ! $2 =~ ^[0-9]{1,5}$ ]] || ((10#$2 < 1 || 10#$2 > 65535)); then
    die "$1='$2' is not a TCP port"
  fi
}

# check_value NAME GRAMMAR: NAME's value is one GRAMMAR allows, or die naming it.
# tests, speedtest and load are read by their own checks (check_tests, …),
# which also say what they select; files and the server by theirs.
check_value() {
  local name=$1 v=${!1:-}
  case $2 in
    any | tests | speedtest | load | spotlight | bigdir | file | afp-conf | netatalk-source) ;;
    text) [[ -n $v ]] || die "$name is empty" ;;
    port) check_port "$name" "$v" ;;
    port-or-empty) [[ -z $v ]] || check_port "$name" "$v" ;;
    iterations)
      [[ -z $v ]] || { [[ $v =~ ^[0-9]{1,3}$ ]] && ((10#$v >= 1 && 10#$v <= 255)); } ||
        die "$name='$v' must be a whole number from 1 to 255"
      ;;
    afp-version)
      [[ -z $v || $v =~ ^[3-7]$ ]] ||
        die "$name='$v' must be 3..7 (AFP 3.0 to 3.4), as afp_lantest's -3..-7"
      ;;
    percent)
      # "2.5" or "2.5%"; kept as the number
      [[ -z $v ]] || { [[ $v =~ ^([0-9]+(\.[0-9]+)?)\ *%?$ ]] &&
        awk -v p="${BASH_REMATCH[1]}" 'BEGIN { exit !(p > 0 && p <= 1000) }'; } ||
        die "$name='$v' is not a percentage above 0 and at most 1000 (e.g. 10 or 2.5%)"
      [[ -z $v ]] || printf -v "$name" '%s' "${BASH_REMATCH[1]}"
      ;;
    seconds)
      [[ -z $v ]] || { [[ $v =~ ^[0-9]{1,6}$ ]] && ((10#$v >= 1 && 10#$v <= 604800)); } ||
        die "$name='$v' must be whole seconds from 1 to 604800"
      ;;
    count)
      [[ -z $v ]] || { [[ $v =~ ^[0-9]{1,9}$ ]] && ((10#$v >= 1)); } || die "$name='$v' is not a whole number above 0"
      ;;
    show-gate) [[ -z $v || $v == show || $v == gate ]] || die "$name='$v' must be show or gate" ;;
    on-off) [[ -z $v || $v == on || $v == off ]] || die "$name='$v' must be on or off" ;;
    cpu)
      [[ -z $v || $v == auto || $v == off ]] || { [[ $v =~ ^[0-9]{1,4}$ ]] && ((10#$v <= 1023)); } ||
        die "$name='$v' must be auto, off or a CPU number (0-1023)"
      ;;
    yes-no) [[ -z $v || $v == yes || $v == no ]] || die "$name='$v' must be yes or no" ;;
    budget)
      [[ -z $v ]] || { [[ $v =~ ^[0-9]{1,5}$ ]] && ((10#$v <= 86400)); } ||
        die "$name='$v' must be whole seconds from 0 (off) to 86400"
      ;;
    load-mix)
      [[ -z $v || $v =~ ^[a-z]+(:[0-9]+)?(,[a-z]+(:[0-9]+)?)*$ ]] ||
        die "$name='$v' is not a mix like read:8,stat:1"
      ;;
    netatalk-version)
      [[ -z $v || $v =~ ^[0-9A-Za-z.+:~-]{1,64}$ ]] ||
        die "$name='$v' is not a Debian package version (e.g. 4.5.1 or 4.5.1~ds-1)"
      ;;
    *) die "the settings table gives $name the grammar '$2', which scripts/plan does not know (a bug)" ;;
  esac
}

# ------------------------------------------------------------- the settings

# table_rows: "ENV<TAB>GRAMMAR<TAB>ROLE<TAB>DEFAULT<TAB>DEFAULT_AB" for every
# row; ROLE is place (the table's place_groups: never in a plan), server or
# base_server (the server section: group server), file (carried whole), or
# setting.
table_rows() {
  jq -r '.place_groups as $place
    | .settings[]
    | (if (.group as $g | $place | index($g)) then "place"
       elif .group == "server" then (if (.env | startswith("BASE_")) then "base_server" else "server" end)
       elif .grammar == "file" then "file"
       else "setting" end) as $role
    | [.env, .grammar, $role, .default, (.default_ab // .default)] | @tsv' "$SETTINGS_TABLE" ||
    die "cannot read the settings table $SETTINGS_TABLE"
}

# load_table: the table's rows into ROLE (env -> role) and ROWS (their lines).
load_table() {
  local env grammar role rest
  mapfile -t ROWS < <(table_rows)
  for rest in "${ROWS[@]}"; do
    IFS=$'\t' read -r env grammar role _ <<<"$rest"
    ROLE[$env]=$role
  done
}

# read_settings: every setting unset or empty takes the table's default (an
# A/B run's where the row has one), then each is checked by its grammar.
read_settings() {
  local env grammar role default default_ab row
  AB=no
  [[ -z ${BASE_AFP_HOST:-}${BASE_AFP_PORT:-} ]] || AB=yes
  for row in "${ROWS[@]}"; do
    IFS=$'\t' read -r env grammar role default default_ab <<<"$row"
    [[ $AB == no ]] || default=$default_ab
    [[ -n ${!env:-} ]] || printf -v "$env" '%s' "$default"
    check_value "$env" "$grammar"
  done
  [[ $AB == no || -z $AFPBENCH_BASELINE ]] ||
    die "AFPBENCH_BASELINE=$AFPBENCH_BASELINE and BASE_AFP_HOST/BASE_AFP_PORT are both set: an A/B run measures its own base; set one of them"
  [[ $AB == yes || -z $BASE_NETATALK_VERSION$BASE_NETATALK_SOURCE$BASE_AFP_CONF ]] ||
    die "BASE_NETATALK_VERSION, BASE_NETATALK_SOURCE and BASE_AFP_CONF describe an A/B run's base, and no base is named (BASE_AFP_HOST or BASE_AFP_PORT)"
  AFPBENCH_ITERATIONS=$((10#$AFPBENCH_ITERATIONS))
  ((AFPBENCH_ITERATIONS >= 5)) ||
    warn "AFPBENCH_ITERATIONS=$AFPBENCH_ITERATIONS: with fewer than 5 samples timings need twice the threshold to fail (A/B: fewer than 5 pairs give no interval, timings cannot fail)"
  read_suites
  check_deadline
}

# read_suites: what each suite runs; at least one runs.
read_suites() {
  TESTS_SELECTED="" SPEED_OPS_ARG="" SPEED_SIZES_ARG="" LOAD_COUNTS_ARG="" LOAD_SECONDS_ARG=""
  SPOT_FILES_ARG="" SPOT_QUERIES_ARG="" BIGDIR_ARG=""
  [[ $(trim "${AFPBENCH_TESTS,,}") == none ]] || check_tests "$AFPBENCH_TESTS"
  check_speedtest "$AFPBENCH_SPEEDTEST"
  [[ -z $(trim "$AFPBENCH_LOAD") || $(trim "${AFPBENCH_LOAD,,}") == none ]] || check_load "$AFPBENCH_LOAD"
  [[ -z $(trim "$AFPBENCH_SPOTLIGHT") || $(trim "${AFPBENCH_SPOTLIGHT,,}") == none ]] ||
    check_spotlight "$AFPBENCH_SPOTLIGHT"
  [[ -z $(trim "$AFPBENCH_BIGDIR") || $(trim "${AFPBENCH_BIGDIR,,}") == none ]] ||
    check_bigdir "$AFPBENCH_BIGDIR"
  [[ -n $TESTS_SELECTED$SPEED_OPS_ARG$LOAD_COUNTS_ARG$SPOT_FILES_ARG$BIGDIR_ARG ]] ||
    die "nothing to run: AFPBENCH_TESTS is none and AFPBENCH_SPEEDTEST, AFPBENCH_LOAD, AFPBENCH_SPOTLIGHT and AFPBENCH_BIGDIR are empty"
  # instructions are counted for lantest's tests only, on a server that
  # valgrind slows several times over: a speedtest or load there would measure
  # valgrind, and its counts would not be taken
  if [[ -n $AFPBENCH_INSTR_DIR ]]; then
    [[ -n $TESTS_SELECTED ]] || die "AFPBENCH_INSTR_DIR counts lantest's tests, and AFPBENCH_TESTS=none"
    local other
    for other in SPEEDTEST:$SPEED_OPS_ARG LOAD:$LOAD_COUNTS_ARG SPOTLIGHT:$SPOT_FILES_ARG BIGDIR:$BIGDIR_ARG; do
      [[ -z ${other#*:} ]] ||
        die "AFPBENCH_INSTR_DIR counts lantest's tests only and cannot run with AFPBENCH_${other%%:*}: run those in a job of their own"
    done
  fi
  # A/B with instructions: each side its own instrumented server
  if [[ $AB == yes && -n $AFPBENCH_INSTR_DIR$BASE_AFPBENCH_INSTR_DIR ]]; then
    [[ -n $AFPBENCH_INSTR_DIR && -n $BASE_AFPBENCH_INSTR_DIR ]] ||
      die "A/B with instructions needs both AFPBENCH_INSTR_DIR and BASE_AFPBENCH_INSTR_DIR (each side's instrumented server), or neither"
  elif [[ -n $BASE_AFPBENCH_INSTR_DIR ]]; then
    die "BASE_AFPBENCH_INSTR_DIR is set without a base server (BASE_AFP_HOST or BASE_AFP_PORT)"
  fi
}

# check_deadline: AFPBENCH_DEADLINE (checked by its grammar), or one derived
# from the work asked for; sets DEADLINE_S.
check_deadline() {
  if [[ -n $AFPBENCH_DEADLINE ]]; then
    DEADLINE_S=$((10#$AFPBENCH_DEADLINE))
    return
  fi
  local n=$AFPBENCH_ITERATIONS lantest_tests=0 toks ops=0 per_op=0 size sides=1
  read -ra toks <<<"$TESTS_SELECTED"
  lantest_tests=${#toks[@]}
  [[ $AB == no ]] || sides=2
  if [[ -n $SPEED_OPS_ARG ]]; then
    IFS=, read -ra toks <<<"$SPEED_OPS_ARG"
    ops=${#toks[@]}
    IFS=, read -ra toks <<<"${SPEED_SIZES_ARG:-$SPEED_DEFAULT_SIZES}"
    for size in "${toks[@]}"; do per_op=$((per_op + 30 + ${size%.*} + 1)); done
  fi
  local load_s=0 steps
  if [[ -n $LOAD_COUNTS_ARG ]]; then
    IFS=, read -ra steps <<<"$LOAD_COUNTS_ARG"
    load_s=$((60 + ${#steps[@]} * (LOAD_SECONDS_ARG + 30) * sides))
  fi
  # spotlight: making the files (a millisecond each, ten on a slow disk),
  # then each search (4.5.1 took 6 s for 10,000 results on a busy machine)
  local spot_s=0
  [[ -z $SPOT_FILES_ARG ]] ||
    spot_s=$((60 + sides * (SPOT_FILES_ARG / 100 + n * SPOT_QUERIES_ARG * (5 + SPOT_FILES_ARG / 500))))
  # bigdir: making each directory (as spotlight's files), then per
  # iteration a listing and a stat of every entry (a millisecond each)
  local bigdir_s=0
  if [[ -n $BIGDIR_ARG ]]; then
    IFS=, read -ra steps <<<"$BIGDIR_ARG"
    for size in "${steps[@]}"; do bigdir_s=$((bigdir_s + 60 + sides * (size / 50 + n * (10 + size / 200)))); done
  fi
  # lantest: one more pass of each test, untimed, for the attribution
  # A/B: the pairs added while a timing is undecided (settle_pairs)
  local settle_s=0
  [[ $AB == no || $lantest_tests == 0 ]] || settle_s=$((10#${AFPBENCH_AB_BUDGET:-0}))
  DEADLINE_S=$((120 + 60 * (n + 1) * lantest_tests + (n + 1) * ops * per_op + load_s + spot_s + bigdir_s + settle_s))
}

# test_ranges "1 2 3 10": the tests as ranges, "1-3,10"; "" for none.
test_ranges() {
  local out="" lo="" prev="" t
  for t in $1 ""; do
    if [[ -n $prev && -n $t && $t -eq $((prev + 1)) ]]; then
      prev=$t
      continue
    fi
    if [[ -n $lo ]]; then
      out+="${out:+,}$lo"
      [[ $prev == "$lo" ]] || out+="-$prev"
    fi
    lo=$t prev=$t
  done
  printf '%s' "$out"
}

# ---------------------------------------------------- the server and files

# afp_conf_json FILE NAME: the settings FILE serves ({global, volume}; the
# one check of such a file, scripts/afp-conf), or die naming NAME.
afp_conf_json() {
  local said
  said=$("$SCRIPTS/afp-conf" "$1" 2>&1) || die "$2=$1: ${said#*error: }"
  jq -c '{global, volume}' <<<"$said"
}

# source_json DIR NAME: a netatalk source tree: its path, and its commit
# where it is a git checkout (the commit a replay must check out).
source_json() {
  local dir=$1 commit="" dirty=false
  [[ -d $dir ]] || die "$2=$dir is not a directory (a netatalk source checkout)"
  dir=$(cd "$dir" && pwd)
  if commit=$(git -C "$dir" rev-parse --verify --quiet 'HEAD^{commit}' 2>/dev/null); then
    [[ -z $(git -C "$dir" status --porcelain --untracked-files=no 2>/dev/null) ]] || dirty=true
  fi
  jq -n -c --arg path "$dir" --arg commit "$commit" --argjson dirty "$dirty" \
    '{path: $path, commit: (if $commit == "" then null else $commit end), dirty: $dirty}'
}

# server_json PREFIX: the server section of a side (PREFIX: "" for the server
# under test, BASE_ for an A/B base, whose afp.conf is the head's unless
# BASE_AFP_CONF names one): what serves it, and the afp.conf it serves.
server_json() {
  local p=$1 version source conf src=null settings='{"global":[],"volume":[]}'
  version=${p}NETATALK_VERSION source=${p}NETATALK_SOURCE conf=${p}AFP_CONF
  [[ -z ${!version} || -z ${!source} ]] || die "$version and $source are both set: a server is a Debian package or a source tree"
  [[ -z ${!source} ]] || src=$(source_json "${!source}" "$source")
  if [[ -n ${!conf} ]]; then
    settings=$(afp_conf_json "${!conf}" "$conf")
  elif [[ -n $p && -n $AFP_CONF ]]; then
    settings=$(afp_conf_json "$AFP_CONF" AFP_CONF)
  fi
  jq -n -c --arg version "${!version}" --argjson source "$src" --argjson conf "$settings" '
    {netatalk_version: $version, netatalk_source: $source, afp_conf: $conf,
     cnid_scheme: ([$conf.volume[] | select(test("^\\s*cnid scheme\\s*="; "i")) | sub("^[^=]*=\\s*"; "") | sub("\\s+$"; "")] | last // "dbd")}'
}

# file_json NAME: the file NAME's setting names, carried whole: its name (as
# given; relative to the working directory when under it, so that a plan made
# in a checkout names "baselines/x.json" wherever it is), its sha256 and its
# content (JSON); null when the setting is empty.
# The baseline is checked as the verdict will read it, before minutes of
# measuring; the others must be JSON.
file_json() {
  local name=$1 file=${!1} err sum
  [[ -n $file ]] || {
    echo null
    return
  }
  [[ -f $file && -r $file ]] || case $name in
    AFPBENCH_BASELINE) die "AFPBENCH_BASELINE=$file: no such file (empty AFPBENCH_BASELINE measures without comparing)" ;;
    *) die "$name=$file: no such file" ;;
  esac
  [[ -s $file ]] || die "$name=$file: empty file (0 bytes)"
  if [[ $name == AFPBENCH_BASELINE ]] &&
    ! err=$(jq -L "$SCRIPTS/jq" 'include "results"; any_side("baseline \(input_filename)") | empty' "$file" 2>&1); then
    die "AFPBENCH_BASELINE=$file: ${err#jq: error (at *): }"
  fi
  jq -e 'type == "object"' "$file" >/dev/null 2>&1 || die "$name=$file: not a JSON object"
  sum=$(sha256sum "$file") || die "$name=$file: cannot read it"
  local shown=$file
  [[ $file != "$PWD"/* ]] || shown=${file#"$PWD"/}
  jq -c --arg name "$shown" --arg sum "${sum%% *}" '{name: $name, sha256: $sum, content: .}' "$file"
}

# ------------------------------------------------------------------ the plan

# plan_json: the plan of the settings read (read_settings).
plan_json() {
  local env values=() files=() base=null server carried
  for env in "${!ROLE[@]}"; do
    case ${ROLE[$env]} in
      setting) values+=("$env" "$(setting_value "$env")") ;;
      file)
        carried=$(file_json "$env")
        files+=("$env" "$carried")
        ;;
    esac
  done
  server=$(server_json '')
  [[ $AB == no ]] || base=$(server_json BASE_)
  local suites="${TESTS_SELECTED:+lantest }${SPEED_OPS_ARG:+speedtest }${LOAD_COUNTS_ARG:+load }${SPOT_FILES_ARG:+spotlight }${BIGDIR_ARG:+bigdir}"
  jq -n -c --arg schema "$PLAN_SCHEMA" --arg ab "$AB" --arg n "$AFPBENCH_ITERATIONS" --arg deadline "$DEADLINE_S" \
    --arg tests "$TESTS_SELECTED" --arg suites "$suites" \
    --arg ops "$SPEED_OPS_ARG" --arg sizes "$SPEED_SIZES_ARG" --arg default_sizes "$SPEED_DEFAULT_SIZES" \
    --arg load "$LOAD_COUNTS_ARG" --arg load_s "$LOAD_SECONDS_ARG" \
    --arg spot "$SPOT_FILES_ARG" --arg spot_q "$SPOT_QUERIES_ARG" --arg bigdir "$BIGDIR_ARG" \
    --argjson server "$server" --argjson base "$base" \
    --argjson files "$(jq -n -c '$ARGS.positional | [range(0; length; 2) as $i | {key: (.[$i] | ascii_downcase | sub("^afpbench_"; "")), value: (.[$i + 1] | fromjson)}] | from_entries' --args "${files[@]}")" '
    def nums: [splits("[ ,]") | select(. != "") | tonumber];
    $ARGS.positional | [range(0; length; 2) as $i | {key: .[$i], value: .[$i + 1]}] | sort_by(.key) | from_entries
    | {schema: $schema, settings: ., server: $server, base_server: $base, files: $files,
       derived: {ab: ($ab == "yes"), iterations: ($n | tonumber), deadline_seconds: ($deadline | tonumber),
                 suites: [$suites | splits(" ") | select(. != "")],
                 lantest_tests: ($tests | nums),
                 speedtest_ops: [$ops | splits(",") | select(. != "")],
                 speedtest_sizes_mib: (if $ops == "" then [] else (if $sizes == "" then $default_sizes else $sizes end) | nums end),
                 speedtest_sizes_given: ($sizes != ""),
                 load_sessions: ($load | nums), load_seconds: (if $load == "" then null else $load_s | tonumber end),
                 spotlight_files: (if $spot == "" then null else $spot | tonumber end),
                 spotlight_searches: (if $spot == "" then null else $spot_q | tonumber end),
                 bigdir_entries: ($bigdir | nums)}}' --args "${values[@]}" || die "cannot write the plan"
}

# setting_value ENV: a setting as the plan holds it, normalised where the
# grammar normalises it.
setting_value() {
  case $1 in
    AFPBENCH_TESTS)
      if [[ -n $TESTS_SELECTED ]]; then test_ranges "$TESTS_SELECTED"; else echo none; fi
      ;;
    AFPBENCH_SPEEDTEST) printf '%s' "$SPEED_OPS_ARG${SPEED_SIZES_ARG:+:$SPEED_SIZES_ARG}" ;;
    AFPBENCH_LOAD) printf '%s' "${LOAD_COUNTS_ARG:+$LOAD_COUNTS_ARG:$LOAD_SECONDS_ARG}" ;;
    AFPBENCH_SPOTLIGHT) printf '%s' "${SPOT_FILES_ARG:+$SPOT_FILES_ARG:$SPOT_QUERIES_ARG}" ;;
    AFPBENCH_BIGDIR) printf '%s' "$BIGDIR_ARG" ;;
    *) printf '%s' "${!1:-}" ;;
  esac
}

# from_plan FILE: a plan's settings in place of the environment's (which
# keeps only the place), its server and files as they are; an unreadable
# plan, or one with a setting that is not a plan's, stops here naming it.
# Its settings are checked as the environment's would be, and it is printed
# again, derived afresh; the A/B-ness it was made for must be the place's.
from_plan() {
  local file=$1 said names=() env
  [[ -f $file && -r $file ]] || die "--from $file: no such file (scripts/plan writes a plan)"
  for env in "${!ROLE[@]}"; do [[ ${ROLE[$env]} != setting ]] || names+=("$env"); done
  said=$(jq -r '$ARGS.positional as $names
    | if type != "object" then "not a plan (afpbench-plan/2; scripts/plan writes one)"
      elif .schema == "afpbench-plan/1" then "an afpbench-plan/1 plan, which held neither the server nor the files; make it again with scripts/plan"
      elif .schema != "afpbench-plan/2" then "not a plan (afpbench-plan/2; scripts/plan writes one)"
      elif (.settings | type) != "object" then "its settings are not an object"
      elif (.server | type) != "object" or (.server.afp_conf | type) != "object" then "it has no server section"
      elif (.files | type) != "object" then "it has no files section"
      else [.settings | to_entries[] | select(.key as $k | $names | index($k) | not) | .key] as $other
        | [.settings | to_entries[] | select(.value | type != "string") | .key] as $typed
        | [.files | to_entries[] | select(.value != null and ((.value | type) != "object" or (.value.content | type) != "object")) | .key] as $bad
        | if $other != [] then "\($other | join(", ")): not a setting of a plan (the place, such as servers, logins and directories, comes from the environment)"
          elif $typed != [] then "\($typed | join(", ")): not a string"
          elif $bad != [] then "files \($bad | join(", ")): not a carried file ({name, sha256, content})"
          else empty end
      end' "$file" --args "${names[@]}" 2>&1) || die "--from $file: not JSON (${said##*: })"
  [[ -z $said ]] || die "--from $file: $said"
  # nothing of the run from the environment: the plan's settings, server
  # and files only
  for env in "${!ROLE[@]}"; do [[ ${ROLE[$env]} == place ]] || unset "$env"; done
  # the names are a plan's (checked above); @sh quotes each value
  eval "$(jq -r '.settings | to_entries[] | "\(.key)=\(.value | @sh)"' "$file")"
  read_settings
  local made_for
  made_for=$(jq -r '.derived.ab | if . == null then "" else tostring end' "$file")
  if [[ -n $made_for && $made_for != "$([[ $AB == yes ]] && echo true || echo false)" ]]; then
    [[ $made_for == false ]] ||
      die "--from $file: the plan is for an A/B run, and no base server is named here (BASE_AFP_HOST or BASE_AFP_PORT)"
    die "--from $file: the plan is for a run on one server, and BASE_AFP_HOST or BASE_AFP_PORT names a base here: make the plan with the base named"
  fi
  [[ $AB == no ]] || ! jq -e '.files.baseline != null' "$file" >/dev/null ||
    die "--from $file: the plan carries a baseline and is for an A/B run, which measures its own base"
  plan_json | jq -c --slurpfile given "$file" \
    '.server = $given[0].server | .base_server = $given[0].base_server | .files = $given[0].files'
}

# place_env: the place, for the gate to eval: each place setting after the
# table's default and its grammar's check, the A/B base's taking the head's
# where unset, and AB. Never in a plan; printed for the gate's shell only.
place_env() {
  local env grammar role default default_ab row names=()
  AB=no
  [[ -z ${BASE_AFP_HOST:-}${BASE_AFP_PORT:-} ]] || AB=yes
  for row in "${ROWS[@]}"; do
    IFS=$'\t' read -r env grammar role default default_ab <<<"$row"
    [[ $role == place ]] || continue
    [[ -n ${!env:-} ]] || printf -v "$env" '%s' "$default"
    check_value "$env" "$grammar"
    names+=("$env")
  done
  if [[ $AB == yes ]]; then
    BASE_AFP_HOST=${BASE_AFP_HOST:-$AFP_HOST}
    BASE_AFP_PORT=${BASE_AFP_PORT:-$(jq -r '.settings[] | select(.env == "AFP_PORT") | .default' "$SETTINGS_TABLE")}
    BASE_AFP_USER=${BASE_AFP_USER:-$AFP_USER}
    BASE_AFP_PASS=${BASE_AFP_PASS:-$AFP_PASS}
    BASE_SHARE_NAME=${BASE_SHARE_NAME:-$SHARE_NAME}
    BASE_PROC_IO=${BASE_PROC_IO:-$PROC_IO}
    [[ -n $BASE_SHARE_NAME ]] || die "BASE_SHARE_NAME is empty"
    if [[ $BASE_AFP_HOST == "$AFP_HOST" && $BASE_AFP_PORT == "$AFP_PORT" ]]; then
      warn "BASE_AFP_HOST:BASE_AFP_PORT is the head server itself ($AFP_HOST:$AFP_PORT): an A/A run"
    fi
  fi
  for env in "${names[@]}" AB; do printf '%s=%q\n' "$env" "${!env}"; done
}

# server_env FILE SIDE: how the side's server (server or base_server) is
# configured: the afp.conf settings it serves, as the server entrypoint reads
# them (AFP_EXTRA_GLOBAL, AFP_EXTRA_VOLUME; scripts/local-server passes them
# on), as JSON.
server_env() {
  jq -e -c --arg side "$2" '.[$side] | objects
    | {AFP_EXTRA_GLOBAL: (.afp_conf.global | join("\n")), AFP_EXTRA_VOLUME: (.afp_conf.volume | join("\n"))}' "$1" ||
    die "$1 has no $2 (scripts/plan --from checks a plan)"
}

# compose_env FILE: compose.yaml's variables for the plan's servers (both in
# A/B: the profile ab, the base on compose's base port), as JSON; every one
# set, empty meaning compose.yaml's default, so none left in the caller's
# environment changes them.
compose_env() {
  jq -e -c --arg dockerfile "${SCRIPTS%/*}/Dockerfile.server" --arg base_port "$COMPOSE_BASE_PORT" '
    def side($p; $s): if $s == null then
        {"\($p)NETATALK_VERSION": "", "\($p)NETATALK_SOURCE": "", "\($p)SERVER_TARGET": "",
         "\($p)SERVER_DOCKERFILE": "", "\($p)AFP_EXTRA_GLOBAL": "", "\($p)AFP_EXTRA_VOLUME": ""}
      else ($s.netatalk_source.path // "") as $src
        | {"\($p)NETATALK_VERSION": $s.netatalk_version, "\($p)NETATALK_SOURCE": $src,
           "\($p)SERVER_TARGET": (if $src == "" then "" else "server-source" end),
           "\($p)SERVER_DOCKERFILE": (if $src == "" then "" else $dockerfile end),
           "\($p)AFP_EXTRA_GLOBAL": ($s.afp_conf.global | join("\n")),
           "\($p)AFP_EXTRA_VOLUME": ($s.afp_conf.volume | join("\n"))} end;
    select(.schema == "afpbench-plan/2")
    | side(""; .server) + side("BASE_"; .base_server)
      + {COMPOSE_PROFILES: (if .derived.ab then "ab" else "" end), BASE_AFP_HOST: "",
         BASE_AFP_PORT: (if .derived.ab then $base_port else "" end)}' "$1" ||
    die "$1 is not a plan (scripts/plan --from checks one)"
}

# plan_init: the settings table read (ROLE, ROWS), once per shell.
plan_init() {
  require_cmd jq
  declare -gA ROLE=()
  ROWS=()
  load_table
}
