#!/usr/bin/env bats
# scripts/backfill on a REAL repository and REAL servers: commits of
# scripts/tests/lib/bisect-repo.sh (made from the shared netatalk 4.4 tree),
# each built incrementally and served by scripts/local-server. The range
# c9..c13 holds a CI-only commit (c10), the regression (c11: one stat() more
# per FPGetFileDirParms) and a NEWS-only commit (c12). Needs root, like the
# server tests; without the 4.4 tree the tests that build are not run, and
# say why. Port: BACKFILL_PORT, else 10676.

bats_require_minimum_version 1.5.0

load lib/bisect-fixture

setup_file() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export ROOT BACKFILL="$ROOT/scripts/backfill"
  export BACKFILL_PORT=${BACKFILL_PORT:-10676}
  make -C "$ROOT/src/afpbench" -s >&2
  export AFPBENCH_BIN="$ROOT/src/afpbench/afpbench"
  bisect_fixture
}

teardown_file() {
  "$ROOT/scripts/local-server" stop --port "$BACKFILL_PORT" >/dev/null 2>&1 || true
}

# records OUT: each record under OUT as "commit12 source reused_from12", in order
records() {
  local f
  for f in $(find "$1/runs" -name '*.json' | sort); do
    jq -r '[.commit[0:12], .source // "measured", (.reused_from // "-")[0:12]] | join(" ")' "$f"
  done
}

@test "bad input ends with exit 3 naming the cause, before anything is built" {
  run "$BACKFILL" --repo "$W" --from a --to b --out "$W/x"
  [ "$status" -eq 3 ]
  [[ $output == *"is not a git repository"* ]]
  # a repository that is not netatalk's
  git init -q "$W/other"
  git -C "$W/other" -c user.name=t -c user.email=t@x commit -q --allow-empty -m one
  run "$BACKFILL" --repo "$W/other" --from HEAD --to HEAD --out "$W/x"
  [ "$status" -eq 3 ]
  [[ $output == *"is not netatalk's"*"no meson.build of project 'netatalk'"* ]]
  need_tree
  # ends that are not ancestor and descendant
  run "$BACKFILL" --repo "$W/repo" --from "$(c 13)" --to "$(c 9)" --out "$W/x"
  [ "$status" -eq 3 ]
  [[ $output == *"--from $(c 13 | cut -c1-12) is not an ancestor of --to $(c 9 | cut -c1-12)"* ]]
  # an output that cannot be written
  touch "$W/a-file"
  run "$BACKFILL" --repo "$W/repo" --from "$(c 9)" --to "$(c 13)" --out "$W/a-file/out"
  [ "$status" -eq 3 ]
  [[ $output == *"--out $W/a-file/out cannot be written"* ]]
  run "$BACKFILL" --repo "$W/repo" --from "$(c 9)" --to "$(c 13)" --out "$W/x" --slice 3/2
  [ "$status" -eq 3 ]
  [[ $output == *"--slice '3/2' is not K/N"* ]]
  [ ! -e "$W/x/runs" ]
}

@test "c9..c13: one record per commit, CI and NEWS reused unbuilt, the step at c11 confirmed and attributed; a second run measures nothing" {
  need_tree
  run "$BACKFILL" --repo "$W/repo" --from "$(c 9)" --to "$(c 13)" --out "$W/out" --tests 9 \
    --cache "$W/cache" --work "$W/work"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(records "$W/out")" = "$(printf '%s measured -\n%s reused %s\n%s measured -\n%s reused %s\n%s measured -' \
    "$(c 9 | cut -c1-12)" "$(c 10 | cut -c1-12)" "$(c 9 | cut -c1-12)" "$(c 11 | cut -c1-12)" \
    "$(c 12 | cut -c1-12)" "$(c 11 | cut -c1-12)" "$(c 13 | cut -c1-12)")" ]
  # the commits that change no built file were never built or served
  [ ! -e "$W/work/c-$(c 10).server.log" ]
  [ ! -e "$W/work/c-$(c 12).server.log" ]
  # every record is one a reader takes: subject, and the step's fields
  local rec
  rec=$(find "$W/out/runs" -name "*-$(c 11 | cut -c1-12).json")
  jq -e '.subject == "filedir: look at the working directory before every FPGetFileDirParms"' "$rec"
  jq -e '.steps | map(.metric) | index("aggregate.afpd_sys_stat_per_op") != null' "$rec"
  jq -e '.steps[] | select(.metric == "aggregate.afpd_sys_stat_per_op")
    | .after > .before and .commands[0].command == "FPGetFileDirParms"
      and (.commands[0].calls | map(.call) | index("newfstatat") != null)' "$rec"
  # the code site, where the traces reach afpd's own functions
  jq -r '.steps[0].site' "$rec" >&3
  # the account: confirmed on both commits measured again, the A/A on each
  local j="$W/out/backfill.json"
  jq -e --arg c11 "$(c 11)" --arg c10 "$(c 10)" \
    '.status == "done" and .measured == 3 and .reused == 2 and .skipped == 0
     and ([.steps[] | select(.confirmed) | .commit] == [$c11])
     and (first(.steps[] | select(.commit == $c11)) as $s
       | $s.previous == $c10 and ($s.metrics | all(.confirmed))
       # the A/A on each commit: the stat calls exactly the same, the rest within a call
       and ($s.metrics[] | select(.metric == "aggregate.afpd_sys_stat_per_op") | .aa_before == 0 and .aa_after == 0)
       and ($s.metrics | all((.aa_before | fabs) < 0.001 and (.aa_after | fabs) < 0.001)))' "$j"
  # a step that did not come back (a count with a clock term) is in no record
  [ "$(grep -l '"steps"' "$W"/out/runs/*/*/*.json)" = "$rec" ]
  grep -q "filedir: look at the working directory" "$W/out/backfill.md"
  printf '# c9..c13: %s s\n' "$(jq .seconds "$j")" >&3
  # again: nothing measured, built or checked again
  run "$BACKFILL" --repo "$W/repo" --from "$(c 9)" --to "$(c 13)" --out "$W/out" --tests 9 \
    --cache "$W/cache" --work "$W/work2"
  echo "$output"
  [ "$status" -eq 0 ]
  jq -e --arg c11 "$(c 11)" '.measured == 0 and .reused == 0 and .recorded_before == 5
    and ([.steps[] | select(.confirmed) | .commit] == [$c11])' "$j"
  [ -z "$(compgen -G "$W/work2/c-*")" ]
  [ -z "$(compgen -G "$W/work2/step-*")" ]
  # the account still tells every commit, as the run that recorded it did
  jq -e '[.log[] | select(.earlier)] | length == 5' "$j"
}

@test "a budget that runs out: exit 4, the records made kept; the same command goes on from there" {
  need_tree
  # a cache of its own: the first commit is built and measured, and its
  # time makes the next one too long for the budget
  run "$BACKFILL" --repo "$W/repo" --from "$(c 13)" --to "$(c 16)" --out "$W/budget" --tests 9 \
    --cache "$W/cache-budget" --work "$W/work-budget" --budget 1 --no-steps
  echo "$output"
  [ "$status" -eq 4 ]
  [[ $output == *"the budget of 1 s ran out"*"run the same command again to go on"* ]]
  # c13 measured, c14 (CI) reused without a build; c15 not started
  [ "$(records "$W/budget" | cut -d' ' -f1,2)" = "$(printf '%s measured\n%s reused' "$(c 13 | cut -c1-12)" "$(c 14 | cut -c1-12)")" ]
  jq -e '.status == "budget"' "$W/budget/backfill.json"
  run "$BACKFILL" --repo "$W/repo" --from "$(c 13)" --to "$(c 16)" --out "$W/budget" --tests 9 \
    --cache "$W/cache-budget" --work "$W/work-budget2" --no-steps
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(records "$W/budget" | cut -d' ' -f2 | paste -sd' ')" = "measured reused measured reused" ]
  jq -e '.recorded_before == 2 and .measured == 1 and .reused == 1' "$W/budget/backfill.json"
}

# A slice (its own commits, the one before measured for the step at its edge)
# is src/action/e2e/backfill.e2e.test.ts's: four slices of c5..c16, the third
# starting at the step c11 with c10 as its anchor.
