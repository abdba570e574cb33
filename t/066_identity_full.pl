# Copyright (c) slimheap contributors
#
# ALTER TABLE ... REPLICA IDENTITY FULL on a compress table whose rows have
# compressed tails (invariant C3, src/am/slim_identity.c).  Under REPLICA
# IDENTITY FULL heap logs an UPDATE's or DELETE's old row whole, and
# logical decoding reads it as heap's row; so the ALTER re-lays the tail
# rows without a tail: in place (same files, same line pointers), or by a
# rewrite where rows do not fit on their page.  A publisher with wal_level
# = logical that preloads slimheap, beside heap twins:
#   - the ALTER warns that compress keeps only truncate's savings, and says
#     what it re-laid or rewrote; no row keeps a tail; the rows are the
#     same, for a REPEATABLE READ transaction that began before it too;
#   - nothing of the re-layout is decoded;
#   - UPDATE and DELETE of the re-laid rows work, and test_decoding decodes
#     exactly what it decodes for the heap twin (old rows whole);
#   - a streaming standby replays the re-layout into the primary's rows and
#     pages;
#   - an event trigger that gives the table's name to a new table at the
#     ALTER's end does not turn the re-layout to that table;
#   - a table that left compress mode with its tails is re-laid too.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest qw(:DEFAULT decoded rows_of);
use Test::More;

my $NCOLS = 120;
my $NROWS = 3000;
my $defs = wide_column_defs($NCOLS);
# about four values a row at scattered positions, and c100 in every row
my $values = join(', ',
	map { "CASE WHEN mod(g * 7 + $_ * 13, 31) = 0 OR $_ = 100 THEN g * 1000 + $_ END" }
	  1 .. $NCOLS);
my @slim = ('roomy', 'dense', 'was_comp');

# how many stored rows of $rel have a compressed tail
sub tail_rows
{
	my ($node, $rel) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM (@{[ page_items_sql($rel) ]}) i WHERE i.tail");
}

my $node = slim_node('primary', allows_streaming => 'logical');
$node->start;
$node->backup('empty');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'empty', has_streaming => 1);
$standby->start;

my $compress = 'USING slimheap WITH (slimheap.null_bitmap = compress';
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE TABLE roomy (id int4 NOT NULL, $defs) $compress, fillfactor = 50);
CREATE TABLE dense (id int4 NOT NULL, $defs) $compress);
CREATE TABLE was_comp (id int4 NOT NULL, $defs) $compress);
CREATE TABLE twin (id int4 NOT NULL, $defs) USING heap;
CREATE TABLE other (id int4);
INSERT INTO other VALUES (1);
INSERT INTO roomy SELECT g, $values FROM generate_series(1, $NROWS) g;
INSERT INTO dense SELECT g, $values FROM generate_series(1, $NROWS) g;
INSERT INTO was_comp SELECT g, $values FROM generate_series(1, $NROWS) g;
INSERT INTO twin SELECT g, $values FROM generate_series(1, $NROWS) g;
ALTER TABLE was_comp SET (slimheap.null_bitmap = truncate);
SELECT 'slot' FROM pg_create_logical_replication_slot('td', 'test_decoding');
});
my $twin_rows = rows_of($node, 'twin');
my %file;
for my $t (@slim)
{
	is(tail_rows($node, $t), $NROWS, "$t: every row has a compressed tail");
	is(rows_of($node, $t), $twin_rows, "$t: the rows of the heap twin");
	$file{$t} = $node->safe_psql('postgres',
		"SELECT pg_relation_filenode('$t')");
}

# a REPEATABLE READ transaction whose snapshot is older than the ALTERs
my $watcher = $node->background_psql('postgres');
$watcher->query_safe(
	'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM other');

my ($ret, $stdout, $stderr) =
  $node->psql('postgres', 'ALTER TABLE roomy REPLICA IDENTITY FULL');
is($ret, 0, 'roomy: ALTER TABLE ... REPLICA IDENTITY FULL succeeds');
like(
	$stderr,
	qr/WARNING:  table "roomy" stores no compressed tails under REPLICA IDENTITY FULL/,
	'roomy: the ALTER warns that compress keeps no tails');
like($stderr, qr/HINT:  A primary key or REPLICA IDENTITY USING INDEX/,
	'roomy: the warning names the identities that keep tails');
like(
	$stderr,
	qr/NOTICE:  re-laid $NROWS rows of table "roomy" without their compressed tails/,
	'roomy: the ALTER says how many rows it re-laid');
unlike($stderr, qr/rewriting/, 'roomy: every row fit on its page');
is($node->safe_psql('postgres', "SELECT pg_relation_filenode('roomy')"),
	$file{roomy}, 'roomy: re-laid in place, in the same file');

# an event trigger at the ALTER's end makes the name "dense" mean a new
# temporary table: the rows re-laid are still those of the table altered
$node->safe_psql(
	'postgres', q{
CREATE FUNCTION shadow() RETURNS event_trigger LANGUAGE plpgsql AS
  $$BEGIN CREATE TEMP TABLE IF NOT EXISTS dense (id int); END$$;
CREATE EVENT TRIGGER shadow ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
  EXECUTE FUNCTION shadow();
});
($ret, $stdout, $stderr) =
  $node->psql('postgres', 'ALTER TABLE dense REPLICA IDENTITY FULL');
$node->safe_psql('postgres', 'DROP EVENT TRIGGER shadow');
is($ret, 0, 'dense: ALTER TABLE ... REPLICA IDENTITY FULL succeeds');
like($stderr, qr/NOTICE:  rewriting table "dense" so that no row keeps a compressed tail/,
	'dense: the rows that do not fit on their page make a rewrite');

($ret, $stdout, $stderr) =
  $node->psql('postgres', 'ALTER TABLE was_comp REPLICA IDENTITY FULL');
is($ret, 0, 'was_comp: ALTER TABLE ... REPLICA IDENTITY FULL succeeds');
unlike($stderr, qr/WARNING/, 'was_comp: a truncate table is not warned about');
like($stderr, qr/NOTICE:  (re-laid|rewriting)/,
	'was_comp: the tails it kept from compress mode are re-laid');
$node->safe_psql('postgres', 'ALTER TABLE twin REPLICA IDENTITY FULL');
($ret, $stdout, $stderr) =
  $node->psql('postgres', 'ALTER TABLE roomy REPLICA IDENTITY FULL');
is($stderr, '', 'roomy: setting the identity it has again says nothing');

for my $t (@slim)
{
	is(tail_rows($node, $t), '0', "$t: no row keeps a compressed tail");
	is(rows_of($node, $t), $twin_rows, "$t: the rows are unchanged");
	is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('$t')"),
		'0', "$t: verify() finds nothing wrong");
	is($watcher->query_safe(
			"SELECT count(*) || ':' || md5(string_agg(t::text, ',' ORDER BY id)) FROM $t t"),
		$twin_rows, "$t: an older REPEATABLE READ snapshot reads the same rows");
}
$watcher->query_safe('COMMIT');
$watcher->quit;

my $upto = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
for my $t (@slim)
{
	is(decoded($node, $t, '0/0', $upto), '', "$t: nothing of the ALTER is decoded");
}

# writes on the re-laid rows, the same on the heap twin
for my $t (@slim, 'twin')
{
	$node->safe_psql(
		'postgres', qq{
UPDATE $t SET c60 = -id WHERE id % 3 = 0;
UPDATE $t SET c100 = NULL, c119 = id WHERE id % 5 = 0;
DELETE FROM $t WHERE id % 7 = 0;
INSERT INTO $t SELECT g, $values FROM generate_series(10001, 10100) g;
UPDATE $t SET c2 = 2 WHERE id > 10050;
});
}
$upto = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my $twin_changes = decoded($node, 'twin', '0/0', $upto);
like($twin_changes, qr/UPDATE: old-key: id\[integer\]/,
	'twin: test_decoding decodes old rows whole');
$twin_rows = rows_of($node, 'twin');
for my $t (@slim)
{
	is(tail_rows($node, $t), '0', "$t: rows written under REPLICA IDENTITY FULL have no tail");
	is(rows_of($node, $t), $twin_rows, "$t: the rows of the heap twin after the writes");
	ok(decoded($node, $t, '0/0', $upto) eq $twin_changes,
		"$t: test_decoding decodes what it decodes for the heap twin");
}

$node->wait_for_catchup($standby, 'replay');
for my $t (@slim)
{
	is(rows_of($standby, $t), $twin_rows, "standby: $t holds the primary's rows");
	is(tail_rows($standby, $t), '0', "standby: no row of $t has a tail (the re-layout was replayed)");
}

$standby->stop;
$node->stop;
done_testing();
