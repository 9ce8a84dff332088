# afpd's and cnid_dbd's system calls, by call (afpbench's afpd_sys and
# cnid_sys, docs/results-format.md): the families people read, the calls whose
# count follows timing rather than work, per-sample sums and the calls that
# moved. Data only: the rule that judges the rows is verdict.jq's (like IO
# counts); docs/verdict-format.md, "System calls", has the measurements.

# The families, by the names of x86_64 and arm64 alike (a call in none of
# them is "other"). "wait" holds the calls whose count follows timing, not
# work (measured, docs/verdict-format.md): afpd reads its socket without
# blocking and waits in pselect6 when a read finds nothing yet, so how many
# receives and waits a request takes depends on when its bytes arrive.
def sys_family_list:
  [ {family: "stat", calls: ["stat", "lstat", "fstat", "newfstatat", "fstatat64", "statx", "statfs",
                            "fstatfs", "access", "faccessat", "faccessat2", "readlink", "readlinkat"]},
    {family: "open", calls: ["open", "openat", "openat2", "creat", "close", "close_range", "dup", "dup2",
                            "dup3", "name_to_handle_at", "open_by_handle_at"]},
    {family: "xattr", calls: ["getxattr", "lgetxattr", "fgetxattr", "setxattr", "lsetxattr", "fsetxattr",
                             "listxattr", "llistxattr", "flistxattr", "removexattr", "lremovexattr",
                             "fremovexattr", "getxattrat", "setxattrat", "listxattrat", "removexattrat"]},
    {family: "directory", calls: ["getdents", "getdents64", "chdir", "fchdir", "getcwd", "mkdir", "mkdirat",
                                 "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link",
                                 "linkat", "symlink", "symlinkat", "mknod", "mknodat", "chmod", "fchmod",
                                 "fchmodat", "fchmodat2", "chown", "fchown", "fchownat", "lchown", "utime",
                                 "utimes", "utimensat", "futimesat"]},
    {family: "data", calls: ["read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev",
                            "preadv2", "pwritev2", "sendfile", "splice", "copy_file_range", "lseek",
                            "truncate", "ftruncate", "fallocate", "fadvise64", "readahead"]},
    {family: "sync", calls: ["fsync", "fdatasync", "sync", "syncfs", "sync_file_range"]},
    {family: "lock", calls: ["fcntl", "flock"]},
    {family: "network", calls: ["socket", "socketpair", "connect", "accept", "accept4", "bind", "listen",
                               "sendto", "sendmsg", "sendmmsg", "shutdown", "getsockopt", "setsockopt",
                               "getsockname", "getpeername"]},
    {family: "wait", calls: ["recvfrom", "recvmsg", "recvmmsg", "select", "pselect6", "poll", "ppoll",
                            "epoll_wait", "epoll_pwait", "epoll_pwait2", "nanosleep", "clock_nanosleep",
                            "futex", "sched_yield", "pause", "rt_sigsuspend", "rt_sigtimedwait", "wait4",
                            "waitid"]} ];

# {call: family}; bind it once ("sys_family_map as $fm") and look calls up in it.
def sys_family_map: reduce (sys_family_list[] | .family as $f | .calls[] | {key: ., value: $f}) as $e ({}; .[$e.key] = $e.value);
# The order families are shown in.
def sys_family_names: [sys_family_list[].family] + ["other"];
# The family whose count follows timing: shown, never gated.
def sys_timing_family: "wait";

# A sample's calls summed by family, plus "total": every call but the
# timing family's. null when not counted.
def sys_by_family($fm):
  if type != "object" then null
  else reduce to_entries[] as $e ({total: 0};
         ($fm[$e.key] // "other") as $f
         | .[$f] += $e.value
         | if $f == sys_timing_family then . else .total += $e.value end)
  end;

# The calls of one family in a sample's table ("total": every work call).
def sys_calls_of($fm; $family):
  if type != "object" then null
  elif $family == "all" then .
  elif $family == "total" then with_entries(select(($fm[.key] // "other") != sys_timing_family))
  else with_entries(select(($fm[.key] // "other") == $family)) end;

# Which process's table a row measures: "afpd" or "cnid".
def sys_field($proc): "\($proc)_sys";

# A test's families with calls on either side ($tests: the test on each side
# that has it), in display order, "total" first; [] when no sample of either
# side was counted.
def sys_row_families($fm; $proc; $tests):
  [$tests[] | objects | .samples[]? | .[sys_field($proc)] | objects | sys_by_family($fm) | keys[]] | unique
  | if length == 0 then []
    else . as $have | ["total"] + [sys_family_names[] | select(. as $f | $have | index($f))]
    end;

# One test's samples of one family as [{run, iteration, v}]; null when the
# side never counted this process's calls in that test.
def sys_samples($fm; $proc; $family):
  if . == null then null
  elif all(.samples[]; .[sys_field($proc)] == null) then null
  else [.samples[] | {run, iteration,
          v: (.[sys_field($proc)] | if . == null then null else sys_by_family($fm)[$family] // 0 end)}]
  end;

# Per AFP op over the tests $keys: one sample per (run, iteration) in which
# each of them was counted, {run, iteration, afp_ops, calls: {call: per op}}.
def sys_aggregate_samples($proc; $keys):
  [.tests[] | select(.key as $k | $keys | index($k)) | . as $t
   | .samples[] | {run, iteration, key: $t.key, ops: (.afp_ops // $t.afp_ops // 0), calls: .[sys_field($proc)]}]
  | group_by([.run, .iteration])
  | map(select(length == ($keys | length) and all(.[]; .calls != null))
        | (map(.ops) | add) as $ops | select($ops > 0)
        | {run: .[0].run, iteration: .[0].iteration, afp_ops: $ops,
           calls: (reduce (.[].calls | to_entries[]) as $e ({}; .[$e.key] += $e.value) | map_values(. / $ops))});

# Every call of one family ("total": the work calls, "all": every call) in
# two sets of samples' call tables (each a list of {call: count} objects, per
# sample or per op), with its median on each side; change_pct is null for a
# call the baseline never made. Largest absolute change first.
def sys_call_table($fm; $family; $b; $c):
  def med: sort as $s | ($s | length) as $n
    | if $n == 0 then 0 elif $n % 2 == 1 then $s[($n - 1) / 2] else ($s[$n / 2 - 1] + $s[$n / 2]) / 2 end;
  ([$b[], $c[] | objects | sys_calls_of($fm; $family) | keys[]] | unique) as $calls
  | [$calls[] as $k
     | ([$b[] | objects | .[$k] // 0] | med) as $x
     | ([$c[] | objects | .[$k] // 0] | med) as $y
     | {call: $k, baseline: $x, current: $y,
        change_pct: (if $x != 0 then (($y - $x) / $x * 1000 | round) / 10 + 0 else null end)}]
  | sort_by(- (.current - .baseline | if . < 0 then -. else . end), .call);

# Moved calls ({call, baseline, current}) costliest first: a call that waits
# for the disk (the sync family) outweighs a hundred cheap ones, so a flush
# added before each close is named before the close.
def sys_call_cost($fm): if ($fm[.] // "other") == "sync" then 100 else 1 end;
def sys_by_cost($fm): sort_by(- ((.current - .baseline | fabs) * (.call | sys_call_cost($fm))), .call);

# The calls that moved: by half a percent or more, or made on one side only
# (a smaller move is counting noise, not something to name).
def sys_call_moves($fm; $family; $b; $c):
  [sys_call_table($fm; $family; $b; $c)[]
   | select(.baseline != .current and (.change_pct == null or (.change_pct | if . < 0 then -. else . end) >= 0.5))];
