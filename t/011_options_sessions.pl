
# slimheap options across sessions:
# - with shared_preload_libraries = 'slimheap', a change of options reaches
#   the other sessions' relcache when it commits, and not before;
# - without it, a session that has not loaded the library yet gets an error
#   naming shared_preload_libraries and nothing changes; once loaded, the
#   same statement works.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# natts of t's rows, in physical order: 1 in truncate mode, 9 in full
# mode.  t has 9 columns, p5 .. p9 never set, because a table of at most
# 8 attributes stores heap's full form in every mode (docs/narrow-slot.md)
# and the modes could not be told apart by their rows.
my $forms_sql = q{
  SELECT string_agg((t_infomask2 & 2047)::text, ',' ORDER BY lp)
  FROM heap_page_items(get_raw_page('t', 0)) WHERE lp_flags = 1};

#
# Preloaded: other sessions see a change once it commits
#
my $node = PostgreSQL::Test::Cluster->new('preloaded');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'slimheap'");
$node->start;

my ($pre_ret, $pre_out, $pre_err) = $node->psql(
	'postgres', q{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE TABLE t (a int, b int, c int, d int,
  p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
});
is($pre_ret, 0, 'CREATE EXTENSION on a preloading server');
is($pre_err, '', 'says nothing');

# a session that keeps its relcache entry for t from before each change
my $writer = $node->background_psql('postgres');
$writer->query_safe('INSERT INTO t VALUES (1, NULL, NULL, NULL)');

$node->safe_psql('postgres',
	'ALTER TABLE t SET (slimheap.null_bitmap = full)');
$writer->query_safe('INSERT INTO t VALUES (2, NULL, NULL, NULL)');
is($node->safe_psql('postgres', $forms_sql),
	'1,9', 'a committed SET reaches a session that wrote before it');

# an uncommitted change is not seen by others; its commit is
my $changer = $node->background_psql('postgres');
$changer->query_safe(
	'BEGIN; ALTER TABLE t SET (slimheap.null_bitmap = truncate)');
$writer->query_safe('INSERT INTO t VALUES (3, NULL, NULL, NULL)');
is($node->safe_psql('postgres', $forms_sql),
	'1,9,9', 'an uncommitted SET does not reach other sessions');
$changer->query_safe('COMMIT');
$writer->query_safe('INSERT INTO t VALUES (4, NULL, NULL, NULL)');
is($node->safe_psql('postgres', $forms_sql),
	'1,9,9,1', 'its commit does');

# a rolled back change never reaches them
$changer->query_safe(
	'BEGIN; ALTER TABLE t SET (slimheap.null_bitmap = full); ROLLBACK');
$writer->query_safe('INSERT INTO t VALUES (5, NULL, NULL, NULL)');
is($node->safe_psql('postgres', $forms_sql),
	'1,9,9,1,1', 'a rolled back SET does not reach other sessions');

# RESET too
$changer->query_safe('ALTER TABLE t SET (slimheap.null_bitmap = full)');
$writer->query_safe('INSERT INTO t VALUES (6, NULL, NULL, NULL)');
$changer->query_safe('ALTER TABLE t RESET (slimheap.null_bitmap)');
$writer->query_safe('INSERT INTO t VALUES (7, NULL, NULL, NULL)');
is($node->safe_psql('postgres', $forms_sql),
	'1,9,9,1,1,9,1', 'a committed RESET reaches other sessions');
is($node->safe_psql('postgres', 'SELECT count(*), sum(a) FROM t'),
	'7|28', 'all rows read back whatever their form');

$writer->quit;
$changer->quit;
$node->stop;

#
# Not preloaded: a session that has not loaded the library is stopped by the
# extension's event trigger before core sees the options
#
my $cold = PostgreSQL::Test::Cluster->new('not_preloaded');
$cold->init;
$cold->start;

# CREATE EXTENSION says what is missing, once, with the fix
my ($ext_ret, $ext_out, $ext_err) = $cold->psql(
	'postgres', q{
CREATE EXTENSION slimheap;
CREATE TABLE t (a int, b int) USING slimheap
  WITH (slimheap.null_bitmap = full, fillfactor = 90);
CREATE TABLE n (a int) USING slimheap;
CREATE TABLE wh (a int, b int, c int, d int, e int, f int, g int, h int, i int)
  USING heap;
});
is($ext_ret, 0, 'CREATE EXTENSION without the preload succeeds');
like($ext_err, qr/WARNING:  slimheap is not in shared_preload_libraries/,
	'and warns that the library is not preloaded');
like($ext_err, qr/HINT:  Add slimheap to shared_preload_libraries in postgresql.conf and restart the server\./,
	'with the fix');

my $catalog_sql = q{
  SELECT c.relname || ' ' || a.amname || ' ' || coalesce(c.reloptions::text, '-')
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
  WHERE c.relnamespace = 'public'::regnamespace ORDER BY c.relname};
my $catalog = $cold->safe_psql('postgres', $catalog_sql);
is( $catalog, join("\n",
		'n slimheap -',
		't slimheap {slimheap.null_bitmap=full,fillfactor=90}',
		'wh heap -'),
	'the session that created the extension had loaded the library');

# a new session runs statements that need the hook, each in a session of
# its own; the library is loaded only by the event trigger, too late
my @statements = (
	'CREATE TABLE t2 (a int) USING slimheap WITH (slimheap.null_bitmap = full)',
	'CREATE TABLE t2 USING slimheap WITH (slimheap.null_bitmap = full) AS SELECT 1 AS a',
	'ALTER TABLE t SET (slimheap.null_bitmap = truncate)',
	'ALTER TABLE t RESET (slimheap.null_bitmap)',
	'ALTER TABLE t SET (fillfactor = 70)',
	'ALTER TABLE t RESET (fillfactor)',
	'ALTER TABLE t SET ACCESS METHOD heap',
	# a narrow table stores no mode; its 9th column would store one before
	# core checks the options the statement sets, or leaves slimheap with it
	'ALTER TABLE n ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int, '
	  . 'ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, '
	  . 'ADD COLUMN c8 int, ADD COLUMN c9 int, SET (fillfactor = 70)',
	'ALTER TABLE n ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int, '
	  . 'ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, '
	  . 'ADD COLUMN c8 int, ADD COLUMN c9 int, SET ACCESS METHOD heap',
	# a table that becomes slimheap gets the setting's mode from the hook
	'ALTER TABLE wh SET ACCESS METHOD slimheap',
	'CREATE SCHEMA s CREATE TABLE t2 (a int) USING slimheap WITH (slimheap.null_bitmap = full)');
foreach my $sql (@statements)
{
	my ($ret, $stdout, $stderr) = $cold->psql('postgres', $sql);
	isnt($ret, 0, "without the library: $sql fails");
	like(
		$stderr,
		qr/ERROR:  slimheap options need the slimheap library loaded before the statement starts.*HINT:  Add slimheap to shared_preload_libraries/s,
		"without the library: $sql names shared_preload_libraries");
	is($cold->safe_psql('postgres', $catalog_sql),
		$catalog, "without the library: $sql changes nothing");
}

my ($ret, $stdout, $stderr);

# a new slimheap table without options still needs the hook: it stores
# slimheap.default_null_bitmap's mode in the table (it was silently left
# out for the first table of a session that loaded the library late)
foreach my $sql (
	'CREATE TABLE d1 (a int) USING slimheap',
	'SET default_table_access_method = slimheap; CREATE TABLE d1 (a int)',
	'CREATE TABLE d1 USING slimheap AS SELECT 1 AS a')
{
	my ($ret, $stdout, $stderr) = $cold->psql('postgres',
		"SET slimheap.default_null_bitmap = compress; $sql");
	isnt($ret, 0, "without the library: $sql fails");
	like(
		$stderr,
		qr/ERROR:  a new slimheap table needs the slimheap library loaded before the statement starts.*HINT:  Add slimheap to shared_preload_libraries/s,
		"without the library: $sql names shared_preload_libraries");
}
is($cold->safe_psql('postgres', $catalog_sql),
	$catalog, 'without the library: no table was created');
($ret, $stdout, $stderr) = $cold->psql(
	'postgres', q{
SET slimheap.default_null_bitmap = compress;
CREATE TABLE d1 (a int, b int, c int, d int, e int, f int, g int, h int, i int)
  USING slimheap;
CREATE TABLE d1 (a int, b int, c int, d int, e int, f int, g int, h int, i int)
  USING slimheap;
SELECT reloptions FROM pg_class WHERE relname = 'd1';
DROP TABLE d1;
}, on_error_stop => 0);
is($stdout, '{slimheap.null_bitmap=compress}',
	'the second try in the same session stores the mode of the setting');

# statements that need no hook are not disturbed
$cold->safe_psql('postgres', 'CREATE TABLE h (a int) WITH (fillfactor = 50)');
$cold->safe_psql('postgres', 'ALTER TABLE h SET (fillfactor = 60)');
$cold->safe_psql('postgres', 'ALTER TABLE n SET (fillfactor = 70)');
($ret, $stdout, $stderr) = $cold->psql('postgres',
	'ALTER TABLE IF EXISTS missing SET ACCESS METHOD slimheap');
like($stderr, qr/NOTICE:  relation "missing" does not exist, skipping/,
	'without the library: SET ACCESS METHOD slimheap of a missing table is core\'s NOTICE');
$catalog = $cold->safe_psql('postgres', $catalog_sql);
like($catalog, qr/^h heap \{fillfactor=60\}$/m,
	'without the library: DDL without slimheap options works');
like($catalog, qr/^n slimheap \{fillfactor=70\}$/m,
	'without the library: core options of a narrow slimheap table work');

# once the event trigger has loaded the library, the session can go on
($ret, $stdout, $stderr) = $cold->psql(
	'postgres', q{
ALTER TABLE t SET (slimheap.null_bitmap = truncate, fillfactor = 70);
ALTER TABLE t SET (slimheap.null_bitmap = truncate, fillfactor = 70);
SELECT reloptions FROM pg_class WHERE relname = 't';
}, on_error_stop => 0);
like($stderr, qr/shared_preload_libraries/, 'the first try fails');
is($stdout, '{slimheap.null_bitmap=truncate,fillfactor=70}',
	'the second try in the same session works');

# so does a session that loaded the library first
($ret, $stdout, $stderr) = $cold->psql(
	'postgres', q{
LOAD 'slimheap';
ALTER TABLE t SET ACCESS METHOD heap;
SELECT amname || ' ' || coalesce(reloptions::text, '-')
FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE relname = 't';
});
is($stderr, '', 'after LOAD: no error');
is($stdout, 'heap {fillfactor=70}',
	'after LOAD: leaving slimheap drops its options');

# session_preload_libraries loads it at the start of every new session
$cold->safe_psql('postgres',
	"ALTER SYSTEM SET session_preload_libraries = 'slimheap'");
$cold->reload;
$cold->safe_psql('postgres',
	'CREATE TABLE t3 (a int) USING slimheap WITH (slimheap.null_bitmap = full)');
is( $cold->safe_psql(
		'postgres', "SELECT reloptions FROM pg_class WHERE relname = 't3'"),
	'{slimheap.null_bitmap=full}',
	'with session_preload_libraries the first try works');

$cold->stop;
done_testing();
