#!/usr/bin/env bats
# scripts/test-all's tally: what a step's log reports becomes the closing
# line's counts; a skipped test is counted neither passed nor failed and is
# named, with its reason, before that line (never a silent pass); steps that
# ran side by side (lanes) add up the same as steps run one after the other.

setup() {
  ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  LOG=$BATS_TEST_TMPDIR/step.log
  export TEST_LOG_DIR=$BATS_TEST_TMPDIR/logs
}

# counted LOG_TEXT: count_results on a log holding LOG_TEXT; prints its figures.
counted() {
  printf '%s\n' "$1" >"$LOG"
  bash -c '
    source "$1/scripts/test-all"
    count_results "$2" verdict/example
    echo "p=$step_p f=$step_f counts=$step_counts"
    ((${#step_skips[@]} == 0)) || printf "skipped: %s\n" "${step_skips[@]}"' _ "$ROOT" "$LOG"
}

@test "bats: a skip is not a pass; its reason is kept" {
  run counted $'1..3\nok 1 first in 5ms\nok 2 second in 12ms # skip no netatalk 4.4 source tree: no tarball\nnot ok 3 third in 1ms'
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "p=1 f=1 counts=1 passed, 1 failed, 1 skipped" ]]
  [[ ${lines[1]} == "skipped: verdict/example: second — no netatalk 4.4 source tree: no tarball" ]]
}

@test "Vitest: the skipped count and the test's own 'not run:' line" {
  run counted $'stdout | e2e/x.test.ts\nnot run: no netatalk 4.4 source tree\n      Tests  1 skipped | 4 passed (5)'
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "p=4 f=0 counts=4 passed, 0 failed, 1 skipped" ]]
  [[ ${lines[1]} == "skipped: verdict/example: 1 test(s) — no netatalk 4.4 source tree" ]]
}

@test "the C harness's line and TAP add up; nothing skipped, nothing named" {
  run counted $'13042 passed, 0 failed\nok 1 a\nok 2 b'
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "p=13044 f=0 counts=13044 passed, 0 failed" ]]
  [ "${#lines[@]}" -eq 1 ]
}

# pool STAGE_DEFINITIONS: source test-all, define stages, run them in the job
# pool with two workers, print the tally.
pool() {
  bash -c '
    source "$1/scripts/test-all"
    mkdir -p "$LOG_DIR"
    eval "$2"
    run_pool "${POOL_WORKERS:-2}" "${@:3}"
    tally
    echo "passed=$passed failed=$failed steps=${failed_stages[*]}"
    ((${#skipped[@]} == 0)) || printf "skipped: %s\n" "${skipped[@]}"' _ "$ROOT" "$@"
}

@test "steps run by two workers at once add up: counts, a failed step, a skip, each step's block in one piece" {
  run pool '
    stage_a() {
      run_step a one bash -c "printf \"ok 1 x\nok 2 y # skip why not\n\""
      run_step a two bash -c "echo 3 passed, 1 failed; exit 1"
    }
    stage_b() {
      run_step b three bash -c "printf \"ok 1 z\n\""
      run_step b four false
    }' a b
  echo "$output"
  [ "$status" -eq 0 ]
  # 1 + 3 + 1 passed; 1 reported + "four" that failed without a count
  [[ $output == *"passed=5 failed=2 steps="* ]]
  [[ $output == *"a/two"* && $output == *"b/four"* ]]
  [[ $output == *"skipped: a/one: y — why not"* ]]
  # every block is whole: its group, then its result line, before the next group
  [ "$(grep -c '^::group::' <<<"$output")" -eq 4 ]
  awk '/^::group::/ { open = substr($0, 10); sub(/: /, ":", open); next }
       /: (ok|FAILED) / { s = $0; sub(/.*: (ok|FAILED) /, "", s); sub(/ .*/, "", s); gsub("/", ":", s)
                          if (s != open) exit 1; open = "" }' <<<"$output"
}

@test "the pool: jobs without a conflict run at once; a lock held alone (NAME!) keeps the others of NAME out" {
  local ev=$BATS_TEST_TMPDIR/events
  # p and q wait for each other: both pass only when they run at the same time
  run pool "
    JOB_LOCKS[c/x]='x!' JOB_LOCKS[c/y]='x'
    stage_c() {
      run_step c p bash -c 'touch $ev.p; for i in {1..100}; do [[ -e $ev.q ]] && echo ok 1 p && exit; sleep 0.1; done; exit 1'
      run_step c q bash -c 'touch $ev.q; for i in {1..100}; do [[ -e $ev.p ]] && echo ok 1 q && exit; sleep 0.1; done; exit 1'
      run_step c x bash -c 'echo x-start >>$ev; sleep 0.5; echo x-end >>$ev; echo ok 1 x'
      run_step c y bash -c 'echo y-start >>$ev; sleep 0.5; echo y-end >>$ev; echo ok 1 y'
    }" c
  echo "$output"
  [ "$status" -eq 0 ]
  [[ $output == *"passed=4 failed=0 steps="* ]]
  # x and y never overlapped
  run paste -sd' ' "$ev"
  [[ $output == "x-start x-end y-start y-end" || $output == "y-start y-end x-start x-end" ]]
}

@test "the pool: a job that holds any! runs alone, first, however short" {
  local ev=$BATS_TEST_TMPDIR/events
  run pool "
    JOB_LOCKS[d/alone]='any!'
    JOB_SECONDS[d/u]=99 JOB_SECONDS[d/v]=98 JOB_SECONDS[d/alone]=1
    stage_d() {
      run_step d u bash -c 'echo u-start >>$ev; sleep 0.3; echo u-end >>$ev; echo ok 1 u'
      run_step d v bash -c 'echo v-start >>$ev; sleep 0.3; echo v-end >>$ev; echo ok 1 v'
      run_step d alone bash -c 'echo alone-start >>$ev; sleep 0.5; echo alone-end >>$ev; echo ok 1 alone'
    }" d
  echo "$output"
  [[ $output == *"passed=3 failed=0 steps="* ]]
  # it starts the run (it waits for nothing), and alone-start and alone-end
  # are neighbours: nothing started or ended between them
  [ "$(head -n 2 "$ev" | paste -sd' ')" = 'alone-start alone-end' ]
}

@test "the pool: a job that judges wall time (cpu!) has one other job beside it at most, however many workers" {
  local ev=$BATS_TEST_TMPDIR/events
  POOL_WORKERS=4 run pool "
    JOB_LOCKS[e/timed]='cpu!'
    JOB_SECONDS[e/timed]=99
    stage_e() {
      run_step e timed bash -c 'echo +timed >>$ev; sleep 1; echo -timed >>$ev; echo ok 1 t'
      for j in p q r s; do
        run_step e \$j bash -c \"echo +\$j >>$ev; sleep 0.4; echo -\$j >>$ev; echo ok 1 \$j\"
      done
    }" e
  echo "$output"
  [[ $output == *"passed=5 failed=0 steps="* ]]
  cat "$ev"
  # while timed runs, at most one other job does
  awk '/^\+timed/ { on = 1 } /^-timed/ { on = 0 }
       /^\+[pqrs]/ { n++; if (on && n > 1) bad = 1 } /^-[pqrs]/ { n-- }
       /^\+timed/ { if (n > 1) bad = 1 } END { exit bad }' "$ev"
}

@test "the pool: behind a job waiting for a quiet machine (cpu!), only a job expected to end before the running ones passes it" {
  # claim on its own, the order and the clock given: L (cpu) has run for
  # 10 s of its expected 100; T (cpu!) must wait for it; B (expected 150)
  # would hold T back past that, S (expected 5) would not
  run bash -c '
    source "$1/scripts/test-all"
    POOL=$(mktemp -d); mkdir -p "$POOL/taken" "$POOL/held" "$POOL/since"
    JOBS=(c/L c/T c/B c/S) ORDER=(0 1 2 3) WORKERS=2
    JOB_LOCKS[c/L]=cpu JOB_LOCKS[c/T]="cpu!" JOB_LOCKS[c/B]="" JOB_LOCKS[c/S]=""
    JOB_SECONDS[c/L]=100 JOB_SECONDS[c/T]=40 JOB_SECONDS[c/B]=150 JOB_SECONDS[c/S]=5
    touch "$POOL/taken/0"; echo "cpu any" >"$POOL/held/0"
    echo "$(($(date +%s) - 10)) 100" >"$POOL/since/0"
    st() { local s=0; claim || s=$?; echo "status $s"; }
    st; st
    # with nobody queued (T taken), B starts
    rm -f "$POOL"/held/3 "$POOL"/since/3; touch "$POOL/taken/1"
    claim; echo "status $?"' _ "$ROOT"
  echo "$output"
  [ "$(paste -sd' ' <<<"$output")" = "3 status 0 status 2 2 status 0" ]
}

@test "the pool: an idle job runs at the idle CPU priority in a slot of its own, beside a job that runs alone" {
  local ev=$BATS_TEST_TMPDIR/events
  # alone and bg wait for each other: both pass only side by side; fg is
  # an ordinary job, which waits for alone
  POOL_WORKERS=1 run pool "
    IDLE_WORKERS=1
    JOB_LOCKS[g/alone]='any!' JOB_LOCKS[g/bg]='idle'
    JOB_SECONDS[g/fg]=99
    stage_g() {
      run_step g alone bash -c 'touch $ev.a; for i in {1..600}; do [[ -e $ev.b ]] && echo ok 1 a && exit; sleep 0.1; done; exit 1'
      run_step g bg bash -c 'chrt -p \$\$ >$ev.policy; touch $ev.b; for i in {1..600}; do [[ -e $ev.a ]] && echo ok 1 b && exit; sleep 0.1; done; exit 1'
      run_step g fg bash -c 'chrt -p \$\$ >$ev.fgpolicy; echo ok 1 fg'
    }" g
  echo "$output"
  [[ $output == *"passed=3 failed=0 steps="* ]]
  grep -q 'SCHED_IDLE' "$ev.policy"
  # fg keeps this test's own policy (SCHED_IDLE too, when CI runs lint idle)
  [ "$(sed 's/.*: //' "$ev.fgpolicy")" = "$(chrt -p $$ | sed 's/.*: //')" ]
}

@test "the lock and duration tables name only jobs that exist" {
  run bash -c 'source "$1/scripts/test-all"
    for s in "${ALL_STAGES[@]}"; do plan_stage "$s"; done
    for i in "${!JOBS[@]}"; do job_id "$i"; done' _ "$ROOT"
  [ "$status" -eq 0 ]
  local ids=$output key
  run bash -c 'source "$1/scripts/test-all"; printf "%s\n" "${!JOB_LOCKS[@]}" "${!JOB_SECONDS[@]}"' _ "$ROOT"
  for key in $output; do
    # "STAGE/*": the stage's every step
    grep -qx "${key//\*/.*}" <<<"$ids" || {
      echo "JOB_LOCKS/JOB_SECONDS name $key, which is no job" >&2
      return 1
    }
  done
}
