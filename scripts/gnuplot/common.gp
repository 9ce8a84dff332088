# Shared set-up of the afpbench charts: the output terminal from FORMAT
# (png | svg | txt) and the palette. Loaded by the chart scripts after their
# argument checks; expects the variables FORMAT and OUT.
if (FORMAT eq "png") {
    set terminal pngcairo size 1000,520 font "sans,10" noenhanced
} else {
    if (FORMAT eq "svg") {
        set terminal svg size 1000,520 font "sans,10" noenhanced
    } else {
        if (FORMAT eq "txt") {
            set terminal dumb size 100,28 noenhanced
        } else {
            print sprintf("unknown format '%s' (png, svg or txt)", FORMAT)
            exit status 2
        }
    }
}
set output OUT
set border 3
set tics nomirror
set grid ytics lc rgb "#dddddd"
set key top left noopaque
