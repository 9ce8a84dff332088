# Reading afpbench results (schema afpbench-results/1, docs/results-format.md)
# and baselines (afpbench-baseline/1, baselines/README.md): validation of
# untrusted files, provenance, and one normalised form ("side") that the
# verdict compares. Errors are raised with error("...") and a message that
# names the file's role ($what) and the cause.
include "names";

def results_schema: "afpbench-results/1";
def baseline_schema: "afpbench-baseline/1";
def metric_fields: ["afpd_r", "afpd_w", "cnid_r", "cnid_w"];
# The same reads and writes (the kernel's syscr and syscw) split by what
# their descriptor is: a regular file, a network socket (the client,
# cnid_dbd over TCP), a local (AF_UNIX) socket, a pipe, or anything else (a
# device, a closed descriptor). Newer files only (afpbench counts them with
# the system calls); "afpd_file_r" + "afpd_net_r" + ... = "afpd_r".
def fd_fields: [("afpd", "cnid") as $p | fd_kinds[] as $k | ("r", "w") as $d | "\($p)_\($k)_\($d)"];
# Whether a side's lantest or speedtest samples carry the split.
def has_fd_split: any(.tests[]?.samples[]?; (.afpd_file_r | type) == "number");
# Newer per-sample figures (absent from files written before them): the
# server's CPU time in µs and the bytes afpd read and wrote.
def cpu_fields: ["afpd_cpu_us", "cnid_cpu_us"];
def byte_fields: ["afpd_rchar", "afpd_wchar"];
# The sample field behind a metric field ("afpd_cpu" -> "afpd_cpu_us"); null
# for metrics computed from several fields (time, mbps).
def sample_field:
  if . == "time" or . == "mbps" then null elif . == "afpd_cpu" then "afpd_cpu_us" else . end;

# A test's error: a string in results files, {message} in some older ones.
def error_text:
  if type == "object" then (.message // "no message" | tostring) elif . == null then "no message" else tostring end;

def is_count: type == "number" and . >= 0;

# A test's or a run's error as text. Results files store a test's error as a
# string and a run's as {exit_code, message}; anything else (a hostile or
# older file) is shown as JSON rather than stopping the verdict.
def error_text:
  if type == "string" then .
  elif type == "object" then (.message // "no message" | if type == "string" then . else tojson end)
  elif . == null then "no message"
  else tojson end;
def is_count_or_null: . == null or is_count;

# A sample's system calls by name (afpd_sys, cnid_sys): null (not counted) or
# an object of call names and whole counts.
def sys_table_ok:
  . == null
  or (type == "object" and length <= 600
      and all(to_entries[]; (.key | test("^[a-z0-9_]{1,40}$"))
                            and (.value | type == "number" and . >= 0 and . < 1e15 and . == floor)));

# Check one test entry; $where says which file and test for the message.
def check_test($where):
  if type != "object" then error("\($where): a test entry is not an object")
  elif (.key | type) != "string" or (.key | test("^(lantest\\.[0-9]+|speedtest\\.[A-Za-z]+\\.[0-9]+|spotlight\\.[0-9]+|bigdir\\.[0-9]+\\.(enumerate|stat))$") | not)
  then error("\($where): bad test key \(.key | tojson) (expected lantest.<n>, speedtest.<Op>.<bytes>, spotlight.<files> or bigdir.<entries>.<enumerate|stat>)")
  elif (.samples | type) != "array"
  then error("\($where): test \(.key) has no samples array")
  elif (.afp_ops | is_count_or_null) | not
  then error("\($where): test \(.key) has a bad afp_ops \(.afp_ops | tojson)")
  else
    .key as $key
    | .samples[] |= (
        if type != "object" then error("\($where): test \($key) has a sample that is not an object")
        elif (.us | is_count) | not
        then error("\($where): test \($key) has a sample with a bad \"us\" \(.us | tojson)")
        elif ([.afpd_r, .afpd_w, .cnid_r, .cnid_w, .bytes, .afp_ops, .afpd_rchar, .afpd_wchar,
               .afpd_cpu_us, .cnid_cpu_us, .afpd_hwm_kb, .cnid_hwm_kb, .[fd_fields[]]] | all(is_count_or_null)) | not
        then error("\($where): test \($key) has a sample with a negative or non-numeric count")
        elif ((.afpd_sys | sys_table_ok) and (.cnid_sys | sys_table_ok)) | not
        then error("\($where): test \($key) has a sample whose afpd_sys or cnid_sys is not a table of call names and counts")
        elif .order != null and .order != 1 and .order != 2
        then error("\($where): test \($key) has a sample with a bad \"order\" \(.order | tojson) (1 or 2)")
        else . end)
  end;

def check_tests($where):
  if (.tests | type) != "array" then error("\($where): no \"tests\" array")
  else
    .tests |= map(check_test($where))
    | ([.tests[].key] | group_by(.) | map(select(length > 1) | .[0])) as $dups
    | if ($dups | length) > 0 then error("\($where): duplicate test keys \($dups | join(", "))") else . end
  end;

# The metadata blocks of a run that provenance and the verdict read: each
# must be an object or null (docs/results-format.md).
def run_fields: ["server", "environment", "config", "io_monitoring", "client_cpu"];

# Check the run metadata: the file itself, or each of a merged file's runs.
def check_runs($what):
  (.suite == "merged") as $merged
  | (if $merged | not then [.]
     elif (.runs | type) == "array" and all(.runs[]; type == "object") then .runs
     else error("\($what): \"runs\" is not an array of run objects") end) as $blocks
  | [range(0; $blocks | length) as $i | $blocks[$i] as $r | run_fields[] as $f
     | ($r[$f] | type) as $t | select($t != "object" and $t != "null")
     | (if $merged then "runs[\($i)]." else "" end) + "\($f) is \($t), not an object"] as $bad
  | if ($bad | length) > 0 then error("\($what): \($bad | join("; "))") else . end;

# Validate a results file (one suite or merged).
def check_results($what):
  if type != "object" then error("\($what): not a JSON object")
  elif .schema == null then error("\($what): not an afpbench results file (no \"schema\" field)")
  elif .schema != results_schema
  then error("\($what): results schema \(.schema | tojson) is not supported (expected \(results_schema))")
  elif (.suite_version | type) != "string" then error("\($what): no \"suite_version\" string")
  else check_runs($what) | check_tests($what)
  end;

# "Netatalk4.2.3" -> "4.2.3"; null when the machine type carries no version.
def netatalk_version:
  if type != "string" then null
  else (capture("(?<v>[0-9]+(\\.[0-9]+)+[A-Za-z0-9.~+-]*)") | .v) // null
  end;

# The run metadata blocks of a results file: its runs (merged) or itself.
def run_blocks: if .suite == "merged" then (.runs // []) else [.] end;

# The suite a run block belongs to ("lantest" when it does not say).
def block_suite: if (.suite | type) == "string" then .suite else "lantest" end;

# The client's own CPU (afpbench's getrusage over each whole run), pooled per
# suite over run blocks: {"lantest": {user_us, sys_us, afp_ops, us_per_op}}.
# Blocks without a well-formed client_cpu (null, older files) are skipped;
# us_per_op is null when no AFP op was counted.
def client_cpu_by_suite:
  reduce (if type == "array" then .[] else empty end | objects
          | select((.client_cpu | type) == "object"
                   and ([.client_cpu.user_us, .client_cpu.sys_us, .client_cpu.afp_ops] | all(is_count)))) as $r ({};
    ($r | block_suite) as $s
    | .[$s].user_us += $r.client_cpu.user_us
    | .[$s].sys_us += $r.client_cpu.sys_us
    | .[$s].afp_ops += $r.client_cpu.afp_ops)
  | map_values(.us_per_op = (if .afp_ops > 0 then (.user_us + .sys_us) / .afp_ops * 1000 | round / 1000 else null end));

# The server's afp.conf hash as afpbench read it (server.afp_conf_sha256,
# through the afpd's proc root): the first run block that has one. A missing
# field (files from before it) or anything but 64 lower-case hex digits is
# unknown: null, never an error.
def afp_conf_from_runs:
  [run_blocks | if type == "array" then .[] else empty end
   | objects | .server | objects | .afp_conf_sha256 | strings | select(test("^[0-9a-f]{64}$"))]
  | first // null;

# The settings under test as afpbench read them from the server's afp.conf
# (server.afp_conf_settings: the lines the harness marked, secrets hidden):
# the first run block that has them, else null.
def afp_conf_settings_from_runs:
  [run_blocks | if type == "array" then .[] else empty end
   | objects | .server | objects | .afp_conf_settings | strings | select(length > 0)]
  | first // null;

# Provenance computed from a results file, overlaid with what the gate
# recorded (.provenance: netatalk build, afp.conf hash of AFPBENCH_AFP_CONF,
# git commit, label). The gate's afp.conf hash wins over afpbench's.
def provenance:
  (run_blocks | map(select(.server != null)) | first // {}) as $r
  | {
      afpbench_version: (.tool.version // null),
      suite_version: .suite_version,
      netatalk: {
        version: ($r.server.machine_type | netatalk_version),
        machine_type: ($r.server.machine_type // null),
        build: null
      },
      afp_conf_sha256: afp_conf_from_runs,
      afp_conf_settings: afp_conf_settings_from_runs,
      runner: {
        cpu_model: ($r.environment.cpu_model // null),
        cores: ($r.environment.cores // null),
        kernel: ($r.environment.kernel // null),
        container: $r.environment.container
      },
      hostname: ($r.environment.hostname // null),
      date: (.started_at // null),
      git_commit: null,
      "label": null,
      iterations: ($r.config.iterations // null),
      io_monitoring: $r.io_monitoring.enabled,
      # system call counting: whether it ran, and the filesystem afpd worked in
      syscalls: ($r.io_monitoring.syscalls.counted? // null),
      share_fs: ($r.io_monitoring.syscalls.share_fs? | strings // null),
      client_cpu: (run_blocks | client_cpu_by_suite)
    }
    * (.provenance // {});

# suite_version "lantest-12/1+speedtest/2" -> {"lantest": "lantest-12/1", ...}
def suite_versions:
  split("+") | map(select(length > 0) | {key: (capture("^(?<s>[A-Za-z]+)").s // .), value: .}) | from_entries;

# Why a suite has no IO figures: {"lantest": reason, "speedtest": reason} for
# each suite whose run had IO monitoring off (the first such run's reason);
# a suite that is not listed had it on. Both suites monitor alike.
# Run blocks come from untrusted files: anything malformed is skipped.
def io_off_reasons:
  reduce (if type == "array" then .[] else empty end | objects
          | select((.io_monitoring | type) == "object" and .io_monitoring.enabled == false)) as $r ({};
    (if ($r.suite | type) == "string" then $r.suite else "lantest" end) as $s
    | if has($s) then . else .[$s] = ($r.io_monitoring.reason // "IO monitoring off" | tostring) end);

# Why a run counted no system calls (the first run block that says), or null.
def sys_off_reason:
  [if type == "array" then .[] else empty end | objects | .io_monitoring | objects
   | .syscalls | objects | select(.counted == false) | .reason | strings] | first // null;

# Normalise a validated results file into a side.
def results_side:
  run_blocks as $runs
  | {
      source: "results",
      suite_versions: (.suite_version | suite_versions),
      provenance: provenance,
      status: (.status // "ok"),
      run_errors: [$runs[] | select(.status == "error") | (.error | error_text)],
      io_off: ($runs | io_off_reasons),
      sys_off: ($runs | sys_off_reason),
      client_cpu: ($runs | client_cpu_by_suite),
      # lantest tests the run was asked for: a selected test without results is an error
      expected: ([$runs[] | select((.config.tests | type) == "array") | .config.tests[]
                  | select(type == "number") | "lantest.\(.)"] | unique),
      tests: [.tests[] | .samples |= map(. + {run: (.run // 0)})],
      # afpbench load: the "load" object of this run (scripts/jq/load.jq)
      load_runs: [.load | objects],
      instr_runs: [$runs[] | .instr? | objects],   # instrumented runs (instr.jq)
      # A/B taken sequentially: what the gate's settle_pairs did (or null)
      settle: ([$runs[] | .config.settle? | objects] | first // null)
    };

# Normalise a baseline into a side. Baselines already carry run numbers.
def baseline_side:
  {
    source: "baseline",
    suite_versions: (.suite_version | suite_versions),
    provenance: (.provenance // {}),
    status: "ok",
    run_errors: [],
    io_off: (.runs | io_off_reasons),
    sys_off: (.runs | sys_off_reason),
    client_cpu: (.runs | client_cpu_by_suite),
    expected: [],
    tests: [.tests[] | .samples |= map(. + {run: (.run // 0)})],
    load_runs: [.load_runs // [] | .[] | objects],
    instr_runs: [.runs // [] | .[]? | objects | .instr? | objects]   # instrumented runs (instr.jq)
  };

# A baseline the gate can trust (issue 10): it holds tests, and every figure
# is in a range a real run can produce. A sample's time is 1 µs to 1e11 µs
# (28 hours); syscall counts, bytes and AFP ops are at most 1e15. A 0 µs
# timing or a 1e308 count would make every ratio pass or fail by fiat.
def sane_us_max: 1e11;
def sane_count_max: 1e15;
def check_sane_baseline($what):
  if (.tests | length) == 0 and ([.load, (.load_runs // [])[]] | map(objects) | length) == 0 then error("\($what): holds no tests: nothing could be compared; make it with scripts/baseline from a run that measured something")
  else
    ([.tests[] | .key as $k | .samples[]
      | select((.us < 1 or .us > sane_us_max)
               or any(.afpd_r, .afpd_w, .cnid_r, .cnid_w, .bytes, .afp_ops, .[fd_fields[]]; . != null and . > sane_count_max))
      | "\($k) (us \(.us))"] | unique) as $bad
    | if ($bad | length) > 0
      then error("\($what): values outside a sane range in \($bad[0:5] | join(", "))\(if ($bad | length) > 5 then " and \($bad | length - 5) more" else "" end) (a sample's time is 1 to \(sane_us_max) µs, counts at most \(sane_count_max)); not a usable baseline")
      else . end
  end;

# Baseline and run share no test: nothing was compared (issue 10). [] or one
# message naming the baseline file.
def no_shared_tests($ckeys; $bkeys; $file):
  if ($ckeys | length) > 0 and ($bkeys | length) > 0 and ([$ckeys[] | select(. as $k | $bkeys | index($k))] | length) == 0
  then ["baseline \($file) shares no test with this run (baseline: \($bkeys[0:6] | join(", "))\(if ($bkeys | length) > 6 then ", …" else "" end); run: \($ckeys[0:6] | join(", "))\(if ($ckeys | length) > 6 then ", …" else "" end)): nothing compared"]
  else [] end;

# Accept a baseline file, or a results file used as a baseline.
def any_side($what):
  if type != "object" then error("\($what): not a JSON object")
  elif .schema == baseline_schema then
    if (.suite_version | type) != "string" then error("\($what): no \"suite_version\" string")
    else check_tests($what) | check_sane_baseline($what) | baseline_side end
  elif .schema == results_schema then check_results($what) | check_sane_baseline($what) | results_side
  elif (.schema | type) == "string" and (.schema | startswith("afpbench-baseline/"))
  then error("\($what): baseline schema \(.schema | tojson) is not supported: this version reads \(baseline_schema); remake the baseline with scripts/baseline")
  elif .schema == null then error("\($what): not an afpbench baseline or results file (no \"schema\" field)")
  else error("\($what): unknown schema \(.schema | tojson) (expected \(baseline_schema) or \(results_schema))")
  end;

# The part of the provenance that says "same machine": timings from two
# machines cannot be compared. Another CPU model or core count (or a
# container against none) is another machine; another kernel build is a
# note, not another machine: runners of one type get kernel updates.
def fingerprint: (.runner // {}) | {cpu_model, cores, container};
