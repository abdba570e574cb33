#
# SlimheapTest.pm: helpers shared by the TAP tests of t/.
#
# Nodes that preload slimheap, the SQL of wide sparse tables, and the
# queries that read the stored row forms back with pageinspect.
#
package SlimheapTest;

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use Test::More;
use Exporter 'import';

our @EXPORT = qw(slim_node no_checksums wide_column_defs wide_natts_sql
  page_items_sql stored_forms_check_sql diff_count_sql dump_fingerprint
  restore_parallel check_restored_fingerprint);
# asked for by name (use SlimheapTest qw(:DEFAULT rows_of decoded)): a few
# tests keep helpers of these names with other arguments
our @EXPORT_OK = qw(rows_of decoded);
our %EXPORT_TAGS = (DEFAULT => [@EXPORT]);

# A node (not started) that preloads slimheap.  %params go to init().
sub slim_node
{
	my ($name, %params) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);

	$node->init(%params);
	# autovacuum off: the pages hold what the test did, nothing else
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = 'slimheap'
autovacuum = off
});
	return $node;
}

# init() parameters for a node whose pages a test damages on disk: no data
# checksums, so that the damage reaches slimheap's code instead of failing
# the checksum on read.  15's initdb makes none by default, 18's makes them
# unless told --no-data-checksums (which 15's initdb does not know).
sub no_checksums
{
	my ($node) = @_;
	return $node->pg_version >= 18 ? (extra => ['--no-data-checksums']) : ();
}

# "c1 int4, c2 int4, ..., cN int4"
sub wide_column_defs
{
	my ($ncols) = @_;
	return join(', ', map { "c$_ int4" } 1 .. $ncols);
}

# The natts slimheap's truncate form stores for a row of a table whose
# first $nlead columns are followed by c1 .. c$ncols: up to the last
# non-NULL column (the leading columns are NOT NULL in these tests).
sub wide_natts_sql
{
	my ($ncols, $nlead) = @_;
	my $sql = 'CASE';
	for (my $i = $ncols; $i >= 1; $i--)
	{
		$sql .= " WHEN c$i IS NOT NULL THEN " . ($i + $nlead);
	}
	return "$sql ELSE $nlead END";
}

# Every line pointer of every page of $rel, as pageinspect reads it:
# tid, lp_flags, lp_len, t_hoff, natts (t_infomask2 & HEAP_NATTS_MASK),
# hasnull (HEAP_HASNULL), t_bits, and tail: the row has a compressed tail
# (t_infomask2 & 0x0800, SLIM_HEAP_TAIL, docs/format.md).
sub page_items_sql
{
	my ($rel) = @_;
	return qq{
SELECT format('(%s,%s)', blk, lp)::tid AS tid, blk, lp, lp_flags, lp_len,
       t_hoff, t_infomask2 & 2047 AS natts, (t_infomask & 1) <> 0 AS hasnull,
       t_bits, (t_infomask2 & 2048) <> 0 AS tail
  FROM generate_series(0, pg_relation_size('$rel') / 8192 - 1) AS blk,
       LATERAL heap_page_items(get_raw_page('$rel', blk::int))};
}

# One row "total|wrong_natts|wrong_hasnull|wrong_hoff" over the live rows
# of $rel, a table whose $nlead leading NOT NULL columns are followed by
# c1 .. c$ncols: each row's stored header (pageinspect) against what the
# truncate form must store for its values.  A stored attribute is NULL iff
# some column before the last non-NULL one is NULL; t_hoff is
# MAXALIGN(23 + bitmap bytes), the bitmap covering the stored attributes.
sub stored_forms_check_sql
{
	my ($rel, $ncols, $nlead) = @_;
	my $natts = wide_natts_sql($ncols, $nlead);
	my $hasnull = join(' OR ',
		map { "(r.c$_ IS NULL AND " . ($_ + $nlead) . ' < r.n)' } 1 .. $ncols);
	my $items = page_items_sql($rel);
	return qq{
WITH items AS MATERIALIZED ($items),
     r AS MATERIALIZED (SELECT t.ctid AS row_tid, $natts AS n, t.* FROM $rel t),
     e AS (SELECT r.row_tid, r.n, ($hasnull) AS hasnull FROM r)
SELECT count(*),
       count(*) FILTER (WHERE i.natts <> e.n),
       count(*) FILTER (WHERE i.hasnull <> e.hasnull),
       count(*) FILTER (WHERE i.t_hoff <> CASE WHEN e.hasnull
                        THEN (23 + (e.n + 7) / 8 + 7) / 8 * 8 ELSE 24 END)
  FROM e JOIN items i ON i.tid = e.row_tid};
}

# A count of the rows that are in one of the queries $q1 and $q2 but not the
# other (EXCEPT ALL both ways): 0 when both return the same multiset.
sub diff_count_sql
{
	my ($q1, $q2) = @_;
	return qq{SELECT count(*) FROM ((($q1) EXCEPT ALL ($q2)) UNION ALL (($q2) EXCEPT ALL ($q1))) d};
}

# What a dump and restore must keep of database $db: $catalog_sql's answer,
# and for each of @tables its rows in physical order and every stored
# tuple's natts (plus 2048 for a compressed tail) in that order (needs
# pageinspect).
sub dump_fingerprint
{
	my ($node, $db, $catalog_sql, @tables) = @_;
	my %fp = (catalog => $node->safe_psql($db, $catalog_sql));

	foreach my $rel (@tables)
	{
		$fp{"$rel rows"} = $node->safe_psql($db,
			"SELECT md5(string_agg(r::text, '|' ORDER BY ctid)) FROM $rel r");
		$fp{"$rel forms"} = $node->safe_psql(
			$db, qq{
			SELECT string_agg((t_infomask2 & 4095)::text, ',' ORDER BY b, lp)
			FROM generate_series(0, pg_relation_size('$rel') / 8192 - 1) b,
			     heap_page_items(get_raw_page('$rel', b::int))
			WHERE lp_flags = 1});
	}
	return \%fp;
}

# pg_restore -j 2 of the custom-format $dump into database $db: it must
# succeed and print no error ($how names the step in the test's output)
sub restore_parallel
{
	my ($node, $db, $dump, $how) = @_;
	my ($stdout, $stderr);
	my $ok = IPC::Run::run(
		[
			'pg_restore', '-j', '2', '--exit-on-error',
			'-d', $node->connstr($db), $dump
		],
		'>', \$stdout, '2>', \$stderr);
	ok($ok, $how);
	is($stderr, '', 'pg_restore reports no error');
}

# $restored (dump_fingerprint() of database $db) against $source: the
# catalog ($catalog_says names it), and each table's rows and row forms
sub check_restored_fingerprint
{
	my ($restored, $source, $db, $catalog_says, @tables) = @_;

	is($restored->{catalog}, $source->{catalog}, "$db: $catalog_says");
	foreach my $rel (@tables)
	{
		is($restored->{"$rel rows"}, $source->{"$rel rows"},
			"$db: $rel has the same rows");
		is($restored->{"$rel forms"}, $source->{"$rel forms"},
			"$db: $rel has the same row forms");
	}
}

# "count:md5" of the rows of $rel, whole rows in the order of id, in
# database $db (postgres when not given): two tables hold the same rows
# when these agree
sub rows_of
{
	my ($node, $rel, $db) = @_;
	return $node->safe_psql($db // 'postgres',
		"SELECT count(*) || ':' || md5(string_agg(t::text, ',' ORDER BY id)) FROM $rel t");
}

# the changes the test_decoding slot "td" shows for table public.$rel
# after LSN $from, up to $upto, without the table's name, sorted
sub decoded
{
	my ($node, $rel, $from, $upto) = @_;
	my @lines = split /\n/, $node->safe_psql('postgres',
		"SELECT data FROM pg_logical_slot_peek_changes('td', '$upto', NULL)"
		  . " WHERE data LIKE 'table public.$rel:%' AND lsn > '$from'");
	s/^table public\.\Q$rel\E:// for @lines;
	return join("\n", sort @lines);
}

1;
