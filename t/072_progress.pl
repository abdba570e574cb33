# Copyright (c) slimheap contributors
#
# The view slimheap.progress (src/am/slim_progress.c,
# src/inspect/slim_progress_view.c): a pass shows there while it runs.
#   - CALL slimheap.compact() slowed by VACUUM's cost delay shows part-way:
#     its table, some but not all pages done, rows re-laid and bytes saved
#     growing; the row goes when it ends;
#   - a role without pg_read_all_stats sees another role's pass with its
#     pid and command only;
#   - CREATE INDEX CONCURRENTLY on a compress table shows its wait for an
#     older writer, before core's own phases;
#   - a cancelled compact leaves no row behind.
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
	map { "CASE WHEN $_ IN (3, 77, 150, 222, 300) THEN g * 1000 + $_ END" } 1 .. 300);

my $node = slim_node('primary');
$node->start;
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE TABLE t (id int PRIMARY KEY, $defs) USING heap;
INSERT INTO t SELECT g, $values FROM generate_series(1, 20000) g;
VACUUM t;
CALL slimheap.adopt('t', 'compress');
CREATE ROLE watcher LOGIN;
});
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('t') / 8192");

# compact, slowed down: about 10 ms a page
my $compact = $node->background_psql('postgres');
$compact->query_safe(
	"SET vacuum_cost_delay = '10ms'; SET vacuum_cost_limit = 1");
$compact->query_until(qr/compacting/,
	"\\echo compacting\nCALL slimheap.compact('t');\n\\echo compacted\n");
ok( $node->poll_query_until(
		'postgres', q{
SELECT count(*) = 1 FROM slimheap.progress
 WHERE relid = 't'::regclass AND command = 'compact'
   AND phase = 're-laying rows in place'
   AND pages_done > 2 AND pages_done < pages_total AND rows_relaid > 0
   AND bytes_saved > 0}),
	'compact shows part-way: some of its pages done, rows re-laid, bytes saved');
is($node->safe_psql('postgres', 'SELECT pages_total FROM slimheap.progress'),
	$pages, "pages_total is the table's $pages pages");
my $first = $node->safe_psql('postgres', 'SELECT pages_done FROM slimheap.progress');
ok( $node->poll_query_until(
		'postgres', "SELECT pages_done > $first FROM slimheap.progress"),
	'and goes on');
is( $node->safe_psql(
		'postgres', q{SELECT format('%s|%s|%s', command, relid IS NULL, pages_done IS NULL)
FROM slimheap.progress}, extra_params => [ '-U', 'watcher' ]),
	'compact|t|t',
	'another role sees the pass, not its figures');
$compact->query_until(qr/compacted/, '');
$compact->quit;
is($node->safe_psql('postgres', 'SELECT count(*) FROM slimheap.progress'),
	'0', 'the row goes when compact ends');

# a cancelled compact (its session goes on after the error)
$node->safe_psql('postgres', 'UPDATE t SET c3 = c3 WHERE id % 2 = 0');
$compact = $node->background_psql('postgres', on_error_stop => 0);
$compact->query_safe(
	"SET vacuum_cost_delay = '10ms'; SET vacuum_cost_limit = 1");
$compact->query_until(qr/compacting/,
	"\\echo compacting\nCALL slimheap.compact('t');\n\\echo compacted\n");
ok( $node->poll_query_until(
		'postgres', 'SELECT pages_done > 0 FROM slimheap.progress'),
	'a second compact shows');
$node->safe_psql('postgres',
	q{SELECT pg_cancel_backend(pid) FROM slimheap.progress});
ok( $node->poll_query_until(
		'postgres', 'SELECT count(*) = 0 FROM slimheap.progress'),
	'a cancelled compact leaves no row');
$compact->quit;

# CREATE INDEX CONCURRENTLY, waiting for an older writer
my $writer = $node->background_psql('postgres');
$writer->query_safe('BEGIN; INSERT INTO t (id) VALUES (100000)');
my $cic = $node->background_psql('postgres', on_error_stop => 0);
$cic->query_until(qr/building/,
	"\\echo building\nCREATE INDEX CONCURRENTLY t_c150 ON t (c150);\n\\echo built\n");
ok( $node->poll_query_until(
		'postgres', q{
SELECT count(*) = 1 FROM slimheap.progress
 WHERE relid = 't'::regclass AND command = 'index build re-layout'
   AND phase = 'waiting for writers'}),
	'CREATE INDEX CONCURRENTLY shows its wait for an older writer');
$writer->query_safe('COMMIT');
$cic->query_until(qr/built/, '');
is($node->safe_psql('postgres',
		"SELECT indisvalid FROM pg_index WHERE indexrelid = 't_c150'::regclass"),
	't', 'the index is built');
is($node->safe_psql('postgres', 'SELECT count(*) FROM slimheap.progress'),
	'0', 'and its row is gone');
$writer->quit;
$cic->quit;

$node->stop;
done_testing();
