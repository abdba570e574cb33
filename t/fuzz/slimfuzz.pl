#!/usr/bin/perl
#
# slimfuzz.pl: run the differential fuzzer against a running server that
# preloads slimheap (t/fuzz/run-fuzz.sh starts a throwaway one: `make fuzz`).
#
#   perl t/fuzz/slimfuzz.pl --seed 1 --steps 200 --host /tmp --port 5432
#
# Exit status: 0 when no difference was found, 1 on a failure (the seed, the
# shortest failing step list and a reproduction script are printed), 2 on a
# usage or connection problem.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::Bin;
use Getopt::Long;

use SlimFuzz;

my %o = (seed => 1, steps => 200, dbname => 'postgres', psql => 'psql',
	outdir => '.');
GetOptions(\%o, 'seed=i', 'steps=i', 'host=s', 'port=i', 'dbname=s',
	'user=s', 'psql=s', 'outdir=s', 'min-runs=i', 'min-seconds=i')
  or die "usage: $0 --seed N --steps N [--host H] [--port P] [--dbname D] [--user U] [--psql PATH] [--outdir DIR]\n";

my $fuzz = eval {
	SlimFuzz->new(
		seed => $o{seed},
		steps => $o{steps},
		outdir => $o{outdir},
		(defined $o{'min-runs'} ? (min_runs => $o{'min-runs'}) : ()),
		(defined $o{'min-seconds'} ? (min_seconds => $o{'min-seconds'}) : ()),
		log => sub { print "@_\n"; },
		session => {
			psql => $o{psql}, host => $o{host}, port => $o{port},
			dbname => $o{dbname}, user => $o{user},
		});
};
if (!$fuzz)
{
	print STDERR "slimfuzz: cannot start: $@";
	exit 2;
}
$| = 1;
my $result = $fuzz->run;
printf "slimfuzz: %d schemas (widest %d columns), %d steps; modes: %s; %d rows with a compressed tail, %d indexes built after loads (%d watched by other sessions)%s\n",
  $result->{schemas}, $result->{columns_max}, $result->{steps},
  join(', ', map { "$_ $result->{modes}{$_}" } sort keys %{ $result->{modes} }),
  $result->{tail_rows}, $result->{index_builds}, $result->{observed_builds},
  $result->{failure} ? ", FAILED (class $result->{failure}{class})" : ', all equal and verified';
$fuzz->{sess}->close;
exit($result->{failure} ? 1 : 0);
