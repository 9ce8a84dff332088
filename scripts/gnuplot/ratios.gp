# The time change of each lantest test and of the AFP-op aggregate, as
# horizontal bars named by test, coloured by the row's state, with a whisker
# for its uncertainty (the A/B interval, or the change ± the noise), against
# the ±threshold band.
#   gnuplot -c ratios.gp DATA OUT FORMAT THRESHOLD_PERCENT
# DATA: name <TAB> change % <TAB> whisker low % <TAB> whisker high % <TAB>
#       state (0 pass, 1 fail, 2 inconclusive, 3 improved, 4 other)
if (ARGC != 4) {
    print "usage: gnuplot -c ratios.gp DATA OUT png|svg|txt THRESHOLD_PERCENT"
    exit status 2
}
DATA = ARG1; OUT = ARG2; FORMAT = ARG3; TH = real(ARG4)
if (TH < 0 || TH > 1000) { print "threshold must be a percentage from 0 to 1000"; exit status 2 }
set datafile separator "\t"
stats DATA using 2 nooutput
N = STATS_records
# The bars' extent, and the whiskers' clipped to three times it (one noisy
# test must not squash the others); before any range is set, which stats
# would honour.
span = (abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max))
span = (span < TH * 2 ? TH * 2 : span) * 1.15
stats DATA using 3 nooutput
lo = (STATS_min < -3 * span ? -3 * span : STATS_min)
stats DATA using 4 nooutput
hi = (STATS_max > 3 * span ? 3 * span : STATS_max)
lo = (lo > -span ? -span : lo); hi = (hi < span ? span : hi)
# a bar row of 26 px: the names stay apart
HEIGHT = 90 + 26 * N
# common.gp sits beside this script
sep = 0
do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { sep = i } }
load (sep > 0 ? ARG0[1:sep] : "") . "common.gp"
set title "lantest: time change per test (whiskers: its uncertainty)"
set xlabel sprintf("change, %%  (green band: the ±%g %% limit)", TH)
set rmargin 3
unset ylabel
unset grid
set grid xtics lc rgb "#dddddd"
set border 1
set ytics scale 0
set yrange [N - 0.5:-0.5]
set xrange [lo * 1.05:hi * 1.05]
set style fill solid 0.85 noborder
set key off
colour(s) = (s == 1 ? 0xd62728 : s == 2 ? 0xf0a020 : s == 3 ? 0x2ca02c : s == 0 ? 0x4c78a8 : 0x999999)
if (FORMAT eq "txt") {
    set arrow 1 from TH, graph 0 to TH, graph 1 nohead dt 2
    set arrow 2 from -TH, graph 0 to -TH, graph 1 nohead dt 2
    # a text terminal fills boxes into one block: a line per test instead
    plot DATA using (0):0:2:(0):ytic(1) with vectors nohead lw 2, \
         DATA using 2:0 with points pt "#"
} else {
    set object 1 rectangle from -TH, graph 0 to TH, graph 1 fc rgb "#e9f3e9" fs solid 1.0 noborder behind
    set arrow 1 from 0, graph 0 to 0, graph 1 nohead lc rgb "#444444" back
    plot DATA using (0):0:(0):2:($0 - 0.32):($0 + 0.32):(colour(column(5))):ytic(1) with boxxyerror lc rgb variable, \
         DATA using 2:0:3:4 with xerrorbars pt -1 lc rgb "#333333" lw 1.2
}
