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
