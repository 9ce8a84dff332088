# Which AFP commands the gate traces after a run (scripts/gate, trace step):
# each command the verdict named on a deciding per-test system call row,
# traced in the test that sends it least often (the fastest to run), at its
# middle request; at most two commands. One line each:
#   TEST_NUMBER <TAB> COMMAND <TAB> REQUEST <TAB> CALLS (comma-separated, for gdb)
[.rows[]
 | select(.kind == "sys" and (.state == "fail" or .state == "improved") and .group == "lantest"
          and (.metric | test("_sys_total$") | not))
 | (.test | ltrimstr("lantest.") | tonumber) as $id
 | (.commands // [])[]
 | select(.command | test("^FP[A-Za-z0-9]+$"))
 | {id: $id, command, n: (.calls.current // .calls.baseline // 0), calls: [.moves[].call]}]
| group_by(.command)
| map(sort_by(.n) | .[0] + {calls: ([.[].calls[]] | unique)})
| sort_by(- (.calls | length), .n)
| .[0:2][]
| "\(.id)\t\(.command)\t\([(.n / 2 | floor), 1] | max)\t\(.calls | map(select(test("^[a-z0-9_]+$"))) | join(","))"
