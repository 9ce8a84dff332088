# What a row measures, in words for people (the verdict's summary, the
# report's tables): "afpd stat calls", "time", "test 9 afpd reads".

# "afpd_sys_stat" or "afpd_sys_stat_per_op" -> "afpd stat calls"; the work
# calls together are "afpd system calls"; null for other quantities.
def sys_label($q):
  ([$q | capture("^(?<p>afpd|cnid)_sys_(?<f>[a-z]+)(_per_op)?$")] | first) as $m
  | if $m == null then null
    else (if $m.p == "afpd" then "afpd" else "cnid_dbd" end)
      + (if $m.f == "total" then " system calls" else " \($m.f) calls" end)
    end;

# The kinds of descriptor afpbench counts reads and writes by (its
# sysmon_fd_kind_name), each in words: the one list (results.jq's fd_fields,
# verdict.jq's rows).
def fd_kind_words: {"file": "file", "net": "network", "unix": "local socket", "pipe": "pipe", "other": "other"};
def fd_kinds: fd_kind_words | keys_unsorted;
# "file|net|unix|pipe|other", for patterns
def fd_kind_re: fd_kinds | join("|");

# "afpd_pipe_r" -> "afpd pipe reads" (reads and writes by what their
# descriptor is, results.jq's fd_fields); null for other quantities.
def fd_label($q):
  ([$q | capture("^(?<p>afpd|cnid)_(?<k>\(fd_kind_re))_(?<d>[rw])(_per_op)?$")] | first) as $m
  | if $m == null then null
    else (if $m.p == "afpd" then "afpd" else "cnid_dbd" end)
      + " " + fd_kind_words[$m.k]
      + (if $m.d == "r" then " reads" else " writes" end)
    end;

# A quantity ("afpd_r", "time_per_op", "cnid_sys_sync") in words; null when
# it has none.
def quantity_words($q):
  {"time": "time", "afpd_cpu": "afpd CPU", "cnid_cpu": "cnid_dbd CPU", "afpd_r": "afpd reads",
   "afpd_w": "afpd writes", "cnid_r": "cnid_dbd reads", "cnid_w": "cnid_dbd writes",
   "afpd_rchar": "afpd bytes read", "afpd_wchar": "afpd bytes written",
   "afpd_instr": "afpd instructions", "afpd_hwm_kb": "afpd peak memory", "cnid_hwm_kb": "cnid_dbd peak memory"}[$q | sub("_per_op$"; "")]
  // sys_label($q) // fd_label($q);

# A row in few words (the summary): "afpd stat calls/op" (an aggregate), "test 9 afpd reads"
# (a lantest test); its id where it has no words.
def row_label:
  (.metric | split(".")) as $p
  | quantity_words($p | last) as $w
  | if $w == null then .metric
    elif .group == "aggregate" then "\($w)/op"
    elif .group == "lantest" and ($p | length) == 3 then "test \($p[1]) \($w)"
    else .metric end;
