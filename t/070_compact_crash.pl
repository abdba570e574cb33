# Copyright (c) slimheap contributors
#
# CALL slimheap.compact() cut short, and replayed (src/am/slim_compact.c).
# compact sleeps as VACUUM does (vacuum_cost_delay), which makes it slow
# enough here to be stopped in the middle:
#   - an immediate shutdown while it runs loses nothing: after crash
#     recovery the rows are the heap twin's and verify() is clean, the pages
#     done are kept, and the next CALL finishes to the ratio a CALL that ran
#     through reaches;
#   - the primary runs with wal_consistency_checking = 'all', and a
#     streaming standby replays every page compact wrote into the page the
#     primary has (a mismatch would stop its startup process).
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $defs = wide_column_defs(300);
my $values = join(', ',
	map { "CASE WHEN $_ IN (3, 77, 150, 222, 300) THEN g * 1000 + $_ END" } 1 .. 300);

sub rows_of
{
	my ($node, $rel) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) || ':' || md5(string_agg(t::text, ',' ORDER BY id)) FROM $rel t");
}

my $node = slim_node('primary', allows_streaming => 1);
$node->append_conf('postgresql.conf', "wal_consistency_checking = 'all'");
$node->start;
# a slot keeps the WAL the standby has not received across the crash
$node->safe_psql('postgres',
	"SELECT 'slot' FROM pg_create_physical_replication_slot('standby')");
$node->backup('empty');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'empty', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby'");
$standby->start;

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE TABLE t (id int PRIMARY KEY, $defs) USING heap;
CREATE TABLE u (id int PRIMARY KEY, $defs) USING heap;
CREATE TABLE tw (id int PRIMARY KEY, $defs) USING heap;
INSERT INTO t SELECT g, $values FROM generate_series(1, 20000) g;
INSERT INTO u SELECT * FROM t;
INSERT INTO tw SELECT * FROM t;
});
$node->safe_psql('postgres', "CALL slimheap.adopt('t', 'compress')");
$node->safe_psql('postgres', "CALL slimheap.adopt('u', 'compress')");
my $twin_rows = rows_of($node, 'tw');
my $per_row = "SELECT live_bytes::numeric / live_rows FROM slimheap.stats('%s')";

# u runs through, for the ratio to reach
$node->safe_psql('postgres', "CALL slimheap.compact('u')");
my $through = $node->safe_psql('postgres', sprintf($per_row, 'u'));

# t, slowed by the cost delay, is stopped in the middle
my ($out, $err) = ('', '');
my $compact = IPC::Run::start(
	[
		'psql', '-X', '-d', $node->connstr('postgres'), '-c',
		"SET vacuum_cost_delay = '20ms'; SET vacuum_cost_limit = 10; CALL slimheap.compact('t')"
	],
	'>', \$out, '2>', \$err);
$node->poll_query_until('postgres',
	"SELECT (SELECT tail_rows FROM slimheap.stats('t')) > 1000")
  or die 'compact did not start';
$node->stop('immediate');
$compact->finish;
unlike($err, qr/NOTICE:  compacted table/, 'compact was stopped before its end');
$node->start;

is(rows_of($node, 't'), $twin_rows, "after crash recovery the rows are the twin's");
is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('t')"), '0',
	'verify() finds nothing wrong');
my $kept = $node->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('t')");
cmp_ok($kept, '>', 0, "the rows re-laid before the stop kept their form ($kept)");
cmp_ok($kept, '<', $node->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('u')"),
	'and they are not all the rows compact re-lays');
my ($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.compact('t')");
is($ret, 0, 'the next CALL runs');
is($node->safe_psql('postgres', sprintf($per_row, 't')), $through,
	'and reaches what a CALL that ran through reaches');
is(rows_of($node, 't'), $twin_rows, "the rows are the twin's");

$node->wait_for_catchup($standby, 'replay');
is(rows_of($standby, 't'), $twin_rows,
	"standby (wal_consistency_checking on the primary): the primary's rows");
is($standby->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('t')"),
	$node->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('t')"),
	'and its tails');

$standby->stop;
$node->stop;
done_testing();
