# Copyright (c) slimheap contributors
#
# slimheap.index_columns carries the columns a compress table's indexes
# read through pg_dump (src/options/slim_options_columns.c,
# src/am/slim_index_columns.c).  A dump restores a table's rows before its
# indexes; without the option, the rows keep the indexed column in their
# compressed tail and the index build stores most of them again (a file
# 1.76 times the original's, docs/row-floor.md §7).  The table of the
# per-row floor's issue (300 int4 columns, every 15th set in 2 of 3 rows, a
# NOT NULL timestamptz last), indexed on c150 after its load:
#   - CREATE INDEX names c150 in the option, and VACUUM FULL gives the
#     original its final form;
#   - pg_dump -Fc, then pg_restore plain, with --single-transaction and
#     with -j 2: the restored file is at most 1.02 of the original's, with
#     the same rows and the same option;
#   - after a column before it is dropped and c150 renamed, the option
#     follows, and a restore still comes out at the original's size.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $defs = wide_column_defs(300);
my $values = join(', ',
	map { $_ % 15 == 0 ? "CASE WHEN g % 3 <> 0 THEN g * 1000 + $_ END" : 'NULL' }
	  1 .. 300);

my $node = slim_node('primary');
$node->start;
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE TABLE t (id int PRIMARY KEY, $defs, ts timestamptz NOT NULL DEFAULT '2026-01-01')
  USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO t SELECT g, $values FROM generate_series(1, 20000) g;
CREATE INDEX t_c150 ON t (c150);
VACUUM FULL t;
});
is($node->safe_psql('postgres', "SELECT reloptions FROM pg_class WHERE relname = 't'"),
	'{slimheap.null_bitmap=compress,slimheap.index_columns=c150}',
	'CREATE INDEX names c150 in slimheap.index_columns');

my $rows_sql = "SELECT count(*) || ':' || md5(string_agg(t::text, ',' ORDER BY id)) FROM t";
my $size_sql = "SELECT pg_relation_size('t')";
my $options_sql = "SELECT reloptions FROM pg_class WHERE relname = 't'";

# dump, restore three ways, and compare with the original
sub check_restores
{
	my ($what) = @_;
	my $dump = $node->basedir . '/t.dump';
	my %orig = (
		rows => $node->safe_psql('postgres', $rows_sql),
		size => $node->safe_psql('postgres', $size_sql),
		options => $node->safe_psql('postgres', $options_sql));

	$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
		"$what: pg_dump");
	foreach my $how ([ 'plain', [] ], [ 'single-transaction', ['--single-transaction'] ],
		[ 'parallel', [ '-j', '2' ] ])
	{
		my ($name, $flags) = @$how;
		my $db = "r_$name";
		$db =~ s/-/_/g;
		$node->safe_psql('postgres', "DROP DATABASE IF EXISTS $db");
		$node->safe_psql('postgres', "CREATE DATABASE $db");
		$node->command_ok(
			[ 'pg_restore', '--exit-on-error', @$flags, '-d', $node->connstr($db), $dump ],
			"$what: pg_restore ($name)");
		is($node->safe_psql($db, $rows_sql), $orig{rows}, "$what, $name: the same rows");
		is($node->safe_psql($db, $options_sql), $orig{options},
			"$what, $name: the same options");
		my $ratio = sprintf('%.3f', $node->safe_psql($db, $size_sql) / $orig{size});
		cmp_ok($ratio, '<=', 1.02,
			"$what, $name: the restored file is $ratio of the original's ($orig{size} bytes)");
	}
}

check_restores('indexed on c150');

# a column before it dropped (restores number the columns anew), c150 renamed
$node->safe_psql('postgres', q{
ALTER TABLE t DROP COLUMN c15;
ALTER TABLE t RENAME COLUMN c150 TO "C 150";
VACUUM FULL t;
});
is($node->safe_psql('postgres', $options_sql),
	'{slimheap.null_bitmap=compress,"slimheap.index_columns=\"C 150\""}',
	'the option follows the renamed column');
$node->safe_psql('postgres', 'ALTER TABLE t DROP COLUMN c30');
check_restores('after DROP COLUMN and RENAME COLUMN');

$node->stop;
done_testing();
