
# Copyright (c) slimheap contributors
#
# The report step of `make bench-instructions` (bench/instructions-report.pl):
# each figure is a backend's count minus its setup-only twin's, for its
# baseline (heap, or the jsonb twin) and for slimheap, with the ratio and the
# difference per unit; every backend's
# count is listed; a missing count or a figure that is not positive writes
# nothing.  No server and no callgrind: the counts are written here.

use strict;
use warnings;

use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $report = ($ENV{TESTDIR} // '.') . '/bench/instructions-report.pl';
my $tmp = PostgreSQL::Test::Utils::tempdir;

sub write_file
{
	my ($path, $text) = @_;
	open my $fh, '>', $path or die "$path: $!";
	print $fh $text;
	close $fh;
}

sub slurp
{
	my ($path) = @_;
	open my $fh, '<', $path or return undef;
	local $/;
	my $s = <$fh>;
	close $fh;
	return $s;
}

my $figures =
    "tpcb|TPC-B: 1000 transactions|tpcb|tx|1000|transaction|truncate\n"
  . "w4_copy|W4 COPY FROM, 5,000 rows|w4_write|copy|5000|row|compress\n"
  . "w4_jsonb_scan|W4 count(c800) against jsonb|w4_read|scan|5000|row|compress|jsonb\n";

my %counts = (
	'tpcb.heap.setup' => 70_000_000,
	'tpcb.heap.tx' => 1_070_000_000,        # 1,000 M over the setup
	'tpcb.slim.setup' => 70_100_000,
	'tpcb.slim.tx' => 1_080_100_000,        # 1,010 M: +1%, +10,000 each
	'w4_write.heap.setup' => 160_000_000,
	'w4_write.heap.copy' => 1_160_000_000,  # 1,000 M
	'w4_write.slim.setup' => 163_000_000,
	'w4_write.slim.copy' => 1_038_000_000,  # 875 M: 0.875, -25,000 a row
	'w4_read.jsonb.setup' => 50_000_000,
	'w4_read.jsonb.scan' => 90_000_000,     # 40 M
	'w4_read.slim.setup' => 30_000_000,
	'w4_read.slim.scan' => 60_000_000,      # 30 M: 0.75, -2,000 a row
	'w4_read.heap.scan' => 1,               # not this figure's baseline
);

sub counts_csv
{
	my (%c) = @_;
	return "backend,instructions\n"
	  . join('', map { "$_,$c{$_}\n" } sort keys %c);
}

# run the report on COUNTS (text); returns (ok, stderr, results directory)
my $n = 0;
sub report
{
	my ($counts, %env) = @_;
	my $dir = "$tmp/run" . ++$n;
	make_path("$dir/results");
	write_file("$dir/counts.csv", $counts);
	write_file("$dir/figures.txt", $figures);
	local %ENV = (%ENV, %env);
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ 'perl', $report, "$dir/counts.csv", "$dir/figures.txt",
			"$dir/results" ],
		'<', \undef, '>', \$out, '2>', \$err);
	return ($ok, $err, "$dir/results");
}

my ($ok, $err, $res) = report(counts_csv(%counts),
	BENCH_DATE => '2026-12-01 12:00-12:05 UTC',
	BENCH_BUILD => 'abc1234',
	BENCH_NOTE => 'only tpcb w4_copy',
	BENCH_ELAPSED => 321,
	BENCH_JOBS => 2);
ok($ok, 'the report is written') or diag($err);
my $md = slurp("$res/instructions.md") // '';
like($md, qr/^- run: 2026-12-01 12:00-12:05 UTC, 13 backends, 2 at a time, 321 s$/m,
	'instructions.md names the date, the backends and the time');
like($md, qr/^- build: abc1234$/m, 'instructions.md names the build');
like($md, qr/^- figures: only tpcb w4_copy$/m,
	'instructions.md says when it has only some figures');
like($md,
	qr/^\| TPC-B: 1000 transactions \| `truncate` \| heap \| 1,000\.0 M \| 1,010\.0 M \| 1\.0100 \(\+1\.00%\) \| \+10,000 a transaction \|$/m,
	'TPC-B: setup subtracted, ratio and difference per transaction');
like($md,
	qr/^\| W4 COPY FROM, 5,000 rows \| `compress` \| heap \| 1,000\.0 M \| 875\.0 M \| 0\.8750 \(-12\.50%\) \| -25,000 a row \|$/m,
	'W4 COPY: a ratio below 1 and a negative difference');
like($md,
	qr/^\| W4 count\(c800\) against jsonb \| `compress` \| jsonb \| 40\.0 M \| 30\.0 M \| 0\.7500 \(-25\.00%\) \| -2,000 a row \|$/m,
	'a figure against the jsonb twin takes the jsonb backends');
like($md, qr/^\| w4_write\.slim\.copy \| 1,038,000,000 \|$/m,
	'instructions.md lists every backend');
my $csv = slurp("$res/instructions.csv") // '';
like($csv,
	qr/^w4_copy,"W4 COPY FROM, 5,000 rows",compress,heap,5000,row,1000000000,875000000,0\.87500,-25000\.0,1160000000,160000000,1038000000,163000000$/m,
	'instructions.csv: a label with commas is quoted, every count is there');
like($csv, qr/^w4_jsonb_scan,W4 count\(c800\) against jsonb,compress,jsonb,5000,row,40000000,30000000,/m,
	'instructions.csv: the baseline of each figure');
is(scalar(() = $csv =~ /\n/g), 4, 'instructions.csv: a header and a line per figure');

# a backend missing: nothing is written
my %missing = %counts;
delete $missing{'w4_write.slim.setup'};
($ok, $err, $res) = report(counts_csv(%missing));
ok(!$ok && $err =~ /no count of backend w4_write\.slim\.setup/,
	'a missing count is an error that names the backend');
ok(!-e "$res/instructions.md" && !-e "$res/instructions.csv",
	'a missing count writes no report');

# a run that counted no more than its setup
my %flat = (%counts, 'tpcb.heap.tx' => 70_000_000);
($ok, $err) = report(counts_csv(%flat));
ok(!$ok && $err =~ /figure tpcb: tpcb\.heap\.tx counted .* not more than its setup/,
	'a figure that is not positive is an error');

# a malformed count (e.g. callgrind's summary line was not found)
($ok, $err) = report(counts_csv(%counts) . "tpcb.slim.extra,\n");
ok(!$ok && $err =~ /malformed line/, 'a malformed count is an error');

# a baseline that is neither heap nor jsonb
{
	my $saved = $figures;
	$figures .= "w4_bad|W4 against xml|w4_read|scan|5000|row|compress|xml\n";
	($ok, $err) = report(counts_csv(%counts));
	ok(!$ok && $err =~ /malformed line: w4_bad/, 'an unknown baseline is an error');
	$figures = $saved;
}

done_testing();
