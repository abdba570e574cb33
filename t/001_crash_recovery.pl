#
# Crash recovery of slimheap tables.
#
# A load of committed batches (inserts, updates that move NULLs, deletes,
# COPY) runs in a background psql on a wide sparse table and a narrow one,
# each with a heap twin written in the same transactions.  The node is
# stopped in immediate mode while the load runs, with an uncommitted
# transaction open, after an aborted one, and with a rolled-back
# subtransaction in every batch.  After restart, every acknowledged batch is
# there, every batch is there completely or not at all, the contents are
# exactly the ones generated for the batches that committed (and the heap
# twins'), nothing aborted or uncommitted is, the indexes agree with the
# tables, and the recovered rows are still stored in the truncate form.
#
# A third twin of each table, wide_comp and narrow_comp, is a slimheap
# table in slimheap.null_bitmap = compress mode: the updates
# that set c95 or clear c1 leave NULLs before the last value, and those
# rows are stored with a compressed tail.  After recovery they hold the
# same rows, the tail rows are still there, and verify() finds nothing
# wrong with them.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

# a crashed psql must not kill the test with SIGPIPE
local $SIG{PIPE} = 'IGNORE';

my $R = 100;    # rows per batch, per table
my $NCOLS = 100;    # c1 .. c100 in the wide tables
my $SYNC_BATCHES = 20;    # batches run one by one before the stream
my $ACKED = 30;    # the node is stopped once this batch is acknowledged
my $MAX_BATCH = 500;    # batches in the stream (far more than run before the stop)

my $node = slim_node('crash');
$node->start;

my $datadir = PostgreSQL::Test::Utils::tempdir;

# COPY input of the narrow tables, one file per batch:
# id, batch, a = id % 97, b = 'v<id>' for even ids, c NULL
for my $b (1 .. $MAX_BATCH + 1)
{
	open(my $fh, '>', "$datadir/narrow_$b.dat") or die "cannot write: $!";
	for my $id (($b - 1) * $R + 1 .. $b * $R)
	{
		my $bval = $id % 2 == 0 ? "v$id" : '\N';
		print $fh join("\t", $id, $b, $id % 97, $bval, '\N'), "\n";
	}
	close($fh);
}
# and for the transaction left open across the crash: ids 1000101..1000200
open(my $fh, '>', "$datadir/narrow_open.dat") or die "cannot write: $!";
print $fh join("\t", $_, 0, 1, "open$_", $_), "\n" for 1000101 .. 1000200;
close($fh);

my $wide_defs = wide_column_defs($NCOLS);
# row g sets c1 .. c(g % 60), the rest NULL
my $wide_values =
  join(', ', map { "CASE WHEN mod(g, 60) >= $_ THEN g * 1000 + $_ END" } 1 .. $NCOLS);

$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE EXTENSION amcheck;
CREATE TABLE wide_slim (id int4 PRIMARY KEY, batch int4 NOT NULL, $wide_defs) USING slimheap;
CREATE TABLE wide_heap (id int4 PRIMARY KEY, batch int4 NOT NULL, $wide_defs) USING heap;
CREATE TABLE narrow_slim (id int4 PRIMARY KEY, batch int4 NOT NULL, a int4, b text, c int4) USING slimheap;
CREATE TABLE narrow_heap (id int4 PRIMARY KEY, batch int4 NOT NULL, a int4, b text, c int4) USING heap;
CREATE TABLE wide_comp (id int4 PRIMARY KEY, batch int4 NOT NULL, $wide_defs) USING slimheap
  WITH (slimheap.null_bitmap = compress);
CREATE TABLE narrow_comp (id int4 PRIMARY KEY, batch int4 NOT NULL, a int4, b text, c int4) USING slimheap
  WITH (slimheap.null_bitmap = compress);
CREATE INDEX narrow_slim_a_idx ON narrow_slim (a);
CREATE INDEX narrow_heap_a_idx ON narrow_heap (a);

-- One batch, on both twins: insert batch b, then, on the rows of batch
-- b - 1, set c95 (the trailing NULLs move), set c1 to NULL (a NULL before
-- the last stored column), delete some; COPY the narrow rows of batch b,
-- fill c (trailing NULL moves), NULL b, delete some.  Finally a
-- subtransaction inserts rows and rolls back.
CREATE FUNCTION do_batch(b int4) RETURNS void LANGUAGE plpgsql AS \$f\$
DECLARE
	t text;
	lo int4 := (b - 2) * $R + 1;	-- the rows of batch b - 1
	hi int4 := (b - 1) * $R;
BEGIN
	FOREACH t IN ARRAY ARRAY['slim', 'heap', 'comp'] LOOP
		EXECUTE format('INSERT INTO %I SELECT g, \$1, $wide_values
						  FROM generate_series((\$1 - 1) * $R + 1, \$1 * $R) g',
					   'wide_' || t) USING b;
		EXECUTE format('UPDATE %I SET c95 = -id
						 WHERE id BETWEEN \$1 AND \$2 AND mod(id, 5) = 0',
					   'wide_' || t) USING lo, hi;
		EXECUTE format('UPDATE %I SET c1 = NULL
						 WHERE id BETWEEN \$1 AND \$2 AND mod(id, 7) = 0',
					   'wide_' || t) USING lo, hi;
		EXECUTE format('DELETE FROM %I
						 WHERE id BETWEEN \$1 AND \$2 AND mod(id, 11) = 0',
					   'wide_' || t) USING lo, hi;
		EXECUTE format('COPY %I FROM %L', 'narrow_' || t,
					   '$datadir/narrow_' || b || '.dat');
		EXECUTE format('UPDATE %I SET c = id
						 WHERE id BETWEEN \$1 AND \$2 AND mod(id, 3) = 0',
					   'narrow_' || t) USING lo, hi;
		EXECUTE format('UPDATE %I SET b = NULL
						 WHERE id BETWEEN \$1 AND \$2 AND mod(id, 4) = 0',
					   'narrow_' || t) USING lo, hi;
		EXECUTE format('DELETE FROM %I
						 WHERE id BETWEEN \$1 AND \$2 AND mod(id, 10) = 0',
					   'narrow_' || t) USING lo, hi;
	END LOOP;
	BEGIN
		INSERT INTO wide_slim (id, batch, c1, c2) VALUES (3000000 + b, b, 1, 2);
		INSERT INTO narrow_slim (id, batch, a) VALUES (3000000 + b, b, 1);
		RAISE EXCEPTION 'roll back the subtransaction';
	EXCEPTION WHEN raise_exception THEN
		NULL;
	END;
END
\$f\$;
});

# The contents batches 1 .. $p must leave, generated independently of the
# tables: a row of batch bt < $p has had batch bt + 1's updates and deletes.
sub expected_wide
{
	my ($p) = @_;
	my @cols;
	for my $i (1 .. $NCOLS)
	{
		my $set = "CASE WHEN mod(g, 60) >= $i THEN g * 1000 + $i END";
		$set = "CASE WHEN (g - 1) / $R + 1 < $p AND mod(g, 7) = 0 THEN NULL ELSE $set END"
		  if $i == 1;
		$set = "CASE WHEN (g - 1) / $R + 1 < $p AND mod(g, 5) = 0 THEN -g ELSE $set END"
		  if $i == 95;
		push @cols, $set;
	}
	return "SELECT g, (g - 1) / $R + 1, "
	  . join(', ', @cols)
	  . " FROM generate_series(1, $p * $R) g"
	  . " WHERE NOT ((g - 1) / $R + 1 < $p AND mod(g, 11) = 0)";
}

sub expected_narrow
{
	my ($p) = @_;
	return qq{SELECT g, (g - 1) / $R + 1, mod(g, 97),
  CASE WHEN (g - 1) / $R + 1 < $p AND mod(g, 4) = 0 THEN NULL
       WHEN mod(g, 2) = 0 THEN 'v' || g END,
  CASE WHEN (g - 1) / $R + 1 < $p AND mod(g, 3) = 0 THEN g END
  FROM generate_series(1, $p * $R) g
 WHERE NOT ((g - 1) / $R + 1 < $p AND mod(g, 10) = 0)};
}

# Assert that the four tables hold exactly what batches 1 .. $p leave.
sub check_contents
{
	my ($p, $when) = @_;
	for my $t ('wide', 'narrow')
	{
		my $expected = $t eq 'wide' ? expected_wide($p) : expected_narrow($p);
		for my $am ('slim', 'heap', 'comp')
		{
			is( $node->safe_psql(
					'postgres',
					diff_count_sql("SELECT * FROM ${t}_$am", $expected)),
				'0',
				"$when: ${t}_$am holds exactly the rows of batches 1..$p");
		}
	}
}

# The load.  Session "load" runs the batches; session "open" holds an
# uncommitted transaction across the crash.
my $load = $node->background_psql('postgres');
for my $b (1 .. $SYNC_BATCHES)
{
	$load->query_safe("BEGIN; SELECT do_batch($b); COMMIT;");
	# a checkpoint in the middle: recovery replays part of the load onto
	# pages written by it, part from full-page images
	$load->query_safe('CHECKPOINT') if $b == $SYNC_BATCHES / 2;
}
check_contents($SYNC_BATCHES, 'before the crash');

# an aborted transaction: inserts, an update of committed rows, a delete
$load->query_safe(
	qq{BEGIN;
INSERT INTO wide_slim (id, batch, c1, c50) SELECT g, 0, g, g FROM generate_series(2000001, 2000100) g;
INSERT INTO narrow_slim (id, batch, a, b, c) SELECT g, 0, 1, 'x', 1 FROM generate_series(2000001, 2000100) g;
UPDATE wide_slim SET c2 = NULL, c100 = 1 WHERE id <= 100;
DELETE FROM narrow_slim WHERE id <= 100;
ROLLBACK;});

my $open = $node->background_psql('postgres');
$open->query_safe(
	qq{BEGIN;
INSERT INTO wide_slim (id, batch, c1, c99) SELECT g, 0, g, g FROM generate_series(1000001, 1000100) g;
COPY narrow_slim FROM '$datadir/narrow_open.dat';
UPDATE wide_slim SET c50 = 0, c3 = NULL WHERE id BETWEEN 201 AND 300;
DELETE FROM narrow_slim WHERE id BETWEEN 301 AND 400;});

# Stream the remaining batches without waiting, each acknowledged with a
# line; stop the node in immediate mode once batch $ACKED is acknowledged.
my $stream = '';
for my $b ($SYNC_BATCHES + 1 .. $MAX_BATCH)
{
	$stream .= "BEGIN;\nSELECT do_batch($b);\nCOMMIT;\n\\echo committed $b\n";
}
my $out = $load->query_until(qr/committed $ACKED\n/, $stream);
ok($out =~ /committed $ACKED\n/, "batch $ACKED acknowledged during the load");
$node->stop('immediate');

# the sessions lost their server; reap them
for my $session ($load, $open)
{
	eval { $session->quit; };
}

$node->start;

# Which batches committed: at least every acknowledged one, and each batch
# wholly (checked by the contents below, which are generated per batch).
my $p = $node->safe_psql('postgres', 'SELECT max(batch) FROM wide_heap');
cmp_ok($p, '>=', $ACKED, "every acknowledged batch survived (last: $p)");
cmp_ok($p, '<', $MAX_BATCH, 'the crash interrupted the load');
is($node->safe_psql('postgres', 'SELECT max(batch) FROM wide_slim'),
	$p, 'slimheap and heap twin committed the same batches');
check_contents($p, 'after the crash');

is( $node->safe_psql(
		'postgres', qq{
SELECT (SELECT count(*) FROM wide_slim WHERE id > 1000000)
     + (SELECT count(*) FROM narrow_slim WHERE id > 1000000)}),
	'0',
	'no row of the aborted, uncommitted or rolled-back work is visible');

# the indexes agree with the recovered tables
for my $idx (qw(wide_slim_pkey narrow_slim_pkey narrow_slim_a_idx wide_comp_pkey))
{
	is($node->psql('postgres', "SELECT bt_index_check('$idx', true)"),
		0, "amcheck: $idx matches the recovered table");
}
is( $node->safe_psql(
		'postgres', qq{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM narrow_slim WHERE a = 5}),
	"Index Scan using narrow_slim_a_idx on narrow_slim\n  Index Cond: (a = 5)",
	'the narrow index lookup is an index scan');
is( $node->safe_psql(
		'postgres', qq{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT string_agg(format('%s/%s/%s', id, b, c), ',' ORDER BY id) FROM narrow_slim WHERE a = 5}),
	$node->safe_psql(
		'postgres',
		"SELECT string_agg(format('%s/%s/%s', id, b, c), ',' ORDER BY id) FROM narrow_heap WHERE a = 5"
	),
	'index lookup on the recovered slimheap table returns the heap twin rows');

# The recovered rows are still slim.  Row 59 sets c1..c59, was never
# updated: 61 attributes, no bitmap.  Row 35 sets c1..c35, then had
# c95 set and c1 NULLed: 97 attributes with a bitmap.  Heap stores 102.
my $row_form = sub {
	my ($rel, $id) = @_;
	return $node->safe_psql(
		'postgres', qq{
SELECT i.natts || '/' || i.hasnull || '/' || i.t_hoff
  FROM (@{[ page_items_sql($rel) ]}) i
  JOIN $rel t ON t.ctid = i.tid WHERE t.id = $id});
};
is($row_form->('wide_slim', 59), '61/false/24', 'row 59: 61 attributes, no bitmap');
is($row_form->('wide_slim', 35), '97/true/40', 'row 35: 97 attributes, 13-byte bitmap');
is($row_form->('wide_heap', 59), '102/true/40', 'heap twin of row 59: 102 attributes');

my ($total, $bad_natts, $bad_hasnull, $bad_hoff) = split /\|/,
  $node->safe_psql('postgres', stored_forms_check_sql('wide_slim', $NCOLS, 2));
is($total, $node->safe_psql('postgres', 'SELECT count(*) FROM wide_slim'),
	'every recovered wide row was inspected');
is("$bad_natts/$bad_hasnull/$bad_hoff", '0/0/0',
	"all $total recovered wide rows are in the truncate form");
cmp_ok(
	$node->safe_psql('postgres', "SELECT pg_relation_size('wide_slim')"),
	'<',
	$node->safe_psql('postgres', "SELECT pg_relation_size('wide_heap')"),
	'the slimheap table is smaller than its heap twin');

# The compress twin: rows with a tail (t_infomask2 0x0800) survived, they
# are the rows the heap twin has (checked with the contents above), and
# verify() decodes and bounds-checks every one of them.
my $tail_rows_sql = qq{
SELECT count(*) FROM wide_comp t JOIN (@{[ page_items_sql('wide_comp') ]}) i ON i.tid = t.ctid
 WHERE i.tail};
my $tail_rows = $node->safe_psql('postgres', $tail_rows_sql);
cmp_ok($tail_rows, '>', 0, "wide_comp: $tail_rows recovered rows have a compressed tail");
is( $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM wide_comp t JOIN wide_heap h USING (id)
 WHERE t.c95 IS DISTINCT FROM h.c95 OR t.c1 IS DISTINCT FROM h.c1 OR t.c50 IS DISTINCT FROM h.c50}),
	'0', 'wide_comp: the tail columns read back as in the heap twin');
is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('wide_comp')"),
	'0', 'verify: every recovered tail decodes and is in bounds');

# the tables take writes after recovery
$node->safe_psql('postgres', 'SELECT do_batch(' . ($p + 1) . ')');
check_contents($p + 1, 'after one more batch');

$node->stop;
done_testing();
