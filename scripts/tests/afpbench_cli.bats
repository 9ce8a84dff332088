#!/usr/bin/env bats
# afpbench's command line without a server: --help on every subcommand, the
# catalogue of the lantest tests, and the limits it shares with the gate
# (afpbench limits: the gate takes each and refuses one past it).

# bats' run sets status and output in each test's subshell, which the
# helpers below read there
# shellcheck disable=SC2030,SC2031

bats_require_minimum_version 1.5.0

setup_file() {
  make -C "$BATS_TEST_DIRNAME/../../src/afpbench" -s >&2
}

setup() { AFPBENCH="$BATS_TEST_DIRNAME/../../src/afpbench/afpbench"; }

@test "--help on every subcommand prints its usage on stdout and exits 0" {
  local cmd
  for cmd in lantest speedtest status smoke limits; do
    run --separate-stderr "$AFPBENCH" "$cmd" --help
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "usage: afpbench $cmd"* ]]
    [ -z "$stderr" ]
  done
  # after other options too; the top level lists the commands
  run "$AFPBENCH" lantest -n 3 --help
  [ "$status" -eq 0 ]
  run "$AFPBENCH" --help
  [ "$status" -eq 0 ]
  [[ $output == *"lantest"*"speedtest"*"--help' prints a command's usage"* ]]
}

@test "-h stays the host: 'lantest -h' without a value is a usage error, not help" {
  run "$AFPBENCH" lantest -h
  [ "$status" -eq 1 ]
  [[ $output == *"usage: afpbench lantest"* ]]
  # and a host named by -h is tried (nothing listens on port 9 here)
  AFP_PASS=x run "$AFPBENCH" lantest -h 127.0.0.1 -p 9 -u u -s v -n 1 -f 4 --timeout 2
  [ "$status" -eq 5 ]
}

@test "lantest --list: the catalogue of the tests, no server; scripts/lantest-tests.json is what it writes" {
  run --separate-stderr "$AFPBENCH" lantest --list
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "test  group  AFP commands timed, name" ]]
  [[ $output == *"  12  cache  FPGetFileDirParms"* ]]
  run --separate-stderr "$AFPBENCH" lantest --list --json -
  [ "$status" -eq 0 ]
  local catalogue="$BATS_TEST_DIRNAME/../lantest-tests.json"
  # the gate's ranges and groups and the docs' table read the committed file:
  # after a change to the C table, write it again with
  #   src/afpbench/afpbench lantest --list --json scripts/lantest-tests.json
  [ "$output" = "$(cat "$catalogue")" ] || {
    echo "scripts/lantest-tests.json differs from afpbench's table: regenerate it" >&2
    return 1
  }
  jq -e '.schema == "afpbench-lantest-catalogue/1" and ([.tests[].id] == [range(1; (.tests | length) + 1)])
         and all(.tests[]; (.commands | length) > 0 and (.group | IN("files", "cache")))' <<<"$output"
  # into a file; a file that cannot be written is an error naming it
  "$AFPBENCH" lantest --list --json "$BATS_TEST_TMPDIR/c.json"
  cmp "$BATS_TEST_TMPDIR/c.json" "$catalogue"
  run "$AFPBENCH" lantest --list --json /nonexistent/c.json
  [ "$status" -eq 1 ]
  [[ $output == *"cannot write /nonexistent/c.json"* ]]
}

# one more than LIMIT refused by both the gate's grammar and afpbench, LIMIT
# taken by both (afpbench then goes on to want a password: past its parser)
limit_tied() {
  local setting=$1 at=$2 over=$3
  shift 3
  env "$setting=$at" "$BATS_TEST_DIRNAME/../gate" --check >/dev/null
  run env "$setting=$over" "$BATS_TEST_DIRNAME/../gate" --check
  [ "$status" -eq 3 ]
  run env -u AFP_PASS "$AFPBENCH" "$@" "${at##*:}"
  [[ $output == *"no password"* ]]
  run env -u AFP_PASS "$AFPBENCH" "$@" "${over##*:}"
  [ "$status" -eq 1 ]
  [[ $output != *"no password"* ]]
}

# repeat N VALUE: VALUE N times, comma-separated
repeat() {
  local i out=$2
  for ((i = 1; i < $1; i++)); do out+=",$2"; done
  echo "$out"
}

# gate_max SETTING HI: the largest value in 1..HI the gate's --check takes
# for SETTING (it takes 1), found by bisection: what the gate does, not what
# its code says
gate_max() {
  local setting=$1 lo=1 hi=$2 mid
  while ((lo < hi)); do
    mid=$(((lo + hi + 1) / 2))
    if env "$setting=$mid" "$BATS_TEST_DIRNAME/../gate" --check >/dev/null 2>&1; then
      lo=$mid
    else
      hi=$((mid - 1))
    fi
  done
  echo "$lo"
}

@test "the gate takes every limit 'afpbench limits' prints and refuses one past it" {
  local L
  L=$("$AFPBENCH" limits)
  jq -e '.schema == "afpbench-limits/1"' <<<"$L"
  lim() { jq -r "$1" <<<"$L"; }
  local conn=(-h 127.0.0.1 -p 1 -s v)
  # spotlight: files, and searches (FILES:QUERIES), both from 1
  local files queries
  files=$(lim .spotlight.files.max) queries=$(lim .spotlight.queries.max)
  limit_tied AFPBENCH_SPOTLIGHT "$files" "$((files + 1))" spotlight "${conn[@]}" --files
  limit_tied AFPBENCH_SPOTLIGHT "1:$queries" "1:$((queries + 1))" spotlight "${conn[@]}" --queries
  limit_tied AFPBENCH_SPOTLIGHT "$(lim .spotlight.files.min)" 0 spotlight "${conn[@]}" --files
  # bigdir: up to so many directory sizes, each of at most so many entries
  local entries sizes
  entries=$(lim .bigdir.entries.max) sizes=$(lim .bigdir.sizes.max)
  limit_tied AFPBENCH_BIGDIR "$(repeat "$sizes" "$entries")" "$(repeat "$sizes" "$((entries + 1))")" \
    bigdir "${conn[@]}" --entries
  limit_tied AFPBENCH_BIGDIR "$(repeat "$sizes" 1)" "$(repeat "$((sizes + 1))" 1)" \
    bigdir "${conn[@]}" --entries
  # load: session counts, and steps of them
  local sessions steps
  sessions=$(lim .load.sessions.max) steps=$(lim .load.steps.max)
  limit_tied AFPBENCH_LOAD "$sessions" "$((sessions + 1))" load "${conn[@]}" -N
  limit_tied AFPBENCH_LOAD "$(seq -s, 1 "$steps")" "$(seq -s, 1 "$((steps + 1))")" load "${conn[@]}" -N
  # speedtest: a size in MiB, and how many
  local mib count
  mib=$(lim .speedtest.size_mib.max) count=$(lim .speedtest.sizes.max)
  limit_tied AFPBENCH_SPEEDTEST "Read:$mib" "Read:$((mib + 1))" speedtest "${conn[@]}" -z
  limit_tied AFPBENCH_SPEEDTEST "Read:$(seq -s, 1 "$count")" "Read:$(seq -s, 1 "$((count + 1))")" \
    speedtest "${conn[@]}" -z
  # iterations: the gate holds them to a narrower range of its own (its
  # settings table), inside afpbench's; past either end of afpbench's, refused
  local itmax gatemax
  itmax=$(lim .iterations.max)
  limit_tied AFPBENCH_ITERATIONS "$(lim .iterations.min)" 0 lantest "${conn[@]}" -n
  run env AFPBENCH_ITERATIONS=$((itmax + 1)) "$BATS_TEST_DIRNAME/../gate" --check
  [ "$status" -eq 3 ]
  gatemax=$(gate_max AFPBENCH_ITERATIONS "$itmax")
  echo "the gate takes up to $gatemax iterations, afpbench $itmax"
  ((gatemax >= 5 && gatemax <= itmax))
  run env -u AFP_PASS "$AFPBENCH" lantest "${conn[@]}" -n "$itmax"
  [[ $output == *"no password"* ]]
  run env -u AFP_PASS "$AFPBENCH" lantest "${conn[@]}" -n "$((itmax + 1))"
  [[ $status -eq 1 && $output == *"bad -n"* ]]
}

@test "smoke goes through the option layer: the suites' connection options and defaults, its own checks" {
  # the environment alone names the server, as integration.sh runs it; port 1: refused
  AFP_HOST=127.0.0.1 AFP_PORT=1 AFP_USER=u AFP_PASS=p SHARE_NAME=v run "$AFPBENCH" smoke
  [ "$status" -eq 5 ]
  [[ $output == *"refused"* ]]
  # no argument and no AFP_HOST: its usage
  run env -u AFP_HOST "$AFPBENCH" smoke
  [ "$status" -eq 1 ]
  [[ $output == *"usage: afpbench smoke"* ]]
  # the layer's long options, as every suite takes them
  run env -u AFP_PORT "$AFPBENCH" smoke -h 127.0.0.1 -p 1 -u u -w p -s v --timeout 2 --proc-root /proc
  [ "$status" -eq 5 ]
  # what smoke cannot do is refused, naming it; a bad value of its own too
  run "$AFPBENCH" smoke -h 127.0.0.1 -p 1 -u u -w p -s v --base-host 127.0.0.1
  [[ $status -eq 1 && $output == *"--base-host is for the suites"* ]]
  run "$AFPBENCH" smoke -h 127.0.0.1 -p 1 -u u -w 123456789 -s v
  [[ $status -eq 8 && $output == *"longer than 8"* ]]
  run "$AFPBENCH" smoke -h 127.0.0.1 -p 1 -u u -w p -s v -r 0
  [[ $status -eq 1 && $output == *"-r wants"* ]]
  run "$AFPBENCH" smoke -h 127.0.0.1 -p 1 -u u -w p -s v --syscalls maybe
  [[ $status -eq 1 && $output == *"bad --syscalls 'maybe' (on or off)"* ]]
  run "$AFPBENCH" smoke -h 127.0.0.1 -p 1 -u u -w p -s v -V AFP2.2
  [[ $status -eq 8 && $output == *"use AFPX03 or AFP3.1-AFP3.4"* ]]
}

@test "the gate's speedtest sweep without sizes is afpbench's (the deadline is sized from it)" {
  local sizes
  sizes=$("$AFPBENCH" speedtest --list-sizes)
  echo "afpbench: $sizes"
  [[ $sizes == 0.00390625,*,512 ]]
  [ "$(AFPBENCH_SPEEDTEST=Read "$BATS_TEST_DIRNAME/../gate" --check |
    jq -r '.derived.speedtest_sizes_mib | map(tostring) | join(",")')" = "$sizes" ]
  # with sizes given, those
  [ "$("$AFPBENCH" speedtest --list-sizes -z 1,8)" = 1,8 ]
}
