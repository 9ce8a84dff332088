# scripts/backfill's accounts (afpbench-backfill/1, one per slice) as
# Markdown: what was recorded, and each step found, confirmed and attributed.
# scripts/backfill writes it beside its account (backfill.md); the action's
# backfill mode puts it in the job summary.
#
#   jq -r -s -L scripts/jq -f backfill-report.jq \
#      [--arg commit_url 'https://github.com/OWNER/REPO/commit/{sha}'] backfill*.json
#
# The accounts are read as untrusted (an artifact of another job): every text
# escaped (words.jq's md, @mentions defused) and cut, only 40-hex commits
# linked.
include "words";

def url: $ARGS.named.commit_url // "";
def sha_ok: type == "string" and test("^[0-9a-f]{40}$");
def said($n): if type == "string" then clip($n) | md | gsub("@"; "@\u200b") else "" end;
def link: if sha_ok | not then "`?`"
          elif url == "" then "`\(.[0:12])`"
          else . as $c | "[`\($c[0:12])`](\(url | sub("\\{sha\\}"; $c)))" end;
def n: if type == "number" then . else 0 end;
# a figure per op, 4 significant digits at most
def fig: if type != "number" then "–" elif . == floor then tostring
         else (. * 10000 | round / 10000 | if . == 0 then 0 else . end | tostring) end;
def metric_words: sub("^aggregate\\."; "") | sub("_per_op$"; "/op") | said(60);

[.[] | select(type == "object" and .schema == "afpbench-backfill/1")] as $a
| ($a | map(.steps[]? | select(type == "object" and (.commit | sha_ok)))) as $steps
| ($a | map(.log[]? | select(type == "object"))) as $log
| "### afpbench backfill: \($a[0].from // "" | link)..\($a[0].to // "" | link)",
  "",
  # every commit's source, the ones an earlier run recorded too
  ([$log[] | .source] | group_by(.) | map({key: .[0], value: length}) | from_entries) as $by
  | "\($a | map(.commits | n) | add // 0) commits in \($a | length) slice(s): \($by.measured // 0) measured, "
  + "\($by.reused // 0) reused (they change no file that goes into the build), \($by.skipped // 0) skipped"
  + (if ($a | map(.recorded_before | n) | add // 0) > 0
     then "; \($a | map(.recorded_before | n) | add) of them recorded by an earlier run, \($a | map(.measured | n) | add // 0) measured by this one"
     else "" end)
  + "; \($a | map(.seconds | n) | max // 0) s (the longest slice)."
  + (if ($a | map(select(.status != "done")) | length) > 0
     then " Not done: " + ($a | map(select(.status != "done") | "\(.slice | said(10)) \(.status | said(10)): \(.message | said(300))") | join("; "))
     else "" end),
  "",
  (if ($steps | length) == 0 then "No step in the series (the history's rule, docs/history.md)."
   else
     "Steps in the series (the history's rule, docs/history.md), each measured again on its two commits:",
     "",
     "| commit | what moved | measured again | A/A | by AFP command | code site |",
     "|---|---|---|---|---|---|",
     ($steps[0:100][]
      | . as $s
      | ($s.attribution // []) as $at
      | ($s.metrics // [])[0:8][] as $m
      | ([$at[]? | select(.metric == $m.metric)][0]) as $x
      | "| \($s.commit | link) \($s.subject | said(80)) | \($m.metric | metric_words): \($m.before | fig) → \($m.after | fig) "
        + "| \($m.fresh_before | fig) → \($m.fresh_after | fig)\(if $m.confirmed == true then " ✓" else " ✗ not confirmed" end) "
        + "| \($m.aa_before | fig), \($m.aa_after | fig) "
        + "| \([($x.commands // [])[0:3][] | "\(.command | said(40)): \([.calls[]?][0:2] | map("\(.call | said(30)) \(.before | fig) → \(.after | fig)") | join(", "))"] | join("; ")) "
        + "| \($x.site // "" | said(120)) |")
   end),
  "",
  "<details><summary>Commits</summary>",
  "",
  "| commit | source | build s | measure s |",
  "|---|---|---:|---:|",
  ($log[0:1000][] | "| \(.commit | link) | \(.source | said(10))\(if .reused_from != null then " (\(.reused_from | link))" else "" end)\(if .cached == true and .source == "measured" then " (kept)" else "" end) | \(.build_s | n) | \(.measure_s | n) |"),
  "",
  "</details>"
