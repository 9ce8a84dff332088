# The verdict's state and its one line (verdict.jq's last steps): the
# status from the rows and errors (the worst decides), the rows that decided
# it, and the summary, in the words the comment uses for its rows
# (names.jq's row_label). scripts/compare adds the icon and the comment's
# headline (words.jq) from these.
include "stats";
include "names";

def status:
  .status = (if (.errors | length) > 0 or any(.rows[]; .state == "error") then "error"
             elif any(.rows[]; .state == "fail") then "fail"
             elif any(.rows[]; .state == "inconclusive") then "inconclusive"
             else "pass" end)
  | .status as $st
  | .decided = (if $st == "pass" then [] else [.rows[] | select(.state == $st) | .metric] end)
  | .counts = (.rows | group_by(.state) | map({key: .[0].state, value: length}) | from_entries);

def summary:
  . as $x
  | ($x.errors | length) as $ne
  | .summary = ($x.status + ": "
      + (if $ne > 0 then ($x.errors[0]) + (if $ne > 1 then " (+\($ne - 1) more errors)" else "" end)
         elif $x.status == "error" then
           ([$x.rows[] | select(.state == "error")] | "\(.[0] | row_label): \(.[0].reason)" + (if length > 1 then " (+\(length - 1) more)" else "" end))
         elif $x.status == "pass" and ($x.have_base | not) then "measured \($x.rows | length) metrics; no baseline, nothing compared"
         elif $x.status == "pass" then "\($x.counts.pass // 0) metrics within thresholds" + (if $x.paired then " (A/B)" else "" end)
         else
           "\($x.decided | length) \(if $x.status == "fail" then "regressed" else "inconclusive" end): "
           # in words, as the comment names them (the ids are in decided_by)
           + ([$x.decided[0:3][] as $m | first($x.rows[] | select(.metric == $m) | row_label)] | join(", "))
           + (if ($x.decided | length) > 3 then ", …" else "" end)
           # an undecided timing: what the run could have seen (judge_paired)
           + ((first($x.rows[] | select($x.status == "inconclusive" and .state == "inconclusive" and .limit_pct != null))
               | "; no change above \(if .limit_pct >= 0 then "+" else "" end)\(.limit_pct | pct_text_raw) % seen") // "")
         end)
      + (if ($x.counts.step // 0) > 0 then "; a step at this commit in \($x.counts.step) row\(if $x.counts.step == 1 then "" else "s" end)" else "" end)
      + (if ($x.counts.improved // 0) > 0 and $x.status != "error" then "; \($x.counts.improved) improved" else "" end)
      + (if ($x.counts.new // 0) > 0 and $x.have_base then "; \($x.counts.new) new" else "" end)
      + ((($x.reference_used // {}).on_main // []) | if length > 0 then "; \(length) moved on main since the baseline, not here" else "" end));
