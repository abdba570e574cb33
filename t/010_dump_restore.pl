
# slimheap tables in every null_bitmap mode survive pg_dump | psql and
# pg_dump -Fc | pg_restore -j 2 into new databases: same options, same rows,
# and the same row forms (natts of every stored tuple and its compressed
# tail marker, read with pageinspect), in the same physical order.  The
# compress table (120 sparse columns, slimheap.prefix_columns = 3) is
# restored with its tails.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use SlimheapTest;

my $node = PostgreSQL::Test::Cluster->new('dump_restore');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'slimheap'");
$node->start;

$node->safe_psql('postgres', 'CREATE DATABASE src');

# 12 columns; rows whose trailing NULLs start at different places, so that
# 'truncate' rows have 1 to 12 attributes and 'full' rows always 12
my $columns = join(', ', map { "c$_ int" } 2 .. 11);
my $values = q{
  SELECT i, CASE WHEN i % 11 >= 1 THEN i END,
         CASE WHEN i % 11 >= 2 THEN i END, CASE WHEN i % 11 >= 3 THEN i END,
         CASE WHEN i % 11 >= 4 THEN i END, CASE WHEN i % 11 >= 5 THEN i END,
         CASE WHEN i % 11 >= 6 THEN i END, CASE WHEN i % 11 >= 7 THEN i END,
         CASE WHEN i % 11 >= 8 THEN i END, CASE WHEN i % 11 >= 9 THEN i END,
         CASE WHEN i % 11 >= 10 THEN i END,
         CASE WHEN i % 3 = 0 THEN repeat('x', i % 50) END
  FROM generate_series(1, 500) i
};

# 120 columns, a few set at scattered places: rows with compressed tails
my $wide_columns = join(', ', map { "w$_ int" } 1 .. 120);
my $wide_values = 'SELECT i, '
  . join(', ', map { "CASE WHEN (i * 7 + $_ * 13) % 29 = 0 THEN i * 1000 + $_ END" } 1 .. 120)
  . ' FROM generate_series(1, 300) i';

$node->safe_psql(
	'src', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;

CREATE TABLE t_full (id int, $columns, t text)
  USING slimheap WITH (slimheap.null_bitmap = full, fillfactor = 90);
CREATE TABLE t_truncate (id int, $columns, t text)
  USING slimheap WITH (slimheap.null_bitmap = truncate);
CREATE TABLE t_default (id int, $columns, t text) USING slimheap;
CREATE TABLE t_core_only (id int, $columns, t text)
  USING slimheap WITH (fillfactor = 70, autovacuum_enabled = false);
CREATE TABLE t_later_full (id int, $columns, t text) USING slimheap;
ALTER TABLE t_later_full SET (slimheap.null_bitmap = full, fillfactor = 80);

CREATE TABLE p (id int, $columns, t text) PARTITION BY RANGE (id);
CREATE TABLE p_full PARTITION OF p FOR VALUES FROM (1) TO (250)
  USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE p_truncate PARTITION OF p FOR VALUES FROM (250) TO (1000)
  USING slimheap WITH (slimheap.null_bitmap = truncate);

INSERT INTO t_full $values;
INSERT INTO t_truncate $values;
INSERT INTO t_default $values;
INSERT INTO t_core_only $values;
INSERT INTO t_later_full $values;
INSERT INTO p $values;

CREATE TABLE t_ctas USING slimheap WITH (slimheap.null_bitmap = full)
  AS SELECT * FROM t_truncate ORDER BY id;
CREATE MATERIALIZED VIEW mv_full USING slimheap
  WITH (slimheap.null_bitmap = full) AS SELECT * FROM t_truncate ORDER BY id;

CREATE TABLE t_compress (id int, $wide_columns) USING slimheap
  WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 3);
INSERT INTO t_compress $wide_values;

CREATE TABLE t_converted (id int, $columns, t text) WITH (fillfactor = 85);
INSERT INTO t_converted $values;
ALTER TABLE t_converted SET ACCESS METHOD slimheap,
  SET (slimheap.null_bitmap = full);
});

# every relation with storage: access method and reloptions
my $catalog_sql = q{
  SELECT c.relname || ' ' || coalesce(a.amname, '-') || ' ' ||
         coalesce(c.reloptions::text, '-')
  FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
  WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'm', 'p')
  ORDER BY c.relname
};

my @tables = qw(t_full t_truncate t_default t_core_only t_later_full
  p_full p_truncate t_ctas mv_full t_converted t_compress);

sub fingerprint
{
	return dump_fingerprint($node, shift, $catalog_sql, @tables);
}

my $source = fingerprint('src');

# the source is what the test says it is: truncated rows where asked for,
# heap's 12 attributes in every row of the 'full' tables
is( $node->safe_psql('src',
		"SELECT count(DISTINCT t_infomask2 & 2047) FROM heap_page_items(get_raw_page('t_truncate', 0))"),
	'12',
	'truncate rows have 1 to 12 attributes');
foreach my $rel (qw(t_full t_later_full p_full t_ctas mv_full t_converted))
{
	unlike($source->{"$rel forms"}, qr/\b(?!12\b)\d+\b/,
		"$rel stores every row with 12 attributes");
}
like($source->{"t_compress forms"}, qr/\b2056\b/,
	't_compress stores rows with a tail after the 8 columns every prefix keeps, above prefix_columns = 3 (2048 + 8)');
like($source->{catalog}, qr/^t_full slimheap \{slimheap.null_bitmap=full,fillfactor=90\}$/m,
	'options are in pg_class.reloptions');

# plain format through psql
my $plain = $node->basedir . '/src.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('src'), '-f', $plain ],
	'pg_dump plain');
my $dump = slurp_file($plain);
like($dump, qr/WITH \("slimheap\.null_bitmap"='full', fillfactor='90'\)/,
	'pg_dump writes the option as one quoted name');
like($dump, qr/WITH \("slimheap\.null_bitmap"=truncate\)/,
	'pg_dump leaves a value unquoted when it can');

$node->safe_psql('postgres', 'CREATE DATABASE dst_plain');
$node->command_ok(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
		'-d', $node->connstr('dst_plain'), '-f', $plain
	],
	'restore plain dump with psql');

# custom format through a parallel pg_restore
my $custom = $node->basedir . '/src.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '-d', $node->connstr('src'), '-f', $custom ],
	'pg_dump custom format');
$node->safe_psql('postgres', 'CREATE DATABASE dst_custom');
restore_parallel($node, 'dst_custom', $custom, 'pg_restore -j 2');

foreach my $db (qw(dst_plain dst_custom))
{
	check_restored_fingerprint(fingerprint($db), $source, $db,
		'same access methods and options', @tables);

	# the restored options drive new rows too
	$node->safe_psql($db,
		"INSERT INTO t_full (id) VALUES (0); INSERT INTO t_truncate (id) VALUES (0)");
	is( $node->safe_psql(
			$db, q{
			SELECT (SELECT t_infomask2 & 2047 FROM t_full, heap_page_items(get_raw_page('t_full', (ctid::text::point)[0]::int))
			        WHERE id = 0 AND t_ctid = ctid) || ',' ||
			       (SELECT t_infomask2 & 2047 FROM t_truncate, heap_page_items(get_raw_page('t_truncate', (ctid::text::point)[0]::int))
			        WHERE id = 0 AND t_ctid = ctid)}),
		'12,1',
		"$db: new rows follow the restored options");
}

$node->stop;
done_testing();
