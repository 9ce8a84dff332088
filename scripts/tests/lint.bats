#!/usr/bin/env bats
# The lint stage's own selection (scripts/lib/lint.sh): shellcheck and shfmt
# see every shell file of the repository, wherever it is, found by its
# extension or its first line rather than by a list (issue 24: src/afpbench's
# benchmark and test scripts were never checked). No server needed.

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  # shellcheck source=scripts/lib/lint.sh
  source "$ROOT/scripts/lib/lint.sh"
}

@test "every shell file of the repository is selected, src/afpbench's scripts too" {
  run shell_files "$ROOT"
  [ "$status" -eq 0 ]
  local f
  for f in .ci/run scripts/gate scripts/lib/common.sh scripts/bench/lib/ab.bash scripts/tests/gate.bats \
    scripts/tests/lib/netatalk-44.sh src/afpbench/bench/run-bench.sh src/afpbench/bench/load-bench.sh \
    src/afpbench/bench/instr-bench.sh src/afpbench/tests/run-all.sh src/afpbench/tests/integration.sh \
    src/afpbench/tests/dead-functions.sh; do
    [[ $'\n'$output$'\n' == *$'\n'"$ROOT/$f"$'\n'* ]] || {
      echo "not selected: $f"
      return 1
    }
  done
}

@test "selected by extension or first line, wherever they are; other files not" {
  local repo=$BATS_TEST_TMPDIR/repo
  mkdir -p "$repo/deep/er" "$repo/bin"
  git -C "$repo" init -q
  printf 'echo sourced\n' >"$repo/deep/er/lib.sh" # no shebang: its extension
  printf 'f() { :; }\n' >"$repo/helpers.bash"
  printf '#!/usr/bin/env bats\n' >"$repo/deep/t.bats"
  printf '#!/bin/bash\necho\n' >"$repo/bin/tool" # no extension: its shebang
  printf '#!/usr/bin/env bash\necho\n' >"$repo/deep/er/run"
  printf '#!/bin/sh\necho\n' >"$repo/posix"
  printf '# shellcheck shell=bash\nx=1\n' >"$repo/sourced"
  printf '#!/usr/bin/env python3\n' >"$repo/bin/py" # not shell
  printf '#!/usr/bin/fish\n' >"$repo/bin/fish"
  printf '#!/usr/bin/env bashful\n' >"$repo/bin/other"
  printf 'set -e\n' >"$repo/README.md"
  printf 'ignored.sh\n' >"$repo/.gitignore"
  printf '#!/bin/bash\n' >"$repo/ignored.sh"
  git -C "$repo" add deep/er/lib.sh bin/tool # tracked and new files alike
  run shell_files "$repo"
  [ "$status" -eq 0 ]
  [ "$(sort <<<"${output//$repo\//}" | tr '\n' ' ')" = "bin/tool deep/er/lib.sh deep/er/run deep/t.bats helpers.bash posix sourced " ]
}

@test "the format check fails on a misformatted file and names it, bats files parsed as bats" {
  local dir=$BATS_TEST_TMPDIR
  printf '#!/bin/bash\nif true; then\n  echo ok\nfi\n' >"$dir/good.sh"
  printf '@test "x" {\n  run true\n}\n' >"$dir/good.bats"
  run shell_format_check "$dir/good.sh" "$dir/good.bats"
  [ "$status" -eq 0 ]
  [ -z "$output" ]
  printf '#!/bin/bash\nif true; then\n    echo four\nfi\n' >"$dir/bad.sh"
  run shell_format_check "$dir/good.sh" "$dir/bad.sh" "$dir/good.bats"
  [ "$status" -ne 0 ]
  [[ $output == *"$dir/bad.sh"* ]]
  [[ $output != *good.sh* ]]
}
