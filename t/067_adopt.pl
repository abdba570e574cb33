# Copyright (c) slimheap contributors
#
# CALL slimheap.adopt() takes its ACCESS EXCLUSIVE lock in short tries
# (src/am/slim_adopt.c).  A heap table of 200,000 rows (400 int4 columns, a
# few set, a text column, an index on a middle column) is adopted while
# another transaction holds it for 3 s:
#   - the CALL waits for it and then succeeds; the file is the same and the
#     rows are the heap twin's, also after compress rows are written;
#   - a session looking rows up all the while never waits more than 1.5 s
#     for any lookup (each try holds up the queue for 1 s at most);
#   - with a wait shorter than the holder's transaction the CALL fails with
#     the holder's PID and changes nothing; a prepared transaction holding
#     the table is named as one.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('adopt');
$node->append_conf('postgresql.conf', 'max_prepared_transactions = 2');
$node->start;

my $defs = wide_column_defs(400);
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE TABLE t (id int PRIMARY KEY, $defs, note text) USING heap;
CREATE TABLE tw (id int PRIMARY KEY, $defs, note text) USING heap;
INSERT INTO t (id, c5, c200, c399, note)
  SELECT g, g, CASE WHEN g % 3 = 0 THEN g END, -g, 'row ' || g FROM generate_series(1, 200000) g;
INSERT INTO tw SELECT * FROM t;
CREATE INDEX ON t (c200);
CREATE INDEX ON tw (c200);
CREATE TABLE waits (longest interval);
CREATE PROCEDURE look() LANGUAGE plpgsql AS \$\$
DECLARE
  t0 timestamptz;
  longest interval := '0';
BEGIN
  FOR i IN 1 .. 60 LOOP
    t0 := clock_timestamp();
    PERFORM c5 FROM t WHERE id = i;
    longest := greatest(longest, clock_timestamp() - t0);
    COMMIT;
    PERFORM pg_sleep(0.1);
  END LOOP;
  INSERT INTO waits VALUES (longest);
END \$\$;
});
my $node_file = $node->safe_psql('postgres', "SELECT pg_relation_filenode('t')");
my $rows_sql = q{SELECT count(*) || ':' || md5(string_agg(x::text, ',' ORDER BY id)) FROM %s x};
my $twin_rows = $node->safe_psql('postgres', sprintf($rows_sql, 'tw'));

# a transaction that holds the table for 3 s, and a session looking up rows
my $holder = $node->background_psql('postgres');
$holder->query_until(qr/locked/,
	"BEGIN; SELECT count(*) FROM t;\n\\echo locked\nSELECT pg_sleep(3); COMMIT;\n");
my $looker = $node->background_psql('postgres');
$looker->query_until(qr/looking/, "\\echo looking\nCALL look();\n");

my $start = time();
my ($ret, $stdout, $stderr) =
  $node->psql('postgres', "CALL slimheap.adopt('t', 'compress', '1 min')");
my $took = time() - $start;
is($ret, 0, 'adopt() succeeds once the holder is done');
is($stderr, '', 'and says nothing');
cmp_ok($took, '>=', 2, "it waited for the holder ($took s)");

$node->poll_query_until('postgres', 'SELECT count(*) = 1 FROM waits')
  or die 'the looker did not finish';
my $longest = $node->safe_psql('postgres',
	'SELECT extract(epoch FROM longest) FROM waits');
cmp_ok($longest, '<', 1.5,
	"no lookup of another session waited 1.5 s or more ($longest s)");
$holder->quit;
$looker->quit;

is($node->safe_psql('postgres',
		q{SELECT a.amname || ' ' || c.reloptions::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 't'::regclass}),
	'slimheap {slimheap.null_bitmap=compress}', 'the table is slimheap, in compress');
is($node->safe_psql('postgres', "SELECT pg_relation_filenode('t')"),
	$node_file, 'in the same file');
is($node->safe_psql('postgres', sprintf($rows_sql, 't')),
	$twin_rows, "the rows are the heap twin's");

for my $rel ('t', 'tw')
{
	$node->safe_psql(
		'postgres', qq{
INSERT INTO $rel (id, c5, c300, note) SELECT g, g, g, 'new' FROM generate_series(300001, 301000) g;
UPDATE $rel SET c200 = NULL, c399 = id WHERE id % 5 = 0;
DELETE FROM $rel WHERE id % 13 = 0;
});
}
cmp_ok($node->safe_psql('postgres', 'SELECT tail_rows FROM slimheap.stats(\'t\')'),
	'>', 0, 'rows written since have compressed tails');
is($node->safe_psql('postgres', sprintf($rows_sql, 't')),
	$node->safe_psql('postgres', sprintf($rows_sql, 'tw')),
	"the rows are the heap twin's after writes");
is($node->safe_psql('postgres', q{SET enable_seqscan = off;
SELECT count(*) FROM ((SELECT id FROM t WHERE c200 > 0 EXCEPT ALL SELECT id FROM tw WHERE c200 > 0)
  UNION ALL (SELECT id FROM tw WHERE c200 > 0 EXCEPT ALL SELECT id FROM t WHERE c200 > 0)) d}),
	'0', 'the index finds the same rows');

# a wait shorter than the holder's transaction: an error naming the holder
$holder = $node->background_psql('postgres');
my $holder_pid = $holder->query_safe('SELECT pg_backend_pid()');
$holder->query_safe('BEGIN; SELECT count(*) FROM tw;');
$start = time();
($ret, $stdout, $stderr) =
  $node->psql('postgres', "CALL slimheap.adopt('tw', 'truncate', '1 s')");
$took = time() - $start;
isnt($ret, 0, 'adopt() with a wait of 1 s fails while a transaction holds the table');
like($stderr, qr/ERROR:  could not lock table "tw" to adopt it/, 'the error says why');
like($stderr, qr/DETAIL:  Sessions with PID $holder_pid held it/, 'and names the holder');
cmp_ok($took, '<', 5, "it gave up after about the wait ($took s)");
$holder->query_safe('COMMIT');
$holder->quit;
is($node->safe_psql('postgres',
		q{SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'tw'::regclass}),
	'heap', 'the failed call changed nothing');

# a prepared transaction holding the table: the error says so
$node->safe_psql('postgres',
	"BEGIN; INSERT INTO tw (id) VALUES (0); PREPARE TRANSACTION 'held'");
($ret, $stdout, $stderr) =
  $node->psql('postgres', "CALL slimheap.adopt('tw', 'truncate', '1 s')");
like($stderr, qr/DETAIL:  Sessions with PID 0 \(a prepared transaction: see pg_prepared_xacts\) held it/,
	'a prepared transaction holding the table: the error points to it');
$node->safe_psql('postgres', "COMMIT PREPARED 'held'");
($ret, $stdout, $stderr) =
  $node->psql('postgres', "CALL slimheap.adopt('tw', 'truncate', '1 s')");
is($ret, 0, 'once it is committed, adopt() succeeds');

$node->stop;
done_testing();
