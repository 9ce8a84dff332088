#!/usr/bin/env bats
# scripts/gate's configuration checks: each bad setting stops the gate before
# it measures, with a message naming the setting, exit 3, and the results
# directory left as it was (issue 10: a typo must not wipe the last good
# results). No server needed.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  export AFPBENCH_RESULTS="$T/results" AFP_HOST=127.0.0.1 AFP_PORT=9 AFPBENCH_BIN=/bin/false
  unset AFPBENCH_TESTS AFPBENCH_SPEEDTEST AFPBENCH_ITERATIONS AFPBENCH_BASELINE AFPBENCH_THRESHOLDS
}

# gate_fails_with TEXT: the gate exited 3, said TEXT, and left the previous
# results (a verdict.json of an earlier run) untouched.
gate_fails_with() {
  mkdir -p "$AFPBENCH_RESULTS"
  echo '{"status": "pass", "earlier": true}' >"$AFPBENCH_RESULTS/verdict.json"
  echo earlier >"$AFPBENCH_RESULTS/lantest.json"
  run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"$1"* ]]
  jq -e '.earlier' "$AFPBENCH_RESULTS/verdict.json"
  [ "$(cat "$AFPBENCH_RESULTS/lantest.json")" = earlier ]
  [ -z "$(find "$AFPBENCH_RESULTS" -name '.gate-run.*')" ]
}

@test "the settings table states the thresholds' defaults thresholds.jq has (issue 24)" {
  # thresholds.jq holds every built-in number; the table (and so docs/settings.md,
  # the gate's --help and action.yml's descriptions) only repeats them
  run jq -n -r -f "$SCRIPTS/jq/thresholds.jq" --slurpfile file /dev/null --arg name "" --arg time "" \
    --arg io "" --arg cpu "" --arg instr "" --arg sys "" --arg baseline_timings ""
  [ "$status" -eq 0 ]
  local truth said
  truth=$(jq -r '"\(.time) (\(.time_ab) in A/B) \(.io) \(.cpu) \(.sys) \(.instr)"' <<<"$output")
  said=$(jq -r '[.settings[] | {key: .env, value: .empty}] | from_entries
    | "\(.AFPBENCH_TIME_THRESHOLD) \(.AFPBENCH_IO_THRESHOLD) \(.AFPBENCH_CPU_THRESHOLD) \(.AFPBENCH_SYS_THRESHOLD) \(.AFPBENCH_INSTR_THRESHOLD)"' \
    "$SCRIPTS/settings.json")
  echo "scripts/settings.json says $said, thresholds.jq has $truth"
  [ "$said" = "$truth" ]
}

@test "a bad lantest selection is refused" {
  AFPBENCH_TESTS=1-13 gate_fails_with "AFPBENCH_TESTS='1-13': '1-13' is not a test number or range of 1-12"
  AFPBENCH_TESTS=abc gate_fails_with "AFPBENCH_TESTS='abc': 'abc' is not a test number or range of 1-12 (use e.g. 1-12, 1,4,10, or a group: all, cache, files, none)"
}

@test "an unknown speedtest operation or bad sizes are refused" {
  AFPBENCH_SPEEDTEST=Read,Fly:1 gate_fails_with "'Fly' is not a speedtest operation (one of: Read Write Copy ServerCopy)"
  AFPBENCH_SPEEDTEST=Read:1,big gate_fails_with "size 'big' is not a number of MiB between 1 byte and 4096"
}

@test "iterations out of range are refused" {
  AFPBENCH_ITERATIONS=0 gate_fails_with "AFPBENCH_ITERATIONS='0' must be a whole number from 1 to 255"
  AFPBENCH_ITERATIONS=five gate_fails_with "AFPBENCH_ITERATIONS='five'"
}

@test "a missing baseline is refused before measuring" {
  AFPBENCH_BASELINE="$T/none.json" gate_fails_with "AFPBENCH_BASELINE=$T/none.json: no such file"
}

@test "a baseline of another schema version is refused before measuring" {
  echo '{"schema": "afpbench-baseline/7", "tests": []}' >"$T/v7.json"
  AFPBENCH_BASELINE="$T/v7.json" gate_fails_with 'baseline schema "afpbench-baseline/7" is not supported'
}

@test "bad thresholds and nothing to run are refused" {
  AFPBENCH_TIME_THRESHOLD=lots gate_fails_with "AFPBENCH_TIME_THRESHOLD='lots' is not a percentage"
  AFPBENCH_TESTS=none gate_fails_with "nothing to run"
}

@test "a bad AFPBENCH_DEADLINE is refused" {
  AFPBENCH_DEADLINE=soon gate_fails_with "AFPBENCH_DEADLINE='soon' must be whole seconds"
  AFPBENCH_DEADLINE=0 gate_fails_with "AFPBENCH_DEADLINE='0'"
}

@test "results of an earlier run are replaced by the next run's, other files kept" {
  mkdir -p "$AFPBENCH_RESULTS"
  echo stale >"$AFPBENCH_RESULTS/lantest.json"
  echo stale >"$AFPBENCH_RESULTS/speedtest.csv"
  echo keep >"$AFPBENCH_RESULTS/notes.txt"
  # an A/B run's sequential pairs and the full report, and a directory this
  # run writes too
  mkdir -p "$AFPBENCH_RESULTS/settle" "$AFPBENCH_RESULTS/charts"
  echo stale >"$AFPBENCH_RESULTS/settle/round-1.json"
  echo stale >"$AFPBENCH_RESULTS/charts/old.png"
  echo stale >"$AFPBENCH_RESULTS/report-full.md"
  # a run that starts and fails at once (afpbench is /bin/false)
  AFPBENCH_TESTS=1 run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [ ! -e "$AFPBENCH_RESULTS/settle" ]
  [ ! -e "$AFPBENCH_RESULTS/charts/old.png" ]
  [ "$(cat "$AFPBENCH_RESULTS/report-full.md")" != stale ]
  [ ! -e "$AFPBENCH_RESULTS/speedtest.csv" ]
  [ "$(cat "$AFPBENCH_RESULTS/lantest.csv")" = "" ]
  [ ! -e "$AFPBENCH_RESULTS/lantest.json" ]
  jq -e '.status == "error" and (.errors | any(contains("afpbench lantest exited 1")))' "$AFPBENCH_RESULTS/verdict.json"
  [ -s "$AFPBENCH_RESULTS/report.md" ]
  [ "$(cat "$AFPBENCH_RESULTS/notes.txt")" = keep ]
  [ -z "$(find "$AFPBENCH_RESULTS" -name '.gate-run.*')" ]
}

@test "the deadline: derived from the work, given to afpbench, and the gate's own bound kills a hung one" {
  # a fake afpbench that records its arguments and then hangs
  cat >"$T/hang" <<'EOS'
#!/bin/sh
echo "$@" >"$ARGS_FILE"
exec sleep 60
EOS
  chmod +x "$T/hang"
  export ARGS_FILE="$T/args"
  AFPBENCH_BIN="$T/hang" AFPBENCH_TESTS=1,2 AFPBENCH_ITERATIONS=5 AFPBENCH_DEADLINE=1 run "$SCRIPTS/gate"
  [ "$status" -eq 3 ]
  [[ $output == *"measuring for at most 1 s"* ]]
  grep -q -- '--deadline 1' "$ARGS_FILE"
  jq -e '.errors | any(contains("exited 124") and contains("timed out"))' "$AFPBENCH_RESULTS/verdict.json"
  # without AFPBENCH_DEADLINE: 120 s + 60 s x (5 iterations + the untimed
  # per-command pass) x 2 tests
  AFPBENCH_TESTS=1,2 AFPBENCH_ITERATIONS=5 run "$SCRIPTS/gate"
  [[ $output == *"measuring for at most 840 s"* ]]
  AFPBENCH_TESTS=none AFPBENCH_SPEEDTEST=Read,Write:1,8 AFPBENCH_ITERATIONS=2 run "$SCRIPTS/gate"
  # 120 + (2 + 1) x 2 ops x ((30 + 1 + 1) + (30 + 8 + 1))
  [[ $output == *"measuring for at most 546 s"* ]]
}

@test "the selection grammars: the gate accepts and refuses the shared fixture's specs as the action does" {
  local spec want got
  # the gate reads its settings and says what they select; nothing runs
  while IFS=$'\t' read -r spec want; do
    got=$(AFPBENCH_TESTS=$spec "$SCRIPTS/gate" --check | jq -r '.settings.AFPBENCH_TESTS | split(",") | map(split("-") | map(tonumber) | [range(.[0]; (.[1] // .[0]) + 1)]) | flatten | join(" ")')
    [ "$got" = "$want" ] || {
      echo "tests '$spec': got '$got', want '$want'"
      return 1
    }
  done < <(jq -r --slurpfile cat "$SCRIPTS/lantest-tests.json" '.tests.accept | to_entries[]
    | (.value | if type == "object" then .catalogue as $g | [$cat[0].tests[] | select($g == "all" or .group == $g) | .id] else . end) as $ids
    | "\(.key)\t\($ids | map(tostring) | join(" "))"' "$FIXTURES/specs.json")
  while IFS= read -r spec; do
    AFPBENCH_TESTS=$spec run "$SCRIPTS/gate" --check
    [ "$status" -eq 3 ] || {
      echo "tests '$spec' was accepted: $output"
      return 1
    }
    [[ $output == *"AFPBENCH_TESTS="* ]]
  done < <(jq -r '.tests.reject[]' "$FIXTURES/specs.json")
  while IFS=$'\t' read -r spec want; do
    got=$(AFPBENCH_TESTS=1 AFPBENCH_SPEEDTEST=$spec "$SCRIPTS/gate" --check | jq -r .settings.AFPBENCH_SPEEDTEST)
    [ "$got" = "$want" ] || {
      echo "speedtest '$spec': got '$got', want '$want'"
      return 1
    }
  done < <(jq -r '.speedtest.accept | to_entries[] | "\(.key)\t\(.value)"' "$FIXTURES/specs.json")
  while IFS= read -r spec; do
    AFPBENCH_TESTS=1 AFPBENCH_SPEEDTEST=$spec run "$SCRIPTS/gate" --check
    [ "$status" -eq 3 ] || {
      echo "speedtest '$spec' was accepted: $output"
      return 1
    }
    [[ $output == *"AFPBENCH_SPEEDTEST="* ]]
  done < <(jq -r '.speedtest.reject[]' "$FIXTURES/specs.json")
  local suite env
  for suite in spotlight bigdir; do
    env=AFPBENCH_${suite^^}
    while IFS=$'\t' read -r spec want; do
      got=$(env AFPBENCH_TESTS=1 "$env=$spec" "$SCRIPTS/gate" --check | jq -r ".settings.$env")
      [ "$got" = "$want" ] || {
        echo "$suite '$spec': got '$got', want '$want'"
        return 1
      }
    done < <(jq -r --arg s "$suite" '.[$s].accept | to_entries[] | "\(.key)\t\(.value)"' "$FIXTURES/specs.json")
    while IFS= read -r spec; do
      run env AFPBENCH_TESTS=1 "$env=$spec" "$SCRIPTS/gate" --check
      [ "$status" -eq 3 ] || {
        echo "$suite '$spec' was accepted: $output"
        return 1
      }
      [[ $output == *"$env="* ]]
    done < <(jq -r --arg s "$suite" '.[$s].reject[]' "$FIXTURES/specs.json")
  done
}

@test "a plan: --check prints it, --plan runs its settings and takes only the place from the environment" {
  AFPBENCH_TESTS=cache AFPBENCH_ITERATIONS=3 AFPBENCH_LABEL="it's \$(id)" "$SCRIPTS/gate" --check >"$T/plan.json"
  jq -e '.schema == "afpbench-plan/2" and .settings.AFPBENCH_TESTS == "9-12"
    and (.derived | {ab, iterations, lantest_tests, suites, speedtest_sizes_mib})
      == {ab: false, iterations: 3, lantest_tests: [9, 10, 11, 12], suites: ["lantest"], speedtest_sizes_mib: []}
    and .server.netatalk_version == "" and .server.afp_conf == {global: [], volume: []}
    and .base_server == null and .files.baseline == null' "$T/plan.json"
  # no place, no password in a plan
  run jq -r '.settings | keys[] | select(test("^(AFP_|BASE_|PROC_IO|SHARE_NAME|AFPBENCH_RESULTS$)"))' "$T/plan.json"
  [ -z "$output" ]
  # the environment's run settings are not the plan's: the plan wins, values kept as written
  AFPBENCH_TESTS=1 AFPBENCH_ITERATIONS=9 "$SCRIPTS/gate" --check --plan "$T/plan.json" >"$T/again.json"
  jq -e --slurpfile plan "$T/plan.json" '. == $plan[0]' "$T/again.json"
  # a plan is checked as the environment is: a bad value, a setting of the place, another schema
  jq '.settings.AFPBENCH_TESTS = "13"' "$T/plan.json" >"$T/bad.json"
  run "$SCRIPTS/gate" --plan "$T/bad.json"
  [ "$status" -eq 3 ]
  [[ $output == *"AFPBENCH_TESTS='13'"* ]]
  jq '.settings.AFP_HOST = "elsewhere"' "$T/plan.json" >"$T/bad.json"
  run "$SCRIPTS/gate" --plan "$T/bad.json"
  [ "$status" -eq 3 ]
  [[ $output == *"AFP_HOST: not a setting of a plan"* ]]
  jq '.schema = "afpbench-gate-settings/1"' "$T/plan.json" >"$T/bad.json"
  run "$SCRIPTS/gate" --plan "$T/bad.json"
  [[ $status -eq 3 && $output == *"not a plan (afpbench-plan/2"* ]]
  run "$SCRIPTS/gate" --plan "$T/none.json"
  [[ $status -eq 3 && $output == *"no such file"* ]]
  # made for one server, run with a base named (and the other way round)
  run env BASE_AFP_PORT=549 "$SCRIPTS/gate" --plan "$T/plan.json"
  [[ $status -eq 3 && $output == *"is for a run on one server"* ]]
  BASE_AFP_PORT=549 "$SCRIPTS/gate" --check >"$T/ab.json"
  jq -e '.derived.ab and .derived.iterations == 10' "$T/ab.json"
  run "$SCRIPTS/gate" --plan "$T/ab.json"
  [[ $status -eq 3 && $output == *"is for an A/B run"* ]]
}

@test "a plan's run keeps it in the results as plan.json, and its tools see the plan's settings" {
  # afpbench writes down its environment and fails: the run measures nothing
  # and ends in an error verdict
  printf '#!/bin/sh\nenv >"%s/afpbench.env"\necho "$@" >"%s/afpbench.args"\nexit 5\n' "$T" "$T" >"$T/afpbench"
  chmod +x "$T/afpbench"
  AFPBENCH_TESTS=4 AFPBENCH_ITERATIONS=1 AFPBENCH_BASELINE_TIMINGS=gate "$SCRIPTS/gate" --check >"$T/plan.json"
  AFPBENCH_BIN=$T/afpbench AFPBENCH_BASELINE_TIMINGS=show run "$SCRIPTS/gate" --plan "$T/plan.json"
  [ "$status" -eq 3 ]
  # what the gate runs (afpbench, compare) reads the plan's value, not the caller's
  grep -qx 'AFPBENCH_BASELINE_TIMINGS=gate' "$T/afpbench.env"
  # afpbench takes the gate's settings by flag: counting is a flag, not its environment
  grep -q -- '--syscalls on' "$T/afpbench.args"
  [ -z "$(grep '^AFPBENCH_SYSCALLS=' "$T/afpbench.env" || true)" ]
  jq -e '.settings.AFPBENCH_TESTS == "4" and .derived.iterations == 1' "$AFPBENCH_RESULTS/plan.json"
  jq -e '.status == "error"' "$AFPBENCH_RESULTS/verdict.json"
}
