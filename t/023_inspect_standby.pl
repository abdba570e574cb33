# Copyright (c) slimheap contributors
#
# The inspection functions on a hot standby.  An unlogged table has only its
# init fork there: stats(), estimate(), page_items() and verify() give the
# error PostgreSQL's planner gives for it ("cannot access temporary or
# unlogged relations during recovery"), not a failure to open its file.  A
# logged table is read as on the primary.

use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $primary = slim_node('primary', allows_streaming => 1);
$primary->start;
# 9 columns, p4 .. p9 never set, so that lt's rows are truncated (a table of
# at most 8 attributes stores heap's full form in every mode,
# docs/narrow-slot.md)
my $cols = 'a int4, b int4, c int4, p4 int4, p5 int4, p6 int4, p7 int4, p8 int4, p9 int4';
$primary->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE TABLE lt ($cols) USING slimheap;
CREATE UNLOGGED TABLE ut ($cols) USING slimheap;
CREATE UNLOGGED TABLE uh ($cols) USING heap;
INSERT INTO lt (a) SELECT g FROM generate_series(1, 100) g;
INSERT INTO ut SELECT * FROM lt;
INSERT INTO uh SELECT * FROM lt;
});
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'),
	't', 'the standby is in recovery');

is( $standby->safe_psql(
		'postgres', "SELECT live_rows, truncated_rows FROM slimheap.stats('lt')"),
	'100|100',
	'stats() reads a logged table on the standby');
is( $standby->safe_psql('postgres',
		"SELECT string_agg(mode || '=' || total_rows, ',' ORDER BY mode) FROM slimheap.estimate('lt')"
	),
	'compress=100,full=100,truncate=100',
	'estimate() reads a logged table on the standby');
is($standby->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('lt')"),
	'0', 'verify() reads a logged table on the standby');

# core's own error for the unlogged tables, from a query
my ($ret, $stdout, $stderr) =
  $standby->psql('postgres', 'SELECT count(*) FROM ut');
like(
	$stderr,
	qr/ERROR:  cannot access temporary or unlogged relations during recovery/,
	'a query on the unlogged table gets core\'s error');

for my $call (
	"slimheap.stats('ut')", "slimheap.estimate('ut')",
	"slimheap.estimate('ut', NULL)", "slimheap.estimate('uh')",
	"slimheap.page_items('ut', 0)", "slimheap.verify('ut')",
	"slimheap.verify('uh')")
{
	($ret, $stdout, $stderr) = $standby->psql(
		'postgres', "SELECT * FROM $call",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	isnt($ret, 0, "$call fails on the standby");
	like(
		$stderr,
		qr/ERROR:  0A000: cannot access temporary or unlogged relations during recovery/,
		"$call gives core's error for an unlogged relation");
	unlike($stderr, qr/could not open file/, "$call opens no file");
}

# on the primary the same calls read the rows
is($primary->safe_psql('postgres', "SELECT live_rows FROM slimheap.stats('ut')"),
	'100', 'stats() reads the unlogged table on the primary');

$standby->stop;
$primary->stop;
done_testing();
