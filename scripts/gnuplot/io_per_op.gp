# afpd syscalls per AFP op for each lantest test, baseline beside current.
#   gnuplot -c io_per_op.gp DATA OUT FORMAT
# DATA: test <TAB> reads/op base <TAB> reads/op cur <TAB> writes/op base <TAB> writes/op cur
if (ARGC != 3) {
    print "usage: gnuplot -c io_per_op.gp DATA OUT png|svg|txt"
    exit status 2
}
DATA = ARG1; OUT = ARG2; FORMAT = ARG3
# common.gp sits beside this script
sep = 0
do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { sep = i } }
load (sep > 0 ? ARG0[1:sep] : "") . "common.gp"
set datafile separator "\t"
set datafile missing "NaN"
set title "afpd syscalls per AFP op (baseline vs current)"
set ylabel "syscalls per AFP op"
set xlabel "lantest test"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right
plot DATA using 2:xtic(1) title "reads, baseline" lc rgb "#9ecae1", \
     '' using 3 title "reads, current" lc rgb "#1f77b4", \
     '' using 4 title "writes, baseline" lc rgb "#fdae6b", \
     '' using 5 title "writes, current" lc rgb "#e6550d"
