# report.md, the pull-request comment body, and report-full.md (the job
# summary and the artifact's copy), from verdict.json.
#   jq -n -r -L scripts/jq -f report.jq --slurpfile verdict verdict.json \
#      --argjson settings '{"AFPBENCH_TESTS": "1-12", ...}' \
#      --arg view compact|full --argjson limit 60000 --slurpfile trend trend.json|/dev/null \
#      --slurpfile traces trace.json|/dev/null
# First line: the hidden marker the action finds its sticky comment by. Then,
# in this order, because a contributor reads from the top and stops: the
# verdict with its reason in words; a reason many rows share, once; what was
# compared with what; the AFP-op aggregates; the rows that are not an
# unchanged pass; the charts (the action puts them at the charts marker);
# the default branch's trend, when the action handed one;
# folded: warnings' context, environment, notes, how to reproduce. The full
# view adds every row, per suite, and is cut to stay under $limit characters.

include "trend";
include "attribution";
include "names";
include "words";

def marker: "<!-- afpbench-action:report -->";
def charts_marker: "<!-- afpbench-action:charts -->";
# the same place, the charts all folded (src/action/names.ts)
def charts_marker_folded: "<!-- afpbench-action:charts folded -->";
# where the action puts the trend chart (docs/history.md), and folded
def trend_marker: "<!-- afpbench-action:trend -->";
def trend_marker_folded: "<!-- afpbench-action:trend folded -->";

# ---- tables ------------------------------------------------------------------

def side_names($mode): if $mode == "ab" then ["Base", "Head"] else ["Baseline", "Current"] end;
# A table's columns say where their figures come from: rows judged against
# main's own run (reference.jq) show main's figure under its name, the others
# the stored baseline's.
def table_names($rows; $mode):
  ([$rows[] | .main.commit // empty] | unique) as $mains
  | if $mode == "ab" then ["Base", "Head"]
    elif ($rows | length) > 0 and all($rows[]; .main != null) and ($mains | length) == 1 then ["main `\($mains[0][0:7])`", "This run"]
    elif any($rows[]; .main != null) then ["Baseline or main", "This run"]
    else ["Baseline", "Current"] end;
def aggregate_table($rows; $mode; $shared):
  table_names($rows; $mode) as $n
  | if $mode == "measure" then
      "| Measure | Measured |\n|---|--:|\n" + ([$rows[] | "| \(per_op_view.label) | \(shown("current")) |"] | join("\n"))
    else
      # one reason for every row is said once, above the table: a column of
      # the same words made every row two lines tall
      ([$rows[] | why($shared)] | unique) as $whys
      | (($rows | length) > 1 and ($whys | length) == 1) as $one
      | (if $one then "Every row: \($whys[0]).\n\n| Measure | \($n[0]) | \($n[1]) | Change | Limit |\n|---|--:|--:|---|--:|\n"
         else "| Measure | \($n[0]) | \($n[1]) | Change | Limit | Why |\n|---|--:|--:|---|--:|---|\n" end)
      + ([$rows[] | per_op_view as $v
          | "| \($v.label) | \(shown("baseline")) | \(shown("current")) | \(change_cell) | \(limit_cell) |\(if $one then "" else " \(why($shared)) |" end)"]
         | join("\n"))
    end;
def findings_table($rows; $mode; $shared):
  table_names($rows; $mode) as $n
  | ([$rows[] | why($shared)] | unique) as $whys
  | (($rows | length) > 1 and ($whys | length) == 1) as $one
  # the measure shares the test's cell: one column fewer leaves the why room
  | (if $one then "Every row: \($whys[0]).\n\n| Test: measure | \($n[0]) | \($n[1]) | Change | Limit |\n|---|--:|--:|---|--:|\n"
     else "| Test: measure | \($n[0]) | \($n[1]) | Change | Limit | Why |\n|---|--:|--:|---|--:|---|\n" end)
    + ([$rows[] | per_op_view as $v
        | "| \(test_name | cell(70)): \($v.label | md) | \(shown("baseline")) | \(shown("current")) | \(change_cell) | \(limit_cell) |\(if $one then "" else " \(why($shared)) |" end)"]
       | join("\n"));

# Lines cut at $budget characters; {text, cut}.
def fit_lines($lines; $budget):
  reduce $lines[] as $l ({text: "", used: 0, cut: 0};
    if .cut == 0 and .used + ($l | length) + 1 <= $budget then .text += $l + "\n" | .used += ($l | length) + 1
    else .cut += 1 end);

# ---- the parts under the headline --------------------------------------------

def limits_text($v; $rows):
  "limits: "
  + ([(if $v.timings != "shown" then "time \($v.thresholds.time) %, server CPU \($v.thresholds.cpu // $v.thresholds.time) %" else empty end),
      "IO \($v.thresholds.io) %",
      (if any($rows[]; .kind == "sys") then "system calls \($v.thresholds.sys) %" else empty end),
      (if any($rows[]; .kind == "instr") then "instructions \($v.thresholds.instr) %" else empty end)] | join(", "));
def scope_line($v; $mode; $rows; $settings):
  if $mode == "ab" then
    ($v.current.provenance.netatalk.version // "?" | md) as $h
    | ($v.baseline.provenance.netatalk.version // "?" | md) as $b
    | "Head \(if $h == $b then "and base, both netatalk \($h)" else "(netatalk \($h)) and base (netatalk \($b))" end), measured together; Head (≈) is Base times the pairs' estimate; \(limits_text($v; $rows))."
  elif $mode == "baseline" then
    ($v.baseline.provenance // {}) as $p
    # the baseline as the workflow names it (AFPBENCH_BASELINE_NAME: the path in
    # the repository), else the path as given, whole
    | ([$settings.AFPBENCH_BASELINE_NAME, $settings.AFPBENCH_BASELINE, $v.baseline.file, "?"]
       | map(select(. != null and . != "")) | first) as $name
    | "Against baseline `\($name | clip(120) | gsub("`"; ""))` (\($p.runs // 1) session\(if ($p.runs // 1) == 1 then "" else "s" end), \($p.date // "?" | .[0:10] | md), netatalk \($p.netatalk.version // "?" | md), \($p.runner.cpu_model // "?" | md)); \(limits_text($v; $rows))\(if $v.timings == "shown" then "; timings shown, not gated (A/B gates them)" else "" end)."
  else "Measured only: nothing to compare with." end;

def shared_reasons($v; $rows; $settings):
  [ (if $v.timings_blocked != null then
       "> **Timings not compared:** \($v.timings_blocked | clip(300) | md). Such timings say nothing about this change; the IO rows still gate. To gate timings, measure base and head together (A/B)."
     else empty end),
    (if any($rows[]; .state == "inconclusive" and one_session_row) then
       "> **Timings cannot fail against this baseline:** it is one session, whose spread between sessions is unknown. Pool two or more runs into it (`scripts/run-gate --make-baseline`), or measure base and head together (A/B)."
     else empty end),
    (($settings.AFPBENCH_BASELINE_MISSING // "") as $missing
     | if $missing != "" then
         # the advice runs where the reader is: in their repository's workflows
         ($missing | gsub("[`\n\r]"; "") | clip(200)) as $m
         | "**No baseline yet:** `\($m)` does not exist, so this run only measured. To gate the next runs, record a baseline on this runner type with the action's baseline mode and commit it at that path, e.g. from a job you start by hand or on each release ([release-baseline.yml](https://github.com/afpbench/afpbench-action/blob/v1/examples/release-baseline.yml) pushes it to a branch for review):\n\n```yaml\n- uses: afpbench/afpbench-action@v1\n  with:\n    mode: baseline\n    baseline: \($m | tojson)\n```"
       else empty end) ];

# Warnings, each once (the same warning for both sides is said once).
def warning_lines($v):
  [$v.notes // [] | .[] | select(startswith("warning: ")) | ltrimstr("warning: ")
   | sub(" \\((current|baseline|base)\\)"; "")]
  | unique
  | map("> ⚠️ **Warning:** \(clip(300) | md)");

# The functions that moved most, for each failing instructions row.
def signed_num: if . == null then "–" elif . > 0 then "+\(sig3)" else sig3 end;
def movers_section($rows):
  [$rows[] | select(.kind == "instr" and .state == "fail" and ((.movers // []) | length) > 0)] as $failed
  | if ($failed | length) == 0 then empty
    else "**Functions that moved** (afpd instructions per session, top 5; every function: `instr-functions.tsv` in the results artifact)\n\n"
      + ([$failed[0:3][]
          | "\(if .test == null then "All counted tests" else test_name | cell(80) end) (\(change_text("–"))):\n\n"
            + "| Function | Baseline | Current | Change |\n|---|--:|--:|--:|\n"
            + ([.movers[0:5][] | "| \(.function | cell(60)) | \(.baseline | sig3) | \(.current | sig3) | \(if .change_pct == null then "new" else .change_pct | pct_change end) |"] | join("\n"))]
         | join("\n\n"))
      + (if ($failed | length) > 3 then "\n\n… \($failed | length - 3) more failing instruction rows in verdict.json." else "" end) + "\n"
    end;

# What differs between the two sides, in words, for the line under the
# headline: the afp.conf settings under test, the netatalk version and build,
# the runner (a kernel or CPU can change calls: a libc picks statx over stat
# by what the kernel offers). Against main's own run (the counts'
# reference), what differs from main's run: what this change brings, not
# what main took since the stored baseline was made. null when nothing known
# differs.
def differences($v; $mode):
  def side: {settings: .afp_conf_settings, netatalk: .netatalk.version, build: .netatalk.build,
             kernel: .runner.kernel, cpu: .runner.cpu_model, share_fs: .share_fs};
  ($v.reference // null) as $ref
  | ($v.current.provenance // null) as $cp
  | (if $ref != null then
       {settings: ($ref.afp_conf_settings // null | if . == "" then null else . end), netatalk: ($ref.netatalk // null | if . == "" then null else . end),
        build: ($ref.build // null | if . == "" then null else . end), kernel: null, cpu: null, share_fs: null, known: ($ref.afp_conf_settings != null)}
     else ($v.baseline.provenance // null | if . == null then null else side + {known: true} end) end) as $b
  | ($cp | if . == null then null else side end) as $c
  | (if $mode == "ab" then ["head", "base"] elif $ref != null then ["this run", "main at `\($ref.commit[0:7])`"] else ["this run", "the baseline"] end) as $n
  | def settings: if . == null then [] else split("; ") | map(select(length > 0)) end;
    def key: split("=")[0] | gsub("^ +| +$"; "") | ascii_downcase;
    def code: gsub("`"; "'") | "`\(.)`";
  if $b == null or $c == null then null
  else ($c.settings | settings) as $cs | ($b.settings | settings) as $bs
    | [ (if $b.known then
           (($cs - $bs)[] as $s | ([$bs[] | select(key == ($s | key))] | first) as $other
            | if $other != null then "\($n[0]) serves \($s | code), \($n[1]) \($other | code)"
              else "\($n[0]) serves \($s | code); \($n[1]) does not" end),
           (($bs - $cs)[] | select(key as $k | [$cs[] | key] | index($k) | not) | "\($n[1]) serves \(code); \($n[0]) does not")
         else empty end),
        (if $b.netatalk != null and $c.netatalk != $b.netatalk then
           "\($n[0]) runs netatalk \($c.netatalk // "?"), \($n[1]) \($b.netatalk)" else empty end),
        (if $ref == null and $c.build != $b.build then
           "\($n[0]) is built from \($c.build // "a package" | tostring | clip(60) | code), \($n[1]) from \($b.build // "a package" | tostring | clip(60) | code)" else empty end),
        # (a runner that sets timings aside is said in that reason's line; main's run's in a note)
        (if $mode != "ab" and $ref == null and $v.timings_blocked == null then
           ([ (if $c.kernel != $b.kernel then "kernel \($b.kernel // "?") → \($c.kernel // "?")" else empty end),
              (if $c.cpu != $b.cpu then "CPU \($b.cpu // "?") → \($c.cpu // "?")" else empty end),
              (if $c.share_fs != $b.share_fs and $c.share_fs != null and $b.share_fs != null then "share on \($b.share_fs) → \($c.share_fs)" else empty end)]
            | if length > 0 then "measured on another runner (\(join(", ") | clip(160)))" else empty end)
         else empty end) ]
    | if length == 0 then null else "**Differs:** " + (join("; ") | clip(400) | gsub("\\|"; "\\|")) + "." end
  end;

# The counts' reference, when it was main's own run (reference.jq): which
# run, and the rows main moved since the stored baseline was made, said
# first: they are not this change's.
# The command that makes the stored baseline again with this run's plan
# (its server and suites), where the workflow names it.
def refresh_command($settings):
  ($settings.AFPBENCH_BASELINE_NAME // "" | gsub("[`\n\r' ]"; "")) as $name
  | (if $name == "" or ($name | startswith("afpbench-action")) then ".github/afpbench/baseline.json" else $name end) as $path
  | "`scripts/run-gate --make-baseline \($path) --plan plan.json`"
    + (if $name == "" or ($name | startswith("afpbench-action")) then " and name it in `baseline:`" else "" end);
def main_lines($v; $settings):
  ($v.reference // null) as $r
  | if $r == null then empty
    else ($r.commit[0:7]) as $c
      | (if $r.role == "previous" then "`\($r.branch | gsub("`"; "") | clip(40))`'s previous run, at `\($c)`"
         else "`\($r.branch | gsub("`"; "") | clip(40))` at `\($c)`" + (if $r.behind > 0 then " (\($r.behind) commit\(if $r.behind == 1 then "" else "s" end) before the merge-base)" else " (the merge-base)" end) end) as $where
      | [$v.rows[] | select(.main.on_main == true)] as $moved
      | if ($moved | length) == 0 then
          "Counts against \($where); timings against the stored baseline."
        else
          ([$moved[] | select(.main.since != null) | .main.since] | first // null) as $since
          | ($moved | sort_by(if .group == "aggregate" then 0 else 1 end) | .[0:2] | map("\(row_words) \(.main.stored // 0 | sig3) → \(.main.value | sig3)") | join("; ")) as $what
          | "**Already on main**\(if $since != null then " since `\($since[0:7])`" else "" end): \($what)\(if ($moved | length) > 2 then "; \($moved | length - 2) more rows" else "" end). Not this change's: its counts are judged against \($where), timings against the stored baseline, which trails main: refresh it with \(refresh_command($settings)), or `mode: baseline` on a release."
        end
    end;

# Where a count moved: one line per AFP command that carries the deciding
# system call rows (failed, or improved when nothing failed), at most three,
# under the headline. Family rows name the calls; their "total" repeats them.
def where_lines($v; $rows):
  ($v.status | if . == "fail" then "fail" elif . == "pass" then "improved" else null end) as $state
  | [$rows[] | select(.kind == "sys" and .state == $state and (.metric | test("_sys_total") | not)) | . as $r
     | (.commands // [])[] | {command, moves, calls, proc: ($r.metric | if test("cnid_sys") then "cnid_dbd" else "afpd" end),
                              where: (if $r.group == "aggregate" then null else $r | test_name end)}]
  | group_by([.command, .proc]) | map({command: .[0].command, proc: .[0].proc, calls: .[0].calls,
                                       moves: ([.[].moves[]] | unique_by(.call)),
                                       where: ([.[].where | strings] | unique)})
  | sort_by(- ([.moves[] | (.current // 0) - (.baseline // 0) | fabs] | add // 0)) as $lines
  | if ($lines | length) == 0 then []
    else [$lines[0:3][] | "- **\(.command)** (\(.proc)\(if (.where | length) > 0 then ", " + (.where[0] | clip(60) | md) + (if (.where | length) > 1 then " and \(.where | length - 1) more" else "" end) else "" end)): \(cmd_words(3) | sub("^[^:]*: "; "") | md)"]
      + (if ($lines | length) > 3 then ["- … and \($lines | length - 3) more AFP commands: the folded table below"] else [] end)
    end;

# A traced request (trace.json): its calls base against head as a diff, and
# the code that made the calls whose count differs.
def trace_text:
  "**\(.command)**, request \(.request) of \(.test | sub("lantest\\."; "lantest test ")), "
  + (if .ab then "base → head:" else "this run's calls:" end) + "\n\n"
  + (if .diff != null then "```diff\n\(.diff | split("\n") | .[0:40] | join("\n"))\n```\n"
     elif .sequence != null then "```\n\(.sequence | split("\n") | .[0:30] | join("\n"))\n```\n"
     elif .ab then "The same calls on both sides.\n"
     else "" end)
  + (if (.sites | length) > 0 then
       "\n" + ([.sites[0:6][] | "- `\(.call)`\(if .base != null then " \(.base) → \(.head)" else " ×\(.head)" end) in `\(.site)`"
                 + (if (.callers // "") != "" then " ← \(.callers)" else "" end)] | join("\n")) + "\n"
     else "" end);

# Every moved command of every deciding system call row, folded: test,
# command, calls, and the calls per request on each side; the traces below.
def commands_section($rows; $traces):
  [$rows[] | select(.kind == "sys" and (.state == "fail" or .state == "improved") and (.metric | test("_sys_total") | not)) | . as $r
   | (.commands // [])[] | . as $c | .moves[0:4][]
   | {where: (if $r.group == "aggregate" then "all tests" else $r | test_name | clip(50) end),
      proc: ($r.metric | if test("cnid_sys") then "cnid_dbd" else "afpd" end), command: $c.command,
      calls: ($c.calls.current // $c.calls.baseline), call, baseline, current}]
  | unique_by([.where, .proc, .command, .call]) as $m
  | if ($m | length) == 0 then empty
    else
      def num: if . == null then "–" elif . == floor then tostring else . * 1000 | round / 1000 | tostring end;
      "<details><summary>By AFP command: \([$m[].command] | unique | join(", ") | clip(120) | md)</summary>\n\n"
      + "System calls per request, from a pass of each test after the timed ones that charges the server's calls to the AFP command that made them.\n\n"
      + "| Test | Command | Requests | Call | Before | After |\n|---|---|--:|---|--:|--:|\n"
      + ([$m[0:12][] | "| \(.where | md) | \(.command) | \(.calls) | \(.proc) \(.call | md) | \(.baseline | num) | \(.current | num) |"] | join("\n"))
      + (if ($m | length) > 12 then "\n\n… \($m | length - 12) more in verdict.json (`rows[].commands`)." else "" end)
      + (if ($traces | length) > 0 then "\n\n" + ([$traces[] | trace_text] | join("\n")) else "" end)
      + "\n\n</details>\n"
    end;

# The system calls that moved most on the rows that decided (failed, or
# improved beyond the threshold), per AFP op: one table, at most 8 lines,
# the process named; every call of both sides is in syscalls.tsv.
def sys_movers_section($rows):
  [$rows[] | select(.kind == "sys" and (.state == "fail" or .state == "improved") and ((.movers // []) | length) > 0)
   | . as $r
   | (if .group == "aggregate" then {b: 1, c: 1} else {b: (.afp_ops.baseline // 0), c: (.afp_ops.current // 0)} end) as $ops
   | .movers[0:3][]
   | {where: (if $r.group == "aggregate" then "all tests" else $r | test_name | clip(50) end),
      process: (if .process == "cnid" then "cnid_dbd" else .process end), call,
      b: (if $ops.b > 0 then .baseline / $ops.b else null end), c: (if $ops.c > 0 then .current / $ops.c else null end),
      change_pct, size: (.current - .baseline | fabs)}]
  | unique_by([.where, .process, .call])
  | sort_by(- .size) as $moves
  | if ($moves | length) == 0 then empty
    # folded: the AFP commands under the headline say the same per request
    else "<details><summary><b>System calls that moved</b> (\($moves | length) per test; per AFP op)</summary>\n\n"
      + "Every call of both sides: `syscalls.tsv` in the results artifact.\n\n"
      + "| Test | Call | Before | After | Change |\n|---|---|--:|--:|--:|\n"
      + ([$moves[0:8][] | "| \(.where | md) | \(.process) \(.call | md) | \(.b | sig3) | \(.c | sig3) | \(if .change_pct == null then "new" else .change_pct | pct_change end) |"] | join("\n"))
      + (if ($moves | length) > 8 then "\n\n… \($moves | length - 8) more in verdict.json." else "" end) + "\n\n</details>\n"
    end;

# Undecided per-test timings, folded into one line per kind: those that make
# the run inconclusive (⚠️), and in A/B those the pairs could not settle while
# the aggregates decide (ℹ️). The line gives the range of their noise (or
# interval half-widths) and of the samples or pairs that would settle them;
# the rows are folded under it.
def undecided_timing: timing_kind and .group != "aggregate"
  and (.state == "inconclusive" or (.state == "info" and .reading == "inconclusive" and .pairs != null));
def range_text: if .[0] == .[1] then "\(.[0])" else "\(.[0])–\(.[1])" end;
def undecided_section($rows; $mode; $shared):
  ([$rows[] | select(undecided_timing)] | group_by(.state) | .[]) as $u
  | ($u[0].state == "info") as $shown
  | ([$u[] | if .interval != null then (.interval[1] - .interval[0]) / 2 else .noise end | numbers | round]
     | if length == 0 then null else [min, max] end) as $w
  | ([$u[] | .iterations_needed | numbers] | if length == 0 then null else [min, max] end) as $need
  | ($u | length) as $n
  | "<details><summary>\(if $shown then "ℹ️" else "⚠️" end) \($n) per-test timing\(if $n == 1 then "" else "s" end) undecided"
    + (if $w != null then ": \(if $shown then "intervals" else "noise" end) ±\($w | range_text) %" else "" end)
    + (if $need != null then "; about \($need | range_text) \(if $mode == "ab" then "pairs" else "iterations a side" end) would settle \(if any($u[]; .iterations_needed == null) then "some" else "them" end)" else "" end)
    + (if any($u[]; .iterations_needed == null and .interval != null) then "; \(if $need == null then "too" else "others too" end) noisy here to settle" else "" end)
    + (if $shown then "; the per-AFP-op aggregates decide" else "" end)
    + "</summary>\n\n"
    + findings_table($u | sort_by(-((.ratio // 1) - 1 | fabs)) | .[0:25]; $mode; $shared)
    + "\n\n</details>\n";

# The client's CPU per AFP op of one side, per suite, with its share of the
# measured time per AFP op; ⚠️ where it may limit what is measured.
def client_cpu_cell($side):
  ($side.client_cpu // {}) as $cc
  | if ($cc | length) == 0 then "–"
    else [$cc | to_entries[]
          | "\(.key | md) \(.value.us_per_op | sig3) µs"
            + (if .value.share_pct == null then ""
               else " (\(.value.share_pct) % of \(.value.measured_us_per_op | sig3) µs)" end)
            + (if .value.limiting then " ⚠️" else "" end)]
         | join("; ")
    end;

# The settings a side's server was configured with for the run (afp-conf,
# --afp-conf), in code so that "a = b; c = d" reads as settings; "–" = none.
def settings_cell:
  if . == null or .afp_conf_settings == null then "–"
  # a code span: no backtick may end it, and a table cell's "|" stays escaped
  else .afp_conf_settings | tostring | clip(120) | gsub("`"; "'") | gsub("[|]"; "\\|") | "`\(.)`" end;

def env_table($v; $names; $mode):
  def val(f): if . == null then "–" else (f) as $x | if $x == null then "–" else $x | tostring | clip(60) | md end end;
  $v.baseline.provenance as $b | $v.current.provenance as $c
  | ["client CPU per AFP op", (if $v.baseline == null then "–" else client_cpu_cell($v.baseline) end), client_cpu_cell($v.current)] as $client
  | [["netatalk", ($b | val(.netatalk.version)), ($c | val(.netatalk.version))],
   ["netatalk build", ($b | val(.netatalk.build)), ($c | val(.netatalk.build))],
   ["afp.conf", ($b | val(.afp_conf_sha256 | if . == null then null else .[0:12] end)), ($c | val(.afp_conf_sha256 | if . == null then null else .[0:12] end))],
   ["settings under test", ($b | settings_cell), ($c | settings_cell)],
   ["CPU", ($b | val(.runner.cpu_model)), ($c | val(.runner.cpu_model))],
   ["cores", ($b | val(.runner.cores)), ($c | val(.runner.cores))],
   ["kernel", ($b | val(.runner.kernel)), ($c | val(.runner.kernel))],
   ["container", ($b | val(.runner.container)), ($c | val(.runner.container))],
   ["afpbench", ($b | val(.afpbench_version)), ($c | val(.afpbench_version))],
   ["suite", ($b | val(.suite_version)), ($c | val(.suite_version))],
   ["iterations × runs", ($b | val("\(.iterations) × \(.runs // 1)")), ($c | val("\(.iterations) × \(.runs // 1)"))],
   ["date", ($b | val(.date)), ($c | val(.date))],
   ["commit", ($b | val(.git_commit | if . == null then null else .[0:12] end)), ($c | val(.git_commit | if . == null then null else .[0:12] end))]]
  # the configuration measured is always named, when the harness set one
  | map(select(.[0] == "netatalk" or .[0] == "CPU" or .[0] == "cores" or .[0] == "date"
               or (.[0] == "settings under test" and (.[1] != "–" or .[2] != "–"))
               or ($mode != "measure" and .[1] != .[2])))
  | . + [$client]
  # how long afpd waited for a CPU: the machine's load, which timings carry
  | ($v.baseline.cpu_wait.pct // null) as $bw | ($v.current.cpu_wait.pct // null) as $cw
  | (if $bw == null and $cw == null then .
     else . + [["afpd waiting for a CPU", (if $bw == null then "–" else "\($bw) %" end), (if $cw == null then "–" else "\($cw) %" end)]] end)
  | if $mode == "measure" then "| | This run |\n|---|---|\n" + (map("| \(.[0]) | \(.[2]) |") | join("\n"))
    else "| | \($names[0]) | \($names[1]) |\n|---|---|---|\n" + (map("| \(.[0]) | \(.[1]) | \(.[2]) |") | join("\n")) end;

# How to run the same again, with Docker and without: the run's own plan
# (plan.json in its results: its server, suites, settings and the reference
# it was judged against, carried whole), which scripts/run-gate serves and
# runs. The action puts the plan's address in place of "plan.json" where it
# committed the plan beside the charts (src/action/charts.ts).
def server_words:
  if . == null then "–"
  else "netatalk \(if .netatalk_version != "" then .netatalk_version | md
                   elif .netatalk_source != null then "built from `\(.netatalk_source.path | clip(60) | gsub("`"; ""))`\(if .netatalk_source.commit != null then " at `\(.netatalk_source.commit[0:12])`" else "" end)"
                   else "(the image's default, Debian trixie's)" end)"
    + (if (.afp_conf.global + .afp_conf.volume | length) > 0
       then ", afp.conf: `\(.afp_conf.global + .afp_conf.volume | join("; ") | clip(120) | gsub("`"; "'"))`" else "" end)
  end;
def reproduce($plan; $v):
  if $plan == null then "Run by hand (no plan.json): `scripts/gate --help` says how to run it again."
  else
    "The same run again (the plan: its server, suites, settings and \(if $plan.files.reference != null then "main's run at `\($plan.files.reference.commit // "?" | .[0:7])`" elif $plan.files.baseline != null then "baseline" else "nothing" end) to compare with), from a checkout of [afpbench-action](https://github.com/afpbench/afpbench-action):\n\n"
    + "```sh\n# with Docker\nscripts/run-gate --compose --plan plan.json\n"
    + "# without Docker (as root: netatalk from a cached Debian root filesystem)\nscripts/run-gate --native --plan plan.json\n```\n\n"
    + "It serves \($plan.server | server_words)\(if $plan.base_server != null then ", and as the base \($plan.base_server | server_words)" else "" end). "
    + "`plan.json` is in this run's results (the artifact)."
  end;

# The default branch's trend ($trend: the action's trend.json, or null):
# how this run stands against the last release, the steps found in the
# history, and the place of the trend chart, open when this run moved a row.
def trend_section($t; $rows):
  if $t == null then empty
  elif ($t.points // [] | length) == 0 then
    "**Trend**: no history of `\($t.branch | md)` yet; runs there write it to branch `\($t.dataBranch | md)` (docs/history.md).\n"
  else
    ($rows | map(select(.group == "aggregate" and .current != null) | {key: .metric, value: .current}) | from_entries) as $cur
    # a row this change moved (docs/history.md): the chart in view; main's
    # own steps are the Steps lines, the chart folded
    | ([$rows[] | select((.kind == "io" or .kind == "sys" or .kind == "instr")
                         and (.state == "fail" or .state == "improved" or .state == "step"))] | length > 0) as $moved
    | [ "**Trend** of `\($t.branch | md)`: its last \($t.points | length) run\(if ($t.points | length) == 1 then "" else "s" end)\(if $t.key != "" then " (`\($t.key | md)`)" else "" end), this run marked\($t.page // "" | if type == "string" and test("^https://[A-Za-z0-9.:/_~%#=-]{1,300}$") then "; every run and step on [the history page](\(.))" else "" end)\n",
        (if $t.release != null then
           [$t.compare[] as $m | select($t.release.values[$m] != null and $cur[$m] != null)
            | $t.release.values[$m] as $r
            | "\($m | trend_label($t) | md) \(if $r != 0 then ($cur[$m] / $r - 1) * 100 | pct_change
                                                elif $cur[$m] == 0 then 0 | pct_change
                                                else "0 → \($cur[$m] | sig3)" end)"]
           | if length > 0 then "Since the last release (\($t.release.release | md)): \(join(", ")).\n" else empty end
         else empty end),
        ($t.driftLines // [] | map(strings) | .[0:8] | if length > 0 then "Steps in `\($t.branch | md)`'s history, each a level that changed at one commit and stayed:\n\n" + (map("- \(.)") | join("\n")) + "\n" else empty end),
        (if $moved then trend_marker else trend_marker_folded end),
        "" ] | join("\n")
  end;

# The aggregate rows: what moved in view, the rest folded (in a fail, what
# improved too: one click away, counted in the summary); rows that all pass
# or are shown fold whole, their count said. $what: where the folded rows'
# figures come from, when the table is one of two.
def agg_block($rows; $v; $mode; $shared; $what):
  (if $v.status == "fail" then ["pass", "info", "improved"] else ["pass", "info"] end) as $fold
  | ([$rows[] | select(.state as $s | $fold | index($s) | not)]) as $moved
  | ([$rows[] | select(.state as $s | $fold | index($s))]) as $rest
  | ([$rest[] | select(.state == "improved")] | length) as $better
  | ([$rest[] | select(.state == "info")] | length) as $shown
  | if ($rows | length) == 0 then ""
    else
      (if ($moved | length) > 0 then aggregate_table($moved; $mode; $shared) else "" end)
      + (if ($rest | length) == 0 then ""
         else (if ($moved | length) > 0 then "\n\n" else "" end)
           + "<details><summary>\($rest | length)\(if ($moved | length) > 0 then " more" else "" end) row\(if ($rest | length) == 1 then "" else "s" end)\($what): "
           + ([(if $better > 0 then "\($better) improved" else empty end),
               (($rest | length) - $better - $shown | if . > 0 then "\(.) within limits" else empty end),
               (if $shown > 0 then "\($shown) shown, not gated" else empty end)] | join(", "))
           + "</summary>\n\n" + aggregate_table($rest; $mode; $shared) + "\n\n</details>" end)
    end;

# ---- the report ----------------------------------------------------------------

$verdict[0] as $v
| ($v.mode // "baseline") as $mode
| side_names($mode) as $names
| ($v.rows // []) as $rows
| {blocked: ($v.timings_blocked != null)} as $shared
# the compact view's aggregates: a system call family only when it did not
# simply pass, or is new in a run that only measured (its total is always
# there); the full view has every one
| ([$rows[] | select(.group == "aggregate")
    | select($view == "full" or (.kind | startswith("sys") | not) or (.metric | test("_sys_total_per_op$"))
             or (.state != "pass" and .state != "info" and ($mode != "measure" or .state != "new")))]
   | sort_by(.state | severity)) as $agg
| ([$rows[] | select(.group != "aggregate")] | sort_by((.state | severity), -((.ratio // 1) - 1 | fabs))) as $tests
# the rows worth a look: everything but a pass (and the ungated info rows)
# (measure-only: every row is new; the errors are still findings)
# (undecided per-test timings fold into a line of their own below)
| ([$tests[] | select(.state != "pass" and .state != "info" and ($mode != "measure" or .state != "new"))
   | select(undecided_timing | not)]) as $findings
| ([$tests[] | select(.state == "info")] | length) as $n_info
| [ marker,
    # the verdict's own headline (scripts/compare); made here only for a
    # verdict.json of before it carried one
    "### \($v.icon // ($v.status | icon)) afpbench: **\($v.status)** — \($v.headline // headline($v; $rows; $mode))",
    "",
    (main_lines($v; $settings) | . + "\n"),
    (differences($v; $mode) | if . != null then . + "\n" else empty end),
    (where_lines($v; $rows) | if length > 0 then join("\n") + "\n" else empty end),
    (shared_reasons($v; $rows; $settings) | if length > 0 then join("\n\n") + "\n" else empty end),
    scope_line($v; $mode; $rows; $settings) + "\n",
    (if ($v.errors // []) | length > 1 then
       "**Errors**\n\n" + ([$v.errors[0:10][] | "- \(clip(300) | md)"] | join("\n"))
       + (if ($v.errors | length) > 10 then "\n- … \($v.errors | length - 10) more in verdict.json" else "" end) + "\n"
     else empty end),
    (warning_lines($v) | if length > 0 then join("\n>\n") + "\n" else empty end),
    (if ($agg | length) > 0 then
       "**Per AFP op** (lantest, over \([$v.notes // [] | .[] | select(startswith("aggregates over: "))] | if length == 0 then "the compared tests" else .[0] | ltrimstr("aggregates over: ") | split(", ") | "\(length) tests" end))\n\n"
       + (if $mode == "measure" then aggregate_table($agg; $mode; $shared)
          # against main's run: the rows judged against it, then the rest
          # (timings, against the stored baseline) folded apart
          elif any($agg[]; .main != null) then
            agg_block([$agg[] | select(.main != null)]; $v; $mode; $shared; "")
            + "\n\n" + agg_block([$agg[] | select(.main == null)]; $v; $mode; $shared; " against the stored baseline")
          else agg_block($agg; $v; $mode; $shared; "") end) + "\n"
     elif $mode != "measure" then "No AFP-op aggregates: no comparable lantest tests.\n"
     else empty end),
    (if $mode == "measure" and ($findings | length) == 0 then
       "Every row of the \($tests | length) per-test rows is in `report-full.md` in the results artifact.\n"
     # a pass's findings (improvements, a push's steps) are one click away
     elif ($findings | length) > 0 and $v.status == "pass" then
       "<details><summary><b>Findings</b>: \($findings | length) of \($tests | length) rows: "
       + ([$findings | group_by(.state)[] | "\(length) \(.[0].state | if . == "step" then "in this commit's step" else . end)"] | join(", "))
       + "</summary>\n\n" + findings_table($findings[0:25]; $mode; $shared)
       + (if ($findings | length) > 25 then "\n\n… \($findings | length - 25) more in report-full.md in the results artifact." else "" end)
       + "\n\n</details>\n"
     elif ($findings | length) > 0 then
       "**Findings** (\($findings | length) of \($tests | length) rows; the rest pass\(if $n_info > 0 then ", or are shown but not gated" else "" end))\n\n"
       + findings_table($findings[0:5]; $mode; $shared)
       # the first five in view; up to 25 folded; every row in report-full.md
       + (if ($findings | length) > 5 then
            "\n\n<details><summary>\($findings[5:25] | length) more finding\(if ($findings[5:25] | length) == 1 then "" else "s" end)\(if ($findings | length) > 25 then " (and \($findings | length - 25) in report-full.md in the results artifact)" else "" end)</summary>\n\n"
            + findings_table($findings[5:25]; $mode; $shared) + "\n\n</details>"
          else "" end) + "\n"
     elif ($tests | length) > 0 and $mode != "measure" and all($tests[]; .state == "pass" or .state == "info") then
       "All \($tests | length) per-test rows pass\(if $n_info > 0 then " (\($n_info) shown but not gated)" else "" end).\n"
     else empty end),
    sys_movers_section($rows),
    commands_section($rows; (($traces[0] // {}).traces // [])),
    movers_section($rows),
    undecided_section($tests; $mode; $shared),
    trend_section($trend[0]; $rows),
    # the time-change chart opens where a timing could decide and did not
    # pass, unless counts failed the run: then it is beside the point
    (if $v.status != "pass" and ($v.timings == "paired" or $v.timings == "gated")
        and ($v.status != "fail" or any($rows[]; timing_kind and .state == "fail"))
     then charts_marker
     else charts_marker_folded end),
    ""
  ] | join("\n") as $head
| ( [ "<details><summary>Environment, notes and how to reproduce</summary>\n",
      env_table($v; $names; $mode) + "\n",
      ([$v.notes // [] | .[] | select(startswith("warning: ") | not)
        # said above already: the shared reason, the aggregate's tests
        | select(startswith("timings not gated: ") | not)
        | select($view == "full" or (startswith("aggregates over: ") | not)) | "- \(clip(400) | md)"]
       | if length > 0 then join("\n") + "\n" else empty end),
      reproduce($plan[0]; $v),
      "\n</details>\n" ] | join("\n")) as $tail
| if $view == "compact" then $head + "\n" + $tail
  else
    ($limit - ($head | length) - ($tail | length) - 1000) as $budget
    | ($tests | group_by(.group) | map({group: .[0].group, rows: .})) as $groups
    | (reduce $groups[] as $g ({text: "", left: $budget};
        fit_lines([$g.rows[] | [.] | findings_table(.; $mode; $shared) | split("\n")[2]]; .left) as $fit
        | .text += "**\($g.group | md)**: \($g.rows | length) rows\n\n"
            + (findings_table([]; $mode; $shared)) + $fit.text
            + (if $fit.cut > 0 then "\n… \($fit.cut) more rows cut to keep this report short: see verdict.json in the results artifact.\n" else "" end) + "\n"
        | .left -= ($fit.text | length) + 300)) as $full
    | $head + "\n**Every row**\n\n" + ($full.text) + $tail
  end
