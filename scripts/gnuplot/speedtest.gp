# speedtest throughput against file size (log x, iozone style), current as
# solid lines, baseline dashed.
#   gnuplot -c speedtest.gp DATA OUT FORMAT "OP1 OP2 ..."
# DATA: one block per op, in the order of the op list, blocks separated by two
# blank lines; columns: size MiB <TAB> baseline MB/s <TAB> current MB/s.
if (ARGC != 4) {
    print "usage: gnuplot -c speedtest.gp DATA OUT png|svg|txt \"OP ...\""
    exit status 2
}
DATA = ARG1; OUT = ARG2; FORMAT = ARG3; OPS = ARG4
if (words(OPS) < 1) { print "no speedtest ops to plot"; exit status 2 }
# common.gp sits beside this script
sep = 0
do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { sep = i } }
load (sep > 0 ? ARG0[1:sep] : "") . "common.gp"
set datafile separator "\t"
set datafile missing "NaN"
set title "speedtest throughput by file size (dashed: baseline)"
set xlabel "file size (MiB)"
set ylabel "MB/s"
set logscale x 2
set yrange [0:*]
set key outside right
plot for [i=1:words(OPS)] DATA index (i - 1) using 1:3 with linespoints lw 2 pt 7 lc i title word(OPS, i), \
     for [i=1:words(OPS)] DATA index (i - 1) using 1:2 with linespoints dt 2 pt 6 lc i title word(OPS, i) . " (baseline)"
