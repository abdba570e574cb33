# Copyright (c) slimheap contributors
#
# CALL slimheap.release(): a slimheap table becomes heap again, online
# (src/am/slim_release.c, docs/release.md).  On a server with wal_level =
# logical, a test_decoding slot, wal_consistency_checking and a streaming
# standby:
#   - a compress table with room on its pages (fillfactor 50) is released
#     with every row re-laid in place: a REPEATABLE READ snapshot taken
#     before reads the same rows after, while the table is heap;
#   - a compress table at fillfactor 100 (rows stored again where their
#     page has no room) is released beside a writer that updates, inserts
#     and deletes it and its heap twin in the same transactions: no write
#     fails; while an older snapshot can still see old row versions with a
#     tail, release waits (slimheap.progress shows it), and after its
#     `wait` fails naming that session and leaves the table slimheap, in
#     truncate mode, with the twin's rows; once the snapshot is gone the
#     next CALL ends with the table heap, the same file, the twin's rows,
#     no row version with slimheap's tail bit (pageinspect),
#     verify_heapam() and bt_index_check(heapallindexed) clean;
#   - logical decoding: the table decodes the twin's changes, and besides
#     them only UPDATEs (the rows stored again, with their own values);
#   - the standby replays it all into the primary's rows, reads the table
#     as heap, and its verify_heapam() is clean;
#   - a prepared transaction holding the table: release fails after its
#     wait and changes nothing; after COMMIT PREPARED it succeeds;
#   - a row to store again, locked by an idle transaction: release fails
#     after its wait, the table slimheap with its rows; the next CALL ends.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest qw(:DEFAULT rows_of);
use Test::More;

my $defs = wide_column_defs(300);
my $values = join(', ',
	map { "CASE WHEN $_ IN (3, 77, 150, 222, 300) THEN g * 1000 + $_ END" } 1 .. 300);

sub rows_sql
{
	my ($rel) = @_;
	return "SELECT count(*) || ':' || md5(string_agg(x::text, ',' ORDER BY id)) FROM $rel x";
}

sub decoded
{
	my ($node, $rel, $from, $upto) = @_;
	return split /\n/, $node->safe_psql('postgres',
		"SELECT substr(data, length('table public.$rel:') + 1) FROM pg_logical_slot_peek_changes('td', '$upto', NULL)"
		  . " WHERE data LIKE 'table public.$rel:%' AND lsn >= '$from'");
}

# row versions with storage whose header has slimheap's tail bit (0x0800)
sub tail_versions
{
	my ($node, $rel) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM generate_series(0, pg_relation_size('$rel') / 8192 - 1) b,"
		  . " heap_page_items(get_raw_page('$rel', b::int)) i"
		  . " WHERE i.lp_flags = 1 AND i.t_infomask2 & 2048 <> 0");
}

sub am_of
{
	my ($node, $rel) = @_;
	return $node->safe_psql('postgres',
		"SELECT a.amname || ' ' || coalesce(c.reloptions::text, '') FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '$rel'::regclass");
}

my $node = slim_node('primary', allows_streaming => 'logical');
$node->append_conf('postgresql.conf',
	"wal_consistency_checking = 'all'\nmax_prepared_transactions = 2");
$node->start;
# a slot keeps the WAL the standby has not replayed (full-page images for
# the consistency checks make much of it)
$node->safe_psql('postgres',
	"SELECT 'slot' FROM pg_create_physical_replication_slot('standby')");
$node->backup('empty');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'empty', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby'");
$standby->start;

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION amcheck;
CREATE EXTENSION pageinspect;
CREATE TABLE t (id int PRIMARY KEY, $defs) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE tw (id int PRIMARY KEY, $defs) USING heap;
CREATE TABLE q (id int PRIMARY KEY, $defs) USING slimheap
  WITH (slimheap.null_bitmap = compress, fillfactor = 50);
INSERT INTO t SELECT g, $values FROM generate_series(1, 20000) g;
INSERT INTO tw SELECT * FROM t;
INSERT INTO q SELECT * FROM t WHERE id <= 5000;
CREATE INDEX ON t (c150);
CREATE INDEX ON tw (c150);
VACUUM t;
VACUUM tw;
SELECT 'slot' FROM pg_create_logical_replication_slot('td', 'test_decoding');
CREATE PROCEDURE write_both(n int) LANGUAGE plpgsql AS \$\$
BEGIN
  FOR i IN 1 .. n LOOP
    UPDATE t SET c77 = -c77 WHERE id = i * 37 % 20000 + 1;
    UPDATE tw SET c77 = -c77 WHERE id = i * 37 % 20000 + 1;
    INSERT INTO t (id, c3, c300) VALUES (100000 + i, i, i);
    INSERT INTO tw (id, c3, c300) VALUES (100000 + i, i, i);
    DELETE FROM t WHERE id = i * 53 % 20000 + 1;
    DELETE FROM tw WHERE id = i * 53 % 20000 + 1;
    COMMIT;
    PERFORM pg_sleep(0.01);
  END LOOP;
END \$\$;
});
cmp_ok($node->safe_psql('postgres', "SELECT tail_rows FROM slimheap.stats('t')"),
	'>', 10000, 'the compress table has rows with a tail');

# q (fillfactor 50): every row re-laid in place; a snapshot from before reads the same
my $q_rows = rows_of($node, 'q');
my $watcher = $node->background_psql('postgres');
$watcher->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM tw');
my ($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.release('q', '10 s')");
is($ret, 0, 'q is released while an older snapshot exists');
like($stderr, qr/NOTICE:  released table "q": 5000 rows re-laid in place, 0 stored again/,
	'every row of q was re-laid in place');
is(am_of($node, 'q'), 'heap {fillfactor=50}', 'q is heap, its fillfactor kept');
is(tail_versions($node, 'q'), '0', 'no row version of q has a tail');
is($watcher->query_safe(rows_sql('q')), $q_rows,
	'a REPEATABLE READ snapshot taken before release reads the same rows');
$watcher->query_safe('COMMIT');

# t: the writer, and an older snapshot that sees the old versions
my $t_file = $node->safe_psql('postgres', "SELECT pg_relation_filenode('t')");
my $t_before = rows_of($node, 't');
$watcher->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM tw');
my $watcher_pid = $watcher->query_safe('SELECT pg_backend_pid()');
my $from = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my $writer = $node->background_psql('postgres');
$writer->query_until(qr/writing/, "\\echo writing\nCALL write_both(1500);\n\\echo written\n");

my ($out, $err) = ('', '');
my $release = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', "CALL slimheap.release('t', '8 s')" ],
	'>', \$out, '2>', \$err);
ok( $node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM slimheap.progress WHERE command = 'release' AND phase = 'waiting for older snapshots'"),
	'release waits for the older snapshot, as slimheap.progress shows');
$release->finish;
like($err, qr/ERROR:  could not release table "t": \d+ pages still hold row versions with a compressed tail/,
	'and fails after its wait');
like($err, qr/sessions with PID [\d, ]*\b$watcher_pid\b/, 'naming the session of the snapshot');
is(am_of($node, 't'), 'slimheap {slimheap.index_columns=c150,slimheap.null_bitmap=truncate}',
	't stays slimheap, in truncate mode');
is($watcher->query_safe(rows_sql('t')), $t_before,
	'the older snapshot reads the rows it read before');
$watcher->query_safe('COMMIT');
$watcher->quit;

($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.release('t')");
is($ret, 0, 'once the snapshot is gone, release succeeds beside the writer');
like($stderr, qr/NOTICE:  released table "t": \d+ rows re-laid in place, \d+ stored again; its access method is heap/,
	'and says what it did');
$writer->query_until(qr/written/, '');
$writer->quit;

is(am_of($node, 't'), 'heap ', 't is heap, without slimheap options');
is($node->safe_psql('postgres', "SELECT pg_relation_filenode('t')"), $t_file, 'in the same file');
is(rows_of($node, 't'), rows_of($node, 'tw'), "the rows are the twin's after the writer's changes");
is(tail_versions($node, 't'), '0', 'no row version of t has a tail');
is($node->safe_psql('postgres', "SELECT count(*) FROM verify_heapam('t')"), '0',
	'verify_heapam() finds nothing');
is($node->safe_psql('postgres',
		q{SELECT string_agg(bt_index_check(indexrelid, true)::text, '') FROM pg_index WHERE indrelid = 't'::regclass}),
	'', 'bt_index_check with heapallindexed passes on every index');
$node->safe_psql('postgres', 'SET enable_seqscan = off');
is($node->safe_psql('postgres', 'SET enable_seqscan = off; SELECT count(*), sum(c150) FROM t WHERE c150 > 0'),
	$node->safe_psql('postgres', 'SET enable_seqscan = off; SELECT count(*), sum(c150) FROM tw WHERE c150 > 0'),
	'index scans return the twin\'s rows');

# what decoding saw: the twin's changes, and besides them only UPDATEs
my $upto = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my %twin;
$twin{$_}++ for decoded($node, 'tw', $from, $upto);
my @extra;
for my $line (decoded($node, 't', $from, $upto))
{
	if ($twin{$line}) { $twin{$line}--; }
	else { push @extra, $line; }
}
is(scalar(grep { $twin{$_} > 0 } keys %twin), 0, "every change of the twin's is decoded for t");
cmp_ok(scalar(@extra), '>', 0, scalar(@extra) . ' more changes are decoded for t (the rows stored again)');
is(scalar(grep { !/^ UPDATE: / } @extra), 0, 'and all of them are UPDATEs');

$node->wait_for_catchup($standby, 'replay');
is(rows_of($standby, 't'), rows_of($node, 't'), "standby: the primary's rows");
is(am_of($standby, 't'), 'heap ', 'standby: t is heap');
is($standby->safe_psql('postgres', "SELECT count(*) FROM verify_heapam('t')"), '0',
	'standby: verify_heapam() finds nothing');

# a prepared transaction holding the table
$node->safe_psql('postgres', qq{
CREATE TABLE p2 (id int PRIMARY KEY, $defs) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO p2 SELECT g, $values FROM generate_series(1, 1000) g;
BEGIN; INSERT INTO p2 (id, c300) VALUES (0, 0); PREPARE TRANSACTION 'held';
});
($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.release('p2', '1 s')");
like($stderr, qr/ERROR:  could not lock table "p2" to release it/,
	'a prepared transaction holding the table: release fails after its wait');
like($stderr, qr/a prepared transaction: see pg_prepared_xacts/, 'and points to it');
is(am_of($node, 'p2'), 'slimheap {slimheap.null_bitmap=compress}', 'and changes nothing');
$node->safe_psql('postgres', "COMMIT PREPARED 'held'");
($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.release('p2', '1 s')");
is($ret, 0, 'after COMMIT PREPARED it succeeds');
is($node->safe_psql('postgres', 'SELECT count(*), sum(c300) FROM p2'), '1001|500800000',
	'with every row');
is($node->safe_psql('postgres', "SELECT count(*) FROM verify_heapam('p2')"), '0',
	'verify_heapam() finds nothing');

# a row that must be stored again, locked by an idle transaction: release
# waits for it no longer than its wait.  The lock is taken once release
# has set the mode, while it stores rows again in page order, slowed down
# by an index expression that sleeps in its session: a row in the middle.
$node->safe_psql('postgres', q{
CREATE TABLE p3 (id int PRIMARY KEY, a int, b int, c int, d int, e int, f int, g int,
  h int, i int, j int, k int, l int, m int, n int, o int, p int, q int, r int, s int,
  u int, v int, w int, x int, y int, z int) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO p3 (id, i, z) SELECT g, g, g FROM generate_series(1, 2000) g;
CREATE FUNCTION sleepy(i int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('slimtest.slow', true) = 'on' THEN
    PERFORM pg_sleep(0.002);
  END IF;
  RETURN i;
END $$;
CREATE INDEX ON p3 (sleepy(id));
VACUUM p3;
});
my $p3_rows = rows_of($node, 'p3');
# the last row of block 5: a full page, so it is stored again, not re-laid
my $locked_id = $node->safe_psql('postgres',
	"SELECT id FROM p3 WHERE ctid > '(5,0)' AND ctid < '(6,0)' ORDER BY ctid DESC LIMIT 1");
($out, $err) = ('', '');
$release = IPC::Run::start(
	[
		'psql', '-X', '-d', $node->connstr('postgres'),
		'-c', 'SET slimtest.slow = on', '-c', "CALL slimheap.release('p3', '3 s')"
	],
	'>', \$out, '2>', \$err);
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM slimheap.progress WHERE command = 'release' AND phase = 'storing rows again'",
	't') or die 'release did not store rows again';
my $locker = $node->background_psql('postgres');
$locker->query_safe("BEGIN; SELECT id FROM p3 WHERE id = $locked_id FOR SHARE");
$release->finish;
like($err, qr/ERROR:  could not release table "p3": storing row \(\d+,\d+\) again waited longer than the wait allowed/,
	'a row locked by an idle transaction: release fails after its wait');
$locker->query_safe('COMMIT');
$locker->quit;
is(am_of($node, 'p3'), 'slimheap {slimheap.null_bitmap=truncate}', 'p3 stays slimheap, in truncate mode');
is(rows_of($node, 'p3'), $p3_rows, 'with its rows');
($ret, $stdout, $stderr) = $node->psql('postgres', "CALL slimheap.release('p3')");
is($ret, 0, 'the next CALL succeeds');
is(rows_of($node, 'p3'), $p3_rows, 'with the same rows');
is(tail_versions($node, 'p3'), '0', 'no row version of p3 has a tail');
is($node->safe_psql('postgres', "SELECT count(*) FROM verify_heapam('p3')"), '0',
	'verify_heapam() finds nothing');

$standby->stop;
$node->stop;
done_testing();
