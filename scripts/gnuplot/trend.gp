# The default branch's last runs and this run: each per-op aggregate as its
# change from the median of those runs (0 % = as usual), one line per metric,
# this run marked at the right. Counts (IO, system calls, instructions) gate;
# time per op is drawn dashed: trend only.
#   gnuplot -c trend.gp DATA OUT FORMAT COLUMNS TIME_COLUMN LOW HIGH
# DATA: a header line, then x <TAB> label <TAB> what (0 a run, 1 this run, 2 a
# release) <TAB> change % per metric; COLUMNS: how many columns; TIME_COLUMN:
# the time's, or 0; LOW, HIGH: the smallest and largest change.
if (ARGC != 7) {
    print "usage: gnuplot -c trend.gp DATA OUT png|svg|txt COLUMNS TIME_COLUMN LOW HIGH"
    exit status 2
}
DATA = ARG1; OUT = ARG2; FORMAT = ARG3
COLS = ARG4 + 0; TIME_COL = ARG5 + 0; LOW = ARG6 + 0; HIGH = ARG7 + 0
set datafile separator "\t"
set datafile missing "NaN"
stats DATA using 1 nooutput
N = STATS_records
HAS_HEAD = 0
stats DATA using ($3 == 1) nooutput
HAS_HEAD = STATS_sum > 0
HEIGHT = 360
sep = 0
do for [i = 1:strlen(ARG0)] { if (ARG0[i:i] eq "/") { sep = i } }
load (sep > 0 ? ARG0[1:sep] : "") . "common.gp"
set title sprintf("Per AFP op over the last %d runs of the default branch%s (change from their median)", HAS_HEAD ? N - 1 : N, HAS_HEAD ? ", and this run" : "")
set ylabel "change %"
# at least ±1 %: a flat history (unchanged counts) is a line at 0
set yrange [(LOW < -1 ? LOW : -1) * 1.1:(HIGH > 1 ? HIGH : 1) * 1.1]
set xrange [0.5:N + 0.5]
set key below horizontal
set xtics rotate by 45 right
set grid ytics lc rgb "#dddddd"
set arrow from 0.5,0 to N + 0.5,0 nohead lc rgb "#999999" dt 2
# every label when few runs, else every fifth, this run's and the releases'
tic(x, what, s) = (N <= 12 || int(x) % 5 == 0 || what > 0) ? s : ""
colours = "#1f77b4 #e6550d #2ca02c #9467bd #8c564b #7f7f7f"
if (FORMAT eq "txt") {
    plot for [i = 4:COLS] DATA using 1:i:xtic(tic($1, $3, strcol(2))) with lines title columnhead(i)
} else {
    # the history's lines, and this run a ring of its own (not joined: it is
    # not a run of the default branch)
    plot for [i = 4:COLS] DATA using 1:($3 == 1 ? NaN : column(i)):xtic(tic($1, $3, strcol(2))) with linespoints pt 7 ps 0.6 lw 2 \
            lc rgb word(colours, i - 3) dt 1 + (i == TIME_COL) title columnhead(i), \
         for [i = 4:COLS] DATA using 1:($3 == 1 ? column(i) : NaN) with points pt 6 ps 2.2 lw 2 \
            lc rgb word(colours, i - 3) notitle
}
