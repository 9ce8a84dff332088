#!/usr/bin/env bats
# The A/B statistics of scripts/jq/stats.jq against reference values computed
# with SciPy at development time (reference/make-signed-rank.py wrote
# reference/signed-rank.json; CI needs no Python).

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
