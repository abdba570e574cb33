#
# The differential fuzzer (t/fuzz/SlimFuzz.pm) at a size that keeps the test
# suite short: a few fixed seeds, each a series of random schemas whose
# heap table and slimheap twin must stay equal and verify clean after every
# step, the twins running in all three modes of slimheap.null_bitmap.
# `make fuzz SEED=... STEPS=...` runs it at any size.
#
use strict;
use warnings;

use FindBin;
use lib "$FindBin::Bin/fuzz";

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use SlimFuzz;

# [seed, steps]: together about 75 seconds on an idle 2-core machine
my @runs = ([ 1, 400 ], [ 2, 400 ], [ 3, 400 ]);

my $node = PostgreSQL::Test::Cluster->new('fuzz');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'slimheap'
autovacuum = off
restart_after_crash = on
});
$node->start;

my ($schemas, $steps, $tail_rows, $observed) = (0, 0, 0, 0);
my %modes;
for my $run (@runs)
{
	my ($seed, $nsteps) = @$run;
	my @log;
	my $fuzz = SlimFuzz->new(
		seed => $seed,
		steps => $nsteps,
		outdir => $PostgreSQL::Test::Utils::tmp_check,
		# a failure is minimized within the test's time
		min_runs => 60,
		min_seconds => 240,
		log => sub { push @log, @_; note(@_); },
		session => {
			psql => 'psql',
			host => $node->host,
			port => $node->port,
			dbname => 'postgres',
		});
	my $r = $fuzz->run;
	$schemas += $r->{schemas};
	$steps += $r->{steps};
	$tail_rows += $r->{tail_rows};
	$observed += $r->{observed_builds};
	$modes{$_} += $r->{modes}{$_} for keys %{ $r->{modes} };
	ok(!$r->{failure},
		"seed $seed: $r->{schemas} schemas (widest $r->{columns_max} columns), $r->{steps} steps, twins equal and verified")
	  or diag(join("\n", grep { /FAILED|step|schema:|  / } @log));
}
note("fuzzed $schemas schemas, $steps steps");

# The slimheap twins ran in every mode of slimheap.null_bitmap (a schema's
# first mode or a switch to it), and compress stored tails.
for my $mode (qw(full truncate compress))
{
	cmp_ok($modes{$mode} // 0, '>', 0, "the slimheap twins ran in mode $mode");
}
cmp_ok($tail_rows, '>', 0,
	"the compress twins stored rows with a compressed tail ($tail_rows counted at the ends of the schemas)");
# Index builds ran in other sessions while a REPEATABLE READ transaction
# read both twins (plain, CONCURRENTLY, UNIQUE; some with an event trigger
# that writes), and the twins stayed equal, in that snapshot and after.
cmp_ok($observed, '>', 0, "index builds were watched by other sessions ($observed)");

$node->stop;
done_testing();
