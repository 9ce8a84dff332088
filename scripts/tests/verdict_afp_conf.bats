#!/usr/bin/env bats
# The server's afp.conf hash in provenance: afpbench's server.afp_conf_sha256
# (read through the afpd's proc root) unless the gate's AFPBENCH_AFP_CONF
# names a file; baselines keep it; a differing hash is a note while timings
# and IO still gate (docs/verdict-format.md). The REAL fixtures predate the
# field: the hashes here come from jq transforms named for what they set
# (fixtures/verdict-helpers.bash). No server needed; gate_e2e.bats checks the
# real server's hash.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  transform "$T/a-quiet.json" "$T/conf-a.json" "$AFP_CONF_HASH_A"
  transform "$T/a-quiet.json" "$T/conf-b.json" "$AFP_CONF_HASH_B"
}

hash_a() { jq -r '.server.afp_conf_sha256' "$T/conf-a.json"; }

@test "the real fixtures predate server.afp_conf_sha256: null, never an error; so is a value that is no sha256" {
  jq -e '.server | has("afp_conf_sha256") | not' "$FIXTURES/lantest-a.json"
  results_dir "$T/r" "$FIXTURES/lantest-a.json" "$FIXTURES/speedtest-a.json"
  jq -e '.provenance | has("afp_conf_sha256") and .afp_conf_sha256 == null' "$T/r/results.json"
  run "$SCRIPTS/compare" --out "$T/r/verdict.json" "$T/r/results.json"
  [ "$status" -eq 0 ]
  local bad
  for bad in 42 '"not-a-hash"' '{"x": 1}' null; do
    jq --argjson v "$bad" '.server.afp_conf_sha256 = $v' "$T/a-quiet.json" >"$T/bad.json"
    results_dir "$T/bad" "$T/bad.json"
    jq -e '.provenance.afp_conf_sha256 == null' "$T/bad/results.json"
  done
}

@test "the hash comes from the results; AFPBENCH_AFP_CONF's (the gate's extra provenance) wins" {
  results_dir "$T/r" "$T/conf-a.json" "$FIXTURES/speedtest-a.json"
  [ "$(jq -r '.provenance.afp_conf_sha256' "$T/r/results.json")" = "$(hash_a)" ]
  # the verdict reads it back from the file and from the run blocks alike
  run "$SCRIPTS/compare" --out "$T/r/verdict.json" "$T/r/results.json"
  [ "$(jq -r '.current.provenance.afp_conf_sha256' "$T/r/verdict.json")" = "$(hash_a)" ]
  # what scripts/gate passes when AFPBENCH_AFP_CONF is set (provenance_extra)
  jq -n -L "$SCRIPTS/jq" --argjson extra '{"afp_conf_sha256": "from-env"}' -f "$SCRIPTS/jq/merge.jq" \
    "$T/conf-a.json" >"$T/env.json"
  [ "$(jq -r '.provenance.afp_conf_sha256' "$T/env.json")" = from-env ]
  # and when it is not set, the gate passes no hash at all
  jq -n -L "$SCRIPTS/jq" --argjson extra '{"afp_conf_sha256": null}' -f "$SCRIPTS/jq/merge.jq" \
    "$T/conf-a.json" >"$T/noenv.json"
  [ "$(jq -r '.provenance.afp_conf_sha256' "$T/noenv.json")" = "$(hash_a)" ]
}

@test "another afp.conf than the baseline's: a note naming both hashes; timings and IO still gate" {
  results_dir "$T/base" "$T/conf-a.json"
  "$SCRIPTS/baseline" "$T/bl.json" "$T/base" 2>/dev/null
  [ "$(jq -r '.provenance.afp_conf_sha256' "$T/bl.json")" = "$(hash_a)" ]
  # same settings: no note
  results_dir "$T/same" "$T/conf-a.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/same/verdict.json" "$T/same/results.json"
  [ "$status" -eq 0 ]
  jq -e '.notes | all(startswith("afp.conf differs") | not)' "$T/same/verdict.json"
  # other settings, same numbers: pass, with the note
  results_dir "$T/other" "$T/conf-b.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/other/verdict.json" "$T/other/results.json"
  [ "$status" -eq 0 ]
  jq -e '.notes | any(startswith("afp.conf differs from the baseline") and contains("aaaaaaaaaaaa… → bbbbbbbbbbbb…"))' \
    "$T/other/verdict.json"
  jq -e '.notes | all(startswith("timings not gated") | not)' "$T/other/verdict.json"
  # other settings and 30 % slower, where timings gate against a stored
  # baseline: they are judged (fail), not set aside as inconclusive (against
  # a baseline of two sessions, which timings can fail)
  two_session_baseline "$T/bl2.json" "$T/conf-a.json"
  transform "$T/conf-b.json" "$T/conf-b-slow.json" "$SLOWER_30PCT"
  results_dir "$T/slow" "$T/conf-b-slow.json"
  AFPBENCH_BASELINE_TIMINGS=gate run "$SCRIPTS/compare" --baseline "$T/bl2.json" --out "$T/slow/verdict.json" "$T/slow/results.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("aggregate.time_per_op")' "$T/slow/verdict.json"
  # an unknown hash on one side is no difference
  results_dir "$T/unknown" "$T/a-quiet.json"
  run "$SCRIPTS/compare" --baseline "$T/bl.json" --out "$T/unknown/verdict.json" "$T/unknown/results.json"
  [ "$status" -eq 0 ]
  jq -e '.notes | all(startswith("afp.conf differs") | not)' "$T/unknown/verdict.json"
}

@test "a baseline is one afp.conf: runs with different hashes are refused, a known and an unknown pool" {
  results_dir "$T/a" "$T/conf-a.json"
  results_dir "$T/b" "$T/conf-b.json"
  results_dir "$T/n" "$T/a-quiet.json"
  run "$SCRIPTS/baseline" "$T/bl.json" "$T/a" "$T/b"
  [ "$status" -ne 0 ]
  [[ $output == *"the server's afp.conf (sha256 bbbbbbbb"*") differs from an earlier run's (aaaaaaaa"* ]]
  [ ! -e "$T/bl.json" ]
  # the first run's hash unknown (older afpbench), the second's known: the known one is kept
  run "$SCRIPTS/baseline" "$T/bl.json" "$T/n" "$T/a"
  [ "$status" -eq 0 ]
  [ "$(jq -r '.provenance.afp_conf_sha256' "$T/bl.json")" = "$(hash_a)" ]
}
