# Copyright (c) slimheap contributors
#
# CALL slimheap.compact() cut short, and replayed (src/am/slim_compact.c).
# compact sleeps as VACUUM does (vacuum_cost_delay), which makes it slow
# enough here to be stopped in the middle:
#   - an immediate shutdown while it runs loses nothing: after crash
#     recovery the rows are the heap twin's and verify() is clean, the pages
#     done are kept, and the next CALL goes on from the position compact
#     kept (pg_slimheap/, src/am/slim_compact_position.c) and finishes to
#     the ratio a CALL that ran through reaches; a finished CALL removes
#     the position, a rewrite makes it void, DROP TABLE has it swept;
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
use SlimheapTest qw(:DEFAULT rows_of);
use Test::More;

my $defs = wide_column_defs(300);
my $values = join(', ',
	map { "CASE WHEN $_ IN (3, 77, 150, 222, 300) THEN g * 1000 + $_ END" } 1 .. 300);

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
my $positions = "SELECT coalesce(string_agg(f, ',' ORDER BY f), '') FROM pg_ls_dir('pg_slimheap', true, false) f";
my $t_file = 'compact_'
  . $node->safe_psql('postgres',
	"SELECT d.oid || '_' || 't'::regclass::oid FROM pg_database d WHERE datname = 'postgres'");
$node->poll_query_until('postgres',
	"SELECT (SELECT tail_rows FROM slimheap.stats('t')) > 1000 AND ($positions) = '$t_file'")
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
is($node->safe_psql('postgres', $positions), $t_file, 'its position survived the crash');
my ($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.compact('t')");
is($ret, 0, 'the next CALL runs');
like($stderr, qr/NOTICE:  slimheap.compact\(\) goes on with table "t" at block [1-9]\d* of \d+, where an earlier call stopped/,
	'from the position the stopped call kept');
is($node->safe_psql('postgres', $positions), '', 'which it removes at its end');
is($node->safe_psql('postgres', sprintf($per_row, 't')), $through,
	'and reaches what a CALL that ran through reaches');
is(rows_of($node, 't'), $twin_rows, "the rows are the twin's");

$node->wait_for_catchup($standby, 'replay');
is(rows_of($standby, 't'), $twin_rows,
	"standby (wal_consistency_checking on the primary): the primary's rows");
is($standby->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('t')"),
	$node->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('t')"),
	'and its tails');

# a rewrite makes a position void; a dropped table's is swept away
$node->safe_psql('postgres',
	"CREATE TABLE v (LIKE tw) USING heap; INSERT INTO v SELECT * FROM tw; CALL slimheap.adopt('v', 'compress')");
my $v_file = 'compact_'
  . $node->safe_psql('postgres',
	"SELECT d.oid || '_' || 'v'::regclass::oid FROM pg_database d WHERE datname = 'postgres'");
my $stopped = "SET vacuum_cost_delay = '20ms'; SET vacuum_cost_limit = 10; SET statement_timeout = '2s'; CALL slimheap.compact('v')";
($ret, $stdout, $stderr) = $node->psql('postgres', $stopped);
like($stderr, qr/statement timeout/, 'a compact of v is stopped');
is($node->safe_psql('postgres', $positions), $v_file, 'and keeps its position');
$node->safe_psql('postgres', 'VACUUM FULL v');
($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.compact('v')");
unlike($stderr, qr/goes on/, 'after VACUUM FULL the next CALL starts over');
is($node->safe_psql('postgres', $positions), '', 'and removes the position at its end');
# rows written in truncate mode, for compact to re-lay into compress
$node->safe_psql('postgres', "TRUNCATE v; ALTER TABLE v SET (slimheap.null_bitmap = truncate)");
$node->safe_psql('postgres', "INSERT INTO v SELECT * FROM tw");
$node->safe_psql('postgres', "ALTER TABLE v SET (slimheap.null_bitmap = compress)");
($ret, $stdout, $stderr) = $node->psql('postgres', $stopped);
is($node->safe_psql('postgres', $positions), $v_file, 'a second stopped compact of v keeps its position');
$node->safe_psql('postgres', 'DROP TABLE v');
$node->safe_psql('postgres', "CALL slimheap.compact('u')");
is($node->safe_psql('postgres', $positions), '', 'DROP TABLE v: the next compact sweeps it away');
is(rows_of($node, 'u'), $twin_rows, "u's rows are the twin's");

$standby->stop;
$node->stop;
done_testing();
