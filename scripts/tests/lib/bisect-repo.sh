#!/usr/bin/env bash
# TEST ONLY: a netatalk git repository of 17 commits for scripts/bisect and
# scripts/backfill, made
# from a netatalk 4 source tree (scripts/tests/lib/netatalk-44.sh):
#
#   c0   the tree as it is (the good commit)
#   c8   does not build (an #error in etc/afpd/status.c); c9 takes it back
#   c11  one stat() of the working directory more per FPGetFileDirParms, the
#        regression (as compose-source.e2e-engine.test.ts patches its head)
#   c2, c6, c10, c14 change only a CI workflow (.github/workflows/ci.yml),
#   and c4, c12, c16 only NEWS.md: no file that goes into the build
#   (scripts/lib/probe.sh's rule), so bisect and backfill never build them
#   the odd others harmless: a comment in a C file of afpd's (compiled
#   again, the same code)
#
#   bisect-repo.sh TREE DIR     make it in DIR; print the 17 hashes, c0 first
#
# Every commit has fixed names and dates, so the same tree always gives the
# same hashes, and scripts/local-server's incremental tree for it (keyed by
# the first commit) is found again by the next run.
set -euo pipefail

readonly PATCHED=etc/afpd/filedir.c BROKEN=etc/afpd/status.c COMMENTED=etc/afpd/afp_options.c

commit() {
  local n=$1 msg=$2
  git -C "$DIR" add -A
  GIT_AUTHOR_DATE="2026-10-01T12:$(printf '%02d' "$n"):00Z" GIT_COMMITTER_DATE="2026-10-01T12:$(printf '%02d' "$n"):00Z" \
    git -C "$DIR" -c user.name="A. Developer" -c user.email=dev@example.org commit -q -m "$msg"
}

# the regression: after the first "*rbuflen = 0;" of afp_getfildirparams
add_stat() {
  awk '
    /^int afp_getfildirparams\(/ { inside = 1 }
    { print }
    inside && /^    \*rbuflen = 0;$/ {
      print "    { struct stat afpbench_extra; (void)stat(\".\", &afpbench_extra); }"
      inside = 0; done = 1
    }
    END { if (!done) exit 1 }' "$DIR/$PATCHED" >"$DIR/$PATCHED.new" ||
    {
      echo "bisect-repo.sh: afp_getfildirparams in $PATCHED has changed; the patch needs a new place" >&2
      exit 1
    }
  mv "$DIR/$PATCHED.new" "$DIR/$PATCHED"
}

main() {
  local tree=${1:?usage: bisect-repo.sh TREE DIR} n
  DIR=${2:?usage: bisect-repo.sh TREE DIR}
  [[ -f $tree/meson.build ]] || {
    echo "bisect-repo.sh: $tree is not a netatalk source tree" >&2
    exit 1
  }
  rm -rf "$DIR"
  mkdir -p "$DIR"
  cp -a "$tree/." "$DIR/"
  git -C "$DIR" init -q -b main
  commit 0 "the tree as released"
  for n in $(seq 1 16); do
    case $n in
      8)
        printf '#error "afpbench bisect test: this commit does not build"\n' >>"$DIR/$BROKEN"
        commit "$n" "status: a change that does not compile"
        ;;
      9)
        sed -i '$d' "$DIR/$BROKEN"
        commit "$n" "status: take back the change that does not compile"
        ;;
      11)
        add_stat
        commit "$n" "filedir: look at the working directory before every FPGetFileDirParms"
        ;;
      *)
        if ((n % 2)); then
          printf '/* afpbench bisect test: a harmless comment %d */\n' "$n" >>"$DIR/$COMMENTED"
          commit "$n" "afp_options: comment $n"
        elif ((n % 4 == 2)); then
          mkdir -p "$DIR/.github/workflows"
          printf 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v%d\n' \
            "$n" >"$DIR/.github/workflows/ci.yml"
          commit "$n" "build(deps): bump actions/checkout to v$n in /.github/workflows"
        else
          printf '\nA harmless line %d.\n' "$n" >>"$DIR/NEWS.md"
          commit "$n" "NEWS: line $n"
        fi
        ;;
    esac
  done
  git -C "$DIR" rev-list --reverse HEAD
}

main "$@"
