# scripts/bisect's result (afpbench-bisect/1) as Markdown: the one writer of
# it, for the action's section (the pull request comment, the job summary
# and a commit comment: a few lines, the answer first) and for bisect.md (a
# title, that section, then the rows, the skips, the commits decided without
# a build and every probe).
#
#   jq -r -L scripts/jq -f bisect-report.jq [--arg form section]
#      [--arg commit_url 'https://github.com/OWNER/REPO/commit/{sha}'] bisect.json
#
# The result is read as untrusted: every text is Markdown-escaped (words.jq's
# md, with @mentions defused: a commit's subject and author are anyone's
# text), cut to a length, and only 40-hex commits are linked.
include "attribution";
include "words";

def form: $ARGS.named.form // "report";
def url: $ARGS.named.commit_url // "";
def sha_ok: type == "string" and test("^[0-9a-f]{40}$");
def short: .[0:12];
# one line of someone's text, escaped and cut
def said($n): if type == "string" then clip($n) | md | gsub("@"; "@\u200b") else "" end;
def link: if sha_ok | not then "`?`"
          elif url == "" then "`\(short)`"
          else . as $c | "[`\($c | short)`](\(url | sub("\\{sha\\}"; $c)))" end;
def thousands: tostring | [scan("\\d+")] | .[0] | explode | reverse | [_nwise(3) | reverse | implode] | reverse | join(",");
def num: if type != "number" then "–"
         elif . == floor then (if . < 0 then "−" else "" end) + (fabs | thousands)
         else (. * 1000 | round / 1000 | tostring) end;
def change($good; $bad):
  if ($good | type) != "number" or ($bad | type) != "number" or $good == 0 then ""
  else (($bad / $good - 1) * 100) as $p
    | " (\(if $p >= 0 then "+" else "−" end)\($p | fabs | . * 10 | round / 10 | tostring | if test("\\.") then . else . + ".0" end) %)" end;
def duration: if type != "number" then "?" elif . < 90 then "\(.) s" else "\(. / 60 | round) min" end;
def count: if type == "number" then . else 0 end;

# "FPGetFileDirParms: newfstatat 3.9 → 4.9 per call"
def command_words:
  (.command | said(60)) as $c
  | [.moves[]? | select(.call | type == "string")][0:3]
  | if length > 0 then "\($c): " + (map("\(.call | said(40)) \(.baseline | num) → \(.current | num)") | join(", ")) + " per call"
    else $c end;

def section:
  (if (.good | sha_ok) and (.bad | sha_ok) then "\(.good | link)..\(.bad | link)" else "`?`" end) as $range
  | ([.unbuilt[]? | select(.commit | sha_ok)] | length) as $unbuilt
  | (if .status == "found" and (.first_bad | sha_ok) then
      "**First bad commit** \(.first_bad | link) \(.subject | said(200)) (\(.author | said(100)), \(.date | said(40) | .[0:10])), "
      + "bisected on exact counts over \($range): \(.commits | count) commits, \(.probes | count) measured"
      + (if $unbuilt > 0 then ", \($unbuilt) decided without a build" else "" end)
      + ", \(.seconds | duration).",
      ([.rows[]? | select(.metric | type == "string")] as $rows
       | ($rows[0:3][] | "- \(.label // .metric | said(120)): \(.good | num) → \(.bad | num)\(change(.good; .bad))"),
         (if ($rows | length) > 3 then "- … and \($rows | length - 3) more rows" else empty end)),
      ([.rows[]?.commands[]? | select(type == "object") | command_words] | unique | map(select(. != ""))[0:4]
       | if length > 0 then "- by AFP command: " + join("; ") else empty end)
    elif .status == "budget" then
      ([.left[]? | select(sha_ok)]) as $left
      | "**Bisect** over \($range) ran out of its budget after \(.probes | count) measurements (\(.seconds | duration)): "
        + "the first bad commit is one of \($left | length)\(if ($left | length) > 0 then ", \($left[0] | link) to \($left[-1] | link)" else "" end). "
        + "Raise bisect-budget, or finish it with scripts/bisect (docs/bisect.md)."
    elif .status == "no difference" then
      "**Bisect** over \($range): the end commits measure the same on every count row, so no commit is to blame (\(.message | said(600)))."
    else "**Bisect** over \($range) found no answer: \(.message | said(600))" end),
    ([.log[]? | select(.state == "skip" and (.commit | sha_ok))]
     | if length > 0 then
         # the reason's first words ("does not build"); the compiler's line is in the report
         "- skipped: " + (map("\(.commit | link) \(.why // "" | split(":")[0] | said(80))") | join("; "))
       else empty end);

def details:
  (if (.rows | length) > 0 then
     "",
     "| row | good | first bad | change |",
     "|---|---:|---:|---:|",
     (.rows[] | "| \(.label // .metric | said(120)), \(.name | said(120)) | \(.good | num) | \(.bad | num) | \(change(.good; .bad) | ltrimstr(" (") | rtrimstr(")") | if . == "" then "–" else . end) |"),
     "",
     ([.rows[].commands[]?] | unique_by(.command)[] | "- **\(.command | said(60))** " + (cmd_words(3) | sub("^[^:]*: "; "") | said(300)))
   else empty end),
  (if (.not_exact | length) > 0 then
     "", "Not followed, not exact on this server (two measurements of the good commit on one build differ): "
     + ([.not_exact[] | "`\(.metric | said(120))` (by \(.aa_move | num))"] | join(", ")) + "."
   else empty end),
  (if ([.log[]? | select(.state == "skip")] | length) > 0 then
     "", "Skipped, as `git bisect skip` does:",
     (.log[] | select(.state == "skip") | "- \(.commit | link) \(.why | said(300))")
   else empty end),
  (if (.unbuilt | length) > 0 then
     "", "Decided without a build, as the commit whose build each shares (they change no file that goes into the build):",
     (.unbuilt[0:50][] | "- \(.commit | link) as \(.as | link): \([.files[]? | said(80)][0:3] | join(", "))"),
     (if (.unbuilt | length) > 50 then "- … and \(.unbuilt | length - 50) more" else empty end)
   else empty end),
  "",
  "<details><summary>Probes</summary>",
  "",
  "| commit | state | build s | measure s |",
  "|---|---|---:|---:|",
  (.log[]? | "| \(.commit | link) | \(.state | said(20))\(if .cached then " (kept)" else "" end) | \(.build_s | num) | \(.measure_s | num) |"),
  "",
  "</details>";

if form == "section" then section
else
  "## afpbench bisect: " + (
    if .status == "found" then "first bad commit \(.first_bad | link)"
    elif .status == "no difference" then "the bad commit does not differ from the good one"
    elif .status == "budget" then "the budget ran out, \(.left | length) commits still in question"
    else "no answer" end),
  "",
  section,
  details
end
