# One run as the data branch keeps it (afpbench-history/1, docs/history.md):
# the run's per-AFP-op aggregates and per-test counts (verdict.json's current
# side) and where they were measured. The one maker of records: the action's
# recordRun (src/action/history.ts) and scripts/backfill both call it, and
# src/action/history-record.ts's parseRecord reads what it makes.
#
#   jq -c -f record.jq --arg commit SHA --arg date ISO --argjson run_id N|null \
#      --arg key KEY --arg release TAG --argjson extra '{...}' verdict.json
#   jq -n ... (no verdict: a commit that was not measured, e.g. skipped)
#   jq -c -f record.jq --argjson extra '{...}' record.json
#                        (a record: the same record with these fields set)
#
# extra holds the optional fields (each bounded here as parseRecord bounds
# it): subject, source ("measured" | "reused" | "skipped"; absent means
# measured), reused_from, skip_reason, steps.

def name_ok: type == "string" and test("^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$");
# printable ASCII and common text only: these strings reach a comment
def text($n): if type == "string" then .[0:$n] | gsub("[^\\x{20}-\\x{7e}\\x{b5}\\x{a0}-\\x{24f}]"; "?") else "" end;
def finite: type == "number";
def sha: type == "string" and test("^[0-9a-f]{40}$");
def count_kind: . == "io" or . == "sys" or . == "instr";

def provenance:
  (.provenance // {}) as $p
  | ($p.runner // {}) as $r
  | {netatalk: ($p.netatalk.version? | text(60)),
     build: ($p.netatalk.build? | text(80)),
     afpConf: ($p.afp_conf_sha256 | text(64))}
  + (if ($p.afp_conf_settings | type) == "string" then {afpConfSettings: ($p.afp_conf_settings | text(300))} else {} end)
  + {
     runner: ((($r.cpu_model | text(100)) | if . == "" then "unknown CPU" else . end)
              + (if ($r.cores | type) == "number" then ", \($r.cores) cores" else "" end)
              + (if $r.container == true then ", container" else "" end)),
     suite: ($p.suite_version | text(100))};

# at most 20 steps, each with at most 10 commands of at most 10 calls
def steps:
  [.[]? | select(type == "object" and (.metric | name_ok) and (.before | finite) and (.after | finite))
   | {metric, before, after,
      commands: [.commands[]? | select(type == "object")
                 | {command: (.command | text(60)),
                    calls: [.calls[]? | select(type == "object" and (.before | finite) and (.after | finite))
                            | {call: (.call | text(40)), before, after}][0:10]}][0:10],
      site: (.site | text(200))}][0:20];

def optional($x):
  ($x // {}) as $x
  | (if ($x.subject | type) == "string" and $x.subject != "" then {subject: ($x.subject | text(200))} else {} end)
  + (if $x.source == "reused" or $x.source == "skipped" then {source: $x.source} else {} end)
  + (if ($x.reused_from | sha) then {reused_from: $x.reused_from} else {} end)
  + (if ($x.skip_reason | type) == "string" and $x.skip_reason != "" then {skip_reason: ($x.skip_reason | text(300))} else {} end)
  + (if ($x.steps | type) == "array" and ($x.steps | length) > 0 then {steps: ($x.steps | steps)} else {} end);

def from_verdict:
  (. // {}) as $v
  | [$v.rows[]? | select(type == "object" and (.current | finite) and (.metric | name_ok))] as $rows
  | {schema: "afpbench-history/1",
     commit: $ARGS.named.commit,
     date: $ARGS.named.date,
     runId: $ARGS.named.run_id,
     key: $ARGS.named.key,
     release: $ARGS.named.release,
     provenance: ($v.current // {} | provenance),
     aggregates: ([$rows[] | select(.group == "aggregate")][0:80]
                  | map({key: .metric,
                         value: ({v: .current, kind: (.kind | text(20)), unit: (.unit | text(20))}
                                 + (if (.floor | finite) and .floor > 0 then {floor} else {} end))})
                  | from_entries),
     tests: ([$rows[] | select(.group != "aggregate" and (.kind | count_kind))][0:600]
             | map({key: .metric, value: .current}) | from_entries)}
  + optional($ARGS.named.extra);

if (. // {}) | type == "object" and .schema == "afpbench-history/1" then
  # a record: its own fields kept, the optional ones given set over its own
  del(.subject, .source, .reused_from, .skip_reason, .steps) + optional(. + ($ARGS.named.extra // {}))
else from_verdict end
