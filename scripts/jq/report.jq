# report.md, the pull-request comment body, from verdict.json.
#   jq -n -r -L scripts/jq -f report.jq --slurpfile verdict verdict.json \
#      --argjson settings '{"AFPBENCH_TESTS": "1-12", ...}' --arg charts_txt TEXT \
#      --argjson limit 60000
# First line: the hidden marker the action finds its sticky comment by; first
# visible line: the verdict. The verdict, the aggregates and the reproduction
# command are always kept; the detail tables are cut to stay under $limit
# characters.

def marker: "<!-- afpbench-action:report -->";

# Markdown-escape text from results files (test names, error messages): they
# are untrusted and must not open tables, links, HTML or code spans.
def md:
  tostring
  | gsub("[\r\n\t]+"; " ")
  | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;")
  | gsub("(?<c>[\\\\`*_{}\\[\\]()#+!|~])"; "\\\(.c)");
def clip($n): if length > $n then .[0:$n - 1] + "…" else . end;
def cell: if . == null then "–" else tostring | clip(160) | md end;

# Numbers with 4 significant digits, no exponent for the sizes we meet.
def num:
  if . == null then "–"
  elif type != "number" then tostring
  elif . == 0 then "0"
  else
    (if . < 0 then -. else . end | log10 | floor) as $e
    | if $e >= 3 then round | tostring
      elif $e < -6 then tostring
      else pow(10; 3 - $e) as $f | (. * $f | round) / $f | tostring
      end
  end;
def pct: if . == null then "–" else "\(num) %" end;

def icon:
  {"pass": "✅ pass", "fail": "❌ fail", "inconclusive": "⚠️ inconclusive",
   "improved": "✨ improved", "new": "🆕 new", "error": "⛔ error", "info": "ℹ️ info"}[.] // tostring;
def severity: {"error": 0, "fail": 1, "inconclusive": 2, "improved": 3, "new": 4, "info": 5, "pass": 5}[.] // 6;

def aggregate_title:
  {"aggregate.time_per_op": "Time per AFP op",
   "aggregate.afpd_cpu_per_op": "afpd CPU per AFP op",
   "aggregate.cnid_cpu_per_op": "cnid_dbd CPU per AFP op",
   "aggregate.afpd_r_per_op": "afpd reads per AFP op",
   "aggregate.afpd_w_per_op": "afpd writes per AFP op",
   "aggregate.cnid_r_per_op": "cnid_dbd reads per AFP op",
   "aggregate.cnid_w_per_op": "cnid_dbd writes per AFP op"}[.metric] // (.metric | md);

def ratio_text: if .ratio == null then "–" elif .state == "fail" then "**\(.ratio | num)**" else (.ratio | num) end;

# A/B rows carry the confidence interval of the change (percent); others the noise.
def noise_text:
  if .interval != null then "\(.interval[0] | num) … \(.interval[1] | num) %" else .noise | pct end;
# The column names of the two sides: a stored baseline, or the base of an A/B run.
def side_names($mode): if $mode == "ab" then ["Base", "Head"] else ["Baseline", "Current"] end;
def table_head($mode):
  side_names($mode) as $n
  | "| Metric | \($n[0]) | \($n[1]) | Ratio | Threshold | \(if $mode == "ab" then "Interval" else "Noise" end) | State |\n|---|---:|---:|---:|---:|---:|---|";
def aggregate_line:
  "| \(aggregate_title) (\(.unit)) | \(.baseline | num) | \(.current | num) | \(ratio_text) | \(.threshold | pct) | \(noise_text) | \(.state | icon) |";

def detail_head($mode):
  side_names($mode) as $n
  | "| Test | Metric | \($n[0]) | \($n[1]) | Ratio | Threshold | \(if $mode == "ab" then "Interval" else "Noise" end) | State | Why |\n|---|---|---:|---:|---:|---:|---:|---|---|";
def metric_title:
  {"time": "time", "afpd_r": "afpd reads", "afpd_w": "afpd writes", "cnid_r": "cnid_dbd reads",
   "cnid_w": "cnid_dbd writes", "mbps": "throughput", "afpd_cpu": "afpd CPU",
   "afpd_rchar": "afpd bytes read", "afpd_wchar": "afpd bytes written"}[.metric | split(".") | last] // (.metric | md);
def detail_line:
  "| \((.name // .test) | cell) | \(metric_title) (\(.unit)) | \(.baseline | num) | \(.current | num) | \(ratio_text) | \(.threshold | pct) | \(noise_text) | \(.state | icon) | \(.reason | cell) |";

# Lines of a table, cut at $budget characters; returns {text, cut}.
def fit_lines($lines; $budget):
  reduce $lines[] as $l ({text: "", used: 0, cut: 0};
    if .cut == 0 and .used + ($l | length) + 1 <= $budget then .text += $l + "\n" | .used += ($l | length) + 1
    else .cut += 1 end);

def env_rows($b; $c):
  def side($p; f):
    if $p == null then "–" else ($p | f) as $x | if $x == null then "–" else $x | tostring | clip(100) | md end end;
  [["netatalk", ($b | side(.; .netatalk.version)), ($c | side(.; .netatalk.version))],
     ["server machine type", ($b | side(.; .netatalk.machine_type)), ($c | side(.; .netatalk.machine_type))],
     ["netatalk build", ($b | side(.; .netatalk.build)), ($c | side(.; .netatalk.build))],
     ["afp.conf sha256", ($b | side(.; .afp_conf_sha256 | if . == null then null else .[0:16] end)), ($c | side(.; .afp_conf_sha256 | if . == null then null else .[0:16] end))],
     ["afpbench", ($b | side(.; .afpbench_version)), ($c | side(.; .afpbench_version))],
     ["suite", ($b | side(.; .suite_version)), ($c | side(.; .suite_version))],
     ["CPU", ($b | side(.; .runner.cpu_model)), ($c | side(.; .runner.cpu_model))],
     ["cores", ($b | side(.; .runner.cores)), ($c | side(.; .runner.cores))],
     ["kernel", ($b | side(.; .runner.kernel)), ($c | side(.; .runner.kernel))],
     ["container", ($b | side(.; .runner.container)), ($c | side(.; .runner.container))],
     ["host", ($b | side(.; .hostname)), ($c | side(.; .hostname))],
     ["label", ($b | side(.; .label)), ($c | side(.; .label))],
     ["iterations", ($b | side(.; .iterations)), ($c | side(.; .iterations))],
     ["IO monitoring", ($b | side(.; .io_monitoring)), ($c | side(.; .io_monitoring))],
     ["runs", ($b | side(.; .runs)), ($c | side(.; .runs))],
     ["date", ($b | side(.; .date)), ($c | side(.; .date))],
     ["commit", ($b | side(.; .git_commit)), ($c | side(.; .git_commit))]]
  | map("| \(.[0]) | \(.[1]) | \(.[2]) |");

# The client's CPU per AFP op of one side (verdict.json's baseline or
# current), per suite, with its share of the measured time per AFP op.
def client_cpu_cell($side):
  ($side.client_cpu // {}) as $cc
  | if ($cc | length) == 0 then "–"
    else [$cc | to_entries[]
          | "\(.key | md) \(.value.us_per_op | num) µs"
            + (if .value.share_pct == null then ""
               else " (\(.value.share_pct | num) % of \(.value.measured_us_per_op | num) µs)" end)
            + (if .value.limiting then " ⚠️" else "" end)]
         | join("; ")
    end;

# A note; warnings ("warning: …") stand out.
def note_line:
  if startswith("warning: ") then "> ⚠️ **Warning:** \(ltrimstr("warning: ") | clip(400) | md)"
  else "> \(clip(400) | md)" end;

def reproduce($settings):
  ($settings | to_entries | map(select(.value != null and .value != ""))
   | map("\(.key)=\(.value | @sh)") | join(" ")) as $envs
  | "```sh\n" + (if $envs == "" then "" else $envs + " \\\n  " end)
    + "docker compose up --build --abort-on-container-exit --exit-code-from client\n```";

$verdict[0] as $v
| ($v.mode // "baseline") as $mode
| side_names($mode) as $names
| ($v.rows // []) as $rows
| ([$rows[] | select(.group == "aggregate")] | sort_by(.state | severity)) as $agg
| ([$rows[] | select(.group != "aggregate")] | sort_by(.state | severity)) as $tests
| ([$tests[] | select(.state == "fail" or .state == "error" or .state == "inconclusive")]) as $bad
| ({"pass": "✅", "fail": "❌", "inconclusive": "⚠️", "error": "⛔"}[$v.status] // "⛔") as $mark
| [ marker,
    "### \($mark) afpbench: **\($v.status)** — \($v.summary | ltrimstr("\($v.status): ") | clip(300) | md)",
    "",
    (if ($v.errors // []) | length > 0 then
       "**Errors**\n\n" + ([$v.errors[0:20][] | "- \(clip(300) | md)"] | join("\n"))
       + (if ($v.errors | length) > 20 then "\n- … \($v.errors | length - 20) more in verdict.json" else "" end) + "\n"
     else empty end),
    (if $mode == "ab" then
       "**A/B:** base (\($v.baseline.provenance.netatalk.version // "?" | md)) and head (\($v.current.provenance.netatalk.version // "?" | md)) were measured together in this run, each test on both back to back in alternating order; a timing fails only when its whole confidence interval over the pairs is beyond the threshold.\n"
     else empty end),
    (if ($agg | length) > 0 then
       "**AFP-op aggregates** (lantest, per AFP op actually issued; thresholds: time \($v.thresholds.time) %, server CPU \($v.thresholds.cpu // $v.thresholds.time) %, IO \($v.thresholds.io) %)\n\n"
       + table_head($mode) + "\n" + ([$agg[] | aggregate_line] | join("\n")) + "\n"
     else "No lantest aggregates: no comparable lantest tests.\n" end),
    (if ($bad | length) > 0 then
       "**Per-test findings** (\($bad | length); regressions first)\n\n" + detail_head($mode) + "\n"
       + ([$bad[0:25][] | detail_line] | join("\n"))
       + (if ($bad | length) > 25 then "\n\n… \($bad | length - 25) more in the tables below." else "" end) + "\n"
     else empty end),
    (if ($v.notes // []) | length > 0 then ([$v.notes[] | note_line] | join("\n>\n")) + "\n" else empty end)
  ] | join("\n") as $head
| ( "<details><summary>Environment (\($names[0] | ascii_downcase) vs \($names[1] | ascii_downcase))</summary>\n\n| | \($names[0]) | \($names[1]) |\n|---|---|---|\n"
    + (env_rows($v.baseline.provenance; $v.current.provenance) | join("\n"))
    + "\n| client CPU per AFP op (share of the time per AFP op) | \(if $v.baseline == null then "–" else client_cpu_cell($v.baseline) end) | \(client_cpu_cell($v.current)) |"
    + "\n\n</details>\n\n**Reproduce** (from a checkout of afpbench-action, with the baseline in `./baselines`):\n\n"
    + reproduce($settings) + "\n") as $tail
| ($limit - ($head | length) - ($tail | length) - 400) as $budget
| ([$tests[] | select(.group == "lantest")]) as $lan
| ([$tests[] | select(.group == "speedtest")]) as $speed
| ([$tests[] | select(.group != "lantest" and .group != "speedtest")]) as $other
| fit_lines([$lan[] | detail_line]; ([$budget * 0.7, $budget - 2000] | max)) as $lan_fit
| fit_lines([($speed[] | detail_line), ($other[] | detail_line)]; $budget - ($lan_fit.text | length) - 500) as $speed_fit
| ($budget - ($lan_fit.text | length) - ($speed_fit.text | length) - 300) as $left
| [ $head,
    (if ($lan | length) > 0 then
       "<details><summary>lantest: \($lan | length) metrics per test</summary>\n\n" + detail_head($mode) + "\n" + $lan_fit.text
       + (if $lan_fit.cut > 0 then "\n… \($lan_fit.cut) more rows cut to keep this comment short: see verdict.json in the results artifact.\n" else "" end)
       + "\n</details>\n"
     else empty end),
    (if ($speed | length) + ($other | length) > 0 then
       "<details><summary>\(if ($other | length) > 0 then "speedtest and load" else "speedtest" end): \(($speed | length) + ($other | length)) metrics</summary>\n\n" + detail_head($mode) + "\n" + $speed_fit.text
       + (if $speed_fit.cut > 0 then "\n… \($speed_fit.cut) more rows cut to keep this comment short: see verdict.json in the results artifact.\n" else "" end)
       + "\n</details>\n"
     else empty end),
    (if ($charts_txt | length) > 0 and ($charts_txt | length) + 100 < $left then
       "<details><summary>Charts (text; PNG and SVG in the results artifact)</summary>\n\n```text\n" + $charts_txt + "\n```\n\n</details>\n"
     else empty end),
    $tail
  ] | join("\n")
