# The load suite's rows (afpbench load, docs/verdict-format.md "Load"): which
# metrics a load run gives, their samples, and the one rule of their own (the
# error count). verdict.jq calls load_series and judge_errors through its
# load hook; every other rule (throughput, time, IO, CPU) is the shared one.
#
# A side's load figures are load_runs: the "load" objects of its runs (one per
# results file; a baseline pools several). Each step is one session count.

# The metric ids of a session count: load.<N>.<what>.
def load_metric($n; $what): "load.\($n).\($what)";

# Session counts of a side's runs, ascending.
def load_counts: [.[] | .steps[]? | .sessions | numbers] | unique;

# The steps for session count $n, one per run, with their run number.
def steps_of($n):
  [range(0; length) as $r | .[$r].steps[]? | select(.sessions == $n) | {run: $r, step: .}];

# Samples of one metric of a session count as [{run, iteration, v}]:
#   rps: the requests of each second of the window (iteration = the second);
#   p99: each second's p99 in ms;
#   errors: the step's error total (one per run);
#   per_request figures (afpd_r, afpd_w, cnid_r, cnid_w, cpu_us): one per run,
#   null when the server was not monitored;
#   afpd_hwm_kb: the largest peak memory of the step's afpds, one per run.
def load_samples($n; $what):
  steps_of($n)
  | if $what == "requests_per_s" then
      [.[] | .run as $r | .step.per_second // [] | to_entries[]
       | {run: $r, iteration: (.key + 1), v: .value.requests}]
    elif $what == "p99" then
      [.[] | .run as $r | .step.per_second // [] | to_entries[] | select(.value.requests > 0)
       | {run: $r, iteration: (.key + 1), v: (.value.p99_us / 1000)}]
    elif $what == "errors" then
      [.[] | {run, iteration: 1, v: (.step.errors.total // null)}]
    elif $what == "afpd_hwm_kb" then
      [.[] | {run, iteration: 1, v: .step.server.afpd_hwm_kb_max}]
    else
      [.[] | {run, iteration: 1, v: .step.server.per_request[$what]}]
    end;

# The load metrics: {what, kind, unit, name}. Throughput and p99 take their
# per-second samples; IO and server CPU per request are gated like lantest IO
# and CPU; any rise in errors fails.
def load_metrics:
  [{what: "requests_per_s", kind: "throughput", unit: "req/s", name: "requests/s"},
   {what: "p99", kind: "time", unit: "ms", name: "p99 latency"},
   {what: "errors", kind: "errors", unit: "errors", name: "errors and timeouts"},
   {what: "afpd_r", kind: "io", unit: "syscalls/req", name: "afpd reads per request"},
   {what: "afpd_w", kind: "io", unit: "syscalls/req", name: "afpd writes per request"},
   {what: "cnid_r", kind: "io", unit: "syscalls/req", name: "cnid_dbd reads per request"},
   {what: "cnid_w", kind: "io", unit: "syscalls/req", name: "cnid_dbd writes per request"},
   {what: "cpu_us", kind: "cpu", unit: "µs/req", name: "server CPU per request"},
   # a session's afpd, from its login: the largest of the step's sessions
   {what: "afpd_hwm_kb", kind: "mem", unit: "KiB", name: "afpd peak memory per session"}];

# The requests behind one sample of a per-request figure (median over runs):
# judge_counts turns a per-request move back into syscalls with it.
def load_requests($n): [steps_of($n)[] | .step.requests] | if length == 0 then null else sort | .[length / 2 | floor] end;

# Every load row to judge, from the current side's runs ($c) and the
# baseline's ($b, null when there is none): {metric, test, name, kind, unit,
# b, c, ops}. A session count only the baseline has is reported missing.
def load_series($c; $b):
  ($c | load_counts) as $cn
  | ($b // [] | load_counts) as $bn
  | ($cn[] as $n
     | load_metrics[] as $m
     | ($c | load_samples($n; $m.what)) as $cs
     | (if $b == null then null else ($b | load_samples($n; $m.what)) end) as $bs
     # a figure never measured in this run (no IO monitoring) is left out
     | select(($cs | length) > 0 and (($m.kind | IN("io", "cpu", "mem") | not) or any($cs[]; .v != null)))
     | {metric: load_metric($n; $m.what), test: "load.\($n)", name: "\($n) sessions: \($m.name)",
        kind: $m.kind, unit: $m.unit, c: $cs,
        # a baseline from before a figure was measured has none of it
        b: (if $bs == null or ($bs | length) == 0 or all($bs[]; .v == null) then null else $bs end),
        ops: (if $m.kind == "io" or $m.kind == "cpu" then ($c | load_requests($n)) else null end)}),
    (if ($cn | length) == 0 then empty else $bn - $cn | .[] end | {metric: load_metric(.; "requests_per_s"), test: "load.\(.)",
                        name: "\(.) sessions", missing: true});

# Errors: deterministic, and any rise fails. $b, $c: the sides' error totals.
def judge_errors($b; $c):
  ($b | max) as $mb | ($c | max) as $mc
  | {ratio: (if $mb > 0 then $mc / $mb elif $mc == 0 then 1 else null end), noise: 0,
     n_baseline: ($b | length), n_current: ($c | length)}
  | if $mc > $mb then . + {state: "fail", reason: "errors rose from \($mb) to \($mc) (any rise fails)"}
    elif $mc < $mb then . + {state: "improved", reason: "errors fell from \($mb) to \($mc)"}
    elif $mc == 0 then . + {state: "pass", reason: "no errors"}
    else . + {state: "pass", reason: "\($mc) errors, as many as the baseline"} end;

# Notes for a side's load runs: how it was measured, and what it could not do.
def load_notes:
  [.[] | .config as $cfg
   | "load: sessions \($cfg.sessions | map(tostring) | join(", ")), \($cfg.seconds) s each after \($cfg.warmup_s) s warm-up, mix \($cfg.mix | to_entries | map("\(.key):\(.value)") | join(",")), \(if $cfg.rate == null then "closed loop (latency not corrected for coordinated omission)" else "fixed rate \($cfg.rate) req/s (latency from the intended start)" end)",
   (.steps[]? | select(.errors.total > 0)
    | "load: \(.errors.total) errors at \(.sessions) sessions (\(.errors | to_entries | map(select(.key != "total" and .value > 0) | "\(.value) \(.key)") | join(", ")))"),
   (.steps[]? | select(.cache.cold and (.cache.dropped | not)) | "load: page cache at \(.sessions) sessions: \(.cache.note)"),
   (.steps[]? | select(.server.note != null) | "load: server not monitored at \(.sessions) sessions: \(.server.note)"),
   (.steps[]? | select((.client_cpu.share_of_run_pct // 0) > 20)
    | "warning: at \(.sessions) sessions the client took \(.client_cpu.share_of_run_pct) % of the run's CPU (client + server): the client may be limiting what is measured")]
  | unique;
