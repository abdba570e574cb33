
# slimheap.default_null_bitmap writes the mode in force into every new
# slimheap table's reloptions (a narrow table's when an ADD COLUMN makes it
# wide), so pg_dump records it: a database whose
# tables were created under compress (set per database, with
# default_table_access_method = slimheap and DDL that names no option)
# restores with the same modes, rows and row forms (compressed tails too)
# into a database whose setting is full, with psql and with pg_restore -j 2.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SlimheapTest;

my $node = slim_node('dump_default');
$node->start;

# (the access method must exist before a session can make it the default)
$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql(
	'src', q{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
ALTER DATABASE src SET default_table_access_method = slimheap;
ALTER DATABASE src SET slimheap.default_null_bitmap = compress;
});

# 120 columns, a few set at scattered places: rows with compressed tails
my $wide_columns = join(', ', map { "w$_ int" } 1 .. 120);
my $wide_values = 'SELECT i, '
  . join(', ',
	map { "CASE WHEN (i * 7 + $_ * 13) % 29 = 0 THEN i * 1000 + $_ END" }
	  1 .. 120)
  . ' FROM generate_series(1, 300) i';

$node->safe_psql(
	'src', qq{
-- no option in the DDL: the database's compress
CREATE TABLE t_wide (id int PRIMARY KEY, $wide_columns);
INSERT INTO t_wide $wide_values;
CREATE TABLE t_narrow (a int, b text);
INSERT INTO t_narrow SELECT i, CASE WHEN i % 2 = 0 THEN 'x' END FROM generate_series(1, 100) i;
CREATE TABLE t_parted (id int, $wide_columns) PARTITION BY RANGE (id);
CREATE TABLE t_part1 PARTITION OF t_parted FOR VALUES FROM (0) TO (1000);
INSERT INTO t_parted $wide_values;
CREATE TABLE t_ctas AS SELECT * FROM t_wide ORDER BY id;
-- a session that set truncate, and one that named full
SET slimheap.default_null_bitmap = truncate;
CREATE TABLE t_truncate (id int, $wide_columns);
INSERT INTO t_truncate $wide_values;
CREATE TABLE t_full (id int, $wide_columns) WITH (slimheap.null_bitmap = full);
INSERT INTO t_full $wide_values;
-- heap tables get nothing
CREATE TABLE t_heap (id int, $wide_columns) USING heap;
INSERT INTO t_heap $wide_values;
});

my $catalog_sql = q{
  SELECT string_agg(c.relname || ' ' || coalesce(a.amname, '-') || ' ' ||
                    coalesce(c.reloptions::text, '-'), E'\n' ORDER BY c.relname)
  FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
  WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'm', 'p')
};
my @tables = qw(t_wide t_narrow t_part1 t_ctas t_truncate t_full t_heap);

sub fingerprint
{
	return dump_fingerprint($node, shift, $catalog_sql, @tables);
}

my $source = fingerprint('src');
is( $source->{catalog}, join(
		"\n",
		't_ctas slimheap {slimheap.null_bitmap=compress}',
		't_full slimheap {slimheap.null_bitmap=full}',
		't_heap heap -',
		't_narrow slimheap -',
		't_part1 slimheap {slimheap.null_bitmap=compress}',
		't_parted - -',
		't_truncate slimheap {slimheap.null_bitmap=truncate}',
		't_wide slimheap {slimheap.null_bitmap=compress}'),
	'each table records the mode in force when it was created, but for a narrow one');
like($source->{'t_wide forms'}, qr/\b2056\b/,
	't_wide has rows with a tail after its first 8 columns (2048 + 8)');
unlike($source->{'t_truncate forms'}, qr/\b2\d{3}\b/,
	't_truncate has no tails');

my $plain = $node->basedir . '/src.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('src'), '-f', $plain ],
	'pg_dump plain');
my $dump = slurp_file($plain);
like(
	$dump,
	qr/CREATE TABLE public\.t_wide \(.*?\)\s*WITH \("slimheap\.null_bitmap"=compress\);/s,
	'the dump names the mode of a table created without one');
my $custom = $node->basedir . '/src.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '-d', $node->connstr('src'), '-f', $custom ],
	'pg_dump custom format');

# the targets default to full, per database and (for psql) per session too
foreach my $db (qw(dst_plain dst_custom))
{
	$node->safe_psql(
		'postgres', qq{
CREATE DATABASE $db;
ALTER DATABASE $db SET slimheap.default_null_bitmap = full;
});
}
{
	local $ENV{PGOPTIONS} = '-c slimheap.default_null_bitmap=full';
	$node->command_ok(
		[
			'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
			'-d', $node->connstr('dst_plain'), '-f', $plain
		],
		'restore the plain dump with psql under default full');
}
restore_parallel($node, 'dst_custom', $custom, 'pg_restore -j 2 under default full');

foreach my $db (qw(dst_plain dst_custom))
{
	check_restored_fingerprint(fingerprint($db), $source, $db,
		'every table keeps its mode', @tables);
	# and a table created there now gets the target's default
	$node->safe_psql($db,
		"CREATE TABLE t_new (a int, $wide_columns) USING slimheap");
	is( $node->safe_psql(
			$db, "SELECT reloptions FROM pg_class WHERE relname = 't_new'"),
		'{slimheap.null_bitmap=full}',
		"$db: a new table gets the target's default");
	# a narrow table has none to restore: the ADD COLUMN that makes it wide
	# stores the setting in force then (docs/options.md)
	$node->safe_psql($db, "ALTER TABLE t_narrow ADD COLUMN c2 int, ADD COLUMN c3 int, "
		  . "ADD COLUMN c4 int, ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, "
		  . "ADD COLUMN c8 int");
	is( $node->safe_psql(
			$db, "SELECT reloptions FROM pg_class WHERE relname = 't_narrow'"),
		'{slimheap.null_bitmap=full}',
		"$db: the narrow table made wide gets the target's default");
}

$node->stop;
done_testing();
