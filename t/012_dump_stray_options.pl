
# A table that left slimheap without slimheap's hook keeps its slimheap.*
# entries in pg_class.reloptions: here, a session without the library and
# with session_replication_role = replica (so the extension's event trigger
# does not fire) runs ALTER TABLE ... SET ACCESS METHOD heap.  pg_dump
# writes those entries into the table's CREATE TABLE.  The dump must still
# restore, with psql and with pg_restore -j: the table comes back as a heap
# table with its rows and its core options, without the slimheap entries,
# and the restore says so with a WARNING.  A slimheap table in the same dump
# keeps its options.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump_stray');
$node->init;
$node->append_conf('postgresql.conf', 'autovacuum = off');
$node->start;

$node->safe_psql('postgres', 'CREATE DATABASE src');
# without the preload, a session that LOADs the library first has the hook
$node->safe_psql(
	'src', q{
CREATE EXTENSION slimheap;
LOAD 'slimheap';
CREATE TABLE left_slimheap (id int4, a int4, b text) USING slimheap
  WITH (slimheap.null_bitmap = full, fillfactor = 80);
INSERT INTO left_slimheap SELECT g, CASE WHEN g % 2 = 0 THEN g END,
  CASE WHEN g % 3 = 0 THEN 'x' || g END FROM generate_series(1, 300) g;
CREATE TABLE still_slimheap (id int4, a int4) USING slimheap
  WITH (slimheap.null_bitmap = full);
INSERT INTO still_slimheap SELECT g, g FROM generate_series(1, 10) g;
});

# a fresh session, library not loaded, event triggers off
$node->safe_psql(
	'src', q{
SET session_replication_role = replica;
ALTER TABLE left_slimheap SET ACCESS METHOD heap;
});

my $catalog_sql = q{
  SELECT c.relname || ' ' || a.amname || ' ' || coalesce(c.reloptions::text, '-')
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
  WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
  ORDER BY c.relname
};
is( $node->safe_psql('src', $catalog_sql),
	"left_slimheap heap {slimheap.null_bitmap=full,fillfactor=80}\n"
	  . "still_slimheap slimheap {slimheap.null_bitmap=full}",
	'the heap table kept its slimheap entry (the state under test)');
my $rows_sql = q{SELECT md5(string_agg(t::text, '|' ORDER BY id)) FROM left_slimheap t};
my $rows = $node->safe_psql('src', $rows_sql);

# restores run with the library preloaded, as docs/options.md requires
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'slimheap'");
$node->restart;

my $expected_catalog = "left_slimheap heap {fillfactor=80}\n"
  . "still_slimheap slimheap {slimheap.null_bitmap=full}";

# plain format through psql, stopping at the first error
my $plain = $node->basedir . '/src.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('src'), '-f', $plain ],
	'pg_dump plain');
like(slurp_file($plain),
	qr/CREATE TABLE public\.left_slimheap .*\n(?:.*\n)*?\)\nWITH \("slimheap\.null_bitmap"='full', fillfactor='80'\);/,
	'the dump carries the entry');

$node->safe_psql('postgres', 'CREATE DATABASE dst_plain');
my ($stdout, $stderr);
my $ok = IPC::Run::run(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1',
		'-d', $node->connstr('dst_plain'), '-f', $plain
	],
	'>', \$stdout, '2>', \$stderr);
ok($ok, 'the plain dump restores with psql -v ON_ERROR_STOP=1');
like(
	$stderr,
	qr/WARNING:  slimheap options on "left_slimheap" are ignored/,
	'psql: the restore warns about the ignored entry');
unlike($stderr, qr/ERROR/, 'psql: no error');

# custom format through a parallel pg_restore that stops at any error
my $custom = $node->basedir . '/src.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '-d', $node->connstr('src'), '-f', $custom ],
	'pg_dump custom format');
$node->safe_psql('postgres', 'CREATE DATABASE dst_custom');
$ok = IPC::Run::run(
	[
		'pg_restore', '-j', '2', '--exit-on-error',
		'-d', $node->connstr('dst_custom'), $custom
	],
	'>', \$stdout, '2>', \$stderr);
ok($ok, 'the custom dump restores with pg_restore -j 2 --exit-on-error');
unlike($stderr, qr/ERROR/, 'pg_restore: no error');

foreach my $db (qw(dst_plain dst_custom))
{
	is($node->safe_psql($db, $catalog_sql),
		$expected_catalog,
		"$db: the heap table is restored without the entry, core options kept");
	is($node->safe_psql($db, $rows_sql), $rows,
		"$db: the heap table has all its rows");
	is($node->safe_psql($db, 'SELECT count(*) FROM still_slimheap'),
		'10', "$db: the slimheap table is restored too");

	# and the restored table takes core options again
	$node->safe_psql($db, 'ALTER TABLE left_slimheap SET (fillfactor = 70)');
	is( $node->safe_psql(
			$db,
			"SELECT reloptions::text FROM pg_class WHERE relname = 'left_slimheap'"),
		'{fillfactor=70}',
		"$db: ALTER TABLE ... SET (fillfactor) works on the restored table");
}

# the same cleaning without a dump: any SET or RESET drops the entry
$node->safe_psql('src', 'ALTER TABLE left_slimheap SET (fillfactor = 80)');
is($node->safe_psql('src', $catalog_sql), $expected_catalog,
	'src: a SET on the heap table drops the entry left behind');

$node->stop;
done_testing();
