
# Copyright (c) slimheap contributors
#
# compress tables with keys and indexes of every kind survive pg_dump and
# restore.  pg_dump writes the data before the keys and indexes,
# so the restore loads rows whose tails hold the key columns and then
# builds every index on them: each build stores the rows again with the
# columns in their prefix.  Checked for pg_restore of the custom format,
# serial and with -j 2, and for a plain dump through psql: every constraint
# and index is there and valid, amcheck's heapallindexed checks pass, the
# rows are the source's, and queries forced through each index answer as on
# the source; no live row hides an indexed value behind its prefix.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump_keys');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'slimheap'");
$node->start;

$node->safe_psql('postgres', 'CREATE DATABASE src');

# 400 int columns: id, then c2 .. c400, a few set at scattered places (c40
# always).  The indexes keep c1 .. c77 in every row's prefix; c101 .. c400
# are sparse enough for a tail to pay past that floor (invariant C4), so
# rows keep tails whatever order the restore builds the indexes in (with
# only c2 .. c100 a tail did not pay at the final floor, and a restore whose
# moves all had it kept none)
my $columns = join(', ', map { "c$_ int" } 2 .. 400);
my $values = 'SELECT g, '
  . join(', ',
	(map { "CASE WHEN (g * 7 + $_ * 13) % 23 = 0 OR $_ = 40 THEN g * 1000 + $_ END" }
		  2 .. 100),
	(map { "CASE WHEN (g * 7 + $_ * 13) % 97 = 0 THEN g * 1000 + $_ END" }
		  101 .. 400))
  . ' FROM generate_series(1, 2000) g';
my $wide20 = join(', ', map { "c$_ int" } 2 .. 20);

$node->safe_psql(
	'src', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE EXTENSION amcheck;

CREATE TABLE p (id int PRIMARY KEY, $columns) USING slimheap
  WITH (slimheap.null_bitmap = compress);
CREATE TABLE child (id int PRIMARY KEY, p_id int REFERENCES p (id)) USING slimheap
  WITH (slimheap.null_bitmap = compress);
CREATE TABLE w (id int PRIMARY KEY, $wide20) USING slimheap
  WITH (slimheap.null_bitmap = compress);
INSERT INTO p $values;
INSERT INTO child SELECT g, g FROM generate_series(1, 2000, 3) g;
INSERT INTO w (id, c20) SELECT g, g FROM generate_series(1, 500) g;
ALTER TABLE p ADD CONSTRAINT p_c40_key UNIQUE (c40);
CREATE INDEX p_expr ON p ((c40 + c50));
CREATE INDEX p_part ON p (id) WHERE c77 IS NOT NULL;
CREATE INDEX p_brin ON p USING brin (c60);
CREATE INDEX w_row ON w (hash_record(w));
});

# what a restored database must have, and answer
my $catalog_query = q{
SELECT string_agg(format('%s %s %s', c.relname, i.indisvalid, pg_get_indexdef(i.indexrelid)), E'\n' ORDER BY c.relname)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid IN ('p'::regclass, 'child'::regclass, 'w'::regclass);
SELECT string_agg(format('%s %s', conname, pg_get_constraintdef(oid)), E'\n' ORDER BY conname)
FROM pg_constraint WHERE conrelid IN ('p'::regclass, 'child'::regclass, 'w'::regclass);
};
my $rows_query = q{
SELECT md5(string_agg(p::text, ',' ORDER BY id)), count(*) FROM p;
SELECT md5(string_agg(child::text, ',' ORDER BY id)) FROM child;
SELECT md5(string_agg(w::text, ',' ORDER BY id)) FROM w;
};
my $index_query = q{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(c99) FROM p WHERE id BETWEEN 100 AND 700;
SELECT count(*), sum(id) FROM p WHERE c40 BETWEEN 100000 AND 900000;
SELECT count(*), sum(id) FROM p WHERE c40 + c50 > 100000;
SELECT count(*), sum(id) FROM p WHERE c77 IS NOT NULL AND id > 0;
SELECT count(*) FROM w a WHERE hash_record(a) IN (SELECT hash_record(b) FROM w b WHERE b.id IN (3, 30, 300));
SELECT count(*), sum(p_id) FROM child WHERE id BETWEEN 10 AND 900;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT count(*) FROM p WHERE c60 BETWEEN 100000 AND 400000;
};
# live rows of p whose prefix ends before a column an index reads (id, c40,
# c50, c60, c77) while that column is set, and p's rows with tails
my $hidden_query = q{
SELECT count(*) FILTER (WHERE (natts < 40 AND c40 IS NOT NULL)
	OR (natts < 50 AND c50 IS NOT NULL) OR (natts < 60 AND c60 IS NOT NULL)
	OR (natts < 77 AND c77 IS NOT NULL) OR natts < 1),
  count(*) > 0
FROM (
  SELECT i.natts, q.c40, q.c50, q.c60, q.c77
  FROM generate_series(0::bigint, pg_relation_size('p') / 8192 - 1) b,
       slimheap.page_items('p', b) i, p q
  WHERE q.ctid = format('(%s,%s)', b, i.lp)::tid
    AND i.tail_encoding IS NOT NULL) r;
};

my %source = (
	catalog => $node->safe_psql('src', $catalog_query),
	rows => $node->safe_psql('src', $rows_query),
	index => $node->safe_psql('src', $index_query));
like($source{catalog}, qr/^p_pkey t CREATE UNIQUE INDEX/m, 'the source has its keys');
is($node->safe_psql('src', $hidden_query), '0|t',
	'the source keeps every indexed column in its rows\' prefixes, and tails');

my $tmp = PostgreSQL::Test::Utils::tempdir;
my $port = $node->port;
my $host = $node->host;
$node->command_ok(
	[ 'pg_dump', '-Fc', '-h', $host, '-p', $port, '-f', "$tmp/src.dump", 'src' ],
	'pg_dump -Fc');
$node->command_ok(
	[ 'pg_dump', '-h', $host, '-p', $port, '-f', "$tmp/src.sql", 'src' ],
	'pg_dump (plain)');

sub check_restored
{
	my ($db, $how) = @_;

	is($node->safe_psql($db, $catalog_query), $source{catalog},
		"$how: every index and constraint, valid");
	is($node->safe_psql($db, $rows_query), $source{rows},
		"$how: the rows are the source's");
	is($node->safe_psql($db, $index_query), $source{index},
		"$how: queries through each index answer as on the source");
	is($node->safe_psql($db, $hidden_query), '0|t',
		"$how: no live row hides an indexed column behind its prefix; tails kept");
	my $checks = $node->safe_psql($db, q{
SELECT count(*) FROM (
  SELECT bt_index_parent_check(i.indexrelid, true)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_am a ON a.oid = c.relam
  WHERE a.amname = 'btree'
    AND i.indrelid IN ('p'::regclass, 'child'::regclass, 'w'::regclass)) x;
});
	is($checks, '7', "$how: bt_index_parent_check(heapallindexed) on every btree");
	my ($ret, $out, $err) = $node->psql($db,
		'INSERT INTO child VALUES (100000, 999999)');
	like($err, qr/violates foreign key constraint/,
		"$how: the foreign key is enforced");
	($ret, $out, $err) = $node->psql($db,
		'INSERT INTO p (id, c40) VALUES (1, 1)');
	like($err, qr/duplicate key value violates unique constraint "p_pkey"/,
		"$how: the primary key is enforced");
	return;
}

for my $jobs (1, 2)
{
	my $db = "restored_j$jobs";
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->command_ok(
		[ 'pg_restore', '-h', $host, '-p', $port, '-d', $db, '-j', $jobs,
		  '--exit-on-error', "$tmp/src.dump" ],
		"pg_restore -j $jobs");
	check_restored($db, "pg_restore -j $jobs");
}

$node->safe_psql('postgres', 'CREATE DATABASE restored_plain');
$node->command_ok(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', $host, '-p', $port,
	  '-d', 'restored_plain', '-f', "$tmp/src.sql" ],
	'pg_dump | psql');
check_restored('restored_plain', 'plain dump through psql');

$node->stop;
done_testing();
