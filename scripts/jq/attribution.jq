# Attribution, in the verdict's terms: which AFP commands carry a system
# call row's move (the per-command pass, afpbench lantest --by-command, that
# scripts/attribute runs and joins to results.json per test: "commands",
# docs/results-format.md; docs/verdict-format.md, "Per AFP command"), and
# which of them scripts/attribute traces (trace_plan).
include "syscalls";
include "stats";

# A lantest test whose timed part sends one kind of AFP command (afpbench's
# catalogue, scripts/lantest-tests.json) needs no per-command pass: every
# call its timed iterations counted is that command's. Its tests get
# "commands" from their own samples (pass "timed": per call, the median over
# the samples), where the run has none. The per-command pass charges afpd's
# tail after the last reply too, which a timed region may miss: one call, not
# above cmd_floor.
def timed_commands($catalogue):
  ([$catalogue[]? | .tests[]? | select((.commands | length) == 1) | {key, value: .commands[0]}]
   | from_entries) as $one
  | def median_calls($field):
      [.[] | .[$field] | objects] as $s
      | if ($s | length) == 0 then null
        else [$s[] | keys[]] | unique
             | map(. as $k | {key: $k, value: ([$s[] | .[$k] // 0] | median)})
             | from_entries end;
  map(if .commands == null and $one[.key] != null and any(.samples[]?; .afpd_sys | type == "object") then
        [.samples[] | select(.afpd_sys | type == "object")] as $s
        | .commands = {pass: "timed",
                       list: [{command: $one[.key], calls: ([$s[].afp_ops] | median),
                               afpd_sys: ($s | median_calls("afpd_sys")),
                               cnid_sys: ($s | median_calls("cnid_sys"))}]}
      else . end);

# The calls a command's move must exceed to be named: the rows' own floors
# (one call for afpd, fifty for cnid_dbd), over one pass of the tests.
def cmd_floor($proc): if $proc == "cnid" then 50 else 1 end;

# The per-command pass of a list of tests, merged over them:
# {command: {calls, sys: {call: total}}} for one process ("afpd" or "cnid")
# and one family ("total": every work call); null when a test lacks the pass.
def cmd_merge($fm; $proc; $family):
  if length == 0 or any(.[]; (.commands.list? // null) == null) then null
  else reduce (.[].commands.list[]) as $c ({};
      .[$c.command].calls += $c.calls
      | .[$c.command].sys = reduce ((($c[sys_field($proc)] // {}) | sys_calls_of($fm; $family) // {}) | to_entries[]) as $e
          (.[$c.command].sys // {}; .[$e.key] += $e.value))
  end;

# The commands that carry a move in direction $sign (1: more calls, -1:
# fewer), largest first, at most five:
# [{command, calls: {baseline, current}, delta, moves: [{call, baseline, current}]}]
# with baseline/current per call of that command. A command is named when its
# own move passes the floor and is at least a tenth of every command's moves
# together. null when a side has no per-command pass.
def cmd_moves($fm; $proc; $family; $btests; $ctests; $sign):
  ($btests | cmd_merge($fm; $proc; $family)) as $b
  | ($ctests | cmd_merge($fm; $proc; $family)) as $c
  | if $b == null or $c == null then null
    else
      [(($b | keys) + ($c | keys) | unique)[] as $cmd
       | ($b[$cmd] // {calls: 0, sys: {}}) as $x
       | ($c[$cmd] // {calls: 0, sys: {}}) as $y
       | def per($v; $n): if $n > 0 then $v / $n else null end;
         {command: $cmd, calls: {baseline: $x.calls, current: $y.calls},
          delta: (([$y.sys[]] | add // 0) - ([$x.sys[]] | add // 0)),
          moves: ([([$x.sys, $y.sys | keys[]] | unique)[] as $k
                   | {call: $k, baseline: per($x.sys[$k] // 0; $x.calls), current: per($y.sys[$k] // 0; $y.calls),
                      d: (($y.sys[$k] // 0) - ($x.sys[$k] // 0))}
                   | select((.d | fabs) > cmd_floor($proc))]
                  | sort_by(- (.d | fabs), .call) | map(del(.d)))}]
      | (map(.delta | fabs) | add // 0) as $all
      | map(select(.delta * $sign > cmd_floor($proc) and (.delta | fabs) >= 0.1 * $all and (.moves | length) > 0))
      | sort_by(- (.delta | fabs), .command)
      | .[0:5]
    end;

# A row that did not pass gets the commands that carry it (.commands), or
# says why it cannot (.commands_note). $btests/$ctests: the tests the row
# covers on each side.
def cmd_attach($fm; $proc; $family; $btests; $ctests):
  if .state == "pass" or .state == "new" or .state == "info" or .state == "error" then .
  else ((.ratio // 1) >= 1) as $up
    | cmd_moves($fm; $proc; $family; $btests; $ctests; (if $up then 1 else -1 end)) as $m
    | if $m != null then .commands = $m
      elif any($ctests[]; .commands == null) then .commands_note = "this run has no per-command pass (afpbench lantest --by-command)"
      else .commands_note = "the baseline has no per-command counts (made before they existed): make a new one to see which AFP command moved"
      end
  end;

# "FPGetFileDirParms: lstat 0 → 1 per call (30,000 calls)": one moved
# command in words, its $n largest calls.
def cmd_words($n):
  def num: if . == null then "–" elif . == (. | floor) then tostring
           elif . >= 10 then (. * 10 | round / 10 | tostring) else (. * 1000 | round / 1000 | tostring) end;
  def thousands: tostring | [scan("\\d+")] | .[0] | explode | reverse | [_nwise(3) | reverse | implode] | reverse | join(",");
  "\(.command): " + ([.moves[0:$n][] | "\(.call) \(.baseline | num) → \(.current | num)"] | join(", "))
  + " per call (\(.calls.current // .calls.baseline | floor | thousands) calls)";

# Which AFP commands the gate traces after a run (scripts/attribute traces):
# each command the verdict named on a deciding per-test system call row,
# traced in the test that sends it least often (the fastest to run), at its
# middle request; at most two commands. One line each:
#   TEST_NUMBER <TAB> COMMAND <TAB> REQUEST <TAB> CALLS (comma-separated, for gdb)
def trace_plan:
  [.rows[]
   | select(.kind == "sys" and (.state == "fail" or .state == "improved") and .group == "lantest"
            and (.metric | test("_sys_total$") | not))
   | (.test | ltrimstr("lantest.") | tonumber) as $id
   | (.commands // [])[]
   | select(.command | test("^FP[A-Za-z0-9]+$"))
   | {id: $id, command, n: (.calls.current // .calls.baseline // 0), calls: [.moves[].call]}]
  | group_by(.command)
  | map(sort_by(.n) | .[0] + {calls: ([.[].calls[]] | unique)})
  | sort_by(- (.calls | length), .n)
  | .[0:2][]
  | "\(.id)\t\(.command)\t\([(.n / 2 | floor), 1] | max)\t\(.calls | map(select(test("^[a-z0-9_]+$"))) | join(","))";
