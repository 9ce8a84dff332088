# scripts/bisect's result (afpbench-bisect/1) as Markdown: the first bad
# commit, the rows that moved there and the AFP commands behind them, the
# skipped commits and every probe.
include "attribution";

def short: .[0:12];
def num: if . == null then "–" elif . == (. | floor) then tostring else (. * 100 | round / 100 | tostring) end;
def pct: if . == null then "–" else ((. - 1) * 100) as $p | (if $p >= 0 then "+" else "" end) + ($p * 10 | round / 10 | tostring) + " %" end;

"## afpbench bisect: " + (
  if .status == "found" then "first bad commit `\(.first_bad | short)`"
  elif .status == "no difference" then "the bad commit does not differ from the good one"
  elif .status == "budget" then "the budget ran out, \(.left | length) commits still in question"
  else "no answer" end),
"",
"Good `\(.good | short)`, bad `\(.bad | short)`: \(.commits) commit(s) after the good one; \(.probes) measured, \(.skipped | length) skipped, \(.seconds) s.",
"",
(if .first_bad != null then
  "**`\(.first_bad)`** \(.subject)  \n\(.author), \(.date)",
  "",
  "| row | good | first bad | change |",
  "|---|---:|---:|---:|",
  (.rows[] | "| \(.label // .metric), \(.name) | \(.good | num) | \(.bad | num) | \(.ratio | pct) |"),
  "",
  ([.rows[].commands[]?] | unique_by(.command)[] | "- **\(.command)** " + (cmd_words(3) | sub("^[^:]*: "; "")))
 else .message end),
(if (.not_exact | length) > 0 then
  "", "Not followed, not exact on this server (two measurements of the good commit on one build differ): " +
  ([.not_exact[] | "`\(.metric)` (by \(.aa_move | num))"] | join(", ")) + "."
 else empty end),
(if (.skipped | length) > 0 then
  "", "Skipped, as `git bisect skip` does:",
  (.log[] | select(.state == "skip") | "- `\(.commit | short)` \(.why)")
 else empty end),
"",
"<details><summary>Probes</summary>",
"",
"| commit | state | build s | measure s |",
"|---|---|---:|---:|",
(.log[] | "| `\(.commit | short)` | \(.state)\(if .cached then " (kept)" else "" end) | \(.build_s) | \(.measure_s) |"),
"",
"</details>"
