# afpd syscalls per AFP op for each lantest test, baseline beside current, as
# horizontal bars named by test: per test, reads (baseline, current) above
# writes (baseline, current).
#   gnuplot -c io_per_op.gp DATA OUT FORMAT
# DATA: test name <TAB> reads/op base <TAB> reads/op cur <TAB> writes/op base <TAB> writes/op cur
if (ARGC != 3) {
    print "usage: gnuplot -c io_per_op.gp DATA OUT png|svg|txt"
    exit status 2
}
DATA = ARG1; OUT = ARG2; FORMAT = ARG3
set datafile separator "\t"
set datafile missing "NaN"
stats DATA using 3 nooutput
N = STATS_records
# four bars of 8 px and a gap per test
HEIGHT = 130 + 40 * N
# common.gp sits beside this script
sep = 0
do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { sep = i } }
load (sep > 0 ? ARG0[1:sep] : "") . "common.gp"
set title "afpd syscalls per AFP op (light: baseline, dark: current)"
set xlabel "syscalls per AFP op"
unset grid
set grid xtics lc rgb "#dddddd"
set border 1
set ytics scale 0
set yrange [N - 0.5:-0.5]
set xrange [0:*]
set style fill solid 0.85 noborder
set key below horizontal maxrows 1
if (FORMAT eq "txt") {
    plot DATA using (0):($0 - 0.15):2:(0):ytic(1) with vectors nohead title "reads, baseline", \
         '' using (0):($0 - 0.05):3:(0) with vectors nohead title "reads, current", \
         '' using (0):($0 + 0.05):4:(0) with vectors nohead title "writes, baseline", \
         '' using (0):($0 + 0.15):5:(0) with vectors nohead title "writes, current"
} else {
    plot DATA using (0):($0 - 0.3):(0):2:($0 - 0.39):($0 - 0.21):ytic(1) with boxxyerror lc rgb "#9ecae1" title "reads, baseline", \
         '' using (0):($0 - 0.1):(0):3:($0 - 0.19):($0 - 0.01) with boxxyerror lc rgb "#1f77b4" title "reads, current", \
         '' using (0):($0 + 0.1):(0):4:($0 + 0.01):($0 + 0.19) with boxxyerror lc rgb "#fdae6b" title "writes, baseline", \
         '' using (0):($0 + 0.3):(0):5:($0 + 0.21):($0 + 0.39) with boxxyerror lc rgb "#e6550d" title "writes, current"
}
