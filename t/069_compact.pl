# Copyright (c) slimheap contributors
#
# CALL slimheap.compact() beside writers (src/am/slim_compact.c).  A heap
# table of 20,000 rows (300 int4 columns, five set, an index on a middle
# column) is adopted in compress mode, then compacted while three sessions,
# at READ COMMITTED, REPEATABLE READ and SERIALIZABLE, update, insert and
# delete rows of their own, the same statements in the same transactions on
# a heap twin.  On a server with wal_level = logical, a
# test_decoding slot and a streaming standby:
#   - no write fails; the rows are the twin's; verify() and amcheck
#     (heapallindexed) are clean;
#   - a REPEATABLE READ snapshot taken before compact reads the same rows
#     after it;
#   - a row takes at most 1.03 of a fresh load of the same rows, and the
#     free space map holds at least 80% of the bytes freed;
#   - nothing of compact is decoded, and the writer's changes decode as
#     the twin's;
#   - the standby replays compact into the primary's rows and pages.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest qw(:DEFAULT decoded rows_of);
use Test::More;

my $defs = wide_column_defs(300);
my $values = join(', ',
	map { "CASE WHEN $_ IN (3, 77, 150, 222, 300) THEN g * 1000 + $_ END" } 1 .. 300);

my $node = slim_node('primary', allows_streaming => 'logical');
$node->start;
$node->backup('empty');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'empty', has_streaming => 1);
$standby->start;

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE EXTENSION amcheck;
CREATE TABLE t (id int PRIMARY KEY, $defs) USING heap;
CREATE TABLE tw (id int PRIMARY KEY, $defs) USING heap;
INSERT INTO t SELECT g, $values FROM generate_series(1, 20000) g;
INSERT INTO tw SELECT * FROM t;
CREATE INDEX ON t (c150);
CREATE INDEX ON tw (c150);
VACUUM t;
VACUUM tw;
SELECT 'slot' FROM pg_create_logical_replication_slot('td', 'test_decoding');
CREATE PROCEDURE write_both(n int, part int) LANGUAGE plpgsql AS \$\$
BEGIN
  -- writer part (0, 1, 2) touches the ids id % 3 = part only
  FOR i IN 1 .. n LOOP
    UPDATE t SET c77 = -c77 WHERE id = (i * 37 % 6666) * 3 + part + 1;
    UPDATE tw SET c77 = -c77 WHERE id = (i * 37 % 6666) * 3 + part + 1;
    INSERT INTO t (id, c3, c300) VALUES (100000 + i * 3 + part, i, i);
    INSERT INTO tw (id, c3, c300) VALUES (100000 + i * 3 + part, i, i);
    DELETE FROM t WHERE id = (i * 53 % 6666) * 3 + part + 1;
    DELETE FROM tw WHERE id = (i * 53 % 6666) * 3 + part + 1;
    COMMIT;
  END LOOP;
END \$\$;
});
my ($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.adopt('t', 'compress')");
is($ret, 0, 'the heap table is adopted in compress mode');
my $before_rows = rows_of($node, 't');

# a REPEATABLE READ snapshot from before compact, and a writer beside it
my $watcher = $node->background_psql('postgres');
$watcher->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM tw');
my $watched = $watcher->query_safe(
	"SELECT count(*) || ':' || md5(string_agg(x::text, ',' ORDER BY id)) FROM t x");
is($watched, $before_rows, 'the watcher reads the rows before compact');
my $from = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
# three writers on disjoint rows, one at each isolation level
my @writers;
my @levels = ('read committed', 'repeatable read', 'serializable');
for my $part (0 .. 2)
{
	my $writer = $node->background_psql('postgres', on_error_stop => 0);
	$writer->query_until(qr/writing/,
		"SET default_transaction_isolation = '$levels[$part]';\n\\echo writing\nCALL write_both(300, $part);\n\\echo written\n");
	push @writers, $writer;
}

($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.compact('t')");
is($ret, 0, 'compact succeeds beside the writer');
like($stderr, qr/NOTICE:  compacted table "t": \d+ rows re-laid in place/, 'and says how many rows it re-laid');

for my $part (0 .. 2)
{
	my $writer = $writers[$part];
	$writer->query_until(qr/written/, '');
	unlike($writer->{stderr} // '', qr/ERROR/, "the $levels[$part] writer had no error");
	$writer->quit;
}
is($watcher->query_safe(
		"SELECT count(*) || ':' || md5(string_agg(x::text, ',' ORDER BY id)) FROM t x"),
	$before_rows, 'a REPEATABLE READ snapshot taken before compact reads the same rows');
$watcher->query_safe('COMMIT');
$watcher->quit;

is(rows_of($node, 't'), rows_of($node, 'tw'), "after compact and the writes the rows are the twin's");
is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('t')"), '0', 'verify() is clean');
is($node->safe_psql('postgres',
		q{SELECT string_agg(bt_index_check(indexrelid, true)::text, '') FROM pg_index WHERE indrelid = 't'::regclass}),
	'', 'amcheck with heapallindexed passes on every index');

# the same rows loaded fresh into a compress table
$node->safe_psql('postgres', "CALL slimheap.compact('t')");
$node->safe_psql('postgres',
	"CREATE TABLE fresh (id int PRIMARY KEY, $defs) USING slimheap WITH (slimheap.null_bitmap = compress);"
	  . ' CREATE INDEX ON fresh (c150); INSERT INTO fresh SELECT * FROM t ORDER BY id');
my $ratio = $node->safe_psql('postgres', q{
SELECT round((SELECT live_bytes::numeric / live_rows FROM slimheap.stats('t'))
           / (SELECT live_bytes::numeric / live_rows FROM slimheap.stats('fresh')), 3)});
cmp_ok($ratio, '<=', 1.03, "a row takes $ratio of a fresh load of the same rows");
# the free space map, on a second adopted table compacted with no writer
# (pg_freespacemap reads it, as amcheck checks the indexes above: every
# server the suite runs on has both, scripts/pg-build.sh builds them for 18)
{
	$node->safe_psql('postgres', 'CREATE EXTENSION pg_freespacemap');
	$node->safe_psql('postgres',
		"CREATE TABLE q (id int PRIMARY KEY, $defs) USING heap; INSERT INTO q SELECT g, $values FROM generate_series(1, 20000) g; VACUUM q");
	$node->safe_psql('postgres', "CALL slimheap.adopt('q', 'compress')");
	my $fsm_sql = "SELECT sum(avail) FROM pg_freespace('q')";
	my $q_live_sql = "SELECT live_bytes FROM slimheap.stats('q')";
	my ($fsm_before, $q_live_before) =
	  ($node->safe_psql('postgres', $fsm_sql), $node->safe_psql('postgres', $q_live_sql));
	$node->safe_psql('postgres', "CALL slimheap.compact('q')");
	my $freed = $q_live_before - $node->safe_psql('postgres', $q_live_sql);
	my $recorded = $node->safe_psql('postgres', $fsm_sql) - $fsm_before;
	cmp_ok($freed, '>', 0, "compact freed $freed bytes");
	cmp_ok($recorded, '>=', 0.8 * $freed,
		"the free space map records $recorded bytes more (of the $freed freed)");
}

my $upto = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my $twin_changes = decoded($node, 'tw', $from, $upto);
like($twin_changes, qr/UPDATE:/, 'the twin decodes the writer\'s UPDATEs');
ok(decoded($node, 't', $from, $upto) eq $twin_changes,
	'the compacted table decodes what the twin decodes, and nothing of compact');

$node->wait_for_catchup($standby, 'replay');
is(rows_of($standby, 't'), rows_of($node, 't'), "standby: the primary's rows");
is($standby->safe_psql('postgres', "SELECT count(*) FROM (@{[ page_items_sql('t') ]}) i WHERE i.tail"),
	$node->safe_psql('postgres', "SELECT count(*) FROM (@{[ page_items_sql('t') ]}) i WHERE i.tail"),
	'standby: the same rows have tails');

$standby->stop;
$node->stop;
done_testing();
