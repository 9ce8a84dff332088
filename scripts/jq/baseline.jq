# Make a baseline (schema afpbench-baseline/1, baselines/README.md) from the
# results.json of one or more gate runs on the same machine and server.
#   jq -n -L scripts/jq -f baseline.jq --arg machine_label L --arg created_at T \
#      RESULTS_DIR1/results.json RESULTS_DIR2/results.json ...
# Refuses mixed suite versions, machines, netatalk versions or afp.conf
# hashes (when both runs know theirs), and runs or
# tests that stopped with an error: a baseline must be a clean reference.
include "results";

[inputs as $doc | input_filename as $file | $doc | check_results($file) | {file: $file, doc: .}] as $in
| if ($in | length) == 0 then error("no results files given") else . end
| $in[0] as $first
| ($first.doc | provenance) as $prov
# the server's afp.conf hash: the first run's that knows it (unknown is no conflict)
| ([$in[].doc | provenance | .afp_conf_sha256 // empty] | first // null) as $conf
| [$in[] | .file as $f | .doc
   | if .status == "error" then error("\($f): the run stopped early (\(.error | error_text)); a baseline needs complete runs")
     elif .suite_version != $first.doc.suite_version
     then error("\($f): suite version \(.suite_version) differs from \($first.doc.suite_version) in \($first.file)")
     elif (provenance | fingerprint) != ($prov | fingerprint)
     then error("\($f): measured on another machine than \($first.file) (\(provenance | fingerprint | tojson) vs \($prov | fingerprint | tojson))")
     elif (provenance | .netatalk.version) != $prov.netatalk.version
     then error("\($f): netatalk \(provenance | .netatalk.version) differs from \($prov.netatalk.version) in \($first.file)")
     elif (provenance | .afp_conf_sha256) as $h | $h != null and $h != $conf
     then error("\($f): the server's afp.conf (sha256 \(provenance | .afp_conf_sha256)) differs from an earlier run's (\($conf)); a baseline is one server configuration")
     else ([.tests[] | select(.status == "error") | .key]) as $bad
       | if ($bad | length) > 0 then error("\($f): tests \($bad | join(", ")) failed; a baseline needs clean tests") else empty end
     end] as $checked
| ([range(0; $in | length) as $r | $in[$r].doc.tests[] | .samples |= map(. + {run: $r})]) as $all
| {
    schema: baseline_schema,
    "label": (if $machine_label == "" then null else $machine_label end),
    created_at: $created_at,
    suite_version: $first.doc.suite_version,
    # the client's CPU pooled over every run
    provenance: ($prov + {runs: ($in | length), "label": (if $machine_label == "" then $prov.label else $machine_label end),
                          afp_conf_sha256: $conf,
                          client_cpu: ([$in[].doc | run_blocks[]] | client_cpu_by_suite)}),
    sources: [$in[] | {file, started_at: .doc.started_at, finished_at: .doc.finished_at,
                       git_commit: (.doc | provenance | .git_commit), iterations: (.doc | provenance | .iterations)}],
    runs: [$in[].doc | run_blocks[]],
    # afpbench load: the "load" object of each run, pooled by scripts/jq/load.jq
    load_runs: [$in[].doc.load | objects],
    # one entry per test key, in first-seen order, with the samples of every run
    tests: ([$all[].key] | reduce .[] as $k ([]; if index([$k]) then . else . + [$k] end)
            | map(. as $k | [$all[] | select(.key == $k)] as $ts
                  | $ts[0] + {samples: [$ts[].samples[]],
                              afp_ops: ([$ts[].afp_ops // empty] | max)}))
  }
