# afpbench load: throughput and p99 latency against the session count,
# baseline (or base) dashed, current (head) solid.
#   gnuplot -c load.gp DATA OUT FORMAT
# DATA: sessions <TAB> req/s baseline <TAB> req/s current <TAB> p99 ms baseline <TAB> p99 ms current
if (ARGC != 3) {
    print "usage: gnuplot -c load.gp DATA OUT png|svg|txt"
    exit status 2
}
DATA = ARG1; OUT = ARG2; FORMAT = ARG3
sep = 0
do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { sep = i } }
load (sep > 0 ? ARG0[1:sep] : "") . "common.gp"
set datafile separator "\t"
set datafile missing "NaN"
set logscale x 2
set xlabel "sessions"
set key top left
set multiplot layout 1,2 title "afpbench load: throughput and p99 latency by session count"
set title "requests/s"
set yrange [0:*]
plot DATA using 1:2 with linespoints dt 2 lc rgb "#888888" title "baseline", \
     DATA using 1:3 with linespoints lw 2 lc rgb "#1f77b4" title "current"
set title "p99 latency (ms)"
plot DATA using 1:4 with linespoints dt 2 lc rgb "#888888" title "baseline", \
     DATA using 1:5 with linespoints lw 2 lc rgb "#d62728" title "current"
unset multiplot
