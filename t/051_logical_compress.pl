#
# slimheap.null_bitmap = compress and logical replication when slimheap
# is not preloaded (invariant C3 of docs/format.md): then it
# cannot log the tails of inserted rows for decoding, and keeps to heap's
# rows for everything heap logs for decoding.
#
# The publisher starts with wal_level = replica and writes rows with
# compressed tails into two compress tables, pk_comp (primary key) and
# full_comp (no key yet).  It then restarts with wal_level = logical:
#   - setting compress now gives a WARNING (no tails while logical);
#   - new rows get no tail;
#   - UPDATE and DELETE of the old tail rows of pk_comp (also key changes)
#     replicate to a heap subscriber, which ends with the publisher's rows;
#   - ALTER TABLE full_comp REPLICA IDENTITY FULL (old rows then logged
#     whole) stops in a session that loaded slimheap only during it, and
#     elsewhere rewrites the table without tails (slimheap is not preloaded
#     here, so its rows cannot be re-laid in place; t/066 has that way):
#     UPDATE and DELETE of its old rows then replicate;
#   - a heap table of the publisher replicates into a compress table of
#     the subscriber (wal_level minimal there): the apply worker stores
#     tails, and the rows are the publisher's.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $NCOLS = 120;
my $NROWS = 2000;

my $defs = wide_column_defs($NCOLS);
# row g sets about four columns at scattered positions, and c120: every
# row has NULLs before its last value
my $values = join(', ',
	map { "CASE WHEN mod(g * 7 + $_ * 13, 37) = 0 OR $_ = $NCOLS THEN g * 1000 + $_ END" }
	  1 .. $NCOLS);
my $compress = "USING slimheap WITH (slimheap.null_bitmap = compress)";

# the visible rows of $rel with a compressed tail, among those matching $where
sub tail_rows
{
	my ($node, $rel, $where) = @_;
	$where //= 'true';
	return $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM $rel t JOIN (@{[ page_items_sql($rel) ]}) i ON i.tid = t.ctid
 WHERE i.tail AND ($where)});
}

# slimheap is loaded by each session, not preloaded: its WAL resource
# manager is not registered, so it cannot log tails for decoding (t/065
# has the publisher that can)
my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 1);
$pub->append_conf('postgresql.conf',
	"session_preload_libraries = 'slimheap'\nautovacuum = off\n");
$pub->start;
is($pub->safe_psql('postgres', 'SHOW wal_level'), 'replica',
	'the publisher starts with wal_level = replica');
$pub->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE TABLE pk_comp (id int4 PRIMARY KEY, $defs) $compress;
CREATE TABLE full_comp (id int4 NOT NULL, $defs) $compress;
CREATE TABLE src_heap (id int4 PRIMARY KEY, $defs) USING heap;
INSERT INTO pk_comp SELECT g, $values FROM generate_series(1, $NROWS) g;
INSERT INTO full_comp SELECT g, $values FROM generate_series(1, $NROWS) g;
INSERT INTO src_heap SELECT g, $values FROM generate_series(1, $NROWS) g;
});
for my $t ('pk_comp', 'full_comp')
{
	is(tail_rows($pub, $t), $NROWS,
		"wal_level = replica: every row of $t is stored with a compressed tail");
}

# wal_level = logical from now on
$pub->append_conf('postgresql.conf', "wal_level = logical\n");
$pub->restart;
is($pub->safe_psql('postgres', 'SHOW wal_level'), 'logical',
	'the publisher restarted with wal_level = logical');
is(tail_rows($pub, 'pk_comp'), $NROWS, 'the tail rows are still there');

# REPLICA IDENTITY FULL: heap would log the old rows whole, so the ALTER
# must leave no tail.  A session that loads slimheap only while running
# it is stopped, and told to run it again.
my $alter_full = 'ALTER TABLE full_comp REPLICA IDENTITY FULL';
{
	local $ENV{PGOPTIONS} = '-c session_preload_libraries=';
	my ($r, $o, $e) = $pub->psql('postgres', $alter_full);
	isnt($r, 0, 'a session that loads slimheap during the ALTER is stopped');
	like($e,
		qr/ERROR:  REPLICA IDENTITY FULL on a slimheap table needs the slimheap library loaded before the statement starts/,
		'the error says why');
	like($e, qr/run the statement again/, 'the hint says to run it again');
	($r, $o, $e) = $pub->psql('postgres', "LOAD 'slimheap'; $alter_full");
	is($r, 0, 'the ALTER works once the session has loaded slimheap');
	like($e, qr/NOTICE:  rewriting table "full_comp" so that no row keeps a compressed tail/,
		'not preloaded: the table is rewritten');
	like($e, qr/DETAIL:  Rows are re-laid in place only when slimheap is in shared_preload_libraries/,
		'the detail says why it is not re-laid in place');
	like($e, qr/WARNING:  table "full_comp" stores no compressed tails under REPLICA IDENTITY FULL/,
		'the ALTER warns that compress keeps no tails');
}
is(tail_rows($pub, 'full_comp'), '0', 'after the ALTER no row of full_comp has a tail');
is($pub->safe_psql('postgres', 'SELECT relreplident FROM pg_class WHERE oid = \'full_comp\'::regclass'),
	'f', 'full_comp has REPLICA IDENTITY FULL');

# Setting compress on a logical server: a WARNING that says why, and how.
for my $stmt (
	"ALTER TABLE pk_comp SET (slimheap.null_bitmap = compress)",
	"CREATE TABLE later_comp (id int4, c1 int4) $compress")
{
	my ($ret, $stdout, $stderr) = $pub->psql('postgres', $stmt);
	is($ret, 0, "wal_level = logical: $stmt succeeds");
	like(
		$stderr,
		qr/WARNING:  slimheap.null_bitmap = compress stores no compressed tails while (?:wal_level is logical|logical decoding is active)/,
		"wal_level = logical: $stmt warns that no tails are stored");
	like($stderr, qr/HINT:  Load slimheap through shared_preload_libraries: inserted rows then keep their tails under logical decoding\./,
		"wal_level = logical: the warning of $stmt hints at preloading slimheap");
}
my ($ret, $stdout, $stderr) =
  $pub->psql('postgres', "ALTER TABLE src_heap SET (fillfactor = 90)");
unlike($stderr, qr/WARNING/, 'no warning for other options');

# New rows get no tail (C3).
$pub->safe_psql('postgres',
	"INSERT INTO pk_comp SELECT g, $values FROM generate_series(10001, 10200) g");
is(tail_rows($pub, 'pk_comp', 'id > 10000'), '0',
	'wal_level = logical: rows written now have no tail');

# The subscriber: heap tables for the publisher's compress tables, and a
# compress table for its heap table.
my $sub = slim_node('subscriber');
$sub->start;
$sub->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE TABLE pk_comp (id int4 PRIMARY KEY, $defs) USING heap;
CREATE TABLE full_comp (id int4 NOT NULL, $defs) USING heap;
CREATE TABLE src_heap (id int4 PRIMARY KEY, $defs) $compress;
});
$pub->safe_psql('postgres',
	'CREATE PUBLICATION comp FOR TABLE pk_comp, full_comp, src_heap');
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION comp CONNECTION '@{[ $pub->connstr ]} dbname=postgres' PUBLICATION comp");
$sub->wait_for_subscription_sync($pub, 'comp');

# UPDATE and DELETE of old tail rows of pk_comp: values set and cleared in
# the tail, key changes (the old key is logged from the prefix), deletes
$pub->safe_psql(
	'postgres', qq{
UPDATE pk_comp SET c60 = -id WHERE id % 3 = 0 AND id <= $NROWS;
UPDATE pk_comp SET c120 = NULL, c119 = id WHERE id % 5 = 0 AND id <= $NROWS;
UPDATE pk_comp SET id = id + 100000 WHERE id % 10 = 1 AND id <= $NROWS;
DELETE FROM pk_comp WHERE id % 7 = 0;
UPDATE src_heap SET c60 = -id WHERE id % 3 = 0;
UPDATE src_heap SET id = id + 100000, c2 = 2 WHERE id % 10 = 1;
DELETE FROM src_heap WHERE id % 7 = 0;
});
cmp_ok(tail_rows($pub, 'pk_comp'), '>', 0,
	'pk_comp still has old rows with a tail (not updated)');
$pub->wait_for_catchup('comp');

for my $t ('pk_comp', 'src_heap', 'full_comp')
{
	my $q = "SELECT * FROM $t ORDER BY id";
	my $on_pub = $pub->safe_psql('postgres', $q);
	cmp_ok(length($on_pub), '>', 0, "publisher: $t is not empty");
	ok($sub->safe_psql('postgres', $q) eq $on_pub,
		"subscriber: $t holds what the publisher's $t holds");
}
cmp_ok(tail_rows($sub, 'src_heap'), '>', 0,
	'subscriber: the apply worker stored rows with a tail in the compress src_heap');

# Rewrites are never decoded (heap's rewrite logs whole pages, and nothing
# of it reaches a subscriber): VACUUM FULL and CLUSTER of pk_comp under
# wal_level = logical give tails to the rows written without one, and the
# UPDATEs and DELETEs of those rows replicate as before.
is(tail_rows($pub, 'pk_comp', 'id BETWEEN 10001 AND 10200'), '0',
	'before the rewrite the rows written under logical WAL have no tail');
$pub->safe_psql('postgres', 'VACUUM FULL pk_comp');
cmp_ok(tail_rows($pub, 'pk_comp', 'id BETWEEN 10001 AND 10200'), '>', 150,
	'wal_level = logical: VACUUM FULL stores the rows written without a tail with one');
$pub->safe_psql('postgres', 'CLUSTER pk_comp USING pk_comp_pkey');
cmp_ok(tail_rows($pub, 'pk_comp', 'id BETWEEN 10001 AND 10200'), '>', 150,
	'wal_level = logical: CLUSTER keeps them');
$pub->safe_psql(
	'postgres', qq{
UPDATE pk_comp SET c61 = -id WHERE id BETWEEN 10001 AND 10200 AND id % 2 = 0;
UPDATE pk_comp SET id = id + 200000 WHERE id BETWEEN 10001 AND 10200 AND id % 5 = 0;
DELETE FROM pk_comp WHERE id BETWEEN 10001 AND 10200 AND id % 3 = 0;
INSERT INTO pk_comp SELECT g, $values FROM generate_series(30001, 30050) g;
});
$pub->wait_for_catchup('comp');
ok( $sub->safe_psql('postgres', 'SELECT * FROM pk_comp ORDER BY id') eq
	  $pub->safe_psql('postgres', 'SELECT * FROM pk_comp ORDER BY id'),
	'subscriber: pk_comp holds what the publisher holds after the rewrites and the writes on rewritten rows');

# rows written under logical WAL have no tail: those can be updated
$pub->safe_psql(
	'postgres', qq{
INSERT INTO full_comp SELECT g, $values FROM generate_series(20001, 20100) g;
UPDATE full_comp SET c3 = id WHERE id > 20000 AND id % 2 = 0;
DELETE FROM full_comp WHERE id > 20000 AND id % 3 = 0;
});

# UPDATE and DELETE of full_comp's old rows, logged whole
$pub->safe_psql(
	'postgres', qq{
UPDATE full_comp SET c1 = 1 WHERE id = 10;
DELETE FROM full_comp WHERE id = 11;
UPDATE full_comp SET c60 = -id, c120 = NULL WHERE id % 4 = 0;
DELETE FROM full_comp WHERE id % 9 = 0;
});
$pub->wait_for_catchup('comp');
my $q = 'SELECT * FROM full_comp ORDER BY id';
ok($sub->safe_psql('postgres', $q) eq $pub->safe_psql('postgres', $q),
	'subscriber: full_comp holds what the publisher holds after the updates');
is($sub->safe_psql('postgres', 'SELECT c1 FROM full_comp WHERE id = 10'),
	'1', 'subscriber: the update of an old row arrived');

$sub->stop;
$pub->stop;
done_testing();
