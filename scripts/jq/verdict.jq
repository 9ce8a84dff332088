# THE verdict rule of afpbench-action. Everything that decides pass, fail,
# inconclusive or error lives in this file; scripts/compare runs it, the
# action only reads the verdict.json it writes (docs/verdict-format.md).
#
#   jq -n -L scripts/jq -f verdict.jq \
#     --slurpfile cur results.json --slurpfile base baseline.json|/dev/null \
#     --argjson th THRESHOLDS --argjson load_errors '[...]' \
#     --arg baseline_file PATH
#
# $th: {"time": pct, "io": pct, "throughput": pct|null, "alpha": p,
#       "metrics": {"id or glob": pct, ...}}  (scripts/compare resolves files
# and environment into this). $load_errors: files that could not be read.
include "stats";
include "results";
include "instr";

# numbers for reasons: one decimal; a fraction as a signed percentage
def pct_text_raw: . * 10 | round / 10 | tostring;
def signed_pct: (if . >= 0 then "+" else "" end) + (. * 100 | pct_text_raw);
def r4: if . == null then null else . * 10000 | round / 10000 end;
def sig6:
  # six significant digits, so verdict.json reads the same under jq 1.6 and 1.7
  if . == null or . == 0 then .
  else (. | fabs | log10 | floor) as $e | (pow(10; 5 - $e)) as $f | (. * $f | round) / $f
  end;

def glob_regex:
  "^" + (gsub("(?<c>[.+?^${}()|\\[\\]\\\\])"; "\\\(.c)") | gsub("\\*"; ".*")) + "$";

# The entry of a {"id or glob": pct} table for a metric id: the exact id,
# else the most specific matching glob (most literal characters); null if none.
def table_match($m; $metric):
  if ($m[$metric] | type) == "number" then $m[$metric]
  else
    [$m | to_entries[] | select(.key | contains("*"))
     | select(.key as $p | $metric | test($p | glob_regex))]
    | sort_by(.key | gsub("\\*"; "") | length) | last | .value
  end;

# Threshold in percent for a metric id: the thresholds file's entry for it,
# else a built-in one (thresholds.jq), else the kind default.
def threshold_for($metric; $kind):
  table_match($th.metrics // {}; $metric)
  // table_match($th.builtin_metrics // {}; $metric)
  // (if $kind == "throughput" then ($th.throughput // $th.time) else $th[$kind] end);

# ---- the rule for one metric --------------------------------------------

# Timings (kind time: lower is better; kind throughput: higher is better).
# Regression: the median moved the wrong way by more than the threshold, a
# one-sided Mann-Whitney test says it is not chance (alpha, >= 5 samples a
# side; with fewer, the move must exceed twice the threshold), and the move
# is larger than the noise. Noise larger than the threshold otherwise makes
# the metric inconclusive.
def judge_timing($b; $c; $kind; $thpct; $timing_block):
  ($b | median) as $mb | ($c | median) as $mc
  | ($thpct / 100) as $t
  | ([($b | relative_noise), ($c | relative_noise)]) as $noises
  | (if any($noises[]; . == null) then null else ($noises | max) end) as $noise
  | ($b | length) as $nb | ($c | length) as $nc
  | (if $mb > 0 and $mc > 0 then $mc / $mb else null end) as $ratio
  | {ratio: $ratio, noise: (if $noise == null then null else $noise * 100 end),
     n_baseline: $nb, n_current: $nc}
  | if $ratio == null then
      . + {state: "inconclusive", reason: "a median is 0; cannot form a ratio"}
    else
      # change > 0 means worse, in the metric's own direction
      (if $kind == "throughput" then 1 / $ratio - 1 else $ratio - 1 end) as $change
      | (if $kind == "throughput" then mw_p_greater($b; $c) else mw_p_greater($c; $b) end) as $p_worse
      | (if $kind == "throughput" then mw_p_greater($c; $b) else mw_p_greater($b; $c) end) as $p_better
      | ($nb >= 5 and $nc >= 5) as $ranked
      | ($th.alpha // 0.05) as $alpha
      | (if $ranked then $p_worse < $alpha else $change > 2 * $t end) as $worse_sure
      | (if $ranked then $p_better < $alpha else - $change > 2 * $t end) as $better_sure
      | (if $kind == "throughput" then "throughput" else "time" end) as $what
      | ($ratio - 1 | signed_pct) as $chg
      | ($noise // 1e9) as $nz
      | . + {p_value: ($p_worse | sig6)}
      | if $timing_block != null then
          . + {state: "inconclusive", reason: "\($what) not gated: \($timing_block) (change \($chg) %)"}
        elif $change > $t and $worse_sure and $change > $nz then
          . + {state: "fail", reason: ("\($what) worse by \($change * 100 | pct_text_raw) % (threshold \($thpct) %, noise ±\($nz * 100 | pct_text_raw) %, "
            + (if $ranked then "rank test p=\($p_worse | sig6 | tostring))" else "fewer than 5 samples: beyond twice the threshold)" end))}
        elif - $change > $t and $better_sure and - $change > $nz then
          . + {state: "improved", reason: "\($what) better by \(- $change * 100 | pct_text_raw) % (threshold \($thpct) %); consider refreshing the baseline"}
        elif $nz > $t then
          # the median is known to +-noise; it shrinks as 1/sqrt(n), so this
          # many samples per side would bring it under the threshold
          ([$nb, $nc] | min) as $n
          | ([([($n * ($nz / $t) * ($nz / $t)) | ceil, $n + 1, 5] | max), 255] | min) as $need
          | . + {state: "inconclusive", iterations_needed: $need,
                 reason: (if $noise == null then "samples vary around a zero median"
                          else "noise ±\($nz * 100 | pct_text_raw) % exceeds the \($thpct) % threshold (change \($chg) %); about \($need) iterations per side would settle it"
                          end)}
        elif $change > $t then
          . + {state: "inconclusive",
               reason: (if $ranked then "\($what) worse by \($change * 100 | pct_text_raw) % but the rank test does not rule out chance (p=\($p_worse | sig6 | tostring))"
                        else "\($what) worse by \($change * 100 | pct_text_raw) %, not beyond twice the threshold with fewer than 5 samples a side" end)}
        else
          . + {state: "pass", reason: "change \($chg) % within ±\($thpct) %"}
        end
    end;

# IO syscall counts are nearly deterministic: a regression is a median rise
# by more than the threshold AND more than the spread (max - min) seen in
# either side's samples. A rise beyond the threshold but within that spread
# is inconclusive. A move of at most io_floor_syscalls syscalls passes
# whatever its percentage: near zero (0 -> 1, or 14 -> 15 cnid_dbd reads in
# a whole lantest iteration) one syscall is a large percentage, yet only
# counting noise. $ops: null for per-test rows, whose figures are syscall
# counts; for the per-AFP-op aggregates, the AFP ops an aggregate sample was
# formed over, which turns the per-op move back into syscalls.
def io_floor_syscalls: 1;

# 80684 -> "80,684" (rounded to a whole number first)
def thousands:
  round | if . >= 1000 then (. / 1000 | floor | thousands) + "," + ("00\(. % 1000)" | .[-3:]) else tostring end;
def count_text: . * 10 | round / 10 | tostring;

def judge_io($b; $c; $thpct; $ops):
  ($b | median) as $mb | ($c | median) as $mc
  | ([($b | sample_range), ($c | sample_range)] | max) as $spread
  | ($mc - $mb) as $delta
  | ($thpct / 100 * $mb) as $limit
  # the move in syscalls; rounded to 1e-6 so that 15/ops - 14/ops, times ops,
  # is exactly one syscall under floating point
  | ((if $ops == null then $delta else $delta * $ops end) | fabs * 1000000 | round / 1000000) as $moved
  | ($moved > io_floor_syscalls) as $beyond_floor
  | {ratio: (if $mb > 0 then $mc / $mb elif $mc == 0 then 1 else null end),
     noise: (if $mb > 0 then $spread / $mb * 100 elif $spread == 0 then 0 else null end),
     n_baseline: ($b | length), n_current: ($c | length)}
  | (if $delta == 0 then "unchanged" elif $mb > 0 then ($delta / $mb | signed_pct) + " %" else "from 0 to \($mc | sig6)" end) as $chg
  | if $delta > $limit and $delta > $spread and $beyond_floor then
      . + {state: "fail", reason: "rose \($chg) (\($mb | sig6) → \($mc | sig6)), beyond the \($thpct) % threshold and the sample spread \($spread | sig6)"}
    elif - $delta > $limit and - $delta > $spread and $beyond_floor then
      . + {state: "improved", reason: "fell \($chg) (\($mb | sig6) → \($mc | sig6)); consider refreshing the baseline"}
    elif $delta > $limit and $beyond_floor then
      . + {state: "inconclusive", reason: "rose \($chg) but within the spread of the samples (\($spread | sig6)); more iterations or a quieter server would settle it"}
    elif - $delta > $limit and $beyond_floor then
      . + {state: "pass", reason: "fell \($chg) but within the spread of the samples (\($spread | sig6))"}
    elif ($delta | fabs) > $limit then
      # beyond the threshold, but by one syscall at most
      . + {state: "pass",
           reason: ("within one syscall ("
                    + (if $ops == null then "\($mb | sig6) → \($mc | sig6)"
                       else "\($mb * $ops | count_text) → \($mc * $ops | count_text) over \($ops | thousands) AFP ops" end)
                    + ")")}
    else
      . + {state: "pass", reason: (if $delta == 0 then "unchanged" else "change \($chg) within \($thpct) %" end)}
    end;

# ---- metrics of a side ---------------------------------------------------

# Per-sample values of one metric of a test. Time in ms, throughput in MB/s
# (MiB/s, as upstream), IO as syscall counts. null entries mean "not measured".
def sample_values($field):
  if $field == "time" then map(.us / 1000)
  elif $field == "mbps" then map(if .us > 0 and .bytes != null then .bytes / .us * 1000000 / 1048576 else null end)
  else map(.[$field])
  end;

def metric_kind($field):
  if $field == "time" then "time" elif $field == "mbps" then "throughput" else "io" end;
def metric_unit($field):
  if $field == "time" then "ms" elif $field == "mbps" then "MB/s" else "syscalls" end;

# The metrics of a test: lantest time, afpd/cnid_dbd IO, and MB/s when the
# test moves at least 1 MiB; speedtest MB/s and the same IO counts. MB/s
# comes first for speedtest: error rows of a speedtest test name that metric.
def test_fields:
  if .suite == "speedtest" or (.key | startswith("speedtest.")) then ["mbps"] + metric_fields
  else ["time"] + metric_fields
       + (if ([.samples[].bytes // 0] | median // 0) >= 1048576 then ["mbps"] else [] end)
  end;

# Aggregates over the lantest tests in $keys: one sample per (run, iteration)
# in which every one of those tests has a sample; per AFP op actually issued.
def aggregate_samples($keys):
  [.tests[] | select(.key as $k | $keys | index($k)) | . as $t
   | .samples[] | . + {afp_ops: (.afp_ops // $t.afp_ops), key: $t.key}]
  | group_by([.run, .iteration])
  | map(select(length == ($keys | length)))
  | map((map(.afp_ops // 0) | add) as $ops
        | select($ops > 0)
        | {afp_ops: $ops, time_per_op: ((map(.us) | add) / 1000 / $ops)}
          + ([metric_fields[] as $f
              | {key: "\($f)_per_op",
                 value: (if any(.[]; .[$f] == null) then null else (map(.[$f]) | add) / $ops end)}]
             | from_entries));

def aggregate_ids: ["time_per_op"] + [metric_fields[] | "\(.)_per_op"];

# ---- rows ----------------------------------------------------------------

def row($metric; $group; $test; $name; $kind; $unit):
  {metric: $metric, group: $group, test: $test, name: $name, kind: $kind, unit: $unit,
   baseline: null, current: null, ratio: null, threshold: threshold_for($metric; $kind),
   noise: null, p_value: null, n_baseline: 0, n_current: 0, state: null, reason: null};

def error_row($t; $reason):
  ($t | test_fields[0]) as $f
  | row("\($t.key).\($f)"; $t.suite // ($t.key | split(".")[0]); $t.key; $t.name; metric_kind($f); metric_unit($f))
  | .state = "error" | .reason = $reason;

# Compare one metric given both sides' sample arrays (either may be null).
# $ops: the AFP ops behind one sample of a per-op aggregate (judge_io), else null.
def metric_row($metric; $group; $test; $name; $kind; $unit; $bv; $cv; $ops; $io_reason; $timing_block):
  row($metric; $group; $test; $name; $kind; $unit)
  | .threshold as $thpct
  | .baseline = (if $bv == null or any($bv[]; . == null) then null else ($bv | median | sig6) end)
  | .current = (if $cv == null or any($cv[]; . == null) then null else ($cv | median | sig6) end)
  | if $bv == null then
      .state = "new" | .n_current = ($cv | length) | .reason = "not in the baseline"
    elif ($cv | length) == 0 or ($bv | length) == 0 then
      .state = "error" | .reason = "no samples"
    elif any($cv[], $bv[]; . == null) then
      .n_baseline = ($bv | length) | .n_current = ($cv | length)
      | .state = "inconclusive"
      | .reason = (if any($cv[]; . == null) then "not measured in this run" else "not measured in the baseline" end)
                  + (if $io_reason != null then " (\($io_reason))" else "" end)
    elif $kind == "io" or $kind == "instr" then
      # instructions are judged like IO counts (docs/verdict-format.md)
      . + judge_io($bv; $cv; $thpct; $ops)
    else
      . + judge_timing($bv; $cv; $kind; $thpct; $timing_block)
    end
  | .ratio |= r4 | .noise |= (if . == null then null else (. * 100 | round) / 100 end);

# ---- the client's own CPU ------------------------------------------------

# Above this share of the measured time per AFP op, the client's own CPU may
# be what limits the figures: a warning note, never a state.
def client_cpu_warn_pct: 25;

# Wall time per AFP op of a side's timed regions, per suite: the sum of the
# samples' time over the sum of their AFP ops.
def measured_us_per_op:
  [.tests[] | .afp_ops as $o | (.suite // (.key | split(".")[0])) as $s
   | .samples[] | {s: $s, us: .us, ops: (.afp_ops // $o)} | select(.ops != null and .ops > 0)]
  | group_by(.s) | map({key: .[0].s, value: ((map(.us) | add) / (map(.ops) | add))}) | from_entries;

# A side's client CPU per AFP op (afpbench's getrusage over each whole run,
# set-up and warm-ups included) beside the time per AFP op it measured, per
# suite: {"lantest": {us_per_op, measured_us_per_op, share_pct, limiting}}.
def client_load:
  measured_us_per_op as $m
  | (.client_cpu // {})
  | with_entries(.key as $s
      | .value = {us_per_op: (.value.us_per_op | sig6),
                  measured_us_per_op: ($m[$s] | sig6),
                  share_pct: (if .value.us_per_op == null or $m[$s] == null or $m[$s] == 0 then null
                              else .value.us_per_op / $m[$s] * 100 | pct_text_raw | tonumber end)}
      | .value.limiting = (.value.share_pct != null and .value.share_pct > client_cpu_warn_pct));

# Warning notes for the suites of $suites whose client CPU share is above
# the limit on side $name ("current" or "baseline").
def client_cpu_warnings($name; $suites):
  client_load | to_entries[]
  | select((.key as $s | $suites | index($s)) and .value.limiting)
  | "warning: the client may be limiting what is measured: afpbench's own CPU per AFP op in \(.key) (\($name)) is \(.value.us_per_op | pct_text_raw) µs, \(.value.share_pct) % of the \(.value.measured_us_per_op | pct_text_raw) µs measured per AFP op (above \(client_cpu_warn_pct) %)";

def state_rank: {"error": 5, "fail": 4, "inconclusive": 3, "improved": 2, "new": 1, "pass": 0}[.];

# ---- main ----------------------------------------------------------------

def sides:
  ($load_errors // []) as $le
  | (if ($cur | length) == 0 then {error: (if ($le | length) > 0 then null else "results: no results file" end)}
     else try ($cur[0] | check_results("results \($results_file)") | results_side) catch {error: .} end) as $c
  | (if ($base | length) == 0 then null
     else try ($base[0] | any_side("baseline \($baseline_file)")) catch {error: .} end) as $b
  | {cur: $c, base: $b,
     errors: ($le + [($c, $b) | objects | .error // empty | tostring])};

def verdict:
  sides as $s
  | ($s.cur | if has("error") then null else . end) as $c
  | ($s.base | if . != null and has("error") then null else . end) as $b
  | ($b != null) as $have_base
  | ($th.alpha // 0.05) as $alpha
  # suite versions: a changed suite cannot be compared at all
  | (if $c == null or $b == null then []
     else [$c.suite_versions | to_entries[] | select($b.suite_versions[.key] != null and $b.suite_versions[.key] != .value)
           | "suite \(.key) changed: baseline \($b.suite_versions[.key]), current \(.value); its tests cannot be compared, make a new baseline"]
     end) as $suite_errors
  | ([$c.suite_versions // {} | to_entries[] | select($b != null and $b.suite_versions[.key] != null and $b.suite_versions[.key] != .value) | .key]) as $bad_suites
  # provenance checks that stop timing comparisons, not IO ones
  | (if $c == null or $b == null then null
     else
       [ (if ($b.provenance | fingerprint) != ($c.provenance | fingerprint)
          then "baseline from another machine (\($b.provenance.runner.cpu_model // "?"), \($b.provenance.runner.cores // "?") cores, kernel \($b.provenance.runner.kernel // "?")\(if $b.provenance.runner.container then ", container" else "" end))" else empty end),
         (if $b.provenance.netatalk.version != $c.provenance.netatalk.version
          then "baseline from netatalk \($b.provenance.netatalk.version // "unknown"), current \($c.provenance.netatalk.version // "unknown")" else empty end) ]
       | if length == 0 then null else join("; ") end
     end) as $timing_block
  # timings under valgrind say nothing about the server (instr.jq)
  | ([$timing_block // empty, instr_timing_block($b; $c) // empty] | if length == 0 then null else join("; ") end) as $timing_block
  # why IO figures are missing, per suite; this run's reason wins
  | (($b.io_off // {}) + ($c.io_off // {})) as $io_off
  | (if $c == null then [] else $c.tests end) as $ctests
  | (if $b == null then [] else $b.tests end) as $btests
  | ($ctests | map({key: .key, value: .}) | from_entries) as $cmap
  | ($btests | map({key: .key, value: .}) | from_entries) as $bmap
  # compared: what ran, and the lantest tests the run was asked for (a selected
  # test without results is an error); other baseline tests were not selected
  # and are listed, not compared
  | ([$ctests[].key] as $ran | $ran + (($c.expected // []) - $ran)) as $considered
  | ([$btests[].key] - $considered) as $skipped
  | [ $considered[] as $k
      | $cmap[$k] as $ct | $bmap[$k] as $bt
      | ($ct // $bt) as $t
      | ($t.suite // ($k | split(".")[0])) as $suite
      | if ($bad_suites | index($suite)) then empty
        elif $ct == null then
          error_row($bt // {key: $k, suite: $suite, name: null, samples: []};
                    "selected but missing from the results")
        elif ($ct.status // "ok") == "error" then
          error_row($ct; "test failed in this run: \($ct.error.message // $ct.error // "no message")")
        elif $bt != null and ($bt.status // "ok") == "error" then
          error_row($ct; "test failed in the baseline: \($bt.error.message // $bt.error // "no message")")
        elif $bt != null and ($bt.size_bytes // null) != ($ct.size_bytes // null) then
          error_row($ct; "workload differs: \($bt.size_bytes) bytes in the baseline, \($ct.size_bytes) now (e.g. -g/-G); make a matching baseline")
        else
          ($ct | test_fields[]) as $f
          | metric_row("\($k).\($f)"; $suite; $k; $ct.name; metric_kind($f); metric_unit($f);
              (if $bt == null then null else $bt.samples | sample_values($f) end);
              ($ct.samples | sample_values($f));
              null; $io_off[$suite]; $timing_block)
          | .afp_ops = {baseline: (if $bt == null then null else [$bt.samples[].afp_ops // $bt.afp_ops] | median end),
                        current: ([$ct.samples[].afp_ops // $ct.afp_ops] | median)}
        end
    ] as $test_rows
  # afpd instructions per AFP op, per test (instrumented runs, instr.jq):
  # judged like IO counts, the 5 functions that moved most on the row
  | instr_block($b; $c) as $instr_block
  | ([$test_rows[] | select(.state == "error") | .test] | unique) as $errored
  | ($test_rows + [
      $ctests[] | select(instr_counted and (.key as $k | $errored | index($k) | not)) | . as $ct
      | $bmap[$ct.key] as $bt
      | (($bt | objects | instr_values) // null) as $bv
      | metric_row("\($ct.key).afpd_instr_per_op"; $ct.suite // ($ct.key | split(".")[0]); $ct.key; $ct.name;
          "instr"; "instr/op"; $bv; ($ct | instr_values // [null]); null; "afpd instructions not counted"; null)
      | if .state == "new" and $bt != null then .reason = "the baseline has no afpd instruction counts" else . end
      | if $instr_block != null and $bv != null then .state = "inconclusive" | .reason = "not comparable: \($instr_block)" else . end
      | if .state == "fail" or .state == "improved" or .state == "inconclusive"
        then .movers = instr_top_movers(($bt | objects | instr_functions) // {}; $ct | instr_functions) else . end
    ]) as $test_rows
  # aggregates over the lantest tests that are comparable on both sides.
  # Lantest only, by design (docs/verdict-format.md): speedtest ops move up to
  # a quantum each, so mixing them in would make "per AFP op" depend on the
  # sizes chosen; speedtest IO gates through its own per-test rows.
  | ([$test_rows[] | select(.group == "lantest" and .state != "error" and (.state != "new" or ($have_base | not))) | .test]
     | unique | sort_by(ltrimstr("lantest.") | tonumber)) as $agg_keys
  | (if ($agg_keys | length) == 0 then []
     else
       ($c | aggregate_samples($agg_keys)) as $cagg
       | (if $have_base then ($b | aggregate_samples($agg_keys)) else null end) as $bagg
       # AFP ops per aggregate sample (one iteration of all $agg_keys): the
       # larger side's median, so the floor never counts a move as smaller
       | ([($bagg // []), $cagg | map(.afp_ops) | median | numbers] | max) as $agg_ops
       | [aggregate_ids[] as $a
          | (if $a == "time_per_op" then "time" else "io" end) as $kind
          | metric_row("aggregate.\($a)"; "aggregate"; null; "AFP-op aggregate over \($agg_keys | length) lantest tests";
              $kind; (if $kind == "time" then "ms/op" else "syscalls/op" end);
              (if $bagg == null then null else $bagg | map(.[$a]) end);
              ($cagg | map(.[$a]));
              $agg_ops; $io_off.lantest; $timing_block)
          | if .n_current == 0 and .state != "new" then .state = "error" | .reason = "no complete iteration covers all compared tests" else . end]
     end) as $agg_rows
  # the instructions aggregate: over the compared tests counted on this side
  | ([$agg_keys[] as $k | $cmap[$k] | select(. != null and instr_values != null) | .key]) as $instr_keys
  | ($agg_rows + (if ($instr_keys | length) == 0 then [] else
      ([$instr_keys[] as $k | $bmap[$k] | objects | select(instr_values != null)] | length == ($instr_keys | length)) as $b_has
      | [metric_row("aggregate.afpd_instr_per_op"; "aggregate"; null; "afpd instructions per AFP op over \($instr_keys | length) lantest tests";
           "instr"; "instr/op";
           (if $have_base and $b_has then $b | instr_aggregate_values($instr_keys) else null end);
           ($c | instr_aggregate_values($instr_keys)); null; null; null)
         | if .state == "new" and $have_base then .reason = "the baseline has no afpd instruction counts for these tests" else . end
         | if $instr_block != null and $b_has then .state = "inconclusive" | .reason = "not comparable: \($instr_block)" else . end
         | if .n_current == 0 and .state != "new" then .state = "error" | .reason = "no complete iteration covers all counted tests" else . end
         | if .state == "fail" or .state == "improved" or .state == "inconclusive"
           then .movers = instr_top_movers([$instr_keys[] as $k | $bmap[$k] | objects | instr_functions] | instr_sum_tables // {};
                                           [$instr_keys[] as $k | $cmap[$k] | instr_functions] | instr_sum_tables)
           else . end]
      end)) as $agg_rows
  | ($agg_rows + $test_rows) as $rows
  # under valgrind afpd's IO counts follow timing (instr.jq): not a failure
  | ($rows | map(instr_io_row($b; $c))) as $rows
  # the client's CPU share, for the suites this run measured
  | ([$ctests[] | .suite // (.key | split(".")[0])] | unique) as $suites
  | ([($c | objects | client_cpu_warnings("current"; $suites)),
      ($b | objects | client_cpu_warnings("baseline"; $suites))]) as $cpu_warnings
  # another afp.conf is a change under test, not another place: noted, still gated
  | ([$b, $c] | map(.provenance.afp_conf_sha256? | strings)) as $confs
  | (if ($confs | length) == 2 and $confs[0] != $confs[1]
     then "afp.conf differs from the baseline's (sha256 \($confs[0][0:12])… → \($confs[1][0:12])…): the server's settings changed; timings and IO still gate" else null end) as $conf_note
  | ($s.errors + $suite_errors
     + [$c.run_errors // [] | .[] | "afpbench stopped early: \(.)"]) as $errors
  | (if ($errors | length) > 0 or any($rows[]; .state == "error") then "error"
     elif any($rows[]; .state == "fail") then "fail"
     elif any($rows[]; .state == "inconclusive") then "inconclusive"
     else "pass" end) as $status
  | (if $status == "pass" then [] else [$rows[] | select(.state == $status) | .metric] end) as $decided
  | ($rows | group_by(.state) | map({key: .[0].state, value: length}) | from_entries) as $counts
  | {
      schema: "afpbench-verdict/1",
      status: $status,
      summary: (
        ($status) + ": "
        + (if ($errors | length) > 0 then ($errors[0]) + (if ($errors | length) > 1 then " (+\($errors | length - 1) more errors)" else "" end)
           elif $status == "error" then
             ([$rows[] | select(.state == "error")] | "\(.[0].metric): \(.[0].reason)" + (if length > 1 then " (+\(length - 1) more)" else "" end))
           elif $status == "pass" and ($have_base | not) then "measured \($rows | length) metrics; no baseline, nothing compared"
           elif $status == "pass" then "\($counts.pass // 0) metrics within thresholds"
           else
             "\($decided | length) \(if $status == "fail" then "regressed" else "inconclusive" end): "
             + ($decided[0:3] | join(", ")) + (if ($decided | length) > 3 then ", …" else "" end)
           end)
        + (if ($counts.improved // 0) > 0 and $status != "error" then "; \($counts.improved) improved" else "" end)
        + (if ($counts.new // 0) > 0 and $have_base then "; \($counts.new) new" else "" end)),
      decided_by: $decided,
      errors: $errors,
      notes: ([ $cpu_warnings[],
                (if $timing_block != null then "timings not gated: \($timing_block); IO still gates" else empty end),
                ($conf_note // empty),
                instr_notes($b; $c),
                (if ($skipped | length) > 0 then "not run, not compared: \($skipped | join(", "))" else empty end),
                ($io_off | to_entries[] | "IO monitoring (\(.key)): \(.value)"),
                (if ($agg_keys | length) > 0 then "aggregates over: \($agg_keys | join(", "))" else empty end) ]),
      counts: $counts,
      thresholds: {time: $th.time, io: $th.io, throughput: ($th.throughput // $th.time), alpha: $alpha, instr: ($th.instr // null), metrics: ($th.metrics // {}),
                   builtin_metrics: ($th.builtin_metrics // {})},
      baseline: (if $b == null then null else {file: $baseline_file, source: $b.source, suite_versions: $b.suite_versions, provenance: $b.provenance,
                                               client_cpu: ($b | client_load)} end),
      current: (if $c == null then null else {suite_versions: $c.suite_versions, provenance: $c.provenance, client_cpu: ($c | client_load)} end),
      skipped: $skipped,
      rows: $rows
    };

verdict
