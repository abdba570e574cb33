#
# Index builds on a compress table re-lay out rows in place
# (docs/format.md "Index builds").
#
# Rows written under wal_level = replica keep c50, c60 and c70 in their
# compressed tails; the tables' fillfactor leaves room on each page to
# re-lay them out (a page without room moves its rows as UPDATEs:
# specs/compress_build_rowlocks.spec).  After a restart with wal_level = logical, a logical
# slot (test_decoding) watches while CREATE INDEX, CREATE UNIQUE INDEX
# CONCURRENTLY and ALTER TABLE ... ADD PRIMARY KEY are built on the
# compress table and on its heap twin:
#   - no row moves (every ctid stays), no row hides an indexed value any
#     more, and the indexes pass bt_index_check(heapallindexed);
#   - the slot decodes nothing for either table's builds, and decodes the
#     INSERTs that follow;
#   - a streaming standby that preloads slimheap replays slimheap's WAL
#     record (wal_consistency_checking: redo makes the page the primary
#     logged) and answers index scans as the primary does; its indexes
#     pass bt_index_check;
#   - a standby without the library stops at that record with core's
#     message; once it preloads slimheap it follows again.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $NCOLS = 100;
my $NROWS = 3000;
my $RMGR_ID = 151;

my $defs = join(', ', map { "c$_ int4" } 2 .. $NCOLS);
# c2 .. c8 set; every tenth row sets c50, c60 (unique), c70 (unique) and
# c100: those keep them in a tail; the others store c100 only past c8
my $values = join(', ',
	(map { "g" } 2 .. 8),
	(map {
		my $c = $_;
		$c == 50 || $c == 60 || $c == 70
		  ? "CASE WHEN mod(g, 10) = 0 THEN g * 100 + $c END"
		  : $c == $NCOLS ? "g" : "NULL"
	} 9 .. $NCOLS));

my $primary = slim_node('primary', allows_streaming => 1);
# every record carries the page as its writer left it, and replay checks
# that redo made the same (masked as heap's pages are)
$primary->append_conf('postgresql.conf', "wal_consistency_checking = 'all'");
$primary->start;
$primary->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION amcheck;
CREATE TABLE h (id int4 NOT NULL, $defs) USING heap WITH (fillfactor = 80);
CREATE TABLE s (LIKE h) USING slimheap
  WITH (slimheap.null_bitmap = compress, fillfactor = 80);
INSERT INTO h SELECT g, $values FROM generate_series(1, $NROWS) g;
INSERT INTO s SELECT * FROM h;
CREATE TABLE s_before AS SELECT id, ctid AS t FROM s;
});

# rows that hide a value of c50, c60 or c70 from heap's reading
my $hidden_sql = q{
SELECT count(*) FROM generate_series(0::bigint, pg_relation_size('s') / 8192 - 1) b,
       slimheap.page_items('s', b) i, s q
 WHERE q.ctid = format('(%s,%s)', b, i.lp)::tid
   AND i.tail_encoding IS NOT NULL AND i.natts < 70
   AND (q.c50 IS NOT NULL OR q.c60 IS NOT NULL OR q.c70 IS NOT NULL)};
is($primary->safe_psql('postgres', $hidden_sql),
	$NROWS / 10, 'every tenth row keeps c50, c60 and c70 in its tail');

$primary->backup('before');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'before', has_streaming => 1);
$standby->start;
my $bare = PostgreSQL::Test::Cluster->new('bare');
$bare->init_from_backup($primary, 'before', has_streaming => 1);
$bare->append_conf('postgresql.conf', "shared_preload_libraries = ''");
$bare->start;

$primary->append_conf('postgresql.conf', 'wal_level = logical');
$primary->restart;
$primary->safe_psql('postgres',
	"SELECT pg_create_logical_replication_slot('watch', 'test_decoding')");

for my $t ('h', 's')
{
	$primary->safe_psql('postgres', "CREATE INDEX ${t}_c50 ON $t (c50)");
	$primary->safe_psql('postgres',
		"CREATE UNIQUE INDEX CONCURRENTLY ${t}_c60 ON $t (c60)");
	$primary->safe_psql('postgres', "ALTER TABLE $t ADD CONSTRAINT ${t}_c70 UNIQUE (c70)");
}

is($primary->safe_psql('postgres', $hidden_sql),
	0, 'no row hides an indexed value after the builds');
is( $primary->safe_psql(
		'postgres',
		'SELECT count(*) FROM s JOIN s_before b USING (id) WHERE s.ctid <> b.t'),
	0,
	'no row moved: every row was re-laid in place');
is( $primary->safe_psql(
		'postgres', q{
SELECT count(*) FROM pg_logical_slot_get_changes('watch', NULL, NULL,
       'skip-empty-xacts', '1', 'include-xids', '0')}),
	0,
	'the slot decodes no change for the builds of either table');

$primary->safe_psql('postgres',
	"INSERT INTO h (id, c2, c50) VALUES (-1, -1, -1); INSERT INTO s (id, c2, c50) VALUES (-1, -1, -1)");
my $decoded = $primary->safe_psql(
	'postgres', q{
SELECT string_agg(data, E'\n') FROM pg_logical_slot_get_changes('watch', NULL,
       NULL, 'skip-empty-xacts', '1', 'include-xids', '0')
 WHERE data LIKE 'table %'});
like($decoded, qr/table public\.h: INSERT: id\[integer\]:-1 c2\[integer\]:-1/,
	'the slot decodes the heap twin\'s insert after the builds');
like($decoded, qr/table public\.s: INSERT: id\[integer\]:-1 c2\[integer\]:-1/,
	'and the compress table\'s');

# index scans of table $t
sub lookups_sql
{
	my ($t) = @_;
	return qq{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT string_agg(format('%s:%s:%s:%s', id, c50, c60, c70), ',' ORDER BY id)
  FROM (SELECT * FROM $t WHERE c50 BETWEEN 1000 AND 100000
        UNION ALL SELECT * FROM $t WHERE c60 = 150060
        UNION ALL SELECT * FROM $t WHERE c70 = 290070) q};
}
my $lookups = lookups_sql('s');
my $checks = q{
SELECT bt_index_check('s_c50', true), bt_index_check('s_c60', true),
       bt_index_check('s_c70', true)};
my $expected = $primary->safe_psql('postgres', $lookups);
is( $expected,
	$primary->safe_psql('postgres', lookups_sql('h')),
	'index scans of the compress table return the heap twin\'s rows');
$primary->safe_psql('postgres', $checks);

$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $lookups),
	$expected, 'the standby that preloads slimheap answers as the primary');
is($standby->safe_psql('postgres', $checks),
	'||', 'its indexes hold every row');
is($standby->safe_psql('postgres', $hidden_sql),
	0, 'its rows are re-laid as the primary\'s');

ok( $bare->wait_for_log(
		qr/resource manager with ID $RMGR_ID not registered/),
	'a standby without the library stops at slimheap\'s record');
# its startup process failed: the server is down
$bare->{_pid} = undef;
$bare->append_conf('postgresql.conf', "shared_preload_libraries = 'slimheap'");
$bare->start;
$primary->wait_for_catchup($bare);
is($bare->safe_psql('postgres', $lookups),
	$expected, 'once it preloads slimheap, it follows and answers the same');

done_testing();
