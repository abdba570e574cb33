# Copyright (c) slimheap contributors
#
# Fast defaults and compressed tails (docs/fast-defaults.md), where only a
# cluster shows it:
#   - the catalog's version decides the form: under an extension of 1.3
#     (whose later builds refuse a tail that ends with stored NULLs, and
#     whose earlier builds and 1.2's would misread it) rows written after
#     ADD COLUMN ... DEFAULT keep
#     every column up to it in their prefix, as 1.3 wrote them, also after
#     an update rolled back; after ALTER EXTENSION slimheap UPDATE every
#     session, one that wrote before it too, writes the short prefix;
#   - logical decoding (test_decoding) decodes the new rows, whose tails
#     end with stored NULLs, exactly as it decodes their heap twin's, and a
#     pgoutput subscriber's heap table receives the twin's rows;
#   - a streaming standby replays them and reads the primary's rows;
#   - after an immediate stop, crash recovery gives the same rows.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest qw(:DEFAULT decoded rows_of);
use Test::More;

my $defs = wide_column_defs(200);

# natts of the rows of $rel with ids in $range, as "natts:count" lines
sub prefixes
{
	my ($node, $db, $rel, $range) = @_;
	return $node->safe_psql($db, qq{
SELECT i.natts || ':' || count(*) FROM $rel t JOIN (@{[ page_items_sql($rel) ]}) i ON i.tid = t.ctid
WHERE t.id BETWEEN $range GROUP BY i.natts ORDER BY i.natts});
}

my $node = slim_node('primary', allows_streaming => 'logical');
$node->start;
$node->backup('empty');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'empty', has_streaming => 1);
$standby->append_conf('postgresql.conf', "shared_preload_libraries = 'slimheap'");
$standby->start;

# 1. the catalog's version decides the form
$node->safe_psql('postgres', 'CREATE DATABASE legacy');
$node->safe_psql('legacy', "CREATE EXTENSION slimheap VERSION '1.3'; CREATE EXTENSION pageinspect");
$node->safe_psql('legacy', qq{
CREATE TABLE t (id int, $defs) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE tw (id int, $defs) USING heap;
ALTER TABLE t ADD COLUMN d int DEFAULT 42;
ALTER TABLE tw ADD COLUMN d int DEFAULT 42;
INSERT INTO t (id, c150, d) SELECT g, g, CASE WHEN g % 2 = 0 THEN NULL ELSE 42 END FROM generate_series(1, 100) g;
INSERT INTO tw SELECT * FROM t;});
is(prefixes($node, 'legacy', 't', '1 AND 100'), '202:100',
	'under a 1.3 catalog the rows keep every column up to d in their prefix');

# a rewrite (ADD COLUMN with a volatile default) under the 1.3 catalog: the
# transient table stores no run of NULLs through the old table's fast
# default (a row with d NULL ends with its last value, c150, attribute 151)
$node->safe_psql('legacy', qq{
CREATE TABLE r (id int, $defs) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE rw (id int, $defs) USING heap;
ALTER TABLE r ADD COLUMN d int DEFAULT 42;
ALTER TABLE rw ADD COLUMN d int DEFAULT 42;
INSERT INTO r (id, c150, d) SELECT g, g, CASE WHEN g % 2 = 0 THEN NULL ELSE 7 END FROM generate_series(1, 100) g;
INSERT INTO rw SELECT * FROM r;
ALTER TABLE r ADD COLUMN v int DEFAULT (CASE WHEN random() < 0 THEN 1 END);
ALTER TABLE rw ADD COLUMN v int DEFAULT (CASE WHEN random() < 0 THEN 1 END);});
is(rows_of($node, 'r', 'legacy'), rows_of($node, 'rw', 'legacy'),
	'a rewrite under the 1.3 catalog: the rows read as the twin\'s');
is($node->safe_psql('legacy', qq{
SELECT string_agg(DISTINCT i.stored_natts::text, ',') FROM r
JOIN slimheap.page_items('r', 0) i ON format('(0,%s)', i.lp)::tid = r.ctid WHERE r.d IS NULL}),
	'151', 'the rewritten rows with d NULL store up to their last value');
is($node->safe_psql('legacy', "SELECT count(*) FROM slimheap.verify('r')"), '0',
	'and verify() is clean');

# the update counts once committed: rows written in its transaction, and
# after a rollback to a savepoint or of the whole transaction, take the
# old form
is($node->safe_psql('legacy', qq{
BEGIN;
ALTER EXTENSION slimheap UPDATE;
INSERT INTO t (id, c150, d) VALUES (101, 101, NULL);
SELECT i.natts FROM t JOIN (@{[ page_items_sql('t') ]}) i ON i.tid = t.ctid WHERE t.id = 101;
ROLLBACK;}), '202', 'a row written in the update\'s own transaction takes the old form');
$node->safe_psql('legacy', qq{
BEGIN;
INSERT INTO t (id, c150) VALUES (102, 102);
SAVEPOINT s;
ALTER EXTENSION slimheap UPDATE;
INSERT INTO t (id, c150, d) VALUES (103, 103, NULL);
ROLLBACK TO s;
INSERT INTO t (id, c150, d) SELECT g, g, NULL FROM generate_series(104, 110) g;
COMMIT;
INSERT INTO tw SELECT * FROM t WHERE id > 100;});
is(prefixes($node, 'legacy', 't', '101 AND 110'), '202:8',
	'after a rollback to a savepoint the session writes the old form');

# a session that cached the old answer takes the committed update's, and
# so does the session that ran it
my $other = $node->background_psql('legacy');
$other->query_safe('INSERT INTO t (id, c150) VALUES (112, 112)');
is($node->safe_psql('legacy', qq{
INSERT INTO t (id, c150) VALUES (111, 111);
ALTER EXTENSION slimheap UPDATE;
INSERT INTO t (id, c150, d) VALUES (201, 201, NULL);
SELECT i.natts FROM t JOIN (@{[ page_items_sql('t') ]}) i ON i.tid = t.ctid WHERE t.id = 201;}),
	'8', 'the session that ran the update writes the new form after its commit');
is($node->safe_psql('legacy', "SELECT extversion FROM pg_extension WHERE extname = 'slimheap'"),
	'1.4', 'the update reaches 1.4');
$other->query_safe(
	'INSERT INTO t (id, c150, d) SELECT g, g, CASE WHEN g % 2 = 0 THEN NULL ELSE 42 END FROM generate_series(113, 200) g');
$other->quit;
$node->safe_psql('legacy', 'INSERT INTO tw SELECT * FROM t WHERE id > 110');
is(prefixes($node, 'legacy', 't', '113 AND 200'), '8:88',
	'after ALTER EXTENSION UPDATE new rows keep the free prefix, d in their tails, in every session');
is(rows_of($node, 't', 'legacy'), rows_of($node, 'tw', 'legacy'), 'the rows read as the twin\'s');
is($node->safe_psql('legacy', "SELECT count(*) FROM slimheap.verify('t')"), '0', 'verify() is clean');

# the update to 1.4, and a CREATE EXTENSION of 1.4, each write slimheap's
# FORMAT record (info 0x20) before any row of the new form can follow: an
# older library's redo stops at it (src/wal/slim_wal_format.c); this
# library's standby replays it (section 3 reads the standby's rows)
$node->safe_psql('postgres', 'CREATE DATABASE fence1');
$node->safe_psql('postgres', 'CREATE DATABASE fence2');
$node->safe_psql('fence1', "CREATE EXTENSION slimheap VERSION '1.3'");
my $fence_from = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$node->safe_psql('fence1', 'ALTER EXTENSION slimheap UPDATE');
$node->safe_psql('fence2', 'CREATE EXTENSION slimheap');
my $fence_upto = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my ($waldump, $waldump_err) = run_command([
	$node->config_data('--bindir') . '/pg_waldump', '-p', $node->data_dir . '/pg_wal', '-s', $fence_from,
	'-e', $fence_upto, '-r', 'custom151' ]);
is(scalar(() = $waldump =~ /UNKNOWN \(20\)/g), 2,
	'the update and a new 1.4 each write one FORMAT record')
  or diag($waldump . $waldump_err);

# 2. logical decoding of rows whose tails end with stored NULLs
$node->safe_psql('postgres', qq{
CREATE EXTENSION slimheap; CREATE EXTENSION pageinspect;
CREATE TABLE t (id int PRIMARY KEY, $defs) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE tw (id int PRIMARY KEY, $defs) USING heap;
INSERT INTO t (id, c20) SELECT g, g FROM generate_series(1, 50) g;
INSERT INTO tw SELECT * FROM t;
ALTER TABLE t ADD COLUMN d int DEFAULT 42, ADD COLUMN e text DEFAULT 'e';
ALTER TABLE tw ADD COLUMN d int DEFAULT 42, ADD COLUMN e text DEFAULT 'e';});
$node->safe_psql('postgres',
	"SELECT 'slot' FROM pg_create_logical_replication_slot('td', 'test_decoding')");
# a pgoutput subscriber: a heap table with the same defaults and one of its
# own, which a row decoded short would leave reading 42 and 'e' where the
# row stores NULL
$node->safe_psql('postgres', 'CREATE PUBLICATION pub FOR TABLE t');
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->start;
$sub->safe_psql('postgres', qq{
CREATE TABLE t (id int PRIMARY KEY, $defs, d int DEFAULT 42, e text DEFAULT 'e');
ALTER TABLE t ADD COLUMN f int DEFAULT 9;
CREATE SUBSCRIPTION s CONNECTION '@{[ $node->connstr ]} dbname=postgres' PUBLICATION pub;});
$sub->wait_for_subscription_sync($node, 's');
my $from = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
for my $rel (qw(t tw))
{
	$node->safe_psql('postgres', qq{
INSERT INTO $rel (id, c20, c190, d, e) SELECT g, g, CASE WHEN g % 3 = 0 THEN g END,
	CASE WHEN g % 2 = 0 THEN NULL ELSE g END, CASE WHEN g % 5 = 0 THEN NULL ELSE 'x' END
FROM generate_series(51, 250) g;
UPDATE $rel SET c20 = -c20 WHERE id % 7 = 0;
DELETE FROM $rel WHERE id % 11 = 0;});
}
my $upto = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
like(prefixes($node, 'postgres', 't', '51 AND 250'), qr/^8:\d+/,
	'the new rows keep the free prefix');
my $twin = decoded($node, 'tw', $from, $upto);
like($twin, qr/INSERT:.*d\[integer\]:null/, 'the twin decodes rows with d NULL');
is(decoded($node, 't', $from, $upto), $twin, 'the compress table decodes what its heap twin decodes');
is(rows_of($node, 't', 'postgres'), rows_of($node, 'tw', 'postgres'), 'the rows read as the twin\'s');
$node->wait_for_catchup('s');
my $shared = "SELECT count(*) || ':' || md5(string_agg(format('%s %s %s %s %s', id, c20, c190, d, e), ',' ORDER BY id)) FROM";
is($sub->safe_psql('postgres', "$shared t"), $node->safe_psql('postgres', "$shared tw"),
	'the pgoutput subscriber holds the heap twin\'s rows');
is($sub->safe_psql('postgres', 'SELECT count(*) FILTER (WHERE d IS NULL) > 0 AND bool_and(f = 9) FROM t'),
	't', 'with d NULL where it is, and its own default in f');
$sub->safe_psql('postgres', 'DROP SUBSCRIPTION s');

# 3. the standby, and crash recovery
$node->wait_for_catchup($standby, 'replay');
is(rows_of($standby, 't', 'postgres'), rows_of($node, 't', 'postgres'), "standby: the primary's rows");
is(rows_of($standby, 't', 'legacy'), rows_of($node, 't', 'legacy'), "standby: the primary's rows (legacy)");
my $before = rows_of($node, 't', 'postgres');
$node->stop('immediate');
$node->start;
is(rows_of($node, 't', 'postgres'), $before, 'crash recovery gives the same rows');
is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('t')"), '0',
	'verify() is clean after recovery');

# a rewrite of the rows whose tails end with stored NULLs
$node->safe_psql('postgres', 'ALTER TABLE t ADD COLUMN v int DEFAULT (CASE WHEN random() < 0 THEN 1 END)');
$node->safe_psql('postgres', 'ALTER TABLE tw ADD COLUMN v int DEFAULT (CASE WHEN random() < 0 THEN 1 END)');
is(rows_of($node, 't', 'postgres'), rows_of($node, 'tw', 'postgres'),
	'after a rewrite the rows read as the twin\'s');
is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('t')"), '0',
	'and verify() is clean');

done_testing();
