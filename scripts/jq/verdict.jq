# THE verdict rule of afpbench-action. Everything that decides pass, fail,
# inconclusive or error lives in this file; scripts/compare runs it, the
# action only reads the verdict.json it writes (docs/verdict-format.md).
#
#   jq -n -L scripts/jq -f verdict.jq \
#     --slurpfile cur results.json --slurpfile base baseline.json|/dev/null \
#     --argjson th THRESHOLDS --argjson load_errors '[...]' \
#     --arg baseline_file PATH --slurpfile catalogue scripts/lantest-tests.json
#
# $th: {"time": pct, "io": pct, "cpu": pct, "throughput": pct|null, "alpha": p,
#       "metrics": {"id or glob": pct, ...}}  (scripts/compare resolves files
# and environment into this). $load_errors: files that could not be read.
#
# Two ways to compare. Against a stored baseline ($base), each side's samples
# are independent (judge_timing, judge_counts). In an A/B run ($cur has "base":
# the base server measured in the same run, test by test interleaved with the
# head), the base is the baseline and timings are judged from the pairs
# (judge_paired): what load does to one side of a pair it does to the other.
include "stats";
include "results";
include "load";
include "instr";
include "syscalls";
include "attribution";
include "names";
include "reference";
include "mem";
include "timings";
include "counts";
include "summary";


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
# else the kind default ($paired: an A/B run, whose timings default to
# time_ab), widened to a built-in entry (thresholds.jq) where one matches: a
# built-in entry is the least a noisy row needs, and a wider default set
# for its kind (defaults.cpu: 1000, to keep CPU out) still reaches it.
def threshold_for($metric; $kind; $paired):
  ((if $paired then $th.time_ab else null end) // $th.time) as $time
  | (if $kind == "throughput" then ($th.throughput // $time)
     elif $kind == "time" then $time
     elif $kind == "io_info" then $th.io
     elif $kind == "sys_info" then $th.sys
     else $th[$kind] end) as $default
  | table_match($th.metrics // {}; $metric)
  // (table_match($th.builtin_metrics // {}; $metric)
      | if . != null and $default != null and $default > . then $default else . end)
  // $default;

# ---- the rule for one metric: timings.jq (time, CPU, throughput) and
# counts.jq (IO, system calls)

# ---- metrics of a side ---------------------------------------------------

# Per-sample values of one metric of a test. Time in ms, throughput in MB/s
# (MiB/s, as upstream), IO as syscall counts or bytes, server CPU in µs.
# null entries mean "not measured".
def sample_values($field):
  if $field == "time" then map(.us / 1000)
  elif $field == "mbps" then map(if .us > 0 and .bytes != null then .bytes / .us * 1000000 / 1048576 else null end)
  else map(.[$field | sample_field])
  end;

def metric_kind($field):
  if $field == "time" then "time" elif $field == "mbps" then "throughput"
  elif $field == "afpd_cpu" then "cpu" elif ($field | endswith("_hwm_kb")) then "mem" else "io" end;
def metric_unit($field):
  {"time": "ms", "mbps": "MB/s", "afpd_cpu": "µs", "afpd_rchar": "bytes", "afpd_wchar": "bytes",
   "afpd_hwm_kb": "KiB", "cnid_hwm_kb": "KiB"}[$field]
  // "syscalls";

# A bulk transfer moves at least 1 MiB per sample (lantest 2 and 3, every
# speedtest test). Its afpd syscall counts follow how the socket cut the data
# (under load: more, shorter reads and writes), so they are shown, not gated
# (kind io_info); the bytes afpd read and wrote (rchar, wchar) do not move
# with load, and gate instead.
def is_bulk:
  .suite == "speedtest" or (.key | startswith("speedtest."))
  or ([.samples[].bytes // 0] | median // 0) >= 1048576;

# The IO count fields a comparison has rows for: where both sides counted
# reads and writes by descriptor kind ($split), those a sample of $tests
# (the test on each side) made any of, in place of the plain reads and
# writes, which count a reply on the client's socket or a message on a pipe
# as IO like a file's; else the plain ones.
def io_fields($split; $tests):
  if $split then [fd_fields[] as $f | select(any($tests[] | objects | .samples[]?; (.[$f] // 0) > 0)) | $f]
  else metric_fields end;

# The metrics of a test: time (lantest) or MB/s (speedtest) first, since
# error rows of a test name that metric; then afpd's CPU, the IO counts and,
# for bulk transfers, the bytes. One row per measured quantity: a lantest
# test's MB/s is its time seen the other way round, so it has no row. $bt:
# the test on the other side (or null), for io_fields.
def test_fields($split; $bt):
  (if .suite == "speedtest" or (.key | startswith("speedtest.")) then ["mbps"] else ["time"] end)
  + ["afpd_cpu"] + io_fields($split; [., $bt])
  + (if is_bulk then byte_fields else [] end)
  # the servers' peak memory, where this side measured it (mem.jq)
  + (if .key | test("^(lantest|spotlight|bigdir)\\.") then [mem_fields[] as $f | select(any(.samples[]?; has($f))) | $f] else [] end);
def test_fields: test_fields(false; null);

# afpd's read and write counts, plain or by descriptor kind.
def is_afpd_rw: test("^afpd_(r|w|(\(fd_kind_re))_[rw])$");

def field_kind($t; $field):
  if ($field | is_afpd_rw) and ($t | is_bulk) then "io_info" else metric_kind($field) end;

# Aggregates over the lantest tests in $keys: one sample per (run, iteration)
# in which every one of those tests has a sample; per AFP op actually issued.
# A bulk test's afpd reads and writes count 0 here: they follow how the
# socket cut the data (an A/A pair under load moved the whole run's afpd
# reads per op by +8 % through lantest 3's sendfile calls alone), and its
# bytes gate them (docs/verdict-format.md, "Bulk transfers").
def aggregate_samples($keys; $io):
  [.tests[] | select(.key as $k | $keys | index($k)) | . as $t | is_bulk as $bulk
   | .samples[] | . + {afp_ops: (.afp_ops // $t.afp_ops), key: $t.key}
   | if $bulk then reduce ($io[] | select(is_afpd_rw)) as $f (.; .[$f] |= (if . == null then null else 0 end))
     else . end]
  | group_by([.run, .iteration])
  | map(select(length == ($keys | length)))
  | map((map(.afp_ops // 0) | add) as $ops
        | select($ops > 0)
        | {run: .[0].run, iteration: .[0].iteration, afp_ops: $ops,
           time_per_op: ((map(.us) | add) / 1000 / $ops)}
          + ([($io + cpu_fields)[] as $f
              | {key: "\($f | rtrimstr("_us"))_per_op",
                 value: (if any(.[]; .[$f] == null) then null else (map(.[$f]) | add) / $ops end)}]
             | from_entries));

def aggregate_ids($io): ["time_per_op", "afpd_cpu_per_op", "cnid_cpu_per_op"] + [$io[] | "\(.)_per_op"];
def aggregate_kind($a): if $a == "time_per_op" then "time" elif ($a | test("_cpu_")) then "cpu" else "io" end;
def aggregate_unit($a): {"time": "ms/op", "cpu": "µs/op", "io": "syscalls/op"}[aggregate_kind($a)];

# Below this much CPU per sample (µs; for an aggregate: per AFP op times the
# AFP ops of one sample) a CPU row passes unjudged: cnid_dbd does next to
# nothing in most tests, and a ratio of two near-zero times says nothing.
# 20 ms: in an A/A run under load the two cnid_dbd processes used 9 and 15 ms
# per sample of lantest 4, 9, 11, 12, the same side higher in all 10 pairs
# (docs/verdict-format.md); afpd uses hundreds of ms per sample there.
def cpu_floor_us: 20000;

# ---- rows ----------------------------------------------------------------

def row($metric; $group; $test; $name; $kind; $unit):
  {metric: $metric, group: $group, test: $test, name: $name, kind: $kind, unit: $unit,
   baseline: null, current: null, ratio: null, threshold: threshold_for($metric; $kind; false),
   noise: null, p_value: null, n_baseline: 0, n_current: 0, state: null, reason: null};

def error_row($t; $reason):
  ($t | test_fields[0]) as $f
  | row("\($t.key).\($f)"; $t.suite // ($t.key | split(".")[0]); $t.key; $t.name; metric_kind($f); metric_unit($f))
  | .state = "error" | .reason = $reason;

# The baseline's sessions of one metric: $b is [{run, v}].
def sessions_of($b):
  ($b | map(.v) | median) as $m
  | ($b | group_by(.run) | map(map(.v) | median)) as $meds
  | {sessions: ($meds | length),
     spread: (if ($meds | length) < 2 or $m == null or $m == 0 then 0 else (($meds | max) - ($meds | min)) / ($m | fabs) end)};

# Compare one metric. $b, $c: the sides' samples as [{run, iteration, v}]
# ($b null: not in the baseline). $ops: the AFP ops behind one sample of a
# per-op aggregate (judge_counts), else null. $ctx: the comparison's context
# (paired, io_off reason, timing_block).
def metric_row($metric; $group; $test; $name; $kind; $unit; $b; $c; $ops; $io_reason; $ctx):
  row($metric; $group; $test; $name; $kind; $unit)
  | .threshold = threshold_for($metric; $kind; $ctx.paired)
  | .threshold as $thpct
  | ($b | if . == null then null else map(.v) end) as $bv
  | ($c | map(.v)) as $cv
  | .baseline = (if $bv == null or any($bv[]; . == null) then null else ($bv | median | sig6) end)
  | .current = (if any($cv[]; . == null) then null else ($cv | median | sig6) end)
  | if $bv == null then
      .state = "new" | .n_current = ($cv | length) | .reason = "not in the baseline"
    elif ($cv | length) == 0 or ($bv | length) == 0 then
      .state = "error" | .reason = "no samples"
    elif any($cv[], $bv[]; . == null) then
      .n_baseline = ($bv | length) | .n_current = ($cv | length)
      | .state = "inconclusive"
      | .reason = (if any($cv[]; . == null) then "not measured in this run" else "not measured in the baseline" end)
                  + (if $io_reason != null and ($kind | startswith("io")) then " (\($io_reason))" else "" end)
    elif $kind == "io" or $kind == "instr" or $kind == "sys" then
      # instructions and system calls are judged like IO counts (docs/verdict-format.md)
      judge_count_row($ctx.reference; $metric; $bv; $cv; $thpct; $ops)
      # the smallest move this row decides on, in its own unit (the history's
      # steps use it: a level that moved less is no step)
      | .floor = (count_floor($metric) / ($ops // 1) | sig6)
      # a lantest test's count that rose within its own samples' spread (a
      # count with a clock term, e.g. cnid_dbd's writes in test 10, 1200 or
      # 1250 a sample on unchanged software) is shown, as an undecided timing
      # is: the per-AFP-op aggregate over every test decides
      | if .state == "inconclusive" and $group == "lantest"
        then .state = "info" | .reading = "inconclusive" | .reason = "undecided, shown: \(.reason | sub("; more iterations or a quieter server would settle it$"; "")); the per-AFP-op aggregates decide"
        else . end
    elif $kind == "errors" then
      . + judge_errors($bv; $cv)
    elif $kind == "mem" then
      . + judge_mem($bv; $cv; $thpct) | mem_shown($metric)
    elif $kind == "cpu" and ([($bv | median), ($cv | median)] | max) * ($ops // 1) < cpu_floor_us then
      # a few hundred µs of CPU per sample is scheduler accounting, not a figure
      .n_baseline = ($bv | length) | .n_current = ($cv | length)
      | .ratio = (if ($bv | median) > 0 then ($cv | median) / ($bv | median) else null end)
      | .state = "pass"
      | .reason = "under \(cpu_floor_us / 1000) ms of CPU per sample on both sides: too little to judge"
    elif $kind == "io_info" or $kind == "sys_info" then
      judge_count_row($ctx.reference; $metric; $bv; $cv; $thpct; $ops)
      | if .state == "pass" then .
        elif $kind == "sys_info" and ($metric | test("_sys_wait(_per_op)?$")) then
          .reason = "not gated (receives and waits follow when requests arrive, not the work done): \(.reason)"
          | .state = "info"
        elif $kind == "sys_info" then
          .reason = "not gated (a bulk transfer's data calls follow how the socket cut the data): \(.reason)"
          | .state = "info"
        else .reason = "not gated (a bulk transfer's syscall count follows how the socket cut the data; its bytes gate): \(.reason)"
             | .state = "info" end
    elif $ctx.paired and $ctx.timing_block != null then
      # both sides under valgrind (instructions in A/B): their timings say
      # nothing about the server, whatever the pairs
      .n_baseline = ($bv | length) | .n_current = ($cv | length)
      | .ratio = (if ($bv | median) > 0 then ($cv | median) / ($bv | median) else null end)
      | .state = "info" | .reason = "not gated: \($ctx.timing_block)"
    elif $ctx.paired then
      # pairs: the same (run, iteration) on both sides
      ([$b[] | {key: "\(.run)/\(.iteration)", value: .v}] | from_entries) as $bi
      # α is split between the aggregates and the per-test rows (Bonferroni
      # within each group): the aggregates, over every AFP op of an
      # iteration, get a narrower bound than the 24 per-test rows could
      | (if $group == "aggregate" then $ctx.family_aggs else $ctx.family_tests end) as $fam
      | (if $ctx.family_aggs > 0 and $ctx.family_tests > 0 then 2 else 1 end) as $groups
      | . + judge_paired([$c[] | select($bi["\(.run)/\(.iteration)"] != null) | [$bi["\(.run)/\(.iteration)"], .v]]; $kind; $thpct; $fam * $groups)
      # a lantest test's timing the pairs cannot decide is shown, and the
      # per-AFP-op aggregates, which cover it, decide
      | if .state == "inconclusive" and $group == "lantest" and $ctx.family_aggs > 0
        then .state = "info" | .reading = "inconclusive" | .reason = "undecided, shown: \(.reason); the per-AFP-op aggregates decide"
        else . end
    elif $th.baseline_timings == "gate" then
      . + judge_timing($bv; $cv; $kind; $thpct; $ctx.timing_block; sessions_of($b))
    else
      # against a stored baseline a timing measures the two sessions' load as
      # much as the software: shown with its reading, never deciding
      . + judge_timing($bv; $cv; $kind; $thpct; null; sessions_of($b))
      | .reading = .state
      | .state = "info"
      | .reason = "shown, not gated against a stored baseline: \(.reason)"
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

# ---- how busy the machine was ---------------------------------------------

# The share of the time afpd had work that it spent waiting for a CPU, over a
# side's timed regions: {pct, wait_us, cpu_us}, or null without the figures.
# On a machine with a core to spare it is a few percent; when other work
# takes the cores it climbs, and timings swing with it (docs/verdict-format.md,
# "A busy machine").
def cpu_wait:
  [.tests[].samples[] | select((.afpd_wait_us | type) == "number" and .afpd_wait_us >= 0
                               and (.afpd_cpu_us | type) == "number" and .afpd_cpu_us >= 0)]
  | if length == 0 then null
    else (map(.afpd_wait_us) | add) as $w | (map(.afpd_cpu_us) | add) as $c
    | {pct: (if $w + $c == 0 then 0 else $w / ($w + $c) * 100 | pct_text_raw | tonumber end), wait_us: $w, cpu_us: $c}
    end;

# Above this share the note says the machine was busy.
def busy_wait_pct: 10;

# A/B taken sequentially (the gate's settle_pairs): the pairs it added while
# a timing was undecided, and why it stopped.
def settle_note($s):
  if $s == null or ($s.rounds == 0 and ($s.stopped | IN("settled", "fail", "noise"))) then empty
  else
    {settled: "every timing settled", fail: "a row failed, which more pairs cannot undo",
     noise: "the timings left are too noisy here for any number of pairs the gate runs",
     budget: "the budget allowed no more", deadline: "the deadline (AFPBENCH_DEADLINE) allowed no more",
     max: "255 pairs is the most the gate runs", error: "an error stopped it"}[$s.stopped] as $why
    | if $s.rounds == 0 then "A/B: a timing was undecided after \($s.first_pairs) pairs, and \($why) (AFPBENCH_AB_BUDGET=\($s.budget_s) s)"
      else "A/B, sequential: \($s.first_pairs) pairs, then \($s.pairs - $s.first_pairs) more in \($s.rounds) round\(if $s.rounds > 1 then "s" else "" end) while a timing was undecided (\($s.seconds) s of AFPBENCH_AB_BUDGET=\($s.budget_s) s): \($why)" end
  end;

def busy_note($cur; $base; $paired):
  ($cur | objects | cpu_wait) as $cw | ($base | objects | cpu_wait) as $bw
  | if $cw == null or ([$cw.pct, ($bw.pct // 0)] | max) < busy_wait_pct then empty
    else "the machine was busy: afpd waited for a CPU \($cw.pct) % of the time it had work"
      + (if $bw != null then " (\(if $paired then "base" else "baseline" end): \($bw.pct) %)" else "" end)
      + "; timings swing with the other work on it (the counts are not affected)"
    end;

def state_rank: {"error": 5, "fail": 4, "inconclusive": 3, "improved": 2, "new": 1, "info": 0, "pass": 0}[.];

# ---- the verdict, step by step -------------------------------------------
# sides -> context -> test rows -> aggregate rows -> errors, notes -> status
# -> summary -> the document. Each step adds to one object ($v below).

# The two sides, read and validated. A/B results carry their base: it is the
# baseline, and a stored baseline is not also allowed.
def sides:
  ($load_errors // []) as $le
  | (if ($cur | length) == 0 then {error: (if ($le | length) > 0 then null else "results: no results file" end)}
     else try ($cur[0] | check_results("results \($results_file)") | results_side) catch {error: .} end) as $c
  | (($cur | length) > 0 and ($cur[0] | type) == "object" and ($cur[0].base | type) == "object") as $paired
  | (if $paired then
       (if ($base | length) > 0
        then {error: "results \($results_file) are an A/B run, whose base was measured with it: give no baseline file as well (\($baseline_file))"}
        else try ($cur[0].base | check_results("results \($results_file), base") | results_side | .source = "base") catch {error: .} end)
     elif ($base | length) == 0 then null
     else try ($base[0] | any_side("baseline \($baseline_file)")) catch {error: .} end) as $b
  | {cur: ($c | if has("error") then null else . end),
     base: ($b | if . != null and has("error") then null else . end),
     paired: $paired,
     errors: ($le + [($c, $b) | objects | .error // empty | tostring])};

# What the comparison knows before any row: suites that changed, why timings
# cannot be compared, why IO figures are missing, which tests to compare.
def context:
  .cur as $c | .base as $b
  | .have_base = ($b != null)
  # main's run as the counts' reference (reference.jq): against a stored baseline only
  | .reference = (if .paired or $b == null then null else ($reference[0] // null) end)
  | .suite_errors = (if $c == null or $b == null then []
      else [$c.suite_versions | to_entries[] | select($b.suite_versions[.key] != null and $b.suite_versions[.key] != .value)
            | "suite \(.key) changed: baseline \($b.suite_versions[.key]), current \(.value); its tests cannot be compared, make a new baseline"]
      end)
  | .bad_suites = [$c.suite_versions // {} | to_entries[] | select($b != null and $b.suite_versions[.key] != null and $b.suite_versions[.key] != .value) | .key]
  # provenance that stops timing comparisons, not IO ones; never in A/B, where
  # both sides ran on this machine at the same time (and a netatalk version
  # difference is the change under test)
  # (and only where timings against a stored baseline gate at all)
  | .timing_block = (if $c == null or $b == null or .paired or $th.baseline_timings != "gate" then null
      else
        [ (if ($b.provenance | fingerprint) != ($c.provenance | fingerprint)
           then "baseline from another machine (\($b.provenance.runner.cpu_model // "?"), \($b.provenance.runner.cores // "?") cores\(if $b.provenance.runner.container then ", container" else "" end); this one: \($c.provenance.runner.cpu_model // "?"), \($c.provenance.runner.cores // "?") cores\(if $c.provenance.runner.container then ", container" else "" end))" else empty end),
          (if $b.provenance.netatalk.version != $c.provenance.netatalk.version
           then "baseline from netatalk \($b.provenance.netatalk.version // "unknown"), current \($c.provenance.netatalk.version // "unknown")" else empty end) ]
        | if length == 0 then null else join("; ") end
      end)
  # timings under valgrind say nothing about the server (instr.jq)
  | .timing_block = ([.timing_block // empty, instr_timing_block($b; $c) // empty]
                     | if length == 0 then null else join("; ") end)
  # why IO figures are missing, per suite; this run's reason wins
  | .io_off = (($b.io_off // {}) + ($c.io_off // {}))
  # a test that sends one kind of AFP command names it from its timed samples
  | .ctests = (if $c == null then [] else $c.tests | timed_commands($catalogue) end)
  | .btests = (if $b == null then [] else $b.tests | timed_commands($catalogue) end)
  # compared: what ran, and the lantest tests the run was asked for (a selected
  # test without results is an error); other baseline tests were not selected
  # and are listed, not compared
  | .considered = ([.ctests[].key] as $ran | $ran + (($c.expected // []) - $ran))
  # A/B: the paired timing rows judged together (per-test time, MB/s and
  # server CPU, and the lantest aggregates), over which a fail's confidence
  # is held (judge_paired)
  # reads and writes by descriptor kind, where both sides counted them
  | .fd_split = ($c != null and ($c | has_fd_split) and ($b == null or ($b | has_fd_split)))
  | .family_tests = ([.ctests[] | test_fields[] | metric_kind(.) | select(. == "time" or . == "cpu" or . == "throughput")] | length)
  | .family_aggs = (if any(.ctests[]; .key | startswith("lantest.")) then 3 else 0 end)
  | .skipped = ([.btests[].key] - .considered);

# One test's samples of a field as [{run, iteration, v}]; null when the side
# never recorded that field (a file from before afpbench measured it).
def field_samples($t; $f):
  if $t == null then null
  else ($t.samples | sample_values($f)) as $vals
    | if ($f | sample_field) as $sf | $sf != null and all($t.samples[]; has($sf) | not) then null
      else [range(0; $vals | length) as $i | {run: $t.samples[$i].run, iteration: $t.samples[$i].iteration, v: $vals[$i]}]
      end
  end;

def test_rows:
  . as $x
  | ($x.ctests | map({key: .key, value: .}) | from_entries) as $cmap
  | ($x.btests | map({key: .key, value: .}) | from_entries) as $bmap
  | .test_rows = [ $x.considered[] as $k
      | $cmap[$k] as $ct | $bmap[$k] as $bt
      | ($ct // $bt) as $t
      | ($t.suite // ($k | split(".")[0])) as $suite
      | if ($x.bad_suites | index($suite)) then empty
        elif $ct == null then
          error_row($bt // {key: $k, suite: $suite, name: null, samples: []};
                    "selected but missing from the results")
        elif ($ct.status // "ok") == "error" then
          error_row($ct; "test failed in this run: \($ct.error | error_text)")
        elif $bt != null and ($bt.status // "ok") == "error" then
          error_row($ct; "test failed in the \($x.base.source // "baseline"): \($bt.error | error_text)")
        elif $bt != null and ($bt.size_bytes // null) != ($ct.size_bytes // null) then
          error_row($ct; "workload differs: \($bt.size_bytes) bytes in the baseline, \($ct.size_bytes) now (e.g. -g/-G); make a matching baseline")
        else
          ($ct | test_fields($x.fd_split; $bt)[]) as $f
          | (if $bt == null then null else field_samples($bt; $f) end) as $bs
          | field_samples($ct; $f) as $cs
          | (if $cs == null then empty else . end)
          # peak memory the baseline never measured: no row (a note says so),
          # not one "new" row per test and process in every comment
          | (if $bt != null and $bs == null and ($f | endswith("_hwm_kb")) then empty else . end)
          | metric_row("\($k).\($f)"; $suite; $k; $ct.name; field_kind($ct; $f); metric_unit($f);
              (if $bt != null and $bs == null then null else $bs end); $cs;
              null; $x.io_off[$suite]; $x)
          | if $bt != null and $bs == null then .reason = "not measured in the baseline (recorded by newer afpbench)" else . end
          | .afp_ops = {baseline: (if $bt == null then null else [$bt.samples[].afp_ops // $bt.afp_ops] | median end),
                        current: ([$ct.samples[].afp_ops // $ct.afp_ops] | median)}
        end
    ];

# Values as metric_row's samples (instructions per AFP op are judged like IO
# counts, which need no pairing).
def as_samples: if . == null then null else [.[] | {run: 0, iteration: null, v: .}] end;

# afpd instructions per AFP op, per test (instrumented runs, instr.jq):
# judged like IO counts, with the 5 functions that moved most on the row.
def instr_test_rows:
  . as $x | $x.base as $b | $x.cur as $c
  | ($x.btests | map({key: .key, value: .}) | from_entries) as $bmap
  | instr_block($b; $c) as $instr_block
  | ([.test_rows[] | select(.state == "error") | .test] | unique) as $errored
  | .test_rows += [
      $x.ctests[] | select(instr_counted and (.key as $k | $errored | index($k) | not)) | . as $ct
      | $bmap[$ct.key] as $bt
      | (($bt | objects | instr_values) // null) as $bv
      | metric_row("\($ct.key).afpd_instr_per_op"; $ct.suite // ($ct.key | split(".")[0]); $ct.key; $ct.name;
          "instr"; "instr/op"; ($bv | as_samples); ($ct | instr_values // [null] | as_samples); null;
          "afpd instructions not counted"; $x)
      | if .state == "new" and $bt != null then .reason = "the baseline has no afpd instruction counts" else . end
      | if $instr_block != null and $bv != null then .state = "inconclusive" | .reason = "not comparable: \($instr_block)" else . end
      | if .state == "fail" or .state == "improved" or .state == "inconclusive"
        then .movers = instr_top_movers(($bt | objects | instr_functions) // {}; $ct | instr_functions) else . end
    ];

# ---- system calls (syscalls.jq) ------------------------------------------

# Did a side count any system call of afpd?
def sys_counted: any(.tests[]?.samples[]?; .afpd_sys != null);

# How system calls are compared: "both" (both sides counted), "current"
# (only this run counted: rows without a baseline), or null (no rows).
def sys_mode:
  if .cur == null or (.cur | sys_counted | not) then null
  elif .have_base and (.base | sys_counted) then "both"
  elif .have_base then "current"
  else "both" end;

# Why system call rows of both sides cannot be compared, or null: another
# filesystem under the share changes which calls afpd makes (xattrs, ACLs).
def sys_block:
  if .paired or .base == null or .cur == null then null
  else (.base.provenance.share_fs // null) as $bf | (.cur.provenance.share_fs // null) as $cf
    | if $bf != null and $cf != null and $bf != $cf then "the share is on \($cf) now and was on \($bf) in the baseline" else null end
  end;

# A sys row's movers (when it did not pass) and its compare block.
def sys_finish($fm; $family; $proc; $btables; $ctables; $block):
  if $block != null and .state != "new" then .state = "info" | .reason = "not compared: \($block)" else . end
  | if .state == "pass" or .state == "new" then .
    else .movers = (sys_call_moves($fm; $family; $btables; $ctables) | sys_by_cost($fm) | .[0:5] | map(. + {process: $proc})) end;

# Per test: afpd's system calls by family (and every work call together as
# "total"), and cnid_dbd's total. Kind sys (gated like IO counts), the
# timing family sys_info.
def sys_test_rows:
  . as $x
  | sys_family_map as $fm
  | sys_mode as $mode
  | sys_block as $block
  | ($x.btests | map({key: .key, value: .}) | from_entries) as $bmap
  | ([.test_rows[] | select(.state == "error") | .test] | unique) as $errored
  | .test_rows += (if $mode == null then [] else [
      # a baseline without counts: no per-test rows (the aggregates say it)
      $x.ctests[] | . as $ct
      | select($mode == "both")
      | select(($errored | index($ct.key) | not) and any(.samples[]; .afpd_sys != null))
      | (if $mode == "both" then $bmap[$ct.key] else null end) as $bt
      | ("afpd", "cnid") as $proc
      | sys_row_families($fm; $proc; [$ct, $bt])[] as $family
      | ($bt | sys_samples($fm; $proc; $family) | if . == null then null else map(select(.v != null)) end) as $bs
      # (null: this side has no such process, e.g. no cnid_dbd on SQLite)
      | ($ct | sys_samples($fm; $proc; $family) // [] | map(select(.v != null))) as $cs
      | select(($cs | length) > 0)
      | metric_row("\($ct.key).\($proc)_sys_\($family)"; $ct.suite // ($ct.key | split(".")[0]); $ct.key; $ct.name;
          (if $family == sys_timing_family or ($ct | is_bulk) and ($family == "data" or $family == "total")
           then "sys_info" else "sys" end); "syscalls";
          (if $bs == null or ($bs | length) == 0 then null else $bs end); $cs; null; null; $x)
      | if .state == "new" and $bt != null then .reason = "the baseline has no \(if $proc == "afpd" then "afpd" else "cnid_dbd" end) system call counts for this test" else . end
      | .afp_ops = {baseline: (if $bt == null then null else [$bt.samples[].afp_ops // $bt.afp_ops] | median end),
                    current: ([$ct.samples[].afp_ops // $ct.afp_ops] | median)}
      | sys_finish($fm; $family; $proc; [($bt // {samples: []}).samples[] | .[sys_field($proc)]];
                   [$ct.samples[] | .[sys_field($proc)]]; $block)
      | cmd_attach($fm; $proc; $family; [$bt | objects]; [$ct])
    ] end);

# Per AFP op over the aggregate's tests, like the IO aggregates.
def sys_aggregate_rows:
  . as $x
  | sys_family_map as $fm
  | sys_mode as $mode
  | sys_block as $block
  | ($x.ctests | map({key: .key, value: .}) | from_entries) as $cmap
  | ($x.btests | map({key: .key, value: .}) | from_entries) as $bmap
  | def counted($proc): any(.samples[]; .[sys_field($proc)] != null);
    # bulk tests left out: their data calls follow how the socket cut the data
    [$x.agg_keys[] | select($cmap[.] | objects | counted("afpd") and (is_bulk | not))] as $keys
  | .agg_rows += (if $mode == null or ($keys | length) == 0 then [] else [
      ("afpd", "cnid") as $proc
      | select(all($keys[]; $cmap[.] | counted($proc)))
      | ($x.cur | sys_aggregate_samples($proc; $keys)) as $cagg
      | (if $mode == "both" and $x.have_base and all($keys[]; ($bmap[.] | objects | counted($proc)) // false)
         then $x.base | sys_aggregate_samples($proc; $keys) else null end) as $bagg
      | ([($bagg // []), $cagg | map(.afp_ops) | median | numbers] | max) as $ops
      | (([($bagg // [])[], $cagg[] | .calls | sys_by_family($fm) | keys[]] | unique) as $have
         | ["total"] + [sys_family_names[] | select(. as $f | $have | index($f))])[] as $family
      | def side($agg): if $agg == null then null else $agg | map({run, iteration, v: (.calls | sys_by_family($fm)[$family] // 0)}) end;
        metric_row("aggregate.\($proc)_sys_\($family)_per_op"; "aggregate"; null;
          "\(if $proc == "afpd" then "afpd" else "cnid_dbd" end) system calls per AFP op over \($keys | length) lantest tests";
          (if $family == sys_timing_family then "sys_info" else "sys" end); "syscalls/op";
          side($bagg); side($cagg); $ops; null; $x)
      | if .state == "new" and $x.have_base then .reason = "the baseline has no system call counts for these tests" else . end
      | if .n_current == 0 and .state != "new" then .state = "error" | .reason = "no complete iteration covers all compared tests" else . end
      | sys_finish($fm; $family; $proc; [($bagg // [])[] | .calls]; [$cagg[] | .calls]; $block)
      | cmd_attach($fm; $proc; $family; [$keys[] as $k | $bmap[$k] | objects]; [$keys[] as $k | $cmap[$k]])
    ] end);

# The instructions aggregate: over the compared tests counted on this side.
def instr_aggregate_rows:
  . as $x | $x.base as $b | $x.cur as $c
  | ($x.ctests | map({key: .key, value: .}) | from_entries) as $cmap
  | ($x.btests | map({key: .key, value: .}) | from_entries) as $bmap
  | instr_block($b; $c) as $instr_block
  | ([$x.agg_keys[] as $k | $cmap[$k] | select(. != null and instr_values != null) | .key]) as $instr_keys
  | .agg_rows += (if ($instr_keys | length) == 0 then [] else
      ([$instr_keys[] as $k | $bmap[$k] | objects | select(instr_values != null)] | length == ($instr_keys | length)) as $b_has
      | [metric_row("aggregate.afpd_instr_per_op"; "aggregate"; null; "afpd instructions per AFP op over \($instr_keys | length) lantest tests";
           "instr"; "instr/op";
           (if $x.have_base and $b_has then $b | instr_aggregate_values($instr_keys) | as_samples else null end);
           ($c | instr_aggregate_values($instr_keys) | as_samples); null; null; $x)
         | if .state == "new" and $x.have_base then .reason = "the baseline has no afpd instruction counts for these tests" else . end
         | if $instr_block != null and $b_has then .state = "inconclusive" | .reason = "not comparable: \($instr_block)" else . end
         | if .n_current == 0 and .state != "new" then .state = "error" | .reason = "no complete iteration covers all counted tests" else . end
         | if .state == "fail" or .state == "improved" or .state == "inconclusive"
           then .movers = instr_top_movers([$instr_keys[] as $k | $bmap[$k] | objects | instr_functions] | instr_sum_tables // {};
                                           [$instr_keys[] as $k | $cmap[$k] | instr_functions] | instr_sum_tables)
           else . end]
      end);

# Aggregates over the lantest tests that are comparable on both sides.
# Lantest only, by design (docs/verdict-format.md): speedtest ops move up to
# a quantum each, so mixing them in would make "per AFP op" depend on the
# sizes chosen; speedtest IO gates through its own per-test rows.
def aggregate_rows:
  . as $x
  | ([.test_rows[] | select(.group == "lantest" and .state != "error" and (.state != "new" or ($x.have_base | not))) | .test]
     | unique | sort_by(ltrimstr("lantest.") | tonumber)) as $keys
  | .agg_keys = $keys
  | .agg_rows = (if ($keys | length) == 0 then []
      else
        # the IO fields of the aggregate: those of any of its tests on either
        # side; split by descriptor kind, the plain sums too, shown (the
        # action's reads-per-op-ratio and the history's series read them)
        (io_fields($x.fd_split; [$x.cur, $x.base | objects | .tests[] | select(.key as $k | $keys | index($k))])
         | if $x.fd_split then metric_fields + . else . end) as $io
        | ($x.cur | aggregate_samples($keys; $io)) as $cagg
        | (if $x.have_base then ($x.base | aggregate_samples($keys; $io)) else null end) as $bagg
        # AFP ops per aggregate sample (one iteration of all $keys): the
        # larger side's median, so the floor never counts a move as smaller
        | ([($bagg // []), $cagg | map(.afp_ops) | median | numbers] | max) as $agg_ops
        | def side($agg; $a): $agg | map({run, iteration, v: .[$a]});
          # files from before afpbench measured the server's CPU have no such field
          def has_cpu: any(.tests[] | select(.key as $k | $keys | index($k)) | .samples[]; has("afpd_cpu_us"));
          ($x.cur | has_cpu) as $c_cpu | ($x.have_base and ($x.base | has_cpu)) as $b_cpu
          | [aggregate_ids($io)[] as $a
           | aggregate_kind($a) as $kind
           | select($kind != "cpu" or $c_cpu)
           | (if $bagg == null or ($kind == "cpu" and ($b_cpu | not)) then null else side($bagg; $a) end) as $bs
           | metric_row("aggregate.\($a)"; "aggregate"; null; "AFP-op aggregate over \($keys | length) lantest tests";
               $kind; aggregate_unit($a); $bs; side($cagg; $a);
               $agg_ops; $x.io_off.lantest; $x)
           | if .n_current == 0 and .state != "new" then .state = "error" | .reason = "no complete iteration covers all compared tests" else . end
           | if $x.have_base and $bs == null then .reason = "not measured in the baseline (recorded by newer afpbench)" else . end
           # shown, never gated, whatever it is compared with (a stored
           # baseline or main's run) and whatever it reads
           | if $x.fd_split and ($a | rtrimstr("_per_op") | IN(metric_fields[])) and .state != "new" and .state != "error" then
               .reading = .state | .state = "info"
               | .reason = "not gated: every kind of descriptor together; the rows by kind decide: \(.reason)"
             else . end]
      end)
  | instr_aggregate_rows
  | sys_aggregate_rows
  | .rows = (.agg_rows + .test_rows)
  # under valgrind afpd's IO counts follow timing (instr.jq): not a failure
  | .base as $b | .cur as $c | .rows |= map(instr_io_row($b; $c));

# The load suite's rows (scripts/jq/load.jq says which, and judges errors);
# the rest of their rule is this file's.
def load_rows:
  . as $x
  | (if $x.cur == null then [] else $x.cur.load_runs end) as $c
  | (if $x.base == null then null else $x.base.load_runs end) as $b
  | .load_notes = ($c | load_notes)
  | .rows += [load_series($c; $b)
      | if .missing then
          row(.metric; "load"; .test; .name; "throughput"; "req/s")
          | .state = "error" | .reason = "in the \($x.base.source // "baseline") but not run now (AFPBENCH_LOAD changed?)"
        else
          metric_row(.metric; "load"; .test; .name; .kind; .unit; .b; .c; .ops; $x.io_off.load; $x)
        end];

# A side without a cnid_dbd: afpd was monitored, no cnid_dbd ever was. With
# netatalk 4.3's SQLite backend (cnid scheme = sqlite, what netatalk's own CI
# runs) there is none: afpd does the CNID work itself, and its rows count it.
def no_cnid_dbd:
  [.tests[]? | select(.suite != "load") | .samples[]?] as $s
  | any($s[]; .afpd_r != null) and all($s[]; .cnid_r == null and .cnid_cpu_us == null);

# cnid_dbd's rows where a side has none are no figure to compare: they go, and
# a note says why (never an inconclusive row for a process that does not exist).
def cnid_absent_rows:
  . as $x
  | ([(if $x.cur != null and ($x.cur | no_cnid_dbd) then "this run" else empty end),
      (if $x.base != null and ($x.base | no_cnid_dbd) then (if $x.paired then "the base" else "the baseline" end) else empty end)]) as $without
  | if ($without | length) == 0 then .
    else .rows |= map(select(.group == "load" or (.metric | test("\\.cnid_|aggregate\\.cnid_") | not)))
      | .cnid_note = "no cnid_dbd in \($without | join(" or ")) (a CNID backend inside afpd, such as cnid scheme = sqlite): cnid_dbd's rows are left out; afpd's rows carry its CNID work"
    end;

def errors_and_notes:
  . as $x
  | ([.ctests[] | .suite // (.key | split(".")[0])] | unique) as $suites
  | ([($x.cur | objects | client_cpu_warnings("current"; $suites)),
      ($x.base | objects | client_cpu_warnings(if $x.paired then "base" else "baseline" end; $suites))]) as $cpu_warnings
  # another afp.conf is a change under test, not another place: noted, still gated
  | ([$x.base, $x.cur] | map(.provenance.afp_conf_sha256? | strings)) as $confs
  | (if ($confs | length) == 2 and $confs[0] != $confs[1]
     then "afp.conf differs from the \(if $x.paired then "base's" else "baseline's" end) (sha256 \($confs[0][0:12])… → \($confs[1][0:12])…): the server's settings changed, a change under test: \(if $x.paired then "every row still gates" elif $th.baseline_timings == "gate" then "every row still gates" else "the counts still gate, timings are shown" end)" else null end) as $conf_note
  | .errors = (.errors + .suite_errors
      + (if $x.base == null or $x.paired then [] else no_shared_tests([$x.ctests[].key]; [$x.btests[].key]; $baseline_file) end)
      + [$x.cur.run_errors // [] | .[] | "afpbench stopped early: \(.)"]
      + [$x.base | select($x.paired) | .run_errors // [] | .[] | "afpbench stopped early (base): \(.)"])
  | .notes = [ $cpu_warnings[],
               busy_note($x.cur; $x.base; $x.paired),
               (if $x.paired then "A/B: base and head measured together in this run, test by test in alternating order; timings judged from the pairs" else empty end),
               (if $x.paired then settle_note($x.cur.settle) else empty end),
               (if $x.timing_block != null then "timings not gated: \($x.timing_block); IO still gates" else empty end),
               (if $x.have_base and ($x.paired | not) and $th.baseline_timings != "gate" and $x.cur != null
                then "timings shown, not gated: against a stored baseline they carry both sessions' load; the deterministic rows (IO, bytes, system calls, instructions) decide. Measure base and head together (A/B) to gate timings, or set AFPBENCH_BASELINE_TIMINGS=gate on a quiet, dedicated machine" else empty end),
               (if $x.paired or $x.base == null or $x.cur == null then empty
                else ($x.base.provenance.runner.kernel // null) as $bk | ($x.cur.provenance.runner.kernel // null) as $ck
                | if $bk != null and $ck != null and $bk != $ck then "the baseline's kernel differs (\($bk) → \($ck)): noted; the same machine type is still compared" else empty end end),
               ($conf_note // empty),
               instr_notes($x.base; $x.cur),
               ($x.cnid_note // empty),
               (if $x.have_base and ($x.paired | not) and any(.rows[]; .kind == "mem") | not
                   and any($x.ctests[].samples[]?; (.afpd_hwm_kb | type) == "number")
                then "peak memory: the baseline has none (made before afpbench measured it), so it is not compared; a new baseline gates it" else empty end),
               (if $x.cur != null and ($x.cur | sys_counted | not) and $x.cur.sys_off != null then $x.cur.sys_off else empty end),
               (if $x.have_base and $x.cur != null and ($x.cur | sys_counted) and ($x.base | sys_counted | not)
                then "system calls: the \(if $x.paired then "base" else "baseline" end) has none (made before afpbench counted them, or where counting was off\(if $x.base.sys_off != null then ": \($x.base.sys_off)" else "" end)); they are shown, not compared" else empty end),
               (if $x.have_base and $x.cur != null and ($x.fd_split | not) and ($x.cur | has_fd_split)
                then "reads and writes: the \(if $x.paired then "base" else "baseline" end) does not split them by what their descriptor is (made before afpbench counted that, or where counting was off), so each is compared as one count, the client's socket and pipes included" else empty end),
               (if ($x.skipped | length) > 0 then "not run, not compared: \($x.skipped | join(", "))" else empty end),
               ($x.io_off | to_entries[] | "IO monitoring (\(.key)): \(.value)"),
               ($x.load_notes // [])[],
               (if ($x.agg_keys | length) > 0 then "aggregates over: \($x.agg_keys | join(", "))" else empty end) ];

def document:
  . as $x
  | {
      schema: "afpbench-verdict/1",
      status: $x.status,
      summary: $x.summary,
      decided_by: $x.decided,
      errors: $x.errors,
      notes: $x.notes,
      counts: $x.counts,
      # why timings were not compared (another machine, another netatalk, valgrind); null when they were
      timings_blocked: $x.timing_block,
      # how timings were judged: paired (A/B), gated or shown against a stored baseline
      timings: (if $x.paired then "paired" elif $x.have_base | not then null
                elif $th.baseline_timings == "gate" then "gated" else "shown" end),
      mode: (if $x.paired then "ab" elif $x.have_base then "baseline" else "measure" end),
      thresholds: {time: (if $x.paired then $th.time_ab else $th.time end), io: $th.io, cpu: $th.cpu, throughput: ($th.throughput // (if $x.paired then $th.time_ab else $th.time end)), alpha: ($th.alpha // 0.05),
                   instr: ($th.instr // null), sys: ($th.sys // null), mem: ($th.mem // null), baseline_timings: ($th.baseline_timings // "show"),
                   metrics: ($th.metrics // {}), builtin_metrics: ($th.builtin_metrics // {})},
      baseline: (if $x.base == null then null
                 else {file: (if $x.paired then null else $baseline_file end), source: $x.base.source, suite_versions: $x.base.suite_versions,
                       provenance: $x.base.provenance, client_cpu: ($x.base | client_load), cpu_wait: ($x.base | cpu_wait)} end),
      current: (if $x.cur == null then null else {suite_versions: $x.cur.suite_versions, provenance: $x.cur.provenance, client_cpu: ($x.cur | client_load), cpu_wait: ($x.cur | cpu_wait)} end),
      skipped: $x.skipped,
      # main's run the counts were compared with (reference.jq); null without one
      reference: ($x.reference_used // null),
      rows: $x.rows
    };

# A/B has no baseline to refresh: its improved rows say so without the advice.
def ab_words:
  if .mode == "ab" then .rows |= map(if (.reason | type) == "string" then .reason |= sub("; consider refreshing the baseline$"; "") else . end)
  else . end;

def verdict:
  sides | context | test_rows | instr_test_rows | sys_test_rows | aggregate_rows | load_rows | cnid_absent_rows
  | errors_and_notes | reference_finish(.reference) | status | summary
  | document | ab_words;

verdict
