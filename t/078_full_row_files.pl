#
# The record of full files (docs/narrow-slot.md) across a server's life:
# - a crash empties it (it is unlogged): scans then check every row again
#   and give the same rows, and record_full_rows() records the file again;
# - a standby never reads it (an unlogged table cannot be read during
#   recovery): its scans of a narrow table work and copy short rows right;
# - a server that does not preload slimheap writes no record and
#   record_full_rows() refuses, since a session of an older library could
#   store short rows into the file.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('primary', allows_streaming => 1);
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION slimheap;
CREATE TABLE n_full (a int, b int) USING slimheap;
INSERT INTO n_full SELECT g, g FROM generate_series(1, 1000) g;
CREATE TABLE n_short (a int, b int) USING slimheap;
INSERT INTO n_short VALUES (1, 1), (2, NULL);
ALTER TABLE n_short ADD COLUMN c int;
INSERT INTO n_short VALUES (3, 3, 3);
CREATE TABLE fd (a int, b int);
ALTER TABLE fd ADD COLUMN c int DEFAULT 50;
});
my $recorded = q{SELECT string_agg(relid::regclass::text, ',' ORDER BY 1)
  FROM slimheap.full_row_files};
my $copy = q{TRUNCATE fd; INSERT INTO fd SELECT * FROM n_short;
  SELECT string_agg(a || ':' || coalesce(c::text, 'null'), ' ' ORDER BY a) FROM fd};
is($node->safe_psql('postgres', $recorded),
	'n_full,n_short', 'both files recorded at CREATE');

# the standby
$node->backup('backup');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'backup', has_streaming => 1);
$standby->start;
$node->wait_for_catchup($standby);
is($standby->safe_psql('postgres', 'SELECT count(*), sum(a) FROM n_full'),
	'1000|500500', 'a standby scans a recorded narrow table');
is( $standby->safe_psql(
		'postgres',
		q{SELECT string_agg(a || ':' || coalesce(c::text, 'null'), ' ' ORDER BY a)
		  FROM (SELECT * FROM n_short) s}),
	'1:null 2:null 3:3',
	'and reads the short rows of another');
my ($ret, $out, $err) =
  $standby->psql('postgres', 'SELECT count(*) FROM slimheap.full_row_files');
isnt($ret, 0, 'the standby cannot read the record itself');
$standby->stop;

# the crash
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', 'SELECT count(*) FROM slimheap.full_row_files'),
	'0', 'a crash empties the record');
is($node->safe_psql('postgres', 'SELECT count(*), sum(b) FROM n_full'),
	'1000|500500', 'the rows are all there');
is($node->safe_psql('postgres', $copy),
	'1:null 2:null 3:3', 'short rows are widened when copied out');
is( $node->safe_psql(
		'postgres', q{SELECT slimheap.record_full_rows('n_full'),
		  slimheap.record_full_rows('n_short')}),
	't|f',
	'record_full_rows() records the full file, not the one with short rows');
is($node->safe_psql('postgres', $recorded),
	'n_full', 'the full file is recorded again');
$node->safe_psql('postgres', 'VACUUM FULL n_short');
is($node->safe_psql('postgres', $recorded),
	'n_full,n_short', 'VACUUM FULL records the file of full rows it makes');
is($node->safe_psql('postgres', $copy),
	'1:null 2:null 3:3', 'whose rows copy out with every attribute');
$node->stop;

# no preload
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
$node->start;
$node->safe_psql('postgres',
	"LOAD 'slimheap'; CREATE TABLE n_late (a int) USING slimheap; TRUNCATE n_full"
);
is( $node->safe_psql(
		'postgres', q{SELECT string_agg(relid::regclass || ':' ||
		  (relfilenode = pg_relation_filenode(relid)), ',' ORDER BY relid::regclass::text)
		  FROM slimheap.full_row_files}),
	'n_full:false,n_short:true',
	'without the preload no record is written (TRUNCATE leaves the old one, which names the old file)');
($ret, $out, $err) = $node->psql('postgres',
	q{SELECT slimheap.record_full_rows('n_late')});
like(
	$err,
	qr/records of full rows need slimheap in shared_preload_libraries/,
	'record_full_rows() refuses without the preload');
$node->stop;

done_testing();
