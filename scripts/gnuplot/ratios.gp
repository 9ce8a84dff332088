# Per-test time ratios (current / baseline) against the threshold band.
#   gnuplot -c ratios.gp DATA OUT FORMAT THRESHOLD_PERCENT
# DATA: label <TAB> ratio <TAB> state (0 pass, 1 fail, 2 inconclusive, 3 improved)
if (ARGC != 4) {
    print "usage: gnuplot -c ratios.gp DATA OUT png|svg|txt THRESHOLD_PERCENT"
    exit status 2
}
DATA = ARG1; OUT = ARG2; FORMAT = ARG3; TH = real(ARG4) / 100.0
if (TH < 0 || TH > 10) { print "threshold must be a percentage from 0 to 1000"; exit status 2 }
# common.gp sits beside this script
sep = 0
do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { sep = i } }
load (sep > 0 ? ARG0[1:sep] : "") . "common.gp"
set datafile separator "\t"
set title sprintf("lantest time ratio, current / baseline (band: ±%g %%)", TH * 100)
set ylabel "ratio"
set xlabel "lantest test"
set yrange [0:*]
set style fill solid 0.8 border -1
set boxwidth 0.6
set key off
stats DATA using 2 nooutput
set xrange [-0.6:STATS_records - 0.4]
if (FORMAT eq "txt") {
    plot DATA using 0:2:xtic(1) with boxes, 1 + TH with lines dt 2, 1 - TH with lines dt 2
} else {
    plot 1 + TH with filledcurves y = (1 - TH) fc rgb "#e6f2e6" notitle, \
         DATA using 0:2:(column(3) == 1 ? 0xd62728 : column(3) == 2 ? 0xff9f1c : column(3) == 3 ? 0x2ca02c : 0x1f77b4):xtic(1) \
             with boxes lc rgb variable notitle, \
         1 with lines lc rgb "#444444" dt 2 notitle
}
