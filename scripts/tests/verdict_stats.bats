#!/usr/bin/env bats
# The statistics of scripts/jq/stats.jq against reference values computed
# with SciPy at development time (reference/make-signed-rank.py and
# make-mann-whitney.py wrote signed-rank.json and mann-whitney.json; CI needs
# no Python).

setup() {
  load fixtures/verdict-helpers
  REF="$BATS_TEST_DIRNAME/reference/signed-rank.json"
}

stats() { jq -L "$SCRIPTS/jq" -c "include \"stats\"; $1" "$REF"; }

@test "signed-rank orders equal SciPy's exact ones up to 60 pairs, for alpha 0.025, 0.05 and 0.1" {
  [ "$(stats '[.orders[] | select(.n <= 60)] | length')" -ge 100 ]
  [ "$(stats '[.orders[] | select(.n <= 60 and signed_rank_order(.n; .alpha) != .order)]')" = "[]" ]
  # the smallest case with an interval: 5 pairs at 0.05 (1/32), none with 4 (1/16)
  [ "$(stats '[signed_rank_order(4; 0.05), signed_rank_order(5; 0.05)]')" = "[0,1]" ]
}

@test "beyond 60 pairs the normal approximation is never less cautious than the exact order" {
  [ "$(stats '[.orders[] | select(.n > 60)] | length')" -ge 6 ]
  [ "$(stats '[.orders[] | select(.n > 60 and (signed_rank_order(.n; .alpha) > .order or signed_rank_order(.n; .alpha) < .order - 3))]')" = "[]" ]
}

@test "Hodges-Lehmann estimate and interval equal the reference's" {
  [ "$(stats '.hodges_lehmann | length')" -ge 5 ]
  # shellcheck disable=SC2016  # jq variables
  [ "$(stats '[.hodges_lehmann[] | hodges_lehmann(.d; .alpha) as $h
              | select([$h.estimate - .expect.estimate, $h.lo - .expect.lo, $h.hi - .expect.hi]
                       | any(. > 1e-9 or . < -1e-9))]')" = "[]" ]
  # fewer than 5 pairs: no interval
  [ "$(jq -n -c -L "$SCRIPTS/jq" 'include "stats"; hodges_lehmann([0.1, 0.2, 0.3, 0.4]; 0.05) | [.lo, .hi]')" = "[null,null]" ]
}

# ---- Mann-Whitney (stored baselines) against reference/mann-whitney.json ----

mw() { jq -L "$SCRIPTS/jq" -c "include \"stats\"; $1" "$BATS_TEST_DIRNAME/reference/mann-whitney.json"; }

@test "Mann-Whitney reference: cases of both branches, both tails, unequal sizes and ties" {
  # at least 5 cases in each branch, p below 0.001 and above 0.999, and ties
  [ "$(mw '[.cases[] | select(.ties | not) | select(mw_exact_size(.m; .n))] | length')" -ge 5 ]
  [ "$(mw '[.cases[] | select(.ties | not) | select(mw_exact_size(.m; .n) | not)] | length')" -ge 5 ]
  [ "$(mw '[.cases[] | select(.exact.greater < 0.001)] | length')" -ge 3 ]
  [ "$(mw '[.cases[] | select(.exact.greater > 0.999)] | length')" -ge 3 ]
  [ "$(mw '[.cases[] | select(.m != .n and (.m * .n > 400))] | length')" -ge 5 ]
  [ "$(mw '[.cases[] | select(.ties)] | length')" -ge 15 ]
}

@test "Mann-Whitney U of the samples equals SciPy's" {
  [ "$(mw '[.cases[] | select(.a != null)] | length')" -ge 40 ]
  [ "$(mw '[.cases[] | select(.a != null and mw_u(.a; .b) != .u) | {m, n, u}]')" = "[]" ]
}

@test "Mann-Whitney exact branch: both one-sided p-values equal SciPy's exact ones" {
  # shellcheck disable=SC2016  # jq variables
  [ "$(mw '[.cases[] | select((.ties | not) and mw_exact_size(.m; .n)) | mw_tails(.u; .m; .n) as $p
           | select(($p.greater - .exact.greater | fabs) > 1e-9 or ($p.less - .exact.less | fabs) > 1e-9)
           | {m, n, u, exact, ours: $p}]')" = "[]" ]
  # the case of the bug report: 5 against 81 (m*n 405) is exact now
  [ "$(jq -n -c -L "$SCRIPTS/jq" 'include "stats"; mw_exact_size(5; 81)')" = "true" ]
}

@test "Mann-Whitney approximation: within 0.0015 of SciPy's exact p beyond the exact sizes" {
  # shellcheck disable=SC2016  # jq variables
  [ "$(mw '[.cases[] | select((.ties | not) and (mw_exact_size(.m; .n) | not)) | mw_tails(.u; .m; .n) as $p
           | select(($p.greater - .exact.greater | fabs) > 0.0015 or ($p.less - .exact.less | fabs) > 0.0015)
           | {m, n, u, exact, ours: $p}]')" = "[]" ]
}

@test "Mann-Whitney with ties: the exact permutation p of the tied data, SciPy's asymptotic one beyond" {
  [ "$(mw '[.cases[] | select(.permutation != null and mw_tied_exact_size(.m; .n))] | length')" -ge 10 ]
  [ "$(mw '[.cases[] | select(.asymptotic != null and (mw_tied_exact_size(.m; .n) | not))] | length')" -ge 5 ]
  # shellcheck disable=SC2016  # jq variables
  [ "$(mw '[.cases[] | select(.permutation != null) | mw_p(.a; .b) as $p
           | select(($p.greater - .permutation.greater | fabs) > 1e-9 or ($p.less - .permutation.less | fabs) > 1e-9)
           | {m, n, u, permutation, ours: $p}]')" = "[]" ]
  # the normal tail is Abramowitz-Stegun's (error < 1.5e-7)
  # shellcheck disable=SC2016  # jq variables
  [ "$(mw '[.cases[] | select(.asymptotic != null) | mw_p(.a; .b) as $p
           | select(($p.greater - .asymptotic.greater | fabs) > 1e-6 or ($p.less - .asymptotic.less | fabs) > 1e-6)
           | {m, n, u, asymptotic, ours: $p}]')" = "[]" ]
}
