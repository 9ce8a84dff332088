# Merge the per-suite results files of one gate run into results.json
# (docs/results-format.md, "Merged files").
#   jq -n -L scripts/jq --argjson extra '{...}' -f merge.jq lantest.json speedtest.json
# $extra: provenance the gate knows and afpbench cannot (netatalk build,
# afp.conf hash, git commit, label); null values are left out.
include "results";

[inputs as $doc | input_filename as $file | $doc | check_results($file)] as $docs
| if ($docs | length) == 0 then error("merge: no results files") else . end
| ([$docs[].tests[].key] | group_by(.) | map(select(length > 1) | .[0])) as $dups
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
                     + (if .instr != null then {instr} else {} end)],
    tests: [$docs[].tests[]]
  }
| .provenance = ({suite: "merged", suite_version, tool, started_at, runs} | provenance)
               * ($extra | with_entries(select(.value != null)))
