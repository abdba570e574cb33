#
# REPACK (PostgreSQL 19) on slimheap tables in every mode, against heap
# twins: plain REPACK and REPACK ... USING INDEX rewrite through
# slimheap's relation_copy_for_cluster (as VACUUM FULL and CLUSTER do on
# 15-18, where twin_07_alter and t/002 cover them).  Afterwards each table
# holds its twin's rows, keeps its access method and options, stores its
# rows in its mode (compress rows with tails), verifies clean, and its
# indexes pass bt_index_check(heapallindexed); a table in index order
# reads back in that order.  REPACK (CONCURRENTLY) is refused by core for
# every access method but heap, on the twin of each as on slimheap's; of a
# heap table, it keeps to its own rows while another session inserts rows
# with tails into a compress table (slimheap's records are not for it).
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('repack', allows_streaming => 1);
if ($node->pg_version->major < 19)
{
	plan skip_all => 'REPACK is PostgreSQL 19\'s (VACUUM FULL and CLUSTER are tested on every version elsewhere)';
}
$node->start;

my $defs = join(', ', map { "c$_ int4" } 2 .. 100);
# sparse rows whose NULLs are not trailing: tails in compress mode
my $values = join(', ',
	map { "CASE WHEN mod(g * 7 + $_ * 13, 23) = 0 OR $_ = 100 THEN g * 1000 + $_ END" } 2 .. 100);
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION amcheck;
CREATE TABLE h (id int4 PRIMARY KEY, k int4, $defs) USING heap;
INSERT INTO h SELECT g, mod(g * 37, 1000), $values FROM generate_series(1, 2000) g;
DELETE FROM h WHERE mod(id, 7) = 0;
UPDATE h SET c3 = -id WHERE mod(id, 11) = 0;
CREATE INDEX h_k ON h (k);
});

for my $mode (qw(full truncate compress))
{
	my $t = "s_$mode";
	$node->safe_psql(
		'postgres', qq{
CREATE TABLE $t (LIKE h INCLUDING INDEXES) USING slimheap
  WITH (slimheap.null_bitmap = $mode);
INSERT INTO $t SELECT * FROM h;
});
	for my $cmd ("REPACK $t", "REPACK $t USING INDEX ${t}_k_idx")
	{
		$node->safe_psql('postgres', $cmd);
		is( $node->safe_psql(
				'postgres', qq{
SELECT (SELECT count(*) FROM (TABLE h EXCEPT ALL TABLE $t) a) || ' ' ||
       (SELECT count(*) FROM (TABLE $t EXCEPT ALL TABLE h) b) || ' ' ||
       (SELECT count(*) FROM $t)}),
			'0 0 ' . $node->safe_psql('postgres', 'SELECT count(*) FROM h'),
			"$cmd: the heap twin's rows");
		is( $node->safe_psql(
				'postgres', qq{
SELECT a.amname || ' ' || array_to_string(c.reloptions, ',')
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '$t'::regclass}),
			"slimheap slimheap.null_bitmap=$mode",
			"$cmd: access method and options kept");
		is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('$t')"),
			0, "$cmd: verify finds nothing");
		$node->safe_psql('postgres', qq{
SELECT bt_index_check(indexrelid, true) FROM pg_index WHERE indrelid = '$t'::regclass});
	}
	my $tails = $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM generate_series(0::bigint, pg_relation_size('$t') / 8192 - 1) b,
       slimheap.page_items('$t', b) i WHERE i.tail_encoding IS NOT NULL});
	if ($mode eq 'compress')
	{
		cmp_ok($tails, '>', 0, "$mode: rows keep compressed tails after REPACK");
	}
	else
	{
		is($tails, 0, "$mode: no compressed tail");
	}
	# USING INDEX left the rows in k's order
	is( $node->safe_psql(
			'postgres', qq{
SELECT count(*) FROM (SELECT k, lag(k) OVER (ORDER BY ctid) AS prev FROM $t) x
 WHERE k < prev}),
		0,
		"$mode: REPACK USING INDEX stored the rows in the index's order");
	my ($ret, $out, $err) =
	  $node->psql('postgres', "REPACK (CONCURRENTLY) $t");
	isnt($ret, 0, "$mode: REPACK (CONCURRENTLY) is refused by core");
}

# REPACK (CONCURRENTLY) of a heap table decodes the WAL written while it
# copies, in a worker of its own that takes every change it is handed as
# its table's: while another session inserts rows with tails into a
# compress table (slimheap's own records, as logical decoding is on while
# the repack's slot exists), the heap table must end with its own rows.
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION pageinspect;
CREATE TABLE big (id int4 PRIMARY KEY, v int4, pad text) USING heap;
INSERT INTO big SELECT g, g % 1000, repeat('p', 40) FROM generate_series(1, 300000) g;
DELETE FROM big WHERE id % 3 = 0;
CREATE TABLE sc (id int4, $defs) USING slimheap WITH (slimheap.null_bitmap = compress);
});
my $big_rows = q{SELECT count(*) || ':' || md5(string_agg(b::text, ',' ORDER BY id)) FROM big b};
my $big_before = $node->safe_psql('postgres', $big_rows);
my $writer = $node->background_psql('postgres', on_error_stop => 1);
$writer->query_until(
	qr/writing/, qq{
\\echo writing
DO \$\$
BEGIN
	FOR i IN 1 .. 300 LOOP
		INSERT INTO sc SELECT i * 10 + g, $values FROM generate_series(1, 10) g;
		COMMIT;
		PERFORM pg_sleep(0.01);
	END LOOP;
END \$\$;
});
$node->safe_psql('postgres', 'REPACK (CONCURRENTLY) big');
$writer->quit;
is($node->safe_psql('postgres', $big_rows), $big_before,
	'REPACK (CONCURRENTLY) of a heap table while rows with tails are inserted elsewhere: it holds its own rows');
cmp_ok(
	$node->safe_psql(
		'postgres',
		"SELECT count(*) FROM (@{[ page_items_sql('sc') ]}) i WHERE i.tail"),
	'>', 0, 'the other session stored rows with tails meanwhile');
is($node->safe_psql('postgres', 'SELECT count(*) FROM sc'), 3000,
	'and all of its rows');

$node->stop;
done_testing();
