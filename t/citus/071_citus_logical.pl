#
# A shard move of a compress table by logical replication: a
# coordinator and two workers with wal_level = logical that preload Citus
# and slimheap (docs/scale-out.md; run by scripts/run-tests.sh where Citus
# is supported).  A W4-like distributed compress table and its heap twin
# get rows; one compress shard moves from worker1 to worker2 with
# shard_transfer_mode => 'force_logical' while another session inserts
# rows into both (so the move's catch-up decodes slimheap's records of
# rows with tails).  Afterwards the twins hold the same rows, and the
# moved shard on worker2 holds rows with tails.
#
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/..";

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $NCOLS = 120;

sub citus_node
{
	my ($name) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);

	$node->init(allows_streaming => 'logical');
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = 'citus, slimheap'
max_prepared_transactions = 20
autovacuum = off
citus.shard_count = 4
citus.local_hostname = '@{[ $node->host ]}'
});
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION citus');
	return $node;
}

my $coord = citus_node('coordinator');
my $w1 = citus_node('worker1');
my $w2 = citus_node('worker2');
my %by_port = map { $_->port => $_ } ($coord, $w1, $w2);
my $host = $coord->host;

my $defs = wide_column_defs($NCOLS);
my $values = join(', ',
	map { "CASE WHEN mod(g * 7 + $_ * 13, 31) = 0 OR $_ = 100 THEN (g * 1000 + $_)::int4 END" }
	  1 .. $NCOLS);
$coord->safe_psql(
	'postgres', qq{
SELECT citus_set_coordinator_host('$host', @{[ $coord->port ]});
SELECT citus_add_node('$host', @{[ $w1->port ]});
SELECT citus_add_node('$host', @{[ $w2->port ]});
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE TABLE d_slim (id bigint PRIMARY KEY, $defs) USING slimheap
  WITH (slimheap.null_bitmap = compress);
CREATE TABLE d_heap (id bigint PRIMARY KEY, $defs) USING heap;
SELECT create_distributed_table('d_slim', 'id', colocate_with => 'none');
SELECT create_distributed_table('d_heap', 'id', colocate_with => 'none');
INSERT INTO d_slim SELECT g, $values FROM generate_series(1, 4000) g;
INSERT INTO d_heap SELECT g, $values FROM generate_series(1, 4000) g;
});

# the rows with a tail of shard $shard on $node
sub shard_tails
{
	my ($node, $shard) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM (@{[ page_items_sql($shard) ]}) i WHERE i.tail");
}

my ($shard, $port) = split /\|/, $coord->safe_psql(
	'postgres', qq{
SELECT shard_name, nodeport FROM citus_shards
 WHERE table_name = 'd_slim'::regclass AND nodeport = @{[ $w1->port ]}
 ORDER BY 1 LIMIT 1});
(my $shardid = $shard) =~ s/.*_//;
cmp_ok(shard_tails($w1, $shard), '>', 0, "$shard on worker1 holds rows with tails");

# inserts into both twins while the shard moves
my $writer = $coord->background_psql('postgres', on_error_stop => 1);
$writer->query_until(
	qr/writing/, qq{
\\echo writing
DO \$\$
BEGIN
	FOR i IN 1 .. 150 LOOP
		INSERT INTO d_slim SELECT 10000 + i * 10 + g, $values FROM generate_series(1, 10) g;
		INSERT INTO d_heap SELECT 10000 + i * 10 + g, $values FROM generate_series(1, 10) g;
		COMMIT;
		PERFORM pg_sleep(0.01);
	END LOOP;
END \$\$;
});
$coord->safe_psql(
	'postgres', qq{
SELECT citus_move_shard_placement($shardid, '$host', @{[ $w1->port ]}, '$host', @{[ $w2->port ]},
       shard_transfer_mode => 'force_logical');
});
$writer->quit;
$coord->safe_psql('postgres', 'CALL citus_cleanup_orphaned_resources()');

is( $coord->safe_psql('postgres',
		"SELECT string_agg(nodeport::text, ',') FROM citus_shards WHERE shardid = $shardid"),
	$w2->port, "$shard is placed on worker2 after the logical move");
is( $coord->safe_psql(
		'postgres',
		diff_count_sql('SELECT * FROM d_heap', 'SELECT * FROM d_slim')),
	'0', 'after the move d_slim holds the same rows as d_heap');
is($coord->safe_psql('postgres', 'SELECT count(*) FROM d_slim'),
	5500, 'with the rows inserted during the move');
cmp_ok(shard_tails($w2, $shard), '>', 0, "$shard on worker2 holds rows with tails");

$coord->stop;
$w1->stop;
$w2->stop;
done_testing();
