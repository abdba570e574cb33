#
# Streaming replication of slimheap tables.
#
# DML on a primary (INSERT, COPY, UPDATE that moves NULLs, DELETE, VACUUM
# FULL, CLUSTER, CREATE INDEX) reaches a streaming standby: once it has
# caught up, the standby returns the same rows as the primary (full sorted
# contents, and lookups through the indexes built on the primary), the
# primary's slimheap tables hold what their heap twins hold, and the
# standby's pages hold the same row forms as the primary's, still slim.
# DDL on the standby gets core's read-only error.
#
# A third twin of each table (wide_compress, narrow_compress) is in
# slimheap.null_bitmap = compress mode, its first 10 columns
# kept in the prefix (slimheap.prefix_columns) so that c5 can be indexed:
# the updates that set c80 or clear c2 and c30 leave NULLs before the last
# value, and those rows are stored with a compressed tail.  The standby
# replays them byte for byte (lp_len, header, tail marker and data) and
# reads them back as the primary and the heap twin do.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $NCOLS = 100;
my $NROWS = 3000;

my $primary = slim_node('primary', allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres',
	'CREATE EXTENSION slimheap; CREATE EXTENSION pageinspect;');
$primary->backup('backup');

my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'backup', has_streaming => 1);
$standby->start;
is($standby->safe_psql('postgres', 'SHOW shared_preload_libraries'),
	'slimheap', 'the standby preloads slimheap');

my $wide_defs = wide_column_defs($NCOLS);
# row g sets c1 .. c(g % 50), the rest NULL
my $wide_values =
  join(', ', map { "CASE WHEN mod(g, 50) >= $_ THEN g * 1000 + $_ END" } 1 .. $NCOLS);

# Everything below runs on each twin: __AM__ names the twin, __USING__ and
# __NUSING__ are its access method and options for the wide and the
# narrow table.  The narrow table has 4 columns of values and 5 trailing
# ones never set (p5 .. p9): a table of at most 8 attributes stores heap's
# full form in every mode (docs/narrow-slot.md), and its rows must still
# be cut after their last value here.
my $dml = qq{
CREATE TABLE wide___AM__ (id int4 PRIMARY KEY, grp int4 NOT NULL, $wide_defs) USING __USING__;
INSERT INTO wide___AM__ SELECT g, mod(g, 10), $wide_values FROM generate_series(1, $NROWS) g;
CREATE TABLE narrow___AM__ (id int4 NOT NULL, a int4, b text, c int4,
  p5 int4, p6 int4, p7 int4, p8 int4, p9 int4) USING __NUSING__;
COPY narrow___AM__ (id, a, b, c) FROM STDIN;
__COPY__
\\.
-- NULLs move: trailing NULLs get a value, NULLs appear before the last
-- stored column, rows are deleted
UPDATE wide___AM__ SET c80 = -id WHERE mod(id, 9) = 0;
UPDATE wide___AM__ SET c2 = NULL WHERE mod(id, 13) = 0;
DELETE FROM wide___AM__ WHERE mod(id, 17) = 0;
UPDATE narrow___AM__ SET c = a WHERE mod(id, 4) = 0;
UPDATE narrow___AM__ SET b = NULL WHERE mod(id, 6) = 0;
DELETE FROM narrow___AM__ WHERE mod(id, 5) = 0;
-- rewrites
VACUUM FULL wide___AM__;
CREATE INDEX narrow___AM___a_idx ON narrow___AM__ (a);
CLUSTER narrow___AM__ USING narrow___AM___a_idx;
CREATE INDEX wide___AM___c5_idx ON wide___AM__ (c5);
-- more DML on the rewritten tables
INSERT INTO wide___AM__ SELECT g, mod(g, 10), $wide_values FROM generate_series($NROWS + 1, $NROWS + 500) g;
UPDATE wide___AM__ SET c30 = NULL, c31 = -id WHERE mod(id, 7) = 0;
INSERT INTO narrow___AM__ SELECT g, mod(g, 31), NULL, NULL FROM generate_series(5001, 5100) g;
DELETE FROM narrow___AM__ WHERE mod(id, 11) = 0;
-- settle pruning on the primary before comparing pages
VACUUM wide___AM__;
VACUUM narrow___AM__;
};
my $copy = join('',
	map { join("\t", $_, $_ % 31, $_ % 2 ? '\N' : "t$_", '\N') . "\n" } 1 .. 2000);
$dml =~ s/__COPY__\n/$copy/;
my %using = (
	heap => [ 'heap', 'heap' ],
	slimheap => [ 'slimheap', 'slimheap' ],
	compress => [
		'slimheap WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 10)',
		'slimheap WITH (slimheap.null_bitmap = compress)'
	],);
for my $am ('heap', 'slimheap', 'compress')
{
	(my $sql = $dml) =~ s/__AM__/$am/g;
	$sql =~ s/__USING__/$using{$am}[0]/g;
	$sql =~ s/__NUSING__/$using{$am}[1]/g;
	$primary->safe_psql('postgres', $sql);
}

$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

# The primary: slimheap returns what heap returns, in both modes.
for my $t ('wide', 'narrow')
{
	for my $am ('slimheap', 'compress')
	{
		is( $primary->safe_psql(
				'postgres',
				diff_count_sql("SELECT * FROM ${t}_heap", "SELECT * FROM ${t}_$am")),
			'0',
			"primary: ${t}_$am holds the same rows as ${t}_heap");
	}
}

# The standby returns the primary's rows.
for my $t ('wide_slimheap', 'narrow_slimheap', 'wide_compress', 'narrow_compress')
{
	my $q = "SELECT * FROM $t ORDER BY id";
	my $on_primary = $primary->safe_psql('postgres', $q);
	cmp_ok(length($on_primary), '>', 0, "primary: $t is not empty");
	ok($standby->safe_psql('postgres', $q) eq $on_primary,
		"standby: $t has the same sorted contents as on the primary");
}

# Lookups through the indexes built on the primary, on the standby.
my %lookups = (
	'wide_slimheap_c5_idx' =>
	  'SELECT id, c5, c30, c31, c80 FROM wide_slimheap WHERE c5 BETWEEN 100005 AND 900005 ORDER BY c5',
	'narrow_slimheap_a_idx' =>
	  'SELECT id, a, b, c FROM narrow_slimheap WHERE a = 7 ORDER BY a, id',
	'wide_compress_c5_idx' =>
	  'SELECT id, c5, c30, c31, c80 FROM wide_compress WHERE c5 BETWEEN 100005 AND 900005 ORDER BY c5',
	'narrow_compress_a_idx' =>
	  'SELECT id, a, b, c FROM narrow_compress WHERE a = 7 ORDER BY a, id',);
for my $idx (sort keys %lookups)
{
	my $q = $lookups{$idx};
	my $index_scan = "SET enable_seqscan = off; SET enable_bitmapscan = off; $q";
	like($standby->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN (COSTS OFF) $q"),
		qr/Index Scan using $idx/, "standby: the lookup uses $idx");
	my $on_standby = $standby->safe_psql('postgres', $index_scan);
	cmp_ok(length($on_standby), '>', 0, "standby: the lookup through $idx finds rows");
	is($on_standby, $primary->safe_psql('postgres', $index_scan),
		"standby: the lookup through $idx returns the primary's rows");
	(my $heap_q = $q) =~ s/_(slimheap|compress)\b/_heap/g;
	is($on_standby, $primary->safe_psql('postgres', $heap_q),
		"standby: the lookup through $idx returns the heap twin's rows");
}

# The standby's pages hold the same row forms as the primary's.
for my $t ('wide_slimheap', 'narrow_slimheap')
{
	my $q = 'SELECT blk, lp, lp_flags, lp_len, t_hoff, natts, t_bits FROM ('
	  . page_items_sql($t)
	  . ') i ORDER BY blk, lp';
	my $on_primary = $primary->safe_psql('postgres', $q);
	cmp_ok(length($on_primary), '>', 0, "primary: $t has line pointers");
	ok($standby->safe_psql('postgres', $q) eq $on_primary,
		"standby: every line pointer and row header of $t matches the primary's");
}

# The compress twin's pages hold the primary's bytes: every line pointer,
# header (with the tail marker) and the data after t_hoff, tails included.
for my $t ('wide_compress', 'narrow_compress')
{
	my $q = qq{
SELECT blk, p.lp, p.lp_flags, p.lp_len, p.t_hoff, p.t_infomask2, p.t_bits, md5(p.t_data)
  FROM generate_series(0, pg_relation_size('$t') / 8192 - 1) AS blk,
       LATERAL heap_page_items(get_raw_page('$t', blk::int)) AS p
 ORDER BY blk, p.lp};
	my $on_primary = $primary->safe_psql('postgres', $q);
	cmp_ok(length($on_primary), '>', 0, "primary: $t has line pointers");
	ok($standby->safe_psql('postgres', $q) eq $on_primary,
		"standby: every line pointer, row header and row of $t matches the primary's");
}
# Rows with a tail are there on the standby, their prefix is the 10
# columns of slimheap.prefix_columns, and they are the heap twin's rows.
my ($tails, $tails_not_10, $tails_differ) = split /\|/, $standby->safe_psql(
	'postgres', qq{
SELECT count(*), count(*) FILTER (WHERE i.natts <> 10),
       count(*) FILTER (WHERE t::text IS DISTINCT FROM h::text)
  FROM wide_compress t JOIN (@{[ page_items_sql('wide_compress') ]}) i ON i.tid = t.ctid
  LEFT JOIN wide_heap h ON h.id = t.id
 WHERE i.tail});
cmp_ok($tails, '>', 100, "standby: $tails rows of wide_compress have a compressed tail");
is("$tails_not_10/$tails_differ", '0/0',
	'standby: their prefix is 10 columns and they read as the heap twin\'s rows');
is($standby->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('wide_compress')"),
	'0', 'standby: verify decodes every tail of wide_compress and finds nothing wrong');

# ... and they are slim: every live row of the wide table is stored in the
# truncate form (checked against its values), on the standby.
my ($total, $bad_natts, $bad_hasnull, $bad_hoff) = split /\|/,
  $standby->safe_psql('postgres', stored_forms_check_sql('wide_slimheap', $NCOLS, 2));
is($total, $standby->safe_psql('postgres', 'SELECT count(*) FROM wide_slimheap'),
	'standby: every wide row was inspected');
is("$bad_natts/$bad_hasnull/$bad_hoff", '0/0/0',
	"standby: all $total wide rows are in the truncate form");

# Known rows.  47 sets c1..c47 and was only rewritten: 49 attributes, no
# bitmap.  45 sets c1..c45 and had c80 set: 82 attributes, a bitmap for
# the NULLs c46..c79.  The heap twin stores all 102.
my $row_form = sub {
	my ($node, $rel, $id) = @_;
	return $node->safe_psql(
		'postgres', qq{
SELECT i.natts || '/' || i.hasnull || '/' || i.t_hoff
  FROM (@{[ page_items_sql($rel) ]}) i
  JOIN $rel t ON t.ctid = i.tid WHERE t.id = $id});
};
is($row_form->($standby, 'wide_slimheap', 47), '49/false/24',
	'standby: row 47 has 49 attributes and no bitmap');
is($row_form->($standby, 'wide_slimheap', 45), '82/true/40',
	'standby: row 45 has 82 attributes and a bitmap');
is($row_form->($standby, 'wide_heap', 47), '102/true/40',
	'standby: the heap twin of row 47 has 102 attributes');

# Narrow rows (id, a, b, c; a never NULL; p5 .. p9 never set) stop at
# their last non-NULL column.
is( $standby->safe_psql(
		'postgres', qq{
SELECT count(*) || '/' || count(*) FILTER (WHERE i.natts <>
         CASE WHEN t.c IS NOT NULL THEN 4 WHEN t.b IS NOT NULL THEN 3 ELSE 2 END)
  FROM narrow_slimheap t JOIN (@{[ page_items_sql('narrow_slimheap') ]}) i
    ON i.tid = t.ctid}),
	$standby->safe_psql('postgres', 'SELECT count(*) FROM narrow_slimheap') . '/0',
	'standby: every narrow row stops at its last non-NULL column');

# DDL on the standby gets core's error, whatever the statement and table:
# slimheap's hook lets core's read-only and recovery checks come first
# (it used to try to lock the table and fail with another error).
$primary->safe_psql('postgres',
	'CREATE TABLE opts_slimheap (a int4) USING slimheap WITH (slimheap.null_bitmap = full)');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
for my $stmt (
	'ALTER TABLE narrow_heap SET (fillfactor = 60)',
	'ALTER TABLE narrow_slimheap SET (fillfactor = 60)',
	'ALTER TABLE opts_slimheap SET (fillfactor = 60)',
	'ALTER TABLE opts_slimheap SET (slimheap.null_bitmap = truncate)',
	'ALTER TABLE opts_slimheap SET ACCESS METHOD heap',
	'ALTER TABLE narrow_heap SET (slimheap.null_bitmap = full)',
	'CREATE TABLE standby_new (a int4) USING slimheap WITH (slimheap.null_bitmap = full)')
{
	my ($ret, $stdout, $stderr) = $standby->psql('postgres', $stmt);
	my ($tag) = $stmt =~ /^(\w+ \w+)/;
	isnt($ret, 0, "standby: $stmt fails");
	like(
		$stderr,
		qr/ERROR:  cannot execute $tag in a read-only transaction/,
		"standby: $stmt gets core's read-only error");
}

$standby->stop;
$primary->stop;
done_testing();
