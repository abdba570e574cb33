# Copyright (c) slimheap contributors
#
# VACUUM gives compress rows their form back (src/am/slim_vacuum.c).  Under
# wal_level = logical heap logs an UPDATE's new row for decoding, so
# slimheap stores it without a tail (invariant C3): a table updated under
# change data capture loses its savings.  After heap's VACUUM, slimheap
# re-lays the rows of the pages that were not all-visible, in place, with
# its own WAL record.  On a publisher that preloads slimheap, beside a heap
# twin and a test_decoding slot:
#   - UPDATEs (25% of rows, 10% setting a column NULL) and DELETEs (2%)
#     leave live rows taking more than a fresh load of the same rows;
#   - after VACUUM they take at most 1.03 of it, VACUUM VERBOSE says how
#     many rows it re-laid, and the rows are the twin's;
#   - nothing of the VACUUM is decoded, and the writes decode as the twin's;
#   - a standby replays the re-layout into the primary's rows and pages;
#   - tables in full mode and REPLICA IDENTITY FULL tables are left alone.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest qw(:DEFAULT decoded rows_of);
use Test::More;

my $NCOLS = 300;
my $NROWS = 20000;
my $defs = wide_column_defs($NCOLS);
# five columns set at scattered positions, c300 always
my $values = join(', ',
	map { "CASE WHEN $_ IN (3, 77, 150, 222) OR $_ = $NCOLS THEN g * 1000 + $_ END" }
	  1 .. $NCOLS);
my $compress = 'USING slimheap WITH (slimheap.null_bitmap = compress)';

# live bytes per live row
sub per_row
{
	my ($node, $rel) = @_;
	return $node->safe_psql('postgres',
		"SELECT live_bytes::numeric / live_rows FROM slimheap.stats('$rel')");
}

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
CREATE TABLE c (id int PRIMARY KEY, $defs) $compress;
CREATE TABLE h (id int PRIMARY KEY, $defs) USING heap;
CREATE TABLE fu (id int PRIMARY KEY, $defs) USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE rf (id int NOT NULL, $defs) $compress;
ALTER TABLE rf REPLICA IDENTITY FULL;
SELECT 'slot' FROM pg_create_logical_replication_slot('td', 'test_decoding');
});
for my $rel ('c', 'h', 'fu', 'rf')
{
	$node->safe_psql('postgres',
		"INSERT INTO $rel SELECT g, $values FROM generate_series(1, $NROWS) g");
	$node->safe_psql('postgres', "VACUUM $rel");
}
my $from = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
for my $rel ('c', 'h', 'fu', 'rf')
{
	$node->safe_psql(
		'postgres', qq{
UPDATE $rel SET c150 = -id WHERE id % 4 = 0;
UPDATE $rel SET c77 = NULL WHERE id % 10 = 1;
DELETE FROM $rel WHERE id % 50 = 7;
});
}

# a fresh load of the rows c holds now
$node->safe_psql('postgres',
	"CREATE TABLE fresh (id int PRIMARY KEY, $defs) $compress; INSERT INTO fresh SELECT * FROM c ORDER BY id");
my $fresh = per_row($node, 'fresh');
my $before = per_row($node, 'c');
cmp_ok($before / $fresh, '>', 1.05,
	sprintf('after the writes under logical WAL a row takes %.3f of a fresh load', $before / $fresh));

my $full_sql = "SELECT full_rows || ' ' || live_rows || ' ' || live_bytes FROM slimheap.stats('fu')";
my $full_before = $node->safe_psql('postgres', $full_sql);
my $rf_tails = $node->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('rf')");

my ($ret, $stdout, $stderr) = $node->psql('postgres', 'VACUUM (VERBOSE) c');
is($ret, 0, 'VACUUM succeeds');
like($stderr, qr/INFO:  table "c": \d+ rows re-laid in place into their compressed form, 0 pages skipped/,
	'VACUUM VERBOSE says how many rows it re-laid');
$node->safe_psql('postgres', 'VACUUM h; VACUUM fu; VACUUM rf');
my $after = per_row($node, 'c');
cmp_ok($after / $fresh, '<=', 1.03,
	sprintf('after VACUUM a row takes %.3f of a fresh load', $after / $fresh));
my $twin_rows = rows_of($node, 'h');
is(rows_of($node, 'c'), $twin_rows, "the rows are the heap twin's");
is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('c')"), '0',
	'verify() finds nothing wrong');
is($node->safe_psql('postgres', q{SELECT bt_index_check('c_pkey', true)::text}),
	'', 'amcheck with heapallindexed passes');
is($node->safe_psql('postgres', $full_sql), $full_before,
	'a table in full mode keeps every row in heap\'s form');
is($node->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('rf')"),
	$rf_tails, 'a REPLICA IDENTITY FULL table gets no tails');

my $upto = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my $twin_changes = decoded($node, 'h', $from, $upto);
like($twin_changes, qr/UPDATE:/, 'the twin decodes its UPDATEs');
ok(decoded($node, 'c', $from, $upto) eq $twin_changes,
	'the compress table decodes what the twin decodes, and nothing of the VACUUM');

$node->wait_for_catchup($standby, 'replay');
is(rows_of($standby, 'c'), $twin_rows, "standby: the primary's rows");
is($standby->safe_psql('postgres', "SELECT count(*) FROM (@{[ page_items_sql('c') ]}) i WHERE i.tail"),
	$node->safe_psql('postgres', "SELECT count(*) FROM (@{[ page_items_sql('c') ]}) i WHERE i.tail"),
	'standby: the same rows have tails (the re-layout was replayed)');

$standby->stop;
$node->stop;
done_testing();
