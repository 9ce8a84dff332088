# Merge the per-suite results files of one gate run into results.json
# (docs/results-format.md, "Merged files").
#   jq -n -L scripts/jq --argjson extra '{...}' -f merge.jq lantest.json speedtest.json
# $extra: provenance the gate knows and afpbench cannot (netatalk build,
# afp.conf hash, git commit, label); null values are left out. A/B files
# (with a "base") merge their bases the same way, into "base" and "pairing";
# all files of a run are A/B or none is.
include "results";

# merge_docs($docs): one merged document of checked results documents.
def merge_docs($docs):
  ([$docs[].tests[].key] | group_by(.) | map(select(length > 1) | .[0])) as $dups
  | if ($dups | length) > 0 then error("merge: test keys appear in more than one file: \($dups | join(", "))") else . end
  | {
      schema: results_schema,
      tool: $docs[0].tool,
      suite: "merged",
      suite_version: ([$docs[].suite_version] | join("+")),
      status: (if any($docs[]; .status == "error") then "error" else "ok" end),
      error: ([$docs[] | select(.status == "error") | .error] | first // null),
      started_at: ([$docs[].started_at // empty] | min),
      finished_at: ([$docs[].finished_at // empty] | max),
      argv: null,
      runs: [$docs[] | {suite, suite_version, tool, status, error, started_at, finished_at, argv,
                        server, environment, config, io_monitoring, client_cpu}
                       + (if .instr != null then {instr} else {} end)
                       + (if .by_command != null then {by_command} else {} end)],
      tests: [$docs[].tests[]],
      # afpbench load's "load" object and spotlight's (one run of each per
      # gate run)
      load: ([$docs[].load | objects] | first // null),
      spotlight: ([$docs[].spotlight | objects] | first // null)
    }
  | if .load == null then del(.load) else . end
  | if .spotlight == null then del(.spotlight) else . end
  | .provenance = ({suite: "merged", suite_version, tool, started_at, runs} | provenance);

[inputs as $doc | input_filename as $file | $doc | check_results($file) | {file: $file, doc: .}] as $in
| if ($in | length) == 0 then error("merge: no results files") else . end
| ([$in[] | select((.doc.base | type) == "object")] | length) as $ab
| if $ab > 0 and $ab < ($in | length)
  then error("merge: \([$in[] | select((.doc.base | type) != "object") | .file] | join(", ")) without a base next to A/B files: all suites of a run measure base and head, or none does")
  else . end
| merge_docs([$in[].doc | del(.base, .pairing)])
| .provenance *= ($extra | with_entries(select(.value != null)))
| if $ab > 0 then
    .pairing = $in[0].doc.pairing
    | .base = merge_docs([$in[] | .file as $f | .doc.base | check_results("\($f), base")])
  else . end
