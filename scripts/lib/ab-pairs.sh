# shellcheck shell=bash
# shellcheck disable=SC2154 # results_dir, errors and the settings are the gate's
# A/B taken sequentially (docs/verdict-format.md, "Sequential pairs"): while a
# deciding timing is undecided, measure more pairs and judge again. Sourced
# by scripts/gate, whose run_suite, results_dir, errors, DEADLINE_END, AB,
# LANTEST_ARG and AFPBENCH_* settings it uses.

# pairs_wanted DIR: judge lantest.json alone (into DIR) and print how many
# pairs in all the deciding timings still undecided ask for (the largest
# iterations_needed of those rows; 0 when none gives one: too noisy for any
# number the gate runs), and how many they are; "0 0 fail" once a row fails
# (more pairs cannot undo a fail, and a fail needs no more).
pairs_wanted() {
  local args=(--out "$1/verdict.json")
  [[ -z $AFPBENCH_THRESHOLDS ]] || args+=(--thresholds "$AFPBENCH_THRESHOLDS")
  jq -n -L "$SCRIPTS/jq" -f "$SCRIPTS/jq/merge.jq" --argjson extra '{}' "$results_dir/lantest.json" >"$1/results.json" &&
    { "$SCRIPTS/compare" "${args[@]}" "$1/results.json" >/dev/null 2>&1 || (($? < 3)); } &&
    jq -r 'if any(.rows[]; .state == "fail") then "0 0 fail"
           else [.rows[] | select(.state == "inconclusive" and .pairs != null) | .iterations_needed // 0]
                | "\(max // 0) \(length)" end' "$1/verdict.json"
}

# settle_pairs SECONDS: A/B taken sequentially (docs/verdict-format.md,
# "Sequential pairs"). The first AFPBENCH_ITERATIONS pairs took SECONDS.
# While a deciding timing is undecided and asks for more pairs, measure that
# many more of every selected test (an even number, so that each test's
# base still goes first as often as its head) as far as AFPBENCH_AB_BUDGET,
# the deadline and 255 pairs allow, add them to lantest.json and judge
# again. What it did goes into lantest.json's config.settle, for the
# verdict's note.
settle_pairs() {
  local budget=$((10#${AFPBENCH_AB_BUDGET:-0}))
  [[ $AB == yes ]] && ((budget > 0)) || return 0
  local dir=$results_dir/settle pairs=$((10#$AFPBENCH_ITERATIONS)) first
  local per_pair end=$((SECONDS + budget)) need undecided failed more fit cap status
  local round=0 stopped=settled t0=$SECONDS
  first=$pairs
  per_pair=$(((${1} + pairs - 1) / pairs))
  ((per_pair >= 1)) || per_pair=1
  mkdir -p "$dir"
  while :; do
    read -r need undecided failed < <(pairs_wanted "$dir" || echo error) || true
    if [[ ! $need =~ ^[0-9]+$ ]]; then
      warn "A/B: the pairs so far could not be judged; no more are measured"
      stopped=error
      break
    fi
    if ((need <= pairs)); then
      if [[ -n $failed ]]; then stopped=fail; elif ((undecided > 0)); then stopped=noise; fi
      break
    fi
    # what the rows ask for, but a quarter of the pairs so far and 4 at least
    # (each round pays a set-up of its own, and an estimate near the
    # threshold asks for a pair or two at a time), and at most as many as so
    # far: the estimate scales the bound by 1/sqrt(pairs), which from 10
    # pairs asked for 32 where the first 16 settled
    more=$((need - pairs))
    ((more <= pairs)) || more=$pairs
    ((more >= pairs / 4)) || more=$((pairs / 4))
    ((more >= 4)) || more=4
    more=$((more + more % 2))
    # what stops it first: 255 pairs, the budget or the deadline
    stopped=max fit=$((255 - pairs))
    (((end - SECONDS) / per_pair >= fit)) || stopped=budget fit=$(((end - SECONDS) / per_pair))
    (((DEADLINE_END - SECONDS) / per_pair >= fit)) || stopped=deadline fit=$(((DEADLINE_END - SECONDS) / per_pair))
    ((more <= fit)) || more=$((fit - fit % 2))
    if ((more < 2)); then
      log "A/B: a timing is still undecided after $pairs pairs; the $stopped allows no more (about $per_pair s a pair)"
      break
    fi
    stopped=settled
    round=$((round + 1))
    log "A/B: a timing is undecided after $pairs pairs and asks for $need: $more more (round $round, $((end - SECONDS)) s of AFPBENCH_AB_BUDGET=$budget left)"
    # the budget is a cap: a round still running when it ends stops there,
    # and the pairs it finished count
    status=0
    cap=$((end < DEADLINE_END ? end - SECONDS : DEADLINE_END - SECONDS))
    run_suite --out "settle/lantest-$round" -n "$more" --cap "$cap" lantest -f "$LANTEST_ARG" || status=$?
    if ((status == 1)); then
      stopped=error
      break
    fi
    more=$(add_pairs "$results_dir/settle/lantest-$round.json") || {
      errors+=("the pairs of round $round could not be added to lantest.json")
      stopped=error
      break
    }
    pairs=$((pairs + more))
    if ((status == 2)); then
      stopped=budget
      ((end <= DEADLINE_END)) || stopped=deadline
      break
    fi
  done
  jq --argjson s "{\"first_pairs\": $first, \"pairs\": $pairs, \"rounds\": $round, \"budget_s\": $budget, \"seconds\": $((SECONDS - t0)), \"stopped\": \"$stopped\"}" \
    '.config.settle = $s' "$results_dir/lantest.json" >"$dir/lantest.json" && mv "$dir/lantest.json" "$results_dir/lantest.json"
  [[ $stopped != error ]]
}

# add_pairs MORE.json: MORE's whole iterations (every test on both sides)
# join lantest.json's tests, numbered after the ones there (a pair is a test
# and an iteration); prints how many joined (settle_pairs' `pairs` is the
# count before).
add_pairs() {
  jq --slurpfile more "$1" -f "$SCRIPTS/jq/add-pairs.jq" "$results_dir/lantest.json" >"$results_dir/settle/joined.json" &&
    mv "$results_dir/settle/joined.json" "$results_dir/lantest.json" &&
    jq -r '.config.iterations' "$results_dir/lantest.json" | { read -r total && echo $((total - pairs)); }
}
