#!/usr/bin/env bats
# scripts/bisect on a REAL repository and REAL servers: the 17 commits of
# scripts/tests/lib/bisect-repo.sh, made from the shared netatalk 4.4 tree
# (one stat() more per FPGetFileDirParms at c11, a commit that does not build
# at c8), each probe built incrementally and served by scripts/local-server
# (port 10670). Needs root, like the server tests; without the 4.4 tree the
# bisect tests are not run, and say why.

bats_require_minimum_version 1.5.0

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT BISECT="$ROOT/scripts/bisect"
  make -C "$ROOT/src/afpbench" -s >&2
  export AFPBENCH_BIN="$ROOT/src/afpbench/afpbench"
  export W="$BATS_FILE_TMPDIR"
  local tree rc=0
  tree=$("$BATS_TEST_DIRNAME/lib/netatalk-44.sh" 2>"$W/tree.err") || rc=$?
  echo "$rc" >"$W/tree.rc"
  ((rc != 0)) || "$BATS_TEST_DIRNAME/lib/bisect-repo.sh" "$tree" "$W/repo" >"$W/hashes"
}

teardown_file() {
  "$BATS_TEST_DIRNAME/../local-server" stop --port 10670 >/dev/null 2>&1 || true
}

# c N: the hash of commit N of the test repository
c() { sed -n "$(($1 + 1))p" "$W/hashes"; }

need_tree() {
  local rc
  rc=$(cat "$W/tree.rc")
  ((rc != 77)) || skip "$(tail -n 1 "$W/tree.err")"
  ((rc == 0)) || {
    cat "$W/tree.err" >&2
    return 1
  }
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
  # a timing is never exact: refused by name, before the first build
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 16)" --rows lantest.9.time
  [ "$status" -eq 3 ]
  [[ $output == *"lantest.9.time is a timing"*"not exact"* ]]
}

@test "16 commits: the one that adds a stat() per FPGetFileDirParms is named, the one that does not build skipped, in 6 probes" {
  need_tree
  local start=$SECONDS
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 16)" --tests 9 --work "$W/bisect"
  echo "$output"
  [ "$status" -eq 0 ]
  local j="$W/bisect/bisect.json"
  jq . "$j" >&2
  [ "$(jq -r .first_bad "$j")" = "$(c 11)" ]
  [ "$(jq -r '.skipped | join(" ")' "$j")" = "$(c 8)" ]
  # good, bad and ceil(log2 16) = 4 at most between them; the skip apart
  jq -e '.probes <= 6' "$j"
  jq -e '.subject | startswith("filedir: look at the working directory")' "$j"
  jq -e '.log[] | select(.state == "skip") | .why | startswith("does not build")' "$j"
  # the rows that moved there: afpd's stat calls in test 9 (11,000
  # FPGetFileDirParms), with the command and the call
  jq -e '[.rows[] | select(.metric == "lantest.9.afpd_sys_stat")] | length == 1' "$j"
  jq -e '[.rows[] | select(.metric == "lantest.9.afpd_sys_stat") | .bad > .good] | all' "$j"
  jq -e '.rows[] | select(.metric == "lantest.9.afpd_sys_stat") | .commands[0].command == "FPGetFileDirParms"' "$j"
  grep -q "^## afpbench bisect: first bad commit \`$(c 11 | cut -c1-12)\`" "$W/bisect/bisect.md"
  grep -q '^- \*\*FPGetFileDirParms\*\* newfstatat' "$W/bisect/bisect.md"
  grep -q "^- \`$(c 8 | cut -c1-12)\` does not build" "$W/bisect/bisect.md"
  printf '# bisect of 16 commits: %s probes, %s skipped, %s s (builds %s s, measurements %s s)\n' \
    "$(jq .probes "$j")" "$(jq '.skipped | length' "$j")" "$((SECONDS - start))" \
    "$(jq '[.log[].build_s] | add' "$j")" "$(jq '[.log[].measure_s] | add' "$j")" >&3
}

@test "good against good: nothing differs, exit 1, said" {
  need_tree
  # c1 only adds a comment to a C file: compiled again, the same calls
  run "$BISECT" --repo "$W/repo" --good "$(c 0)" --bad "$(c 2)" --tests 9 --work "$W/same"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ $output == *"does not differ from the good one"* ]]
  jq -e '.status == "no difference" and .first_bad == null' "$W/same/bisect.json"
}
