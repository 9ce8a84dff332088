# Words for people, shared by the verdict's headline (scripts/compare adds it
# to verdict.json: every place that shows the verdict prints that one line)
# and the report: Markdown escaping, numbers, icons, what a row measures, its
# reason, and the headline itself.

include "names";
include "attribution";

# Markdown-escape text: test names and error messages come from results
# files and servers, untrusted, and must not open tables, links, images,
# HTML, code spans or emphasis. Parentheses, signs and "#" stay as they are:
# with "[" escaped they cannot form a link, and no escaped text starts a line.
def md:
  tostring
  | gsub("[\r\n\t]+"; " ")
  | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;")
  | gsub("(?<c>[\\\\`*_\\[\\]|~])"; "\\\(.c)");
def clip($n): if length > $n then .[0:$n - 1] + "…" else . end;
def cell($n): if . == null then "–" else tostring | clip($n) | md end;
def fabs: if . < 0 then -. else . end;

# ---- numbers ---------------------------------------------------------------

# 3 significant digits; whole numbers from 100 up; k and M from 10,000 up.
def sig3:
  if . == null then "–"
  elif type != "number" then tostring
  elif . == 0 then "0"
  elif (. | fabs) >= 1e7 then "\(. / 1e6 | sig3) M"
  elif (. | fabs) >= 1e4 then "\(. / 1e3 | sig3) k"
  else
    (fabs | log10 | floor) as $e
    | if $e >= 2 then round | tostring
      else pow(10; 2 - $e) as $f | (. * $f | round) / $f | tostring
      end
  end;
# A change in percent: "+5.1 %", "−12 %", "±0 %".
def pct_change:
  if . == null then "–"
  else
    (if fabs < 0.05 then "±0"
     elif fabs < 10 then (. * 10 | round / 10 | tostring)
     else (round | tostring) end) as $t
    # no-break spaces: a narrow column must not split "+5 %"
    | if $t == "±0" then "±0\u00a0%" elif . > 0 then "+\($t)\u00a0%" else "−\($t | ltrimstr("-"))\u00a0%" end
  end;

def icon:
  {"pass": "✅", "fail": "❌", "inconclusive": "⚠️", "improved": "✨", "step": "📍", "new": "🆕", "error": "⛔", "info": "ℹ️"}[.] // "";
def severity: {"error": 0, "fail": 1, "inconclusive": 2, "step": 3, "improved": 4, "new": 5, "info": 6, "pass": 7}[.] // 8;

# ---- what a row measures, per AFP op -----------------------------------------

# A lantest test's name without its "[8,000 AFP ops]" suffix.
def test_name: (.name // .test // "?") | tostring | sub(" *\\[[^\\]]*\\]$"; "");
def quantity: .metric | split(".") | last;

# {label, scale}: the row's values are multiplied by scale to show them in
# label's unit; per-test counts are divided by the test's AFP ops.
def per_op_view:
  quantity as $q
  | (.afp_ops // null) as $ops
  | if .group == "aggregate" then
      {"time_per_op": {label: "time (µs)", scale: 1000},
       "afpd_cpu_per_op": {label: "afpd CPU (µs)", scale: 1},
       "cnid_cpu_per_op": {label: "cnid_dbd CPU (µs)", scale: 1},
       "afpd_r_per_op": {label: "afpd reads", scale: 1},
       "afpd_w_per_op": {label: "afpd writes", scale: 1},
       "cnid_r_per_op": {label: "cnid_dbd reads", scale: 1},
       "cnid_w_per_op": {label: "cnid_dbd writes", scale: 1},
       "afpd_instr_per_op": {label: "afpd instructions", scale: 1}}[$q]
      // (sys_label($q) // fd_label($q) | if . != null then {label: ., scale: 1} else null end)
      // {label: ($q | md), scale: 1}
    elif .kind == "throughput" then {label: "throughput (\(.unit // "?"))", scale: 1, per_op: false}
    elif .group == "load" then {label: "\($q | gsub("_"; " ")) (\(.unit // "?"))", scale: 1, per_op: false}
    elif $q == "afpd_instr_per_op" then {label: "afpd instructions /op", scale: 1, per_op: false}
    elif .kind == "mem" then {label: "\(quantity_words($q)) (\(.unit // "?"))", scale: 1, per_op: false}
    else
      (quantity_words($q) // $q) as $base
      | if $ops != null and ($ops.baseline // 0) > 0 and ($ops.current // 0) > 0
        then if $q == "time" then {label: "time µs/op", scale: 1000, per_op: true}
             elif $q == "afpd_cpu" then {label: "afpd CPU µs/op", scale: 1, per_op: true}
             else {label: "\($base) /op", scale: 1, per_op: true} end
        else {label: "\($base) (\(.unit // "?"))", scale: 1, per_op: false}
        end
    end;
# A paired (A/B) timing's Head is shown as Base times the change the pairs
# estimate ("≈"), so that a row's figures agree with its change and icon:
# the median of the head's samples can sit on the other side of the base's
# median than the pairs' typical ratio when the pairs are noisy.
def shown($side):
  per_op_view as $v
  | (if $side == "baseline" then .baseline else .current end) as $x
  | (if $v.per_op then .afp_ops.baseline else 1 end) as $bops
  | if .pairs != null and $side == "current" and .baseline != null and .ratio != null
    then "≈\(.baseline * .ratio * $v.scale / $bops | sig3)"
    elif $x == null then "–"
    elif $v.per_op then ($x * $v.scale / (.afp_ops[$side]) | sig3)
    else $x * $v.scale | sig3
    end;
# The change: A/B rows carry the pairs' estimate, others the ratio of medians.
def change_text($none): if .ratio == null then $none else (.ratio - 1) * 100 | pct_change end;
def change_cell: "\(.state | icon)\u00a0\(change_text("–"))";
def limit_cell: if .threshold == null or (.state == "info" and .reading != null) then "–" else "\(.threshold) %" end;

# ---- why, and the reasons many rows share ------------------------------------

def row_words:
  if .group == "aggregate" then "\(per_op_view.label | sub(" \\(µs\\)$"; "")) per AFP op"
  else "\(test_name | clip(80) | md): \(per_op_view.label | sub(" ?(µs)?/op$"; "") | sub(" \\(.*\\)$"; ""))" end;
# What an undecided pair of sides could have seen (timings.jq's limit_of).
def limit_seen: "no change above \(.limit_pct | pct_change) seen";
def limit_words: "\(limit_seen); smaller ones are within this runner's noise";
# A reason's first clause: "noise ±40 % exceeds the 10 % threshold".
def short_reason:
  if .limit_pct != null and .state == "inconclusive" then limit_words
  elif .interval != null and .state == "inconclusive" then
    "interval \(.interval[0] | pct_change) to \(.interval[1] | pct_change) spans the \(.threshold) % limit"
  else (.reason // "") | split(" (")[0] | split("; ")[0] | clip(90) | md end;
def finding_words: "\(row_words) \(change_text("")) (limit \(.threshold) %)";
# The verdict's reasons in fewer words for a narrow column: the raw counts
# "(50 → 53)" go (the row shows the values), "threshold" is the "limit".
def terse:
  gsub(" \\([^()]* → [^()]*\\)"; "")
  | gsub("^rose [^,]*, beyond the [0-9.]+ % threshold and the sample spread [^ ;,]+"; "beyond limit and spread")
  | gsub("beyond the [0-9.]+ % threshold and the sample spread [^ ;,]+"; "beyond limit and spread")
  | gsub("exceeds the (?<t>[0-9.]+) % threshold"; "above the \(.t) % limit")
  | gsub("about (?<n>[0-9]+) iterations per side would settle it"; "\(.n) iterations a side would settle it")
  | gsub("threshold"; "limit");
def blocked_row: (.reason // "") | test(" not gated: ");
def one_session_row: (.reason // "") | test("baseline is one session");
def interval_text: "\(.interval[0] | pct_change) to \(.interval[1] | pct_change)";
def why($shared):
  if .state == "inconclusive" and blocked_row and $shared.blocked then "not compared (see above)"
  elif .state == "inconclusive" and one_session_row then "cannot fail against a one-session baseline (see above)"
  elif .state == "info" and .reading != null and ((.reason // "") | startswith("shown, not gated")) then "shown, not gated"
  elif .state == "info" and .reading == "inconclusive" and .interval != null then "undecided (\(interval_text)); the aggregates decide"
  elif .state == "inconclusive" and .interval != null then
    "\(interval_text) spans the \(.threshold) % limit"
    + (if .limit_pct != null then "; \(limit_seen)" else "" end)
    + (if .iterations_needed != null then "; about \(.iterations_needed) pairs would settle it" else "; too noisy here to settle" end)
  # a pair's pass was decided by its upper bound
  elif .state == "pass" and .interval != null then "within ±\(.threshold) % (at most \(.interval[1] | pct_change))"
  elif .state == "pass" and (.ratio == 1 or .reason == "unchanged") then "unchanged"
  # a pass beyond the threshold passed for a reason of its own (within one
  # syscall, within the spread): say that one
  elif .state == "pass" and .ratio != null and .threshold != null and ((.ratio - 1) * 100 | fabs) <= .threshold then "within ±\(.threshold) %"
  # a fail keeps its evidence (noise, sessions, p); the rest lose the
  # parentheses, whose numbers the other columns show
  elif .state == "fail" and .interval != null then "at least \(.interval[0] | pct_change) at \(.interval_confidence * 10 | round / 10) % confidence, beyond the \(.threshold) % limit"
  elif .state == "fail" or .state == "error" then .reason // "" | terse | clip(140) | md
  # a push's own step: the headline names its pull request; the row, its move
  elif .state == "step" then "a step at this commit: \(.reason // "" | sub("^[^:]*: against [^:]*: "; "") | gsub(" *\\([^)]*\\)"; "") | terse | clip(80) | md)"
  else .reason // "" | gsub(" *\\([^)]*\\)"; "") | terse | clip(100) | md
  end;

# ---- the headline ------------------------------------------------------------

def io_kind: .kind == "io" or .kind == "bytes" or .kind == "instr" or .kind == "sys";
def timing_kind: .kind == "time" or .kind == "cpu" or .kind == "throughput";
# The call that moved most on a system call row, per AFP op:
# "newfstatat 4.39 → 5.39 /op".
def top_call:
  (.movers // [])[0] as $m
  | if $m == null or $m.call == null then null
    else (if .group == "aggregate" then 1 else (.afp_ops.baseline // 0) end) as $bo
      | (if .group == "aggregate" then 1 else (.afp_ops.current // 0) end) as $co
      | if $bo > 0 and $co > 0 then "\($m.call | md) \($m.baseline / $bo | sig3) → \($m.current / $co | sig3) /op"
        else "\($m.call | md) \($m.baseline | sig3) → \($m.current | sig3)" end
    end;

# The AFP command that carries a row's move, short: "FPGetFileDirParms
# lstat 0 → 1/call"; "spread over 6 commands"; null when none is named.
def top_command:
  (.commands // []) as $c
  | if ($c | length) == 0 then null
    elif ($c | length) >= 4 then "spread over \($c | length) AFP commands"
    else $c[0] | .moves[0] as $m
      | def num: if . == null then "–" elif . == floor then tostring else . * 100 | round / 100 | tostring end;
        "\(.command) \($m.call | md) \($m.baseline | num) → \($m.current | num)/call"
    end;

# What a reader sees of a headline: no Markdown escapes or emphasis.
def visible_length: gsub("\\\\(?<c>.)"; "\(.c)") | gsub("\\*\\*"; "") | gsub("&lt;"; "<") | gsub("&gt;"; ">") | gsub("&amp;"; "&") | length;
# The first candidate that fits in $room characters; the last one always
# (the shortest, which says the least); candidates never end mid-sentence.
def first_fitting($room): (map(select(visible_length <= $room)) | first) // last;

# The headline after "afpbench: **status** — ": at most 140 characters with
# that prefix (issue 21), from the most telling wording that fits.
def headline($v; $rows; $mode):
  ("\($v.status | icon) afpbench: \($v.status) — " | length) as $prefix
  | (140 - $prefix) as $room
  | ([$rows[] | select(io_kind)]) as $det
  | ("\([$det[] | select(.state == "pass" or .state == "improved")] | length) of \($det | length) deterministic rows within limits") as $det_words
  | ([$rows[] | select(.state == $v.status)]
     # system calls and IO name what moved: they lead, then the largest move
     | sort_by((if io_kind then 0 else 1 end), (if .group == "aggregate" then 1 else 0 end), -((.ratio // 1) - 1 | fabs))) as $decided
  | ($decided | length) as $nd
  | (if $nd > 1 then "; \($nd - 1) more \(if $v.status == "fail" then "fail" else "undecided" end)" else "" end) as $more
  | ($v.timings // null) as $timings
  | if $v.status == "error" then
      ($v.errors[0] // ($decided[0] | "\(row_words): \(.reason // "error")")) as $e
      # what failed and, when that is too long, its first and last words
      # (the kernel's: "…: Connection refused")
      | [($e | md), ($e | split("; ")[0] | md),
         ($e | split("; ")[0] | split(": ") | if length > 2 then [.[0], .[-1]] | join(": ") else join(": ") end | md),
         ($e | split(": ")[0] | md), ($e | clip($room) | md)] | first_fitting($room)
    elif $v.status == "fail" then
      ($decided[0]) as $r
      | [($r | top_command | if . != null then ($r | finding_words) + ": \(.)" + $more else empty end),
         ($r | finding_words) + ($r | top_call | if . != null then ": \(.)" else "" end) + $more,
         ($r | finding_words) + $more,
         ($r | "\(row_words) \(change_text(""))") + $more,
         "\($nd) rows regressed"] | first_fitting($room)
    elif $v.status == "inconclusive" and $v.timings_blocked != null then
      ["timings not compared (\($v.timings_blocked | split(" (")[0] | split("; ")[0] | md)); \($det_words)",
       "timings not compared; \($det_words)"] | first_fitting($room)
    elif $v.status == "inconclusive" and all($decided[]; one_session_row) then
      ["timings cannot fail against a one-session baseline; \($det_words)", "timings cannot fail against a one-session baseline"] | first_fitting($room)
    elif $v.status == "inconclusive" then
      ($decided[0]) as $r
      | [($r | "\(row_words) \(change_text("")), undecided (\(short_reason))") + $more + "; \($det_words)",
         ($r | "\(row_words) \(change_text("")), undecided (\(short_reason))") + $more,
         # what the run could have seen outlives the rest of the reason
         ($r | if .limit_pct != null and .state == "inconclusive"
               then "\(row_words) \(change_text("")), undecided (\(limit_seen))" + $more else empty end),
         ($r | "\(row_words) \(change_text("")), undecided") + $more,
         "\($nd) rows undecided"] | first_fitting($room)
    elif $mode == "measure" then "measured \($rows | length) metrics; nothing compared (no baseline)"
    elif any($rows[]; .state == "step") then
      # a push's own step, shown before it merged (reference.jq): named once,
      # by what moved most, and recorded
      ([$rows[] | select(.state == "step")]
       | sort_by((if io_kind then 0 else 1 end), (if .group == "aggregate" then 0 else 1 end), -((.ratio // 1) - 1 | fabs))) as $steps
      | (($v.reference.pull_requests // []) | if length > 0 then " (pull request #\(.[0]))" else "" end) as $pr
      | ($steps | length) as $ns
      | (if $ns > 1 then "; \($ns - 1) more rows with it" else "" end) as $with
      | [($steps[0] | "a step at this commit\($pr): \(row_words) \(change_text(""))" + (top_call | if . != null then " (\(.))" else "" end) + $with),
         ($steps[0] | "a step at this commit\($pr): \(row_words) \(change_text(""))" + $with),
         "a step at this commit\($pr) in \($ns) rows", "a step at this commit"] | first_fitting($room)
    else
      # an improvement is named like a fail: the counts first, the largest move
      # (the per-op aggregate first: it speaks for every test)
      ([$rows[] | select(.state == "improved")]
       | sort_by((if io_kind then 0 else 1 end), (if .group == "aggregate" then 0 else 1 end), -((.ratio // 1) - 1 | fabs))) as $imp
      | ($imp | length) as $ni
      | [(if $ni > 0 then $imp[0] | "; \($ni) improved, led by \(row_words) \(change_text(""))" + (top_call | if . != null then " (\(.))" else "" end) else empty end),
         (if $ni > 0 then $imp[0] | "; \($ni) improved, led by \(row_words) \(change_text(""))" else empty end),
         (if $ni > 0 then "; \($ni) improved" else "" end)] as $improved
      # rows main moved since the stored baseline (reference.jq): said, not blamed
      | ((($v.reference // {}).on_main // []) | length) as $nm
      | (if $nm > 0 then "; \($nm) moved on main, not here" else "" end) as $main
      | if $timings == "shown" then
          [($improved[] | "\($det_words)\($main)\(.); timings shown, not gated"), ($improved[] | "\($det_words)\($main)\(.)"), ($improved[] | "\($det_words)\(.)")] | first_fitting($room)
        else
          [$improved[] | "\([$rows[] | select(.state == "pass")] | length) rows within limits\(if $timings == "paired" then " (A/B)" else "" end)\($main)\(.)"] | first_fitting($room)
        end
    end;
