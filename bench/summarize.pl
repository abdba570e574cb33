#!/usr/bin/perl
# bench/summarize.pl RAW.csv RESULTS_DIR
#
# Turns the measurements of bench/run.sh (one line per round, workload,
# case, metric and variant) into
#   RESULTS_DIR/latest.md   the results table (median [min-max] of each
#                           figure and the ratio of each slimheap variant to
#                           heap) with the key figures on top
#   RESULTS_DIR/latest.csv  the same as CSV
#   RESULTS_DIR/w3.dat      the W3 series for bench/w3.gnuplot
#   RESULTS_DIR/w10.dat     W4 and W5 read times against column position,
#                           per variant, for bench/w10.gnuplot (W10)
# The description of the run comes from BENCH_* environment variables.
# Core Perl only.
use strict;
use warnings;
use POSIX qw(floor strftime);

my ($raw, $outdir) = @ARGV;
die "usage: $0 RAW.csv RESULTS_DIR\n" unless defined $outdir;

# figure key -> { meta => [workload, case, metric, unit], values => { variant => [..] } }
my (%fig, @order, %variants_seen);
open my $in, '<', $raw or die "cannot read $raw: $!\n";
my $header = <$in>;
while (my $line = <$in>)
{
	chomp $line;
	next if $line eq '';
	my ($w, $c, $m, $u, $v, $rep, $val) = split /,/, $line, -1;
	die "malformed line in $raw: $line\n" unless defined $val && $val ne '';
	my $key = join "\x1f", $w, $c, $m;
	if (!exists $fig{$key})
	{
		$fig{$key} = { meta => [ $w, $c, $m, $u ], values => {} };
		push @order, $key;
	}
	push @{ $fig{$key}{values}{$v} }, $val;
	$variants_seen{$v} = 1;
}
close $in;

# heap first, then slimheap, then any other slimheap variant, then the
# jsonb twin of W4 and W5 (W10)
my @variants = grep { $variants_seen{$_} } qw(heap slimheap compress jsonb);
my @others = grep { $_ ne 'heap' } @variants;

sub median
{
	my @s = sort { $a <=> $b } @_;
	my $n = @s;
	return $n % 2 ? $s[ $n / 2 ] : ($s[ $n / 2 - 1 ] + $s[ $n / 2 ]) / 2;
}

sub stats
{
	my @v = @_;
	return undef unless @v;
	my @s = sort { $a <=> $b } @v;
	return { n => scalar @s, median => median(@s), min => $s[0], max => $s[-1] };
}

# numbers with about four significant digits, no exponents
sub num
{
	my ($x) = @_;
	return '' unless defined $x;
	my $a = abs $x;
	my $dec = $a >= 1000 ? 0 : $a == 0 ? 0 : 3 - floor(log($a) / log(10));
	$dec = 0 if $dec < 0;
	$dec = 3 if $dec > 3;
	my $s = sprintf "%.*f", $dec, $x;
	$s =~ s/(\.\d*?)0+$/$1/;
	$s =~ s/\.$//;
	return $s;
}

sub ratio
{
	my ($x, $base) = @_;
	return undef unless defined $x && defined $base && $base != 0;
	return $x / $base;
}

# every figure's statistics, per variant, and ratios to heap
my %st;
for my $key (@order)
{
	for my $v (@variants)
	{
		$st{$key}{$v} = stats(@{ $fig{$key}{values}{$v} // [] });
	}
}

sub med
{
	my ($w, $c, $m, $v) = @_;
	my $s = $st{ join "\x1f", $w, $c, $m }{$v};
	return $s ? $s->{median} : undef;
}

sub rat
{
	my ($w, $c, $m, $v) = @_;
	return ratio(med($w, $c, $m, $v // 'slimheap'), med($w, $c, $m, 'heap'));
}

sub fmt_ratio
{
	my ($r) = @_;
	return defined $r ? sprintf("%.3f", $r) : 'n/a';
}

# --- latest.csv ---------------------------------------------------------------
open my $csv, '>', "$outdir/latest.csv" or die "cannot write $outdir/latest.csv: $!\n";
print $csv "workload,case,metric,unit,variant,n,median,min,max,ratio_to_heap\n";
for my $key (@order)
{
	my ($w, $c, $m, $u) = @{ $fig{$key}{meta} };
	for my $v (@variants)
	{
		my $s = $st{$key}{$v} or next;
		my $r = $v eq 'heap' ? 1 : ratio($s->{median}, $st{$key}{heap} ? $st{$key}{heap}{median} : undef);
		printf $csv "%s,%s,%s,%s,%s,%d,%s,%s,%s,%s\n", $w, $c, $m, $u, $v,
		  $s->{n}, $s->{median}, $s->{min}, $s->{max},
		  defined $r ? sprintf("%.4f", $r) : '';
	}
}
close $csv;

# --- w3.dat ---------------------------------------------------------------------
open my $dat, '>', "$outdir/w3.dat" or die "cannot write $outdir/w3.dat: $!\n";
print $dat "# position heap_lp_len slim_lp_len heap_main_per_row slim_main_per_row "
  . "heap_insert_ms heap_min heap_max slim_insert_ms slim_min slim_max\n";
my %w3pos;
for my $key (@order)
{
	my ($w, $c) = @{ $fig{$key}{meta} };
	$w3pos{$1} = $c if $w eq 'W3' && $c =~ /^c(\d+)$/;
}
for my $p (sort { $a <=> $b } keys %w3pos)
{
	my $c = $w3pos{$p};
	my @row = ($p);
	push @row, map { med('W3', $c, 'tuple lp_len', $_) // 'NaN' } qw(heap slimheap);
	push @row, map { med('W3', $c, 'main fork per row', $_) // 'NaN' } qw(heap slimheap);
	for my $v (qw(heap slimheap))
	{
		my $s = $st{ join "\x1f", 'W3', $c, 'insert' }{$v};
		push @row, $s ? ($s->{median}, $s->{min}, $s->{max}) : ('NaN') x 3;
	}
	print $dat join(' ', @row), "\n";
}
close $dat;

# --- w10.dat --------------------------------------------------------------------
# One block per workload (W4, then W5, two blank lines between: gnuplot's
# "index"), one line per column position: median, min and max of
# count(cN) for heap, truncate, compress and jsonb, then count(*) of heap,
# compress and jsonb (the floor of a scan).
my @read_positions = (2, 200, 403, 600, 800);
open $dat, '>', "$outdir/w10.dat" or die "cannot write $outdir/w10.dat: $!\n";
print $dat "# W10: scan time (ms) of count(cN) against N, per variant: median min max of\n"
  . "# position heap truncate compress jsonb, then count(*) of heap compress jsonb\n";
my $blocks = 0;
for my $w (qw(W4 W5))
{
	my @lines;
	for my $p (@read_positions)
	{
		my @row = ($p);
		my $any = 0;
		for my $v (qw(heap slimheap compress jsonb))
		{
			my $s = $st{ join "\x1f", $w, '', "scan count(c$p)" }{$v};
			$any = 1 if $s;
			push @row, $s ? ($s->{median}, $s->{min}, $s->{max}) : ('NaN') x 3;
		}
		push @row, map { med($w, '', 'scan count(*)', $_) // 'NaN' } qw(heap compress jsonb);
		push @lines, join(' ', @row) if $any;
	}
	next unless @lines;
	print $dat "\n\n" if $blocks++;
	print $dat "# $w\n", map { "$_\n" } @lines;
}
close $dat;

# --- latest.md ----------------------------------------------------------------
my @md;
push @md, '# slimheap against heap: benchmark results', '';
push @md, '- date: ' . strftime('%Y-%m-%d %H:%M %Z', localtime);
push @md, "- machine: $ENV{BENCH_MACHINE}" if $ENV{BENCH_MACHINE};
push @md, "- server: $ENV{BENCH_PGVERSION}" if $ENV{BENCH_PGVERSION};
push @md, "- mode: $ENV{BENCH_MODE}" if $ENV{BENCH_MODE};
push @md, "- sizes: $ENV{BENCH_SIZES}" if $ENV{BENCH_SIZES};
push @md, "- slimheap build: $ENV{BENCH_BUILD}" if $ENV{BENCH_BUILD};
my $reps = $ENV{BENCH_REPS} // '?';
push @md,
  '- method: one warm-up round at a tenth of the size, then '
  . $reps . ' measured round' . ($reps eq '1' ? '' : 's')
  . '; in each round heap and slimheap alternate on the same server; '
  . 'CHECKPOINT before every timed section; tables VACUUMed to all-visible before their reads; '
  . 'a scan\'s figure in a round is the fastest of 3 executions after a warm-up one; '
  . 'times measured on the server (`clock_timestamp()`), '
  . 'except W4/W5 point lookups and W6 (pgbench, one client resp. several)';
push @md,
  '- settings: shared_buffers=2GB, autovacuum=off, synchronous_commit=off, '
  . 'checkpoint_timeout=1h, max_wal_size=20GB, jit=off, max_parallel_workers_per_gather=0';
push @md, "- run time: $ENV{BENCH_ELAPSED} s" if $ENV{BENCH_ELAPSED};
push @md, '';

push @md, '## Key figures', '';
push @md, '| figure | heap | slimheap | slimheap/heap |', '|---|---:|---:|---:|';
my @key_figures = (
	[ 'W1 size, main fork (MB)', 'W1', '', 'size (main fork)' ],
	[ 'W1 size, total (MB)', 'W1', '', 'size (total)' ],
	[ 'W1 INSERT ... SELECT (ms)', 'W1', '', 'insert' ],
	[ 'W1 scan `sum(c50)` (ms)', 'W1', '', 'scan sum(c50)' ],
	[ 'W1 scan `count(*)` (ms)', 'W1', '', 'scan count(*)' ],
	(map { [ "W2 INSERT, $_ (ms)", 'W2', $_, 'insert' ] } qw(all first notnull)),
	[ 'W6 pgbench TPC-B (tps)', 'W6', '', 'tps' ],
	(map { [ "W7 form+free, $_ (ns/tuple)", 'W7', $_, 'form+free' ] }
		qw(w1 w2_all w2_first w2_notnull w4 w5)),
);
for my $k (@key_figures)
{
	my ($label, $w, $c, $m) = @$k;
	next unless defined med($w, $c, $m, 'heap');
	push @md, sprintf '| %s | %s | %s | %s |', $label,
	  num(med($w, $c, $m, 'heap')), num(med($w, $c, $m, 'slimheap')),
	  fmt_ratio(rat($w, $c, $m));
}
push @md, '';

# the compress variant, where it was measured: W4 and W5 (and W7's former)
if (grep { $_ eq 'compress' } @others)
{
	push @md, '## compress (W4, W5)', '';
	push @md, '| figure | heap | slimheap (truncate) | compress | compress/heap | compress/truncate |',
	  '|---|---:|---:|---:|---:|---:|';
	for my $w (qw(W4 W5))
	{
		for my $k (
			[ "$w size, main fork (MB)", $w, '', 'size (main fork)' ],
			[ "$w size, total (MB)", $w, '', 'size (total)' ],
			[ "$w INSERT ... SELECT (ms)", $w, '', 'insert' ],
			[ "$w scan `count(c800)` (ms)", $w, '', 'scan count(c800)' ],
			[ "$w scan `count(*)` (ms)", $w, '', 'scan count(*)' ],
			[ "$w point lookup (us)", $w, '', 'point lookup' ],
			[ "W7 form+free, \L$w\E (ns/tuple)", 'W7', lc($w), 'form+free' ])
		{
			my ($label, $kw, $c, $m) = @$k;
			my ($h, $t, $z) = map { med($kw, $c, $m, $_) } qw(heap slimheap compress);
			next unless defined $h && defined $z;
			push @md, sprintf '| %s | %s | %s | %s | %s | %s |', $label,
			  num($h), (defined $t ? num($t) : ''), num($z),
			  fmt_ratio(ratio($z, $h)), fmt_ratio(ratio($z, $t));
		}
	}
	push @md, '';
}

# W10: W4 and W5 beside their jsonb twin, the reads by column position;
# "of count(*)": the scan against count(*) of the same table, the floor of
# any scan of it
if (grep { $_ eq 'jsonb' } @others)
{
	push @md, '## compress against jsonb (W4, W5: W10)', '';
	push @md,
	  'jsonb: a heap table `(id int4 PRIMARY KEY, doc jsonb)` of the same rows, one key `"cN"` per '
	  . 'non-NULL column; its queries read `doc->\'cN\'` for `cN`, `doc ? \'c403\' AND NOT doc ? \'c5\'` '
	  . 'for the filter. Scans in ms, lookups in us (pgbench, one client); "of count(*)": the figure '
	  . 'over `count(*)` of the same table.';
	push @md, '';
	push @md,
	  '| figure | heap | truncate | compress | jsonb | compress/heap | compress/jsonb | compress of count(*) | jsonb of count(*) |',
	  '|---|---:|---:|---:|---:|---:|---:|---:|---:|';
	for my $w (qw(W4 W5))
	{
		my @rows = (
			[ "$w size, main fork (MB)", 'size (main fork)', 0 ],
			[ "$w size, with TOAST (MB)", 'size (with TOAST)', 0 ],
			(map { [ "$w `count(c$_)`", "scan count(c$_)", 1 ] } @read_positions),
			[ "$w `count(*)` where c403 and not c5", 'scan count(*) where c403 and not c5', 1 ],
			[ "$w `count(*)`", 'scan count(*)', 1 ],
			[ "$w lookup, 3 columns (us)", 'point lookup (3 columns)', 0 ],
			[ "$w lookup, whole row (us)", 'point lookup', 0 ]);
		for my $k (@rows)
		{
			my ($label, $m, $is_scan) = @$k;
			my ($h, $t, $z, $j) = map { med($w, '', $m, $_) } qw(heap slimheap compress jsonb);
			next unless defined $h && defined $j;
			my @floor = map { $is_scan ? med($w, '', 'scan count(*)', $_) : undef } qw(compress jsonb);
			push @md, sprintf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |', $label,
			  num($h), num($t), num($z), num($j),
			  fmt_ratio(ratio($z, $h)), fmt_ratio(ratio($z, $j)),
			  ($is_scan ? fmt_ratio(ratio($z, $floor[0])) : ''),
			  ($is_scan ? fmt_ratio(ratio($j, $floor[1])) : '');
		}
	}
	push @md, '';
}

push @md, '## All figures', '';
push @md,
  'Median of the measured rounds, [min-max] when they differ; ratio = variant median / heap median '
  . '(below 1: smaller or faster, except tps, where above 1 is faster).';
push @md, '';
my @head = ('workload', 'case', 'metric', 'unit', 'heap');
my @align = ('---', '---', '---', '---', '---:');
for my $v (@others)
{
	push @head, $v, "$v/heap";
	push @align, '---:', '---:';
}
push @md, '| ' . join(' | ', @head) . ' |', '|' . join('|', @align) . '|';
for my $key (@order)
{
	my ($w, $c, $m, $u) = @{ $fig{$key}{meta} };
	my @cells = ($w, $c, $m, $u);
	my $cell = sub {
		my $s = shift;
		return '' unless $s;
		my $t = num($s->{median});
		$t .= ' [' . num($s->{min}) . '-' . num($s->{max}) . ']' if $s->{min} != $s->{max};
		return $t;
	};
	push @cells, $cell->($st{$key}{heap});
	for my $v (@others)
	{
		push @cells, $cell->($st{$key}{$v});
		push @cells, fmt_ratio(ratio($st{$key}{$v} ? $st{$key}{$v}{median} : undef,
				$st{$key}{heap} ? $st{$key}{heap}{median} : undef));
	}
	push @md, '| ' . join(' | ', @cells) . ' |';
}
push @md, '';

open my $out, '>', "$outdir/latest.md" or die "cannot write $outdir/latest.md: $!\n";
print $out join("\n", @md), "\n";
close $out;
