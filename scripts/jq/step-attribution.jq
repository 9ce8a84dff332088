# What moved at a step of a backfill (scripts/backfill), for the record's
# "steps" (docs/history.md): each step found in the series at one commit, with
# the AFP commands and calls behind it and the code site, from the gate's run
# of that commit against its predecessor measured again (verdict.json: the
# per-AFP-command pass on the per-test rows) and the traces of that run.
#
#   jq -c -f step-attribution.jq --argjson steps '[{metric, before, after}]' \
#      --argjson swap false|true --slurpfile traces trace.json|/dev/null \
#      --slurpfile others trace.json|/dev/null verdict.json
#
# The run is the side with more calls against the other (scripts/backfill):
# the new commit against the old one (swap false), or the old one against
# the new (swap true: its baseline is the new commit's, so each call's
# before and after are turned back). Its traces show the code of the calls
# it has more of; the other side's traces (others), where they were made,
# tell which of its code sites made more of a call: that one is the site.
#
# A step's metric is an aggregate ("aggregate.afpd_sys_stat_per_op"); the
# rows behind it are the per-test rows of the same quantity
# ("lantest.9.afpd_sys_stat") that the verdict found moved, with commands.

def quantity: sub("^aggregate\\."; "") | sub("_per_op$"; "");
# The code site of this command's moved calls: of the traced side's sites of
# those calls, the first whose function makes more of the call there than on
# the other side (a function's line moves between commits: compared by
# name); when the other side's traces are of other commands, the first whose
# function they never show making the call; else the first.
def fn: sub(" \\(.*$"; "");
def site_of($command; $calls):
  [($others[0].traces // [])[] | .command as $c | .sites[]? | . + {command: $c}] as $theirs
  | ([$theirs[] | select(.command == $command)] | length > 0) as $same
  | [($traces[0].traces // [])[] | select(.command == $command) | .sites[]?
     | select(.call as $c | $calls | index($c))
     | . as $s
     | [$theirs[] | select(.call == $s.call and (.site | fn) == ($s.site | fn))] as $o
     | . + {more: (if $same then (.head // 0) > ([$o[] | select(.command == $command) | .head // 0] | add // 0)
                   else ($o | length) == 0 end)}]
  | (first(.[] | select(.more) | .site) // first(.[].site) // "");

def both($command):
  ([($traces[0].traces // [])[] | select(.command == $command)] | length > 0)
  and ([($others[0].traces // [])[] | select(.command == $command)] | length > 0);

. as $v
| [$steps[] | (.metric | quantity) as $q
   | . + {commands: ([$v.rows[]? | select((.metric | test("^lantest\\.[0-9]+\\.")) and (.metric | sub("^lantest\\.[0-9]+\\."; "")) == $q)
                     | .commands[]? | select(type == "object")]
                    | unique_by(.command) | sort_by(- (.delta // 0 | if . < 0 then -. else . end))
                    | map({command, calls: [.moves[]? | if $swap then {call, before: .current, after: .baseline}
                                                        else {call, before: .baseline, after: .current} end]}))}
   # the commands that both sides traced first: there the difference shows
   | . + {site: (first(.commands[] | select(both(.command)) | site_of(.command; [.calls[].call]) | select(. != ""))
                 // first(.commands[] | site_of(.command; [.calls[].call]) | select(. != "")) // "")}]
