# Shared set-up of the afpbench charts: the output terminal from FORMAT
# (png | svg | txt) and the palette. Loaded by the chart scripts after their
# argument checks; expects the variables FORMAT and OUT, and takes HEIGHT
# (pixels) when the script sets it. 780 px wide: a GitHub comment shows the
# image at its own size, so an 11 pt font stays readable.
if (!exists("HEIGHT")) { HEIGHT = 420 }
if (FORMAT eq "png") {
    set terminal pngcairo size 780,HEIGHT font "sans,11" noenhanced
} else {
    if (FORMAT eq "svg") {
        set terminal svg size 780,HEIGHT font "sans,11" noenhanced
    } else {
        if (FORMAT eq "txt") {
            set terminal dumb size 100,(HEIGHT / 16 < 28 ? 28 : HEIGHT / 16) noenhanced
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
