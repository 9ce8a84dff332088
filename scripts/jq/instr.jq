# afpd instructions per AFP op (instrumented runs: afpbench lantest
# --instr-dir, docs/verdict-format.md "Instructions"): the data the verdict's
# instr rows are made of, the functions that moved, and the notes. The rule
# that judges them is verdict.jq's (like IO counts); this module only reads
# sides (results.jq's normalised form) and never decides a state.

# Every value comes from an untrusted file: anything malformed is ignored
# rather than trusted (a test whose samples are not all well-formed counts
# as not instrumented, which the verdict states).
def instr_is_count: type == "number" and . >= 0 and . < 1e18;

# A test's per-sample afpd instructions per AFP op; null when the test was
# not counted in instructions (or any sample is malformed or lacks them).
def instr_values:
  if (.samples | type) != "array" or (.samples | length) == 0 then null
  elif all(.samples[]; type == "object" and (.afpd_instr | instr_is_count)
                        and (.instr_afp_ops | instr_is_count) and .instr_afp_ops > 0)
  then [.samples[] | .afpd_instr / .instr_afp_ops]
  else null end;

# Was the test run instrumented (does any sample carry the field)?
def instr_counted: (.samples | type) == "array" and any(.samples[]; type == "object" and has("afpd_instr"));

# A test's function table: {name: instructions per session}, well-formed
# entries only, at most 5000 of them.
def instr_functions:
  if (.instr_functions | type) != "object" then {}
  else .instr_functions | to_entries | map(select(.value | type == "number" and fabs < 1e18))
       | .[0:5000] | from_entries end;

# The run blocks' instr objects of a side (its runs; a baseline's too).
def instr_blocks: [.instr_runs // [] | .[]? | objects];

# The tool and CPU flags a side was counted with (the first run's that says).
def instr_tool: [instr_blocks[] | .tool | strings] | first // null;
def instr_cpu_flags: [instr_blocks[] | .cpu_flags | strings] | first // null;

# Aggregate samples over $keys: per (run, iteration) in which every one of
# those tests has a well-formed count, the sum of afpd instructions over the
# sum of AFP ops.
def instr_aggregate_values($keys):
  [.tests[] | select(.key as $k | $keys | index($k)) | select(instr_values != null) | .key as $key
   | .samples[] | {run, iteration, key: $key, i: .afpd_instr, o: .instr_afp_ops}]
  | group_by([.run, .iteration])
  | map(select(length == ($keys | length)) | (map(.o) | add) as $o | select($o > 0)
        | (map(.i) | add) / $o);

# The functions that moved between two function tables ({name: count}):
# every function of either side with its baseline, current, change and
# change in percent of the baseline's count (null when the baseline had
# none), largest absolute change first.
def instr_function_moves($b; $c):
  ([($b // {}), ($c // {}) | keys[]] | unique)
  | map(. as $f | ($b[$f] // 0) as $x | ($c[$f] // 0) as $y
        | {function: $f, baseline: $x, current: $y, change: ($y - $x),
           change_pct: (if $x != 0 then (($y - $x) / ($x | fabs) * 1000 | round) / 10 else null end)})
  | map(select(.change != 0))
  | sort_by(- (.change | fabs), .function);

# The sum of several function tables (the aggregate row's movers).
def instr_sum_tables: reduce .[] as $t ({}; reduce ($t | to_entries[]) as $e (.; .[$e.key] += $e.value));

# Top movers for a row: the 5 largest absolute changes.
def instr_top_movers($b; $c): instr_function_moves($b; $c) | .[0:5];

# Notes about how the two sides were counted. $rows: whether instr rows exist.
def instr_notes($b; $c):
  ($c | instr_tool) as $ct | (($b | objects | instr_tool) // null) as $bt
  | ($c | instr_cpu_flags) as $cf | (($b | objects | instr_cpu_flags) // null) as $bf
  | (if $bt != null and $ct != null and $bt != $ct
     then "instructions counted with \($bt) in the baseline and \($ct) now: not comparable (instr rows inconclusive)" else empty end),
    (if $bf != null and $cf != null and $bf != $cf
     then "instructions: the baseline was counted on a CPU with other feature flags (\($bf | split(" ") | length) vs \($cf | split(" ") | length) flags): glibc picks its string routines by CPU features, so counts may differ; instr rows still gate" else empty end),
    (if $ct == null and $bt != null then "instructions: the baseline has afpd instruction counts, this run does not (run the instrumented server and set AFPBENCH_INSTR_DIR); not compared" else empty end),
    (if $ct != null then "instructions: afpd only (cnid_dbd is not counted); per AFP op of each test's own session, an empty session subtracted" else empty end);

# Why instr rows cannot gate (another tool), or null.
def instr_block($b; $c):
  ($c | instr_tool) as $ct | (($b | objects | instr_tool) // null) as $bt
  | if $bt != null and $ct != null and $bt != $ct then "counted with \($bt) in the baseline, \($ct) now" else null end;

# Timings measured against an instrumented server (either side) are not
# gated: valgrind makes afpd several times slower, and unevenly so.
def instr_timing_block($b; $c):
  if (($c | objects | instr_tool) // null) != null or (($b | objects | instr_tool) // null) != null
  then "measured under valgrind (an instrumented server), which slows afpd several times over" else null end;

# IO and system call rows of a run against an instrumented server are shown,
# not gated: under valgrind afpd is slow enough that its reads often find no
# request yet (EAGAIN, counted as a read syscall), so its IO counts follow the
# machine's load (an A/A pair with a CPU hog "failed" on afpd reads and
# writes, scripts/tests/instr.bats), and valgrind's own calls (its output
# files, its signal handling) are counted as afpd's.
def instr_io_row($b; $c):
  if (.kind == "io" or .kind == "sys") and (.state != "pass" and .state != "new") and instr_timing_block($b; $c) != null
  then .reading = .state | .state = "info"
       | .reason = "measured under valgrind, whose own calls and slowness move afpd's \(if .kind == "io" then "IO counts" else "system calls" end): not gated; \(.reason)"
  else . end;
