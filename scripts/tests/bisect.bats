#!/usr/bin/env bats
# scripts/bisect on a REAL repository and REAL servers: the 17 commits of
# scripts/tests/lib/bisect-repo.sh, made from the shared netatalk 4.4 tree
# (one stat() more per FPGetFileDirParms at c11, a commit that does not build
# at c8), each probe built incrementally and served by scripts/local-server
# (port BISECT_PORT, else 10670). Needs root, like the server tests; without the 4.4 tree the
# bisect tests are not run, and say why.

bats_require_minimum_version 1.5.0

load lib/bisect-fixture

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT BISECT="$ROOT/scripts/bisect"
  make -C "$ROOT/src/afpbench" -s >&2
  export AFPBENCH_BIN="$ROOT/src/afpbench/afpbench"
  bisect_fixture
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port "${BISECT_PORT:-10670}" >/dev/null 2>&1 || true
}

@test "bad arguments and revisions are refused before anything is built, exit 3" {
  run "$BISECT" --good a
  [ "$status" -eq 3 ]
  [[ $output == *"--repo, --good and --bad are needed"* ]]
  run "$BISECT" --repo "$BATS_TEST_TMPDIR" --good a --bad b
  [ "$status" -eq 3 ]
  [[ $output == *"is not a git repository"* ]]
  need_tree
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad nosuchrev
  [ "$status" -eq 3 ]
  [[ $output == *"--bad nosuchrev: no such commit"* ]]
  run "$BISECT" --repo "$W/repo" --good "$(c 16)" --bad "$(c 0)"
  [ "$status" -eq 3 ]
  [[ $output == *"is not an ancestor of --bad"* ]]
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 16)" --port 99
  [ "$status" -eq 3 ]
  [[ $output == *"--port '99' is not a port"* ]]
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 16)" --budget 0
  [ "$status" -eq 3 ]
  [[ $output == *"--budget '0' is not a count of seconds"* ]]
  # a timing is never exact: refused by name, before the first build
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 16)" --rows lantest.9.time
  [ "$status" -eq 3 ]
  [[ $output == *"lantest.9.time is a timing"*"not exact"* ]]
}

# The 16-commit search itself (the commit named, the one that does not build
# skipped, at most 6 probes, the rows and the AFP command) runs through the
# action in src/action/e2e/bisect.e2e.test.ts, on this same repository:
# twice there, once measured and once from kept measurements.

@test "a budget that runs out: exit 4, the commits still in question named, and how to finish" {
  need_tree
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 16)" --tests 9 --budget 1 \
    --work "$W/budget" --cache "$W/cache"
  echo "$output"
  [ "$status" -eq 4 ]
  local j="$W/budget/bisect.json"
  jq -e '.status == "budget" and .first_bad == null and .budget_s == 1' "$j"
  # no probe between the ends was started: every one that changes the build
  # is still in question (16 less the 6 that change only CI or NEWS.md,
  # decided as their parents)
  [ "$(jq '.left | length' "$j")" -eq 10 ]
  [ "$(jq '.unbuilt | length' "$j")" -eq 6 ]
  [ "$(jq -r '.left[-1]' "$j")" = "$(c 16)" ]
  [[ $output == *"to finish: scripts/bisect --repo $W/repo --good $(c 0 | cut -c1-12) --bad $(c 16 | cut -c1-12) --tests 9"* ]]
  grep -q '^## afpbench bisect: the budget ran out, 10 commits still in question' "$W/budget/bisect.md"
  # the ends' measurements were kept by tree: the next bisect takes them
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 16)" --tests 9 --budget 1 \
    --work "$W/budget2" --cache "$W/cache"
  [ "$status" -eq 4 ]
  jq -e '[.log[] | .cached] == [true, true]' "$W/budget2/bisect.json"
}

@test "good against good: nothing differs, exit 1, said" {
  need_tree
  # c1 only adds a comment to a C file: compiled again, the same calls
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 2)" --tests 9 --work "$W/same" --cache "$W/cache"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"does not differ from the good one"* ]]
  jq -e '.status == "no difference" and .first_bad == null' "$W/same/bisect.json"
}

@test "a range whose middle commits change only CI and NEWS: none of them is built, each decided as its parent" {
  need_tree
  # c9..c13: c10 (a CI workflow), c11 (the stat), c12 (NEWS.md), c13 (a comment)
  run "$BISECT" --repo "$W/repo" --good "$(c 9)" --bad "$(c 13)" --tests 9 --work "$W/ci" --cache "$W/cache"
  echo "$output"
  [ "$status" -eq 0 ]
  local j="$W/ci/bisect.json"
  [ "$(jq -r .first_bad "$j")" = "$(c 11)" ]
  # decided without a build, as the commit whose build each shares
  jq -e --arg c10 "$(c 10)" --arg c12 "$(c 12)" --arg c9 "$(c 9)" --arg c11 "$(c 11)" \
    '.unbuilt == [{commit: $c10, as: $c9, files: [".github/workflows/ci.yml"]}, {commit: $c12, as: $c11, files: ["NEWS.md"]}]' "$j"
  # never checked out for a probe, built or served
  jq -e --arg c10 "$(c 10)" --arg c12 "$(c 12)" '[.log[].commit] | index($c10) == null and index($c12) == null' "$j"
  [ -z "$(compgen -G "$W/ci/probe-$(c 10)*")" ]
  [ -z "$(compgen -G "$W/ci/probe-$(c 12)*")" ]
  [[ $output != *"probe "*"$(c 10 | cut -c1-12)"* && $output != *"probe "*"$(c 12 | cut -c1-12)"* ]]
  [[ $output == *"2 of them change no file that goes into the build"* ]]
  # the result says so
  grep -q 'Decided without a build' "$W/ci/bisect.md"
  grep -q '2 decided without a build' "$W/ci/bisect.md"
}
