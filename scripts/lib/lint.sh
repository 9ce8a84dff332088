# shellcheck shell=bash
# What the lint stage of scripts/test-all checks, shared with its test
# (scripts/tests/lint.bats). Source it; do not execute it.

# shell_files ROOT: every shell file of the git work tree at ROOT, tracked or
# new (ignored files aside), one absolute path a line. A shell file is found
# wherever it is, by its extension (.sh, .bash, .bats) or by its first line:
# a shebang that runs sh, bash or bats, or shellcheck's "shell=" directive
# (a sourced library without an extension). bats files too: shellcheck knows
# bats (e.g. SC2314: a bare "! cmd" that is not the last command of a test
# never fails it).
shell_files() {
  local root=$1 f first
  local shebang='^#![[:space:]]*([^[:space:]]*/)?(env[[:space:]]+)?(sh|bash|bats)([[:space:]]|$)'
  local directive='^#[[:space:]]*shellcheck[[:space:]]+shell='
  git -C "$root" ls-files -z -co --exclude-standard |
    while IFS= read -r -d '' f; do
      [[ -f $root/$f ]] || continue # deleted, still in the index
      case $f in
        *.sh | *.bash | *.bats)
          printf '%s\n' "$root/$f"
          continue
          ;;
      esac
      first=
      IFS= read -r first <"$root/$f" || true
      if [[ $first =~ $shebang || $first =~ $directive ]]; then
        printf '%s\n' "$root/$f"
      fi
    done
}

# The shell files' one format: two-space indents, case patterns indented
# (shfmt -i 2 -ci), bats files parsed as bats. To fix a file:
# shfmt -i 2 -ci -w FILE (add -ln bats for a .bats file).
readonly SHFMT_FLAGS=(-i 2 -ci)

# shell_format_check FILE...: print shfmt's diff for every file it would
# change; fails when it would change any.
shell_format_check() {
  local f status=0
  for f in "$@"; do
    case $f in
      *.bats) shfmt "${SHFMT_FLAGS[@]}" -ln bats -d "$f" || status=1 ;;
      *) shfmt "${SHFMT_FLAGS[@]}" -d "$f" || status=1 ;;
    esac
  done
  return "$status"
}
