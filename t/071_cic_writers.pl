# Copyright (c) slimheap contributors
#
# CREATE INDEX CONCURRENTLY on a compress table beside four writers
# (src/am/slim_index_cic.c, docs/row-floor.md §8).  A table of 20,000 rows
# (300 int4 columns, c150 set in 2 of 3 rows and kept in the compressed
# tail, fillfactor 85) and its heap twin; four writers, at READ COMMITTED,
# REPEATABLE READ, SERIALIZABLE and READ COMMITTED, each on rows of its
# own (no writer waits for another), update c150 in every direction
# (X -> NULL, NULL -> Y, X -> Y), update other columns, insert and delete,
# the same statements on the twin in the same transactions.  Meanwhile
# CREATE INDEX CONCURRENTLY on c150, then CREATE UNIQUE INDEX CONCURRENTLY
# on c300, on both tables.
#   - no write fails at READ COMMITTED, and no write fails otherwise
#     than by a serialization failure on a row the build stored again (the
#     writers' rows do not meet: only the build's moves can cause one); no
#     deadlock; every build succeeds and is valid;
#   - the rows are the twin's; amcheck (heapallindexed) and verify() are
#     clean; index scans on the new indexes return the twin's rows;
#   - no row hides c150 or c300 in its tail afterwards.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $defs = wide_column_defs(300);
my $values = join(', ',
	map {
		    $_ == 150 ? 'CASE WHEN g % 3 <> 0 THEN g END'
		  : $_ == 300 ? 'g'
		  : $_ == 1 || $_ == 3 || $_ == 77 ? "g * 1000 + $_"
		  : 'NULL'
	} 1 .. 300);

my $node = slim_node('primary');
$node->start;
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION amcheck;
CREATE TABLE s (id int PRIMARY KEY, $defs) USING slimheap
  WITH (slimheap.null_bitmap = compress, fillfactor = 85);
CREATE TABLE h (id int PRIMARY KEY, $defs) USING heap WITH (fillfactor = 85);
INSERT INTO h SELECT g, $values FROM generate_series(1, 20000) g;
INSERT INTO s SELECT * FROM h ORDER BY id;
CREATE TABLE stop_writing (x int);
CREATE TABLE failures (w int, sqlstate text, msg text);
CREATE PROCEDURE write_both(w int) LANGUAGE plpgsql AS \$\$
DECLARE
  i int := 0;
  a int; b int; d int;
BEGIN
  WHILE NOT EXISTS (SELECT FROM stop_writing) OR i < 200 LOOP
    i := i + 1;
    a := (i * 4 * 7 + w) % 20000 + 1;
    b := (i * 4 * 13 + w) % 20000 + 1;
    d := (i * 4 * 31 + w) % 20000 + 1;
    BEGIN
      UPDATE s SET c150 = CASE WHEN c150 IS NULL THEN -a WHEN a % 2 = 0 THEN NULL ELSE c150 + 1 END,
                   c77 = c77 + 1 WHERE id = a;
      UPDATE h SET c150 = CASE WHEN c150 IS NULL THEN -a WHEN a % 2 = 0 THEN NULL ELSE c150 + 1 END,
                   c77 = c77 + 1 WHERE id = a;
      UPDATE s SET c3 = -c3 WHERE id = b;
      UPDATE h SET c3 = -c3 WHERE id = b;
      INSERT INTO s (id, c3, c150, c300) VALUES (100000 + i * 4 + w, i, i, 100000 + i * 4 + w);
      INSERT INTO h (id, c3, c150, c300) VALUES (100000 + i * 4 + w, i, i, 100000 + i * 4 + w);
      DELETE FROM s WHERE id = d AND id > 10;
      DELETE FROM h WHERE id = d AND id > 10;
    EXCEPTION WHEN OTHERS THEN
      INSERT INTO failures VALUES (w, SQLSTATE, SQLERRM);
    END;
    COMMIT;
  END LOOP;
END \$\$;
});

my @levels = ('read committed', 'repeatable read', 'serializable', 'read committed');
my @writers;
for my $w (0 .. 3)
{
	my $writer = $node->background_psql('postgres');
	$writer->query_safe("SET default_transaction_isolation = '$levels[$w]'");
	$writer->query_until(qr/writing/, "\\echo writing\nCALL write_both($w);\n\\echo written\n");
	push @writers, $writer;
}

for my $stmt ('CREATE INDEX CONCURRENTLY s_c150 ON s (c150)',
	'CREATE INDEX CONCURRENTLY h_c150 ON h (c150)',
	'CREATE UNIQUE INDEX CONCURRENTLY s_c300 ON s (c300)',
	'CREATE UNIQUE INDEX CONCURRENTLY h_c300 ON h (c300)')
{
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET client_min_messages = debug1; $stmt");
	is($ret, 0, "$stmt succeeds beside the writers") or diag($stderr);
	note($1) if $stderr =~ /(slimheap: before the concurrent build.*)/;
}
$node->safe_psql('postgres', 'INSERT INTO stop_writing VALUES (1)');
$_->query_until(qr/written/, '') for @writers;
$_->quit for @writers;

# A row the build stores again (no room on its page) is an UPDATE of the
# same values: a writer whose snapshot is older and that updates it after
# gets a serialization failure at REPEATABLE READ and SERIALIZABLE, where
# the twin's does not (docs/limits.md).  Nothing else may fail.
is($node->safe_psql('postgres',
		"SELECT count(*) FROM failures WHERE w IN (0, 3) OR sqlstate <> '40001'"),
	'0', 'no READ COMMITTED write failed, and nothing failed otherwise than a serialization failure')
  or diag($node->safe_psql('postgres', 'TABLE failures'));
note('serialization failures at REPEATABLE READ and SERIALIZABLE: '
	  . $node->safe_psql('postgres', 'SELECT count(*) FROM failures'));
is($node->safe_psql('postgres',
		"SELECT string_agg(indexrelid::regclass::text, ',') FROM pg_index WHERE NOT indisvalid"),
	'', 'every index is valid');
is($node->safe_psql('postgres', diff_count_sql('TABLE s', 'TABLE h')), '0',
	"the rows are the twin's");
is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('s')"), '0',
	'verify() is clean');
is($node->safe_psql('postgres',
		q{SELECT string_agg(bt_index_check(indexrelid, true)::text, '') FROM pg_index WHERE indrelid = 's'::regclass}),
	'', 'amcheck with heapallindexed passes on every index');
my $by_index = q{SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) || ':' || sum(id) || ':' || sum(c150) FROM %s WHERE c150 BETWEEN -5000 AND 5000;
SELECT count(*) || ':' || sum(id) FROM %s WHERE c300 BETWEEN 100000 AND 200000;
SELECT count(*) FROM %s WHERE c150 IS NULL};
is($node->safe_psql('postgres', sprintf($by_index, ('s') x 3)),
	$node->safe_psql('postgres', sprintf($by_index, ('h') x 3)),
	"index scans on the new indexes return the twin's rows");
is($node->safe_psql('postgres',
		"SELECT count(*) FROM generate_series(0, pg_relation_size('s') / 8192 - 1) b,"
		  . " LATERAL slimheap.page_items('s', b) p"
		  . " WHERE p.form = 'tail' AND p.natts < 300 AND p.lp_flags = 'normal'"
		  . " AND EXISTS (SELECT FROM s WHERE ctid = format('(%s,%s)', b, p.lp)::tid"
		  . " AND (c150 IS NOT NULL AND p.natts < 150 OR c300 IS NOT NULL))"),
	'0', 'no live row hides c150 or c300 in its tail');

$node->stop;
done_testing();
