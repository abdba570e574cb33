# bench/w3.gnuplot: the chart of W3, drawn by bench/run.sh with
#   gnuplot -e "datafile='w3.dat'; outfile='w3.png'" bench/w3.gnuplot
# Top: bytes per row against the position of the last non-NULL column
# (tuple length lp_len, and main fork bytes per row incl. line pointer and
# page overhead); bottom: INSERT time, median with min-max bars.
# w3.dat columns: position, lp_len heap/slim, main fork per row heap/slim,
# insert ms heap median/min/max, insert ms slimheap median/min/max.

set terminal pngcairo size 1000,900 font ",11"
set output outfile
set multiplot layout 2,1 title "W3: 100 nullable int4 + id, one value at column c<position>"
set grid
set xrange [0:101]
set xtics (8, 20, 40, 60, 72, 80, 90, 100)

set ylabel "bytes per row"
set key right bottom
set yrange [0:*]
plot datafile using 1:4 with linespoints lw 2 pt 7 title "heap, main fork / rows", \
     datafile using 1:5 with linespoints lw 2 pt 7 title "slimheap, main fork / rows", \
     datafile using 1:2 with linespoints lw 1 pt 6 dt 2 title "heap, tuple lp\\_len", \
     datafile using 1:3 with linespoints lw 1 pt 6 dt 2 title "slimheap, tuple lp\\_len"

set xlabel "position of the last non-NULL column (c1..c100)"
set ylabel "INSERT ... SELECT time (ms)"
set key left bottom
set yrange [0:*]
plot datafile using 1:6:7:8 with yerrorlines lw 2 pt 7 title "heap (median, min-max)", \
     datafile using 1:9:10:11 with yerrorlines lw 2 pt 7 title "slimheap (median, min-max)"
unset multiplot
