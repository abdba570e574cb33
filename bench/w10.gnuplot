# bench/w10.gnuplot: the chart of W10 (W4 and W5 beside their jsonb twin),
# drawn by bench/report.sh with
#   gnuplot -e "datafile='w10.dat'; outfile='w10.png'; workloads='W4 W5'" bench/w10.gnuplot
# Scan time of count(cN) (jsonb: count(doc->'cN')) against the column
# position N, median with min-max bars, for heap, compress and jsonb
# (truncate thin), and count(*) of compress and jsonb dashed: the floor of
# a scan of that table.  One panel per workload measured (workloads: the
# blocks of w10.dat, in order: W4, 40 columns at random places; W5, three
# groups).  w10.dat: one block per workload (gnuplot's index);
# columns: position, then median min max of heap, truncate, compress,
# jsonb, then count(*) of heap, compress, jsonb.

if (!exists("workloads")) { workloads = "W4 W5" }
n = words(workloads)
set terminal pngcairo size 1000,(n == 1 ? 500 : 900) font ",11"
set output outfile
set multiplot layout n,1 title "W10: reading one column of 800 (count(cN); jsonb count(doc->'cN'))"
set grid
set xrange [-20:820]
set xtics (2, 100, 200, 300, 403, 500, 600, 700, 800)
set ylabel "scan time (ms), median, min-max"
set key outside right top
set yrange [0:*]

do for [b = 0:n - 1] {
	w = word(workloads, b + 1)
	set title (w eq "W4" ? "W4: 40 columns set at random places" : w eq "W5" ? "W5: three groups of 10-20 columns" : w)
	if (b == n - 1) { set xlabel "column position N" }
	plot datafile index b using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "heap", \
	     datafile index b using 1:8:9:10 with yerrorlines lw 2 pt 7 lc rgb "#d62728" title "compress", \
	     datafile index b using 1:11:12:13 with yerrorlines lw 2 pt 7 lc rgb "#2ca02c" title "jsonb", \
	     datafile index b using 1:5 with linespoints lw 1 pt 6 dt 2 lc rgb "#7f7f7f" title "truncate", \
	     datafile index b using 1:15 with lines lw 1 dt 3 lc rgb "#d62728" title "compress count(*)", \
	     datafile index b using 1:16 with lines lw 1 dt 3 lc rgb "#2ca02c" title "jsonb count(*)"
}
unset multiplot
