# shellcheck shell=bash
# TEST ONLY: the bisect tests' repository (bisect.bats natively,
# compose_bisect.bats on the engine): lib/bisect-repo.sh's 17 commits, made
# from the shared netatalk 4.4 tree in $W (the bats file's temporary
# directory). Without the tree (lib/netatalk-44.sh exits 77) the tests that
# need it are not run, and say why.
#
# Use from a bats file in scripts/tests: `load lib/bisect-fixture`, then
# bisect_fixture in setup_file, need_tree in each test that bisects, and
# `c N` for commit N's hash.

# bisect_fixture: W set to the file's temporary directory; the repository
# made in $W/repo (its hashes in $W/hashes), or why not in $W/tree.*.
bisect_fixture() {
  export W="$BATS_FILE_TMPDIR"
  local tree rc=0
  tree=$("$BATS_TEST_DIRNAME/lib/netatalk-44.sh" 2>"$W/tree.err") || rc=$?
  echo "$rc" >"$W/tree.rc"
  ((rc != 0)) || "$BATS_TEST_DIRNAME/lib/bisect-repo.sh" "$tree" "$W/repo" >"$W/hashes"
}

# c N: the hash of commit N of the test repository
c() { sed -n "$(($1 + 1))p" "$W/hashes"; }

# need_tree: skip the test, with the reason, when there is no 4.4 tree; fail
# it when making the repository failed otherwise.
need_tree() {
  local rc
  rc=$(cat "$W/tree.rc")
  ((rc != 77)) || skip "$(tail -n 1 "$W/tree.err")"
  ((rc == 0)) || {
    cat "$W/tree.err" >&2
    return 1
  }
}
