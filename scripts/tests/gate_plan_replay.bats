#!/usr/bin/env bats
# A run is its plan: a run's plan.json alone, given to scripts/run-gate
# --plan with a place, serves the same server (netatalk version, afp.conf)
# and runs the same work against the same reference, reaching the same
# verdict. Everything is real: scripts/local-server serves Debian's netatalk
# 4.5.1 with an afp.conf setting (ea = ad) that moves afpd's counts, judged
# against the bundled 4.5.1 baseline, which it does not match. Needs root, as the
# local server does. Ports 10780 and 10781 (run-gate's server and an A/B
# base beside it), and 14780-14781.
#
#   bats scripts/tests/gate_plan_replay.bats

bats_require_minimum_version 1.5.0

readonly PLAN_PORT=10780

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT
  export AFPBENCH_NATIVE_PORT=$PLAN_PORT LOCAL_SERVER_START_TIMEOUT=60
  "$ROOT/scripts/local-server" stop --port "$PLAN_PORT" --port $((PLAN_PORT + 1)) >/dev/null 2>&1 || true
  make -C "$ROOT/src/afpbench" -s >&2
}

teardown_file() {
  "$ROOT/scripts/local-server" stop --port "$PLAN_PORT" --port $((PLAN_PORT + 1)) >/dev/null 2>&1 || true
}

@test "a run's plan.json alone replays it: the same server (netatalk 4.5.1, ea = ad), the same work, the same verdict" {
  [[ $(id -u) -eq 0 ]] || skip "needs root (scripts/local-server)"
  cd "$BATS_FILE_TMPDIR"
  printf '[Global]\n[Share]\nea = ad\n' >ea-ad.conf
  # the first run: the plan made from the environment, as a user writes it
  AFPBENCH_RESULTS="$BATS_FILE_TMPDIR/first" NETATALK_VERSION=4.5.1 AFP_CONF=ea-ad.conf \
    AFPBENCH_TESTS=1 AFPBENCH_ITERATIONS=1 run "$ROOT/scripts/run-gate" --native
  echo "$output" | tail -n 20
  local first=$status
  # ea = ad moves afpd's calls in test 1 (metadata in AppleDouble files): a
  # fail against 4.5.1's own baseline
  [ "$first" -eq 1 ]
  jq -e '.server.netatalk_version == "4.5.1" and .server.afp_conf.volume == ["ea = ad"]
         and (.files.baseline.name | endswith("baselines/netatalk-4.5.1.json"))
         and (.files.baseline.content.schema | startswith("afpbench-"))' first/plan.json
  # its plan alone, elsewhere: nothing of the first run's environment, the
  # afp.conf file gone, another directory
  mkdir elsewhere
  cp first/plan.json elsewhere/plan.json
  rm ea-ad.conf
  cd elsewhere
  AFPBENCH_RESULTS="$BATS_FILE_TMPDIR/again" run "$ROOT/scripts/run-gate" --native --plan plan.json
  echo "$output" | tail -n 20
  [ "$status" -eq "$first" ]
  [[ $output == *"serving the plan's server on port $PLAN_PORT: netatalk 4.5.1, afp.conf: ea = ad"* ]]
  # the same server answered and served the same settings
  jq -e '(.provenance.netatalk.version | startswith("4.5.1")) and .provenance.afp_conf_settings == "ea = ad"' \
    ../again/results.json
  # the same work and the same deciding rows
  jq -e --slurpfile a ../first/plan.json '.settings == $a[0].settings and .files == $a[0].files' ../again/plan.json
  diff <(jq -c '.decided_by | sort' ../first/verdict.json) <(jq -c '.decided_by | sort' ../again/verdict.json)
  # and the attribution named the same AFP commands
  grep -q '^- \*\*FP[A-Za-z]*\*\*' ../first/report.md
  diff <(grep -o '^- \*\*FP[A-Za-z]*\*\*' ../first/report.md) <(grep -o '^- \*\*FP[A-Za-z]*\*\*' ../again/report.md)
}

@test "bad plans: a missing file, an old schema, a URL that does not answer, a checkout that is not here: exit 3 naming the cause" {
  cd "$BATS_FILE_TMPDIR"
  run -3 "$ROOT/scripts/run-gate" --native --plan missing.json
  [[ $output == *"--plan missing.json: no such file"* ]]
  echo '{"schema": "afpbench-plan/1", "settings": {}}' >old.json
  run -3 "$ROOT/scripts/run-gate" --native --plan old.json
  [[ $output == *"an afpbench-plan/1 plan, which held neither the server nor the files"* ]]
  run -3 "$ROOT/scripts/run-gate" --native --plan http://127.0.0.1:9/plan.json
  [[ $output == *"--plan http://127.0.0.1:9/plan.json: could not fetch it"* ]]
  # a source-built server whose checkout is not here is named, with the way out
  jq '.server.netatalk_source = {path: "/nonexistent/netatalk", commit: "0123456789abcdef0123456789abcdef01234567", dirty: false}' \
    first/plan.json >source.json
  run -3 "$ROOT/scripts/run-gate" --native --plan source.json
  [[ $output == *"built from a netatalk checkout at /nonexistent/netatalk (commit 0123456789ab), which is not here"* ]]
  [[ $output == *"NETATALK_SOURCE=DIR"* ]]
  run -3 "$ROOT/scripts/local-server" status --port "$PLAN_PORT"
}
