
# Copyright (c) slimheap contributors
#
# The per-function tables of `make bench-instructions`
# (bench/instructions-profile.pl): a function's self cost, statements minus
# setup, per unit, for the baseline and for slimheap, read from callgrind's
# own format (name compression, inclusive call costs that are not self
# costs), and a static function without a name given with its main
# caller.  No server and no callgrind: the outputs are written here.

use strict;
use warnings;

use PostgreSQL::Test::Utils;
use Test::More;

my $profile = ($ENV{TESTDIR} // '.') . '/bench/instructions-profile.pl';
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

# a callgrind output: ExecScan (self $scan) calls the static function at
# 0x30e0a0 (self $deform) and, for slimheap, slim_deform_tail_upto (self
# $tail); the call lines carry inclusive costs, which must not count as
# ExecScan's own
sub callgrind_out
{
	my ($scan, $deform, $tail) = @_;
	my $s = "version: 1\ncreator: test\npositions: line\nevents: Ir\n"
	  . "ob=(1) /usr/lib/postgresql/15/bin/postgres\n"
	  . "fl=(1) ???\nfn=(1) ExecScan\n0 $scan\n"
	  . "cfn=(2) 0x000000000030e0a0\ncalls=1 0\n0 $deform\n";
	$s .= "cob=(2) slimheap.so\ncfi=(2) slim_tail_read.c\n"
	  . "cfn=(3) slim_deform_tail_upto\ncalls=1 0\n0 $tail\n"
	  if $tail;
	$s .= "fn=(2)\n0 $deform\n";
	$s .= "ob=(2)\nfl=(2)\nfn=(3)\n10 " . ($tail - 7) . "\n+1 7\n" if $tail;
	my $total = $scan + $deform + ($tail // 0);
	return $s . "summary: $total\ntotals: $total\n";
}

my $dir = "$tmp/profile";
mkdir $dir or die;
write_file("$dir/w4_read.heap.setup.callgrind.out", callgrind_out(100, 50, 0));
write_file("$dir/w4_read.heap.scan.callgrind.out",
	callgrind_out(100 + 10 * 94, 50 + 10 * 17_934, 0));
write_file("$dir/w4_read.slim.setup.callgrind.out",
	callgrind_out(100, 50, 30));
write_file("$dir/w4_read.slim.scan.callgrind.out",
	callgrind_out(100 + 10 * 94, 50 + 10 * 272, 30 + 10 * 2_696));
write_file("$tmp/figures.txt",
	"w4_scan|W4 scan count(c800): 10 rows|w4_read|scan|10|row|compress\n");

my ($out, $err) = ('', '');
my $ok = IPC::Run::run([ 'perl', $profile, "$tmp/figures.txt", $dir,
		"$tmp/profile.md", 'w4_scan' ],
	'>', \$out, '2>', \$err);
ok($ok, 'the profile is written') or diag($err);
my $md = slurp("$tmp/profile.md") // '';
like($md, qr/^## W4 scan count\(c800\): 10 rows \(`compress` against heap, per row\)$/m,
	'a table per figure, named by its label');
like($md, qr/^\| slim_deform_tail_upto \| 0 \| 2,696 \| 2,696 \|$/m,
	'slimheap\'s function: its self cost per row, with lines of several files summed');
like($md,
	qr/^\| 0x000000000030e0a0 \(called by ExecScan\) \| 17,934 \| 272 \| -17,662 \|$/m,
	'a static function without a name: its main caller, both sides');
like($md, qr/^\| ExecScan \| 94 \| 94 \| 0 \|$/m,
	'a caller\'s self cost leaves out the inclusive cost of its calls');
like($md, qr/^\| \*\*all functions\*\* \| \*\*18,028\*\* \| \*\*3,062\*\* \| \*\*-14,966\*\* \|$/m,
	'the totals are the sums per row');
my @rows = ($md =~ /^\| ([^|*][^|]*?) \|/mg);
is_deeply(\@rows, [ 'function', 'slim_deform_tail_upto', 'ExecScan',
		'0x000000000030e0a0 (called by ExecScan)' ],
	'largest difference first');

($out, $err) = ('', '');
$ok = IPC::Run::run([ 'perl', $profile, "$tmp/figures.txt", $dir,
		"$tmp/none.md", 'w9_scan' ],
	'>', \$out, '2>', \$err);
ok(!$ok && $err =~ /no figure w9_scan/, 'an unknown figure is refused');

done_testing();
