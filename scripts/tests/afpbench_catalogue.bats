#!/usr/bin/env bats
# One catalogue of the lantest tests: a new test is one entry in afpbench's C
# table (lantest_defs in src/afpbench/lantest_tests.c) plus the files
# generated from it. In a scratch copy of the checkout, a throwaway 13th test
# is added to the table, afpbench is built, the generated files are made
# again (afpbench lantest --list --json, npm run docs), and then every place
# that selects tests knows it: afpbench's -f, the gate's ranges and groups
# (and so the action's validation, which asks the gate), the docs' table. The
# test counts the files that changed: the table and the generated ones only.
# Needs cc, make, jq and node with the checkout's node_modules.

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT
  export S="$BATS_FILE_TMPDIR/scratch"
  mkdir -p "$S"
  # the checkout's files as they are (committed or not), in a repository of
  # their own, so that git status names what the new test changed
  git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
    (cd "$ROOT" && tar --null -T - -cf -) | tar -xf - -C "$S"
  ln -s "$ROOT/node_modules" "$S/node_modules"
  git -C "$S" init -q
  git -C "$S" add -A
  git -C "$S" -c user.name=t -c user.email=t@t commit -qm before
  # the throwaway test: test 9's cache hits again, in a group of its own
  local table="$S/src/afpbench/lantest_tests.c"
  grep -q '^     test_cache_validation, "cache", "FPGetFileDirParms"},$' "$table"
  sed -i '/^     test_cache_validation, "cache", "FPGetFileDirParms"},$/a\
    {13, "Scratch: directory cache hits again [11,000 AFP ops]", 11000, test_cache_hits,\
     "scratch", "FPGetFileDirParms"},' "$table"
  make -C "$S/src/afpbench" -s -j2 WERROR=1 >&2
  "$S/src/afpbench/afpbench" lantest --list --json "$S/scripts/lantest-tests.json"
  (cd "$S" && node src/action/build/action-docs.mjs docs/action.md docs/settings.md README.md)
}

@test "a new lantest test changes the C table and generated files only" {
  run git -C "$S" status --porcelain
  echo "$output"
  [ "$output" = " M docs/settings.md
 M scripts/lantest-tests.json
 M src/afpbench/lantest_tests.c" ]
}

@test "afpbench knows the new test: --list, and -f selects it" {
  run "$S/src/afpbench/afpbench" lantest --list
  [[ $output == *"13  scratch"*"Scratch: directory cache hits again"* ]]
  jq -e '.tests | length == 13 and .[12].id == 13 and .[12].group == "scratch"' \
    "$S/scripts/lantest-tests.json"
  # selected (in the list form the gate passes: "13" alone would be tests 1
  # and 3, as afp_lantest reads digits), it runs; no server here: the run gets
  # as far as connecting
  run "$S/src/afpbench/afpbench" lantest -h 127.0.0.1 -p 9 -s v -u u -w p -n 1 -f 13,
  [ "$status" -eq 5 ]
  [[ $output == *"Connection refused"* ]]
  run "$S/src/afpbench/afpbench" lantest -h 127.0.0.1 -p 9 -s v -u u -w p -n 1 -f 14,
  [ "$status" -eq 1 ]
  [[ $output == *"no test '14' (tests are 1-13)"* ]]
}

@test "the gate (and so the action's validation) selects it by number, range, group and all" {
  local gate="$S/scripts/gate"
  run env AFPBENCH_TESTS=13 "$gate" --check
  [ "$status" -eq 0 ]
  jq -e '.derived.lantest_tests == [13]' <<<"$output"
  jq -e '.derived.lantest_tests == [12, 13]' <<<"$(AFPBENCH_TESTS=12-13 "$gate" --check)"
  jq -e '.derived.lantest_tests == [13]' <<<"$(AFPBENCH_TESTS=scratch "$gate" --check)"
  # the default, all, runs it too
  jq -e '.derived.lantest_tests == [range(1; 14)] and .settings.AFPBENCH_TESTS == "1-13"' \
    <<<"$("$gate" --check)"
  run env AFPBENCH_TESTS=14 "$gate" --check
  [ "$status" -eq 3 ]
  [[ $output == *"of 1-13"*"scratch"* ]]
}

@test "the docs' table of the tests has it" {
  grep -qF '| 13 | Scratch: directory cache hits again [11,000 AFP ops] | scratch | FPGetFileDirParms |' \
    "$S/docs/settings.md"
}
