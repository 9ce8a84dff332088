# main's own run as the reference for the counts (docs/history.md, "The
# reference"): the action finds, in the default branch's history, the run of
# a pull request's merge-base (or of the nearest ancestor that has one) and
# hands it over as reference.json (schema afpbench-reference/1). A count row
# the reference has a figure for is judged against that figure instead of
# the stored baseline's, so a step main took after the baseline was made is
# never the pull request's fault; timings keep the stored baseline. Only
# against a stored baseline: an A/B run measures its own base.
#
# reference.json: {schema, commit, merge_base, behind, date, branch, runner,
#   netatalk, build, values: {metric: figure}, steps: [{metric, commit}]}
include "stats";

# The reference's figure for a row, or null.
def ref_value($ref; $metric):
  if $ref == null then null else ($ref.values[$metric] // null) | numbers end;

def short_commit: .[0:7];

# Where main's figure came from, for reasons: "main at 1a2b3c4" (and how far
# below the merge-base that run is), or a push's "main's previous run at 1a2b3c4".
def ref_where($ref):
  if $ref.role == "previous" then "main's previous run at \($ref.commit | short_commit)"
  else "main at \($ref.commit | short_commit)"
    + (if ($ref.behind // 0) > 0 then ", \($ref.behind) commit\(if $ref.behind == 1 then "" else "s" end) before the merge-base" else "" end)
  end;

# A push's own step (reference role previous): a count row that moved
# against main's previous run moved at this push. A step a pull request
# showed before it merged, or where that cannot be read, is said as a step
# (state "step": recorded, named, never a fail); one that came with no pull
# request stays a fail, once, at this push: nobody saw it before.
def push_step($ref):
  if $ref.role != "previous" or (.state != "fail" and .state != "improved") then .
  else ($ref.pull_requests) as $pulls
    | .main.step = true
    | if $pulls == null then
        .state = "step" | .reason = "a step at this commit (whether a pull request showed it could not be read): \(.reason)"
      elif ($pulls | length) > 0 then
        .state = "step" | .reason = "a step at this commit, which pull request \($pulls | map("#\(.)") | join(", ")) showed before it merged: \(.reason)"
      elif .state == "fail" then
        .reason = "a step at this commit that no pull request showed: \(.reason)"
      else . end
  end;

# The step in main's history that moved $metric last, or null.
def ref_step($ref; $metric):
  [($ref.steps // [])[] | select(.metric == $metric)] | last;

# A count row judged against main's figure $rv ($judged: judge_counts against
# it), keeping what the stored baseline said ($stored) and its figure ($bv:
# the baseline's samples). A row that the stored baseline fails or improves
# and main's figure passes moved on main, not here: on_main.
def against_main($ref; $rv; $stored; $bv):
  (.state) as $now
  | ($bv | median) as $bm
  | .baseline = ($rv | sig6)
  | .main = {commit: $ref.commit, value: ($rv | sig6), stored: ($bm | sig6), stored_state: $stored.state,
             stored_reason: $stored.reason,
             on_main: (($stored.state == "fail" or $stored.state == "improved") and ($now != "fail" and $now != "improved")),
             since: (ref_step($ref; .metric).commit // null)}
  | .reason = "against \(ref_where($ref)): \(.reason)"
  | if .main.on_main then
      # the stored baseline's words up to their first clause: "rose +100 % (3501 → 7001)"
      .reason = "moved on main\(if $ref.role == "previous" then " before this push" else ", not here" end)\(if .main.since != null then " (a step at \(.main.since | short_commit))" else "" end): against the stored baseline it \(.main.stored_reason | split(", beyond")[0] | split("; ")[0]); \(.reason)"
    else . end
  | push_step($ref);

# After every row: the rows main moved, and the notes that say so. A row
# whose stored baseline is far from main's figure keeps no per-call or
# per-command breakdown: that compared with the stale baseline.
def runner_words: "\(.cpu_model // "unknown CPU")\(if .cores != null then ", \(.cores) cores" else "" end)\(if .container == true then ", container" else "" end)";

def reference_finish($ref):
  if $ref == null or .paired or (.have_base | not) then .
    else
      .rows |= map(if .main != null and .floor != null and .main.stored != null
                      and ((.main.value - .main.stored) | fabs) > .floor
                   then del(.movers, .commands) | .main.breakdown = "not shown: it compares with the stored baseline, which main has moved away from"
                   else . end)
      | ([.rows[] | select(.main.on_main == true)]) as $moved
      | ([.rows[] | select(.main.step == true)]) as $step
      | .reference_used = {role: ($ref.role // "merge-base"), commit: $ref.commit, merge_base: ($ref.merge_base // null), behind: ($ref.behind // 0),
                      pull_requests: ($ref.pull_requests // null), afp_conf_settings: ($ref.afp_conf_settings // null),
                      step: [$step[] | {metric, state}],
                      date: ($ref.date // null), branch: ($ref.branch // "main"), runner: ($ref.runner // null),
                      netatalk: ($ref.netatalk // null), build: ($ref.build // null),
                      rows: ([.rows[] | select(.main != null)] | length),
                      on_main: [$moved[] | {metric, since: .main.since}]}
      | .notes += ["counts compared with \(ref_where($ref)) (\($ref.date // "?" | .[0:10])), \(.reference_used.rows) rows; timings with the stored baseline"]
      # counts are exact for the same software on the same system: a libc or
      # kernel of another runner can turn stat into statx
      | (.cur.provenance.runner // {} | runner_words) as $here
      | (if $ref.runner != null and $ref.runner != $here then
           .notes += ["main's run was measured on another runner (\($ref.runner)); this one: \($here): a kernel or C library can change which calls are made"]
         else . end)
      | (if ($ref.netatalk // "") != "" and $ref.netatalk != (.cur.provenance.netatalk.version // "") then
           .notes += ["main's run served netatalk \($ref.netatalk); this run \(.cur.provenance.netatalk.version // "?")"]
         else . end)
      | if ($moved | length) > 0 then
          .notes += ["the stored baseline trails main: \($moved | length) count row\(if ($moved | length) == 1 then "" else "s" end) moved on main since it was made; refresh it with this run's plan (scripts/run-gate --make-baseline BASELINE --plan plan.json), or mode: baseline on a release"]
        else . end
    end;
