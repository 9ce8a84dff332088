#!/usr/bin/env bats
# scripts/bisect --engine on a REAL Docker Engine: each probe's server built
# from its tree with Dockerfile.server's server-source target and served by
# compose, the counts taken in the client container. The repository is
# scripts/tests/lib/bisect-repo.sh's (from the shared netatalk 4.4 tree); the
# range is c10..c11, where c11 adds one stat() per FPGetFileDirParms: the good
# commit twice (the A/A) and the bad one, two builds. The 16-commit search is
# bisect.e2e.test.ts's, natively; docs/bisect.md has its time on the engine.
# Needs the engine `scripts/test-all compose` starts (DOCKER_HOST); without
# the 4.4 tree the test is not run, and says why.

bats_require_minimum_version 1.5.0

load lib/podman
load lib/bisect-fixture

setup_file() {
  engine_base_image
  unset AFP_USER AFP_PASS AFP_PORT SHARE_NAME AFPBENCH_BASELINES_DIR AFPBENCH_RESULTS_OWNER AFPBENCH_TESTS
  bisect_fixture
}

teardown_file() {
  docker compose -p afpbench-bisect down --volumes --timeout 10 >/dev/null 2>&1 || true
}

@test "--engine: the probes built and served by compose; the commit that adds a stat() is named, with its row" {
  need_tree
  local start=$SECONDS
  run "$IMAGES_ROOT/scripts/bisect" --engine --repo "$W/repo" --good "$(c 10)" --bad "$(c 11)" \
    --tests 9 --cache off --work "$W/engine"
  echo "$output"
  printf '# engine bisect of c10..c11: %d s (%s)\n' $((SECONDS - start)) \
    "$(jq -r '[.log[] | "\(.commit[0:7]) built \(.build_s) s, measured \(.measure_s) s"] | join("; ")' "$W/engine/bisect.json")" >&3
  [ "$status" -eq 0 ]
  local j="$W/engine/bisect.json"
  [ "$(jq -r .first_bad "$j")" = "$(c 11)" ]
  jq -e '.status == "found" and .probes == 2 and .skipped == []' "$j"
  # the row that moved is a stat row of test 9's, and it grew
  jq -e '.rows | any(.metric | test("^lantest\\.9\\.afpd_sys_stat"))' "$j"
  jq -e '[.rows[] | select(.metric | test("^lantest\\.9\\.afpd_sys_stat"))][0] | .bad > .good' "$j"
  # each side was built from its own tree on the engine, not natively
  grep -q 'server-source' "$W/engine/good.build.log"
  [ ! -e "$W/engine/good.server.log" ]
  # the compose project of the bisect's own is gone after each probe
  [ -z "$(docker compose -p afpbench-bisect ps -q 2>/dev/null)" ]
}
