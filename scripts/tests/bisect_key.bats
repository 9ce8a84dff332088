#!/usr/bin/env bats
# What scripts/bisect and scripts/backfill key a kept measurement on
# (scripts/lib/probe.sh): the plan's content, the server and the files that go
# into the build; and the rule of what goes into the build. No server, no
# build: a small git repository shaped as netatalk's, and the real
# scripts/gate --check making the plans.

bats_require_minimum_version 1.5.0

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT W="$BATS_FILE_TMPDIR"
  local r=$W/repo
  mkdir -p "$r"/{etc/afpd,doc/manual,test/afpd,.github/workflows,distrib/docker,distrib/initscripts}
  git -C "$r" init -q -b main
  printf "project(\n    'netatalk',\n)\nsubdir('etc')\n" >"$r/meson.build"
  echo 'int x;' >"$r/etc/afpd/filedir.c"
  echo "subdir('manual')" >"$r/doc/meson.build"
  echo '# netatalk' >"$r/NEWS.md"
  echo 'on: push' >"$r/.github/workflows/ci.yml"
  echo 'FROM debian' >"$r/distrib/docker/netatalk.Dockerfile"
  echo '#!/bin/sh' >"$r/distrib/initscripts/netatalk.in"
  echo 'int t;' >"$r/test/afpd/test.c"
  echo 'x' >"$r/doc/manual/index.md"
  git -C "$r" add -A
  git -C "$r" -c user.name=t -c user.email=t@x commit -q -m c0
  # one commit per kind of change, each on the one before
  local change
  for change in \
    ".github/workflows/ci.yml:on: [push, pull_request]" \
    "NEWS.md:# netatalk 4.4" \
    "doc/manual/index.md:y" \
    "test/afpd/test.c:int t2;" \
    "distrib/docker/netatalk.Dockerfile:FROM debian:trixie" \
    "etc/afpd/filedir.c:int y;" \
    "doc/meson.build:subdir('manpages')" \
    "distrib/initscripts/netatalk.in:#!/bin/bash"; do
    printf '%s\n' "${change#*:}" >"$r/${change%%:*}"
    git -C "$r" add -A
    git -C "$r" -c user.name=t -c user.email=t@x commit -q -m "${change%%:*}"
  done
  printf 'fake afpbench\n' >"$W/afpbench"
  printf '[Global]\nlog level = default:warn\n' >"$W/afp.conf"
}

setup() {
  # the caller's settings, as scripts/bisect sets them; none from the
  # environment of the test run
  local v
  for v in $(compgen -e); do
    [[ $v != AFPBENCH_* || $v == AFPBENCH_CACHE ]] || unset "$v"
  done
  # shellcheck source=scripts/lib/common.sh
  source "$ROOT/scripts/lib/common.sh"
  # shellcheck source=scripts/lib/probe.sh
  source "$ROOT/scripts/lib/probe.sh"
  SCRIPTS=$ROOT/scripts SRC=$W/repo CACHE=$W/cache ENGINE=0 AFP_CONF="" TESTS=9 ITERATIONS=1 AFPBENCH=$W/afpbench
}

# key_with NAME=VALUE: KEY, the cache key of the first commit with that
# setting in the environment (as a user's would be); status 1 without one
KEY=""
key_with() {
  local name=${1%%=*} status=0
  printf -v "$name" '%s' "${1#*=}"
  export "${name?}"
  KEY=$(cache_key "$(rev 0)") || status=$?
  unset "$name"
  return "$status"
}

# rev N: the repository's Nth commit (0: the first)
rev() { git -C "$W/repo" rev-list --reverse HEAD | sed -n "$(($1 + 1))p"; }

@test "the cache key changes with every plan setting that changes counts, and with the server" {
  local base
  base=$(cache_key "$(rev 0)")
  [[ $base =~ ^[0-9a-f]{32}$ ]]
  # the same settings, the same key
  [ "$(cache_key "$(rev 0)")" = "$base" ]
  # settings of the plan: each one alone moves the key
  local setting
  for setting in AFPBENCH_SYSCALLS=off AFPBENCH_AFP_VERSION=5 AFPBENCH_SPEEDTEST=Read:1 AFPBENCH_BIGDIR=100; do
    key_with "$setting"
    echo "$setting: $KEY"
    [[ $KEY =~ ^[0-9a-f]{32}$ && $KEY != "$base" ]]
  done
  TESTS=9,12
  [ "$(cache_key "$(rev 0)")" != "$base" ]
  TESTS=9 ITERATIONS=2
  [ "$(cache_key "$(rev 0)")" != "$base" ]
  ITERATIONS=1
  # the server: its afp.conf, and a change in that file
  AFP_CONF=$W/afp.conf
  local with_conf
  with_conf=$(cache_key "$(rev 0)")
  [ "$with_conf" != "$base" ]
  printf 'ea = ad\n' >>"$W/afp.conf"
  [ "$(cache_key "$(rev 0)")" != "$with_conf" ]
  AFP_CONF=""
  # afpbench itself
  printf 'another afpbench\n' >"$W/afpbench2"
  AFPBENCH=$W/afpbench2
  [ "$(cache_key "$(rev 0)")" != "$base" ]
  AFPBENCH=$W/afpbench
  [ "$(cache_key "$(rev 0)")" = "$base" ]
}

@test "settings that only judge or name a run leave the key alone" {
  local base setting
  base=$(cache_key "$(rev 0)")
  for setting in AFPBENCH_SYS_THRESHOLD=0.01 AFPBENCH_IO_THRESHOLD=5 AFPBENCH_LABEL=x AFPBENCH_BASELINE_TIMINGS=gate; do
    key_with "$setting"
    echo "$setting: $KEY"
    [ "$KEY" = "$base" ]
  done
  # --cache off: no key
  CACHE=off
  [ -z "$(cache_key "$(rev 0)")" ]
}

@test "a plan that cannot be made is no key" {
  run ! key_with AFPBENCH_AFP_VERSION=9
}

@test "what goes into the build: CI, docs, tests and the project's images do not; every meson.build and source does" {
  # commits 1-5 change only files outside the build
  local n
  for n in 1 2 3 4 5; do
    same_build "$(rev $((n - 1)))" "$(rev "$n")" || {
      echo "commit $n: $(git -C "$W/repo" log -1 --format=%s "$(rev "$n")") counted as built"
      return 1
    }
    # and shares its parent's key: a kept measurement serves it
    [ "$(cache_key "$(rev "$n")")" = "$(cache_key "$(rev $((n - 1)))")" ]
  done
  # a C file, a meson.build in doc/ (meson reads it), an init script
  for n in 6 7 8; do
    if same_build "$(rev $((n - 1)))" "$(rev "$n")"; then
      echo "commit $n: $(git -C "$W/repo" log -1 --format=%s "$(rev "$n")") counted as outside the build"
      return 1
    fi
    [ "$(cache_key "$(rev "$n")")" != "$(cache_key "$(rev $((n - 1)))")" ]
  done
  # CHANGED names what differs
  same_build "$(rev 0)" "$(rev 2)"
  [ "$CHANGED" = "$(printf '.github/workflows/ci.yml\nNEWS.md')" ]
  # the rule on paths alone
  run built_only <<<"$(printf '%s\n' .github/dependabot.yml README.md doc/x.md test/testsuite/a.c \
    distrib/docker/x .editorconfig Dockerfile testsuite_deb.Dockerfile docker-compose.yml sonar-project.properties \
    etc/afpd/a.c include/atalk/x.h meson.build meson_options.txt doc/meson.build test/meson.build \
    subprojects/bstring.wrap config/afp.conf.in contrib/x distrib/initscripts/x etc/README.md)"
  [ "$output" = "$(printf '%s\n' etc/afpd/a.c include/atalk/x.h meson.build meson_options.txt doc/meson.build \
    test/meson.build subprojects/bstring.wrap config/afp.conf.in contrib/x distrib/initscripts/x etc/README.md)" ]
}
