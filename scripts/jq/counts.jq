# The count rules of the verdict (verdict.jq): IO and system call counts,
# judged on their medians, the spread of their samples and a floor of calls
# that any move within passes; against main's figure where the reference
# (reference.jq) has one.
include "stats";
include "names";
include "reference";

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

def judge_counts($b; $c; $thpct; $ops; $floor):
  ($b | median) as $mb | ($c | median) as $mc
  | ([($b | sample_range), ($c | sample_range)] | max) as $spread
  | ($mc - $mb) as $delta
  | ($thpct / 100 * $mb) as $limit
  # the move in syscalls; rounded to 1e-6 so that 15/ops - 14/ops, times ops,
  # is exactly one syscall under floating point
  | ((if $ops == null then $delta else $delta * $ops end) | fabs * 1000000 | round / 1000000) as $moved
  | ($moved > $floor) as $beyond_floor
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
           reason: ((if $floor == 1 then "within one syscall (" else "within \($floor) syscalls (" end)
                    + (if $ops == null then "\($mb | sig6) → \($mc | sig6)"
                       else "\($mb * $ops | count_text) → \($mc * $ops | count_text) over \($ops | thousands) AFP ops" end)
                    + ")")}
    else
      . + {state: "pass", reason: (if $delta == 0 then "unchanged" else "change \($chg) within \($thpct) %" end)}
    end;
# How many syscalls a count row may move by and still pass, whatever the
# percentage. cnid_dbd's counts move by more than afpd's with nothing
# changed: afpd's directory cache asks it to resolve an entry again when a
# test crosses a second boundary, so a lantest test sample makes 0 to 4
# cnid_dbd requests more or fewer (measured: test 1's cnid_dbd writes were
# 0-4 per sample in six A/A runs), each one write, one read-and-lock round of
# 10 work calls (docs/verdict-format.md, "System calls").
def count_floor($metric):
  if ($metric | test("\\.cnid_sys_")) then 50
  elif ($metric | test("\\.cnid_((\(fd_kind_re))_)?[rw](_per_op)?$")) then 5
  else io_floor_syscalls end;

# A count row judged: against main's figure where the reference has one
# (reference.jq, which also says how the stored baseline would have judged
# it), else against the stored baseline.
def judge_count_row($reference; $metric; $bv; $cv; $thpct; $ops):
  ref_value($reference; $metric) as $rv
  | judge_counts($bv; $cv; $thpct; $ops; count_floor($metric)) as $stored
  | if $rv == null then . + $stored
    else . + judge_counts([$rv]; $cv; $thpct; $ops; count_floor($metric)) | against_main($reference; $rv; $stored; $bv) end;
