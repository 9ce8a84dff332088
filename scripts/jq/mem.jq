# The servers' peak resident memory (docs/verdict-format.md, "Memory"):
# afpd's and cnid_dbd's VmHWM in each lantest test's timed region, reset at
# its start (afpbench: clear_refs), in KiB. Rows of a kind of their own
# (mem), judged like a count against a threshold of their own (thresholds.jq:
# mem) and a floor: afpd's heap grows by about 100 KiB an iteration with
# nothing changed, the same on both sides, and a leak grows by what it
# leaks every time.
include "stats";

def mem_fields: ["afpd_hwm_kb", "cnid_hwm_kb"];

# The least a peak may move by and still pass, whatever the percentage.
def mem_floor_kb: 1024;

def mem_kb_text: if . >= 10240 then "\(. / 1024 | . * 10 | round / 10) MiB" else "\(round) KiB" end;

# cnid_dbd serves every session of a volume for as long as the server runs:
# its resident size carries their history (its database cache fills as
# entries are added), so its peak is shown, never deciding. afpd's is one
# session's, started afresh by every run.
def mem_shown($metric):
  if ($metric | endswith(".cnid_hwm_kb")) and .state != "pass" then
    .reading = .state | .state = "info"
    | .reason = "not gated (cnid_dbd serves every session of the volume: its size carries their history): \(.reason)"
  else . end;

# $b, $c: the sides' peaks (KiB); $thpct: the threshold in percent.
def judge_mem($b; $c; $thpct):
  ($b | median) as $mb | ($c | median) as $mc
  | ([($b | sample_range), ($c | sample_range)] | max) as $spread
  | ($mc - $mb) as $d
  | ($thpct / 100 * $mb) as $limit
  | (if $mb > 0 then "\(if $d >= 0 then "+" else "" end)\($d / $mb * 1000 | round / 10) %" else "from 0" end) as $chg
  | "\($mb | mem_kb_text) → \($mc | mem_kb_text)" as $moved
  | {ratio: (if $mb > 0 then $mc / $mb else null end),
     noise: (if $mb > 0 then $spread / $mb * 100 else null end),
     n_baseline: ($b | length), n_current: ($c | length)}
  | if $d > $limit and $d > $spread and $d > mem_floor_kb then
      . + {state: "fail", reason: "peak memory rose \($chg) (\($moved)), beyond the \($thpct) % threshold, the sample spread and \(mem_floor_kb / 1024) MiB"}
    elif - $d > $limit and - $d > $spread and - $d > mem_floor_kb then
      . + {state: "improved", reason: "peak memory fell \($chg) (\($moved))"}
    elif ($d | fabs) > $limit and ($d | fabs) <= mem_floor_kb then
      . + {state: "pass", reason: "within \(mem_floor_kb / 1024) MiB (\($moved))"}
    elif ($d | fabs) > $limit then
      . + {state: "pass", reason: "moved \($chg) (\($moved)) but within the spread of the samples"}
    else
      . + {state: "pass", reason: (if $d == 0 then "unchanged" else "change \($chg) within \($thpct) %" end)}
    end;
