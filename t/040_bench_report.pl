
# Copyright (c) slimheap contributors
#
# The report step of the benchmark (bench/run.sh --report-only, i.e.
# bench/report.sh) writes every result file from the measurements of a
# finished run even when git cannot tell the revision: git refusing a
# checkout owned by another user ("dubious ownership", issue 15), git not
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
	for my $f (qw(run.sh report.sh summarize.pl w3.gnuplot))
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
	for my $f (qw(latest.md latest.csv w3.dat))
	{
		ok(-s "$res/$f", "$name: $f written");
	}
	is(-s "$res/w3.png" ? 1 : 0, $have_gnuplot ? 1 : 0,
		"$name: w3.png written exactly when gnuplot is installed");
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

# 2. a checkout owned by another user: git refuses it (the situation of
# issue 15, e.g. `sudo make bench` on a user's clone).  Git's own test knob
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

# without measurements there is nothing to report, and it says so
my $empty = "$tmp/results-empty";
make_path($empty);
my $out;
($ok, $out, $err) =
  run_cmd([ 'bash', "$good/bench/run.sh", '--report-only', $empty ]);
ok(!$ok && $err =~ /no measurements in/,
	'the report step refuses a directory without measurements');

done_testing();
