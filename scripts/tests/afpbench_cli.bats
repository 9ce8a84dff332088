#!/usr/bin/env bats
# afpbench's command line without a server: --help on every subcommand.

bats_require_minimum_version 1.5.0

setup_file() {
  make -C "$BATS_TEST_DIRNAME/../../src/afpbench" -s >&2
}

setup() { AFPBENCH="$BATS_TEST_DIRNAME/../../src/afpbench/afpbench"; }

@test "--help on every subcommand prints its usage on stdout and exits 0" {
  local cmd
  for cmd in lantest speedtest status smoke; do
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
