
# Copyright (c) slimheap contributors
#
# The report step of the benchmark (bench/run.sh --report-only, i.e.
# bench/report.sh) writes every result file from the measurements of a
# finished run even when git cannot tell the revision: git refusing a
# checkout owned by another user ("dubious ownership"), git not
# installed, or no checkout at all.  The report then says why the revision
# is unknown.  No server and no benchmark run: the measurements are a small
# raw CSV written here.

use strict;
use warnings;

use File::Copy;
use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $bench = ($ENV{TESTDIR} // '.') . '/bench';
my $tmp = PostgreSQL::Test::Utils::tempdir;

# git must not find this tree's repository (if any) above the scratch
# checkouts, nor the user's or the system's settings (safe.directory)
$ENV{GIT_CEILING_DIRECTORIES} = $tmp;
$ENV{GIT_CONFIG_NOSYSTEM} = 1;
$ENV{HOME} = $tmp;
delete $ENV{$_}
  for qw(GIT_DIR GIT_WORK_TREE GIT_TEST_ASSUME_DIFFERENT_OWNER);

my $have_gnuplot = system('command -v gnuplot >/dev/null 2>&1') == 0;

sub run_cmd
{
	my ($cmd, %env) = @_;
	local %ENV = (%ENV, %env);
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run($cmd, '<', \undef, '>', \$out, '2>', \$err);
	return ($ok, $out, $err);
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

# A checkout holding the benchmark's scripts; a git repository with one
# commit when $git is true.
sub checkout
{
	my ($name, $git) = @_;
	my $dir = "$tmp/$name";
	make_path("$dir/bench");
	for my $f (qw(run.sh report.sh summarize.pl w3.gnuplot w10.gnuplot))
	{
		copy("$bench/$f", "$dir/bench/$f") or die "copy $f: $!";
	}
	if ($git)
	{
		for my $cmd ([qw(git init -q)], [qw(git add bench)],
			[qw(git -c user.name=t -c user.email=t@localhost commit -q -m bench)])
		{
			my ($ok, $out, $err) = run_cmd([ @$cmd ], GIT_DIR => "$dir/.git",
				GIT_WORK_TREE => $dir);
			$ok or die "@$cmd in $dir failed: $err";
		}
	}
	return $dir;
}

# The results of a finished run: W1 sizes and W3 insert times and tuple
# lengths of two rounds, and the run's description.
my $raw = "workload,case,metric,unit,variant,rep,value\n";
for my $rep (1, 2)
{
	$raw .= "W1,,size (main fork),MB,heap,$rep,40.00\n";
	$raw .= "W1,,size (main fork),MB,slimheap,$rep,30.00\n";
	for my $p (7, 8)
	{
		$raw .= "W3,c$p,insert,ms,heap,$rep," . (100 + $rep) . "\n";
		$raw .= "W3,c$p,insert,ms,slimheap,$rep," . (90 + $rep) . "\n";
		$raw .= "W3,c$p,tuple lp_len,bytes,heap,$rep,44.0\n";
		$raw .= "W3,c$p,tuple lp_len,bytes,slimheap,$rep," . (28 + $p) . ".0\n";
	}
}

# W10: W4 reads by column position for heap, truncate, compress and the
# jsonb twin, their count(*), sizes and the 3-column lookup (a scan of
# variant v at column p takes base{v} + p / 100 ms in round 1, one more in
# round 2)
my %base = (heap => 10, slimheap => 11, compress => 4, jsonb => 8);
for my $rep (1, 2)
{
	for my $v (qw(heap slimheap compress jsonb))
	{
		$raw .= "W4,,size (main fork),MB,$v,$rep," . (30 + $base{$v}) . "\n";
		$raw .= "W4,,size (with TOAST),MB,$v,$rep," . (31 + $base{$v}) . "\n";
		$raw .= "W4,,scan count(*),ms,$v,$rep," . (2 + $rep) . "\n";
		for my $p (2, 200, 403, 600, 800)
		{
			$raw .= "W4,,scan count(c$p),ms,$v,$rep,"
			  . ($base{$v} + ($v eq 'jsonb' ? 0 : $p / 100) + $rep - 1) . "\n";
		}
		$raw .= "W4,,scan count(*) where c403 and not c5,ms,$v,$rep," . (5 + $base{$v}) . "\n";
		$raw .= "W4,,point lookup (3 columns),us,$v,$rep," . (100 + $base{$v}) . "\n";
	}
}

sub results
{
	my ($name) = @_;
	(my $dir = "$tmp/results-$name") =~ s/ /-/g;
	make_path($dir);
	open my $fh, '>', "$dir/latest-raw.csv" or die $!;
	print $fh $raw;
	close $fh;
	open $fh, '>', "$dir/latest-run.txt" or die $!;
	print $fh "MODE=report test\nREPS=2\nELAPSED=1234\n";
	close $fh;
	return $dir;
}

# run the report step of $checkout on a fresh results directory and check
# every result file; returns latest.md
sub report_ok
{
	my ($name, $checkout, %env) = @_;
	my $res = results($name);
	my ($ok, $out, $err) =
	  run_cmd([ 'bash', "$checkout/bench/run.sh", '--report-only', $res ],
		%env);
	ok($ok, "$name: the report step succeeds") or diag($err);
	for my $f (qw(latest.md latest.csv w3.dat w10.dat))
	{
		ok(-s "$res/$f", "$name: $f written");
	}
	for my $f (qw(w3.png w10.png))
	{
		is(-s "$res/$f" ? 1 : 0, $have_gnuplot ? 1 : 0,
			"$name: $f written exactly when gnuplot is installed");
	}
	is(slurp("$res/latest-raw.csv"), $raw,
		"$name: the measurements are left as they were");
	my $md = slurp("$res/latest.md") // '';
	is($out, $md, "$name: latest.md is printed");
	# the figures come from the CSV: W1 main fork 30 / 40 MB
	like($md, qr/^\| W1 size, main fork \(MB\) \| 40 \| 30 \| 0\.750 \|$/m,
		"$name: latest.md holds the figures of the run");
	like($md, qr/^- run time: 1234 s$/m,
		"$name: latest.md describes the run from latest-run.txt");
	like(slurp("$res/latest.csv") // '',
		qr/^W3,c8,insert,ms,slimheap,2,91\.5,91,92,0\.9015$/m,
		"$name: latest.csv holds the figures of the run");

	# W10: compress 4 + 4.03 + 0.5 = 8.53 ms, jsonb 8.5, heap 14.53,
	# truncate 15.53, count(*) 3.5 in every variant
	like($md,
		qr/^\| W4 `count\(c403\)` \| 14\.53 \| 15\.53 \| 8\.53 \| 8\.5 \| 0\.587 \| 1\.004 \| 2\.437 \| 2\.429 \|$/m,
		"$name: latest.md puts compress beside jsonb, with the ratios to count(*)");
	like($md,
		qr/^\| W4 size, with TOAST \(MB\) \| 41 \| 42 \| 35 \| 39 \| 0\.854 \| 0\.897 \|  \|  \|$/m,
		"$name: latest.md has the sizes with TOAST of all four");
	like($md,
		qr/^\| W4 `count\(\*\)` where c403 and not c5 \| 15 \| 16 \| 9 \| 13 \| 0\.600 \| 0\.692 \| 2\.571 \| 3\.714 \|$/m,
		"$name: latest.md has the filter");
	like($md,
		qr/^\| W4 lookup, 3 columns \(us\) \| 110 \| 111 \| 104 \| 108 \| 0\.945 \| 0\.963 \|  \|  \|$/m,
		"$name: latest.md has the 3-column lookup");
	like(slurp("$res/latest.csv") // '',
		qr/^W4,,scan count\(c800\),ms,jsonb,2,8\.5,8,9,0\.4595$/m,
		"$name: latest.csv holds the jsonb figures with their ratio to heap");
	my $w10 = slurp("$res/w10.dat") // '';
	like($w10,
		qr/^# W4\n2 10\.52 10\.02 11\.02 11\.52 11\.02 12\.02 4\.52 4\.02 5\.02 8\.5 8 9 3\.5 3\.5 3\.5\n/m,
		"$name: w10.dat has W4's series, c2 first");
	like($w10, qr/^800 18\.5 18 19 19\.5 19 20 12\.5 12 13 8\.5 8 9 3\.5 3\.5 3\.5$/m,
		"$name: w10.dat ends at c800");
	unlike($w10, qr/^# W5/m, "$name: w10.dat has no block of a workload not measured");
	return $md;
}

# 1. a checkout git reads: the report names its revision
my $good = checkout('good', 1);
my ($ok, $rev) = run_cmd([qw(git -C), $good, qw(rev-parse --short HEAD)]);
chomp $rev;
ok($ok && $rev =~ /^[0-9a-f]{7,}$/, 'the scratch checkout has a revision');
my $md = report_ok('readable checkout', $good);
like($md, qr/^- slimheap build: \Q$good\E at \Q$rev\E$/m,
	'readable checkout: the report names the revision');

# 1b. results written into the checkout's bench/results (what a run does)
# are no change to the build; a change to anything else is
sub write_file
{
	my ($path, $text) = @_;
	open my $fh, '>', $path or die "$path: $!";
	print $fh $text;
	close $fh;
}
make_path("$good/bench/results");
write_file("$good/bench/results/latest.md", "old\n");
for my $cmd ([qw(git add bench/results)],
	[qw(git -c user.name=t -c user.email=t@localhost commit -q -m results)])
{
	my ($ok, $out, $err) = run_cmd([ @$cmd ], GIT_DIR => "$good/.git",
		GIT_WORK_TREE => $good);
	$ok or die "@$cmd in $good failed: $err";
}
write_file("$good/bench/results/latest.md", "new\n");
(undef, $rev) = run_cmd([qw(git -C), $good, qw(rev-parse --short HEAD)]);
chomp $rev;
$md = report_ok('results changed', $good);
like($md, qr/^- slimheap build: \Q$good\E at \Q$rev\E$/m,
	'results changed: the build is still the revision, not dirty');
open my $sh, '>>', "$good/bench/run.sh" or die $!;
print $sh "# a local change\n";
close $sh;
$md = report_ok('script changed', $good);
like($md,
	qr/^- slimheap build: \Q$good\E at \Q$rev\E-dirty \(uncommitted changes in bench\/run\.sh\)$/m,
	'script changed: the report names the changed file, not the results');

# 2. a checkout owned by another user: git refuses it (e.g. `sudo make
# bench` on a user's clone).  Git's own test knob
# makes it treat the checkout as owned by someone else.
my $foreign = checkout('foreign', 1);
my $err;
($ok, undef, $err) = run_cmd([ qw(git -C), $foreign, 'status' ],
	GIT_TEST_ASSUME_DIFFERENT_OWNER => 1);
ok(!$ok && $err =~ /dubious ownership/,
	'git refuses the checkout as owned by another user');
# what the old run.sh asked last, under set -e: a usage error, status 129
run_cmd([ qw(git -C), $foreign, qw(diff --name-only HEAD) ],
	GIT_TEST_ASSUME_DIFFERENT_OWNER => 1);
is($? >> 8, 129, 'git diff --name-only HEAD fails there with status 129');
$md = report_ok('checkout of another user', $foreign,
	GIT_TEST_ASSUME_DIFFERENT_OWNER => 1);
like($md,
	qr/^- slimheap build: \Q$foreign\E \(revision unknown: git refused the checkout/m,
	'checkout of another user: the report says git refused the checkout');

# 3. git not installed: a PATH with every command of the current one but git
my $nogit = "$tmp/bin-without-git";
make_path($nogit);
for my $dir (split /:/, $ENV{PATH})
{
	opendir(my $dh, $dir) or next;
	for my $cmd (readdir $dh)
	{
		next if $cmd =~ /^\.\.?$/ || $cmd eq 'git' || -e "$nogit/$cmd";
		symlink("$dir/$cmd", "$nogit/$cmd") if -f "$dir/$cmd" && -x _;
	}
	closedir $dh;
}
($ok) = run_cmd([ 'bash', '-c', 'command -v git' ], PATH => $nogit);
ok(!$ok, 'git cannot be found on the reduced PATH');
$md = report_ok('no git', $good, PATH => $nogit);
like($md, qr/\(revision unknown: git is not installed\)$/m,
	'no git: the report says git is not installed');

# 4. not a git checkout at all (a release tarball)
my $plain = checkout('plain', 0);
$md = report_ok('no checkout', $plain);
like($md, qr/\(revision unknown: \Q$plain\E is not a git checkout\)$/m,
	'no checkout: the report says so');

# 5. a run of some workloads only (ONLY="W4 W5"): no W3 figures, so neither
# w3.dat nor w3.png is left in its directory, and the log names what is
my $only = results('only W4');
{
	open my $fh, '>', "$only/latest-raw.csv" or die $!;
	print $fh join('', grep { !/^W3,/ } split /^/, $raw);
	close $fh;
}
my ($only_ok, $only_out, $only_err) =
  run_cmd([ 'bash', "$good/bench/run.sh", '--report-only', $only ]);
ok($only_ok, 'a run without W3: the report step succeeds') or diag($only_err);
ok(-s "$only/w10.dat" && !-e "$only/w3.dat" && !-e "$only/w3.png",
	'a run without W3: w10.dat is written, no w3.dat and no w3.png');
like($only_err, qr/report in \S*\Q$only\E: latest\.md, latest\.csv, latest-raw\.csv(, w10\.png)? \(/,
	'a run without W3: the log names only the files written');

# without measurements there is nothing to report, and it says so
my $empty = "$tmp/results-empty";
make_path($empty);
my $out;
($ok, $out, $err) =
  run_cmd([ 'bash', "$good/bench/run.sh", '--report-only', $empty ]);
ok(!$ok && $err =~ /no measurements in/,
	'the report step refuses a directory without measurements');

done_testing();
