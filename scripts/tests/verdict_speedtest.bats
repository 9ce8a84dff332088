#!/usr/bin/env bats
# speedtest in the verdict: its per-test IO rows (cnid_dbd reads and writes and
# the bytes afpd read and wrote, gated with the IO rule like lantest's; afpd's
# syscall counts, which follow how the socket cut the data, shown as info) and
# the AFP-op aggregates, which stay lantest only (docs/verdict-format.md). On the REAL fixtures
# (fixtures/README.md); variants are jq transforms of them, named for what
# they change. No server needed.

setup() {
  load fixtures/verdict-helpers
  T=$BATS_TEST_TMPDIR
  # the real speedtest runs as baselines (speedtest-c.json carries the bytes)
  results_dir "$T/speed-base" "$FIXTURES/speedtest-a.json"
  "$SCRIPTS/baseline" "$T/speed-baseline.json" "$T/speed-base" 2>/dev/null
  # speedtest-c.json (which carries the bytes) with its timings quieted
  transform "$FIXTURES/speedtest-c.json" "$T/c-quiet.json" "$QUIET_TIMES"
  results_dir "$T/speed-base-c" "$T/c-quiet.json"
  "$SCRIPTS/baseline" "$T/speed-baseline-c.json" "$T/speed-base-c" 2>/dev/null
}

# compare_with BASELINE RAW...: merge the raw files and compare.
compare_with() {
  local baseline=$1
  shift
  merged "$@" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$baseline" --out "$T/verdict.json" "$T/current.json"
}

row() { jq -r --arg m "$1" ".rows[] | select(.metric == \$m) | $2" "$T/verdict.json"; }

@test "the real speedtest fixture carries IO counts (a guard against refreshing it without them)" {
  jq -e '.io_monitoring.enabled == true and (.argv | index("--proc-root"))' "$FIXTURES/speedtest-a.json"
  jq -e '[.tests[].samples[] | .afpd_r, .afpd_w, .cnid_r, .cnid_w] | all(type == "number")' \
    "$FIXTURES/speedtest-a.json"
}

@test "speedtest tests get IO rows: cnid_dbd counts and afpd's bytes gate (io), afpd's syscall counts are shown (io_info)" {
  jq -e '[.tests[].samples[] | .afpd_rchar, .afpd_wchar, .afpd_cpu_us] | all(type == "number")' \
    "$FIXTURES/speedtest-c.json"
  compare_with "$T/speed-baseline-c.json" "$T/c-quiet.json"
  [ "$status" -eq 0 ]
  local keys key field
  keys=$(jq -r '.tests[].key' "$FIXTURES/speedtest-c.json")
  [ -n "$keys" ]
  for key in $keys; do
    [ "$(row "$key.mbps" .kind)" = throughput ]
    [ "$(row "$key.afpd_cpu" .kind)" = cpu ]
    for field in afpd_r afpd_w cnid_r cnid_w afpd_rchar afpd_wchar; do
      case $field in
        afpd_r | afpd_w) [ "$(row "$key.$field" .kind)" = io_info ] ;;
        *) [ "$(row "$key.$field" .kind)" = io ] ;;
      esac
      case $field in
        afpd_?char) [ "$(row "$key.$field" .unit)" = bytes ] ;;
        *) [ "$(row "$key.$field" .unit)" = syscalls ] ;;
      esac
      [ "$(row "$key.$field" .test)" = "$key" ]
      # the median of the measured values, and identical runs pass
      [ "$(row "$key.$field" .current)" = \
        "$(jq --arg k "$key" --arg f "$field" '.tests[] | select(.key == $k) | [.samples[][$f]] | sort
           | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end' \
          "$T/c-quiet.json")" ]
      [ "$(row "$key.$field" .state)" = pass ]
    done
  done
  # the per-metric threshold globs reach speedtest IO rows too
  merged "$FIXTURES/speedtest-a.json" >"$T/current.json"
  printf '{"schema": "afpbench-thresholds/1", "metrics": {"speedtest.*.afpd_w": 7}}' >"$T/th.json"
  run "$SCRIPTS/compare" --baseline "$T/speed-baseline.json" --thresholds "$T/th.json" \
    --out "$T/verdict.json" "$T/current.json"
  [ "$(row speedtest.Write.16777216.afpd_w .threshold)" = 7 ]
  [ "$(row speedtest.Write.16777216.afpd_r .threshold)" = 2 ]
}

@test "speedtest: afpd's bytes written +25 % fail, naming the metric; its write calls +25 % are only shown" {
  transform "$T/c-quiet.json" "$T/speed-wchar25.json" "$SCALE_AFPD_WCHAR_25PCT"
  compare_with "$T/speed-baseline-c.json" "$T/speed-wchar25.json"
  [ "$status" -eq 1 ]
  [ "$(jq -r .status "$T/verdict.json")" = fail ]
  jq -e '.decided_by | index("speedtest.Write.16777216.afpd_wchar") and index("speedtest.Read.1048576.afpd_wchar")' "$T/verdict.json"
  jq -e '.decided_by | all(endswith(".afpd_wchar"))' "$T/verdict.json"
  # the same +25 % on the write calls: a reading, never a state that decides
  transform "$T/c-quiet.json" "$T/speed-w25.json" "$SCALE_AFPD_W_25PCT"
  compare_with "$T/speed-baseline-c.json" "$T/speed-w25.json"
  [ "$status" -eq 0 ]
  [ "$(row speedtest.Read.16777216.afpd_w .state)" = info ]
  [[ $(row speedtest.Read.16777216.afpd_w .reason) == "not gated (a bulk transfer's syscall count follows how the socket cut the data; its bytes gate): rose +25 %"* ]]
  no_row_where "$T/verdict.json" '.state == "fail"'
}

@test "aggregates stay lantest only: a speedtest IO regression leaves them untouched" {
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  results_dir "$T/both-base" "$T/a-quiet.json" "$T/c-quiet.json"
  "$SCRIPTS/baseline" "$T/both-baseline.json" "$T/both-base" 2>/dev/null
  transform "$T/c-quiet.json" "$T/speed-wchar25.json" "$SCALE_AFPD_WCHAR_25PCT"
  compare_with "$T/both-baseline.json" "$T/a-quiet.json" "$T/speed-wchar25.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("speedtest.Read.16777216.afpd_wchar")' "$T/verdict.json"
  local id
  for id in time_per_op afpd_r_per_op afpd_w_per_op cnid_r_per_op cnid_w_per_op; do
    # time against a stored baseline is shown (info), the counts pass
    [ "$(row "aggregate.$id" .state)" = "$([[ $id == time_per_op ]] && echo info || echo pass)" ]
    [ "$(row "aggregate.$id" .ratio)" = 1 ]
  done
  # the aggregates name the lantest tests they cover, and no speedtest test
  jq -e '.notes | any(startswith("aggregates over: lantest.1, ")) and all(test("aggregates over:.*speedtest") | not)' \
    "$T/verdict.json"
  # and they are the same numbers as without speedtest in the run at all
  local with without
  with=$(jq -c '[.rows[] | select(.group == "aggregate") | .current]' "$T/verdict.json")
  compare_with "$T/both-baseline.json" "$T/a-quiet.json"
  without=$(jq -c '[.rows[] | select(.group == "aggregate") | .current]' "$T/verdict.json")
  [ "$with" = "$without" ]
  # a speedtest-only run has no aggregate rows
  compare_with "$T/speed-baseline-c.json" "$T/c-quiet.json"
  [ "$(jq '[.rows[] | select(.group == "aggregate")] | length' "$T/verdict.json")" -eq 0 ]
}

@test "speedtest without IO figures: its IO rows are inconclusive with the reason, lantest IO still gates" {
  transform "$FIXTURES/lantest-a.json" "$T/a-quiet.json" "$QUIET_TIMES"
  results_dir "$T/both-base" "$T/a-quiet.json" "$FIXTURES/speedtest-a.json"
  "$SCRIPTS/baseline" "$T/both-baseline.json" "$T/both-base" 2>/dev/null
  transform "$FIXTURES/speedtest-a.json" "$T/speed-noio.json" "$IO_OFF"
  # lantest afpd writes +5 %: IO off in speedtest must not hide it
  transform "$T/a-quiet.json" "$T/w5.json" "$SCALE_AFPD_W_5PCT"
  compare_with "$T/both-baseline.json" "$T/w5.json" "$T/speed-noio.json"
  [ "$status" -eq 1 ]
  jq -e '.decided_by | index("aggregate.afpd_w_per_op")' "$T/verdict.json"
  [ "$(row speedtest.Write.4194304.afpd_w .state)" = inconclusive ]
  [ "$(row speedtest.Write.4194304.afpd_w .reason)" = \
    "not measured in this run (test variant: IO monitoring off)" ]
  # the reason belongs to speedtest: lantest rows do not carry it
  some_row_where "$T/verdict.json" '.group != "speedtest"'
  no_row_where "$T/verdict.json" '.group != "speedtest" and (.reason | contains("test variant"))'
  jq -e '.notes | index("IO monitoring (speedtest): test variant: IO monitoring off")' "$T/verdict.json"
  # a baseline whose speedtest had no IO figures (older afpbench): inconclusive, not pass
  results_dir "$T/old-base" "$T/speed-noio.json"
  "$SCRIPTS/baseline" "$T/old-baseline.json" "$T/old-base" 2>/dev/null
  compare_with "$T/old-baseline.json" "$FIXTURES/speedtest-a.json"
  [ "$status" -eq 2 ]
  [ "$(row speedtest.Read.1048576.afpd_r .reason)" = \
    "not measured in the baseline (test variant: IO monitoring off)" ]
}

@test "two real speedtest runs a minute apart: Write afpd writes move by a third, shown as info and never failing" {
  local a="$FIXTURES/speedtest-write-a.json" b="$FIXTURES/speedtest-write-b.json"
  # what was measured, nothing changed in between: Write 4 MiB took 9 afpd
  # writes in every sample of the first run and 11-12 in the second
  median_w() { jq --arg k "$2" '.tests[] | select(.key == $k) | [.samples[].afpd_w] | sort | .[2]' "$1"; }
  [ "$(median_w "$a" speedtest.Write.4194304)" -eq 9 ]
  [ "$(median_w "$b" speedtest.Write.4194304)" -eq 12 ]
  results_dir "$T/wa" "$a"
  "$SCRIPTS/baseline" "$T/write-baseline.json" "$T/wa" 2>/dev/null
  compare_with "$T/write-baseline.json" "$b"
  [ "$status" -ne 1 ]
  some_row_where "$T/verdict.json" '.kind == "io"'
  no_row_where "$T/verdict.json" '.kind == "io" and .state == "fail"'
  [ "$(row speedtest.Write.4194304.afpd_w .threshold)" = 60 ]
  [ "$(row speedtest.Write.4194304.afpd_w .kind)" = io_info ]
  [ "$(row speedtest.Write.4194304.afpd_w .state)" = pass ]
  [ "$(row speedtest.Copy.4194304.afpd_w .threshold)" = 40 ]
  # only those rows: every other IO row keeps the IO default
  [ "$(row speedtest.Write.4194304.afpd_r .threshold)" = 2 ]
  [ "$(row speedtest.Copy.4194304.afpd_r .threshold)" = 2 ]
  jq -e '.thresholds.builtin_metrics == {"speedtest.Write.*.afpd_w": 60, "speedtest.Copy.*.afpd_w": 40, "aggregate.cnid_cpu_per_op": 10}' "$T/verdict.json"
  # doubled write calls are beyond even those thresholds: shown as info, never
  # deciding (the bytes written gate a real regression, test above)
  transform "$b" "$T/write-2x.json" "$WRITE_AFPD_W_2X"
  compare_with "$T/write-baseline.json" "$T/write-2x.json"
  [ "$status" -ne 1 ]
  [ "$(row speedtest.Write.4194304.afpd_w .state)" = info ]
  [ "$(row speedtest.Write.16777216.afpd_w .state)" = info ]
}

@test "the built-in Write/Copy afpd_w thresholds are overridable from the thresholds file; the IO default reaches them only when wider" {
  results_dir "$T/wa" "$FIXTURES/speedtest-write-a.json"
  "$SCRIPTS/baseline" "$T/write-baseline.json" "$T/wa" 2>/dev/null
  merged "$FIXTURES/speedtest-write-b.json" >"$T/current.json"
  # a file entry for those rows wins: back at 2 %, the real run-to-run move
  # reads as beyond it, and stays a reading (info), not a failure
  printf '{"schema": "afpbench-thresholds/1", "metrics": {"speedtest.Write.*.afpd_w": 2}}' >"$T/th.json"
  run "$SCRIPTS/compare" --baseline "$T/write-baseline.json" --thresholds "$T/th.json" --out "$T/verdict.json" "$T/current.json"
  [ "$status" -ne 1 ]
  [ "$(row speedtest.Write.4194304.afpd_w .threshold)" = 2 ]
  [ "$(row speedtest.Write.4194304.afpd_w .state)" = info ]
  [ "$(row speedtest.Copy.4194304.afpd_w .threshold)" = 40 ]
  # an exact id, and a less specific glob of the file, win over the built-in too
  printf '{"schema": "afpbench-thresholds/1", "metrics": {"speedtest.Copy.16777216.afpd_w": 5, "speedtest.*": 9}}' >"$T/th.json"
  run "$SCRIPTS/compare" --baseline "$T/write-baseline.json" --thresholds "$T/th.json" --out "$T/verdict.json" "$T/current.json"
  [ "$(row speedtest.Copy.16777216.afpd_w .threshold)" = 5 ]
  [ "$(row speedtest.Write.1048576.afpd_w .threshold)" = 9 ]
  # the IO default (file defaults or AFPBENCH_IO_THRESHOLD) is for the other IO rows
  AFPBENCH_IO_THRESHOLD=5 run "$SCRIPTS/compare" --baseline "$T/write-baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$(row speedtest.Write.4194304.afpd_w .threshold)" = 60 ]
  [ "$(row speedtest.Write.4194304.afpd_r .threshold)" = 5 ]
  # ...and for those too where it is wider than their built-in value
  AFPBENCH_IO_THRESHOLD=80 run "$SCRIPTS/compare" --baseline "$T/write-baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$(row speedtest.Write.4194304.afpd_w .threshold)" = 80 ]
  [ "$(row speedtest.Copy.4194304.afpd_w .threshold)" = 80 ]
}

@test "cnid_dbd's CPU per op: at least its built-in 10 %, and a wider CPU default reaches it" {
  results_dir "$T/sa" "$FIXTURES/lantest-sys-a.json"
  "$SCRIPTS/baseline" "$T/sys-baseline.json" "$T/sa" 2>/dev/null
  merged "$FIXTURES/lantest-sys-b.json" >"$T/current.json"
  run "$SCRIPTS/compare" --baseline "$T/sys-baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$(row aggregate.cnid_cpu_per_op .threshold)" = 10 ]
  [ "$(row aggregate.afpd_cpu_per_op .threshold)" = 5 ]
  AFPBENCH_CPU_THRESHOLD=3 run "$SCRIPTS/compare" --baseline "$T/sys-baseline.json" --out "$T/verdict.json" "$T/current.json"
  [ "$(row aggregate.cnid_cpu_per_op .threshold)" = 10 ]
  [ "$(row aggregate.afpd_cpu_per_op .threshold)" = 3 ]
  # the action's e2e keeps CPU out of its verdicts this way (wide-cpu.json)
  printf '{"schema": "afpbench-thresholds/1", "defaults": {"cpu": 1000}}' >"$T/th.json"
  run "$SCRIPTS/compare" --baseline "$T/sys-baseline.json" --thresholds "$T/th.json" --out "$T/verdict.json" "$T/current.json"
  [ "$(row aggregate.cnid_cpu_per_op .threshold)" = 1000 ]
  [ "$(row aggregate.afpd_cpu_per_op .threshold)" = 1000 ]
}
