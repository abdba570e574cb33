#
# slimheap tables distributed with Citus: a coordinator and two workers on
# localhost (docs/scale-out.md).  Run only on a server Citus supports
# (PostgreSQL 16 and later): scripts/run-tests.sh adds t/citus/ then, and
# provides Citus first (scripts/citus-build.sh).
#
# A W1-shaped table (id bigint, c1 .. c200 int4, c1 .. c20 set) with
# slimheap.null_bitmap set, and its heap twin, each distributed the same way:
#
# - create_distributed_table (hash) and create_reference_table create every
#   shard, on the workers, with slimheap and the option;
# - INSERT, COPY, UPDATE, DELETE, multi-shard SELECT and aggregates return on
#   the slimheap tables exactly what they return on the heap twins, and the
#   shards' rows are stored in the truncate form (pageinspect on the workers);
# - the slimheap shards are smaller (the ratio is printed);
# - a shard move (citus_move_shard_placement, block_writes) and the
#   rebalancer (rebalance_table_shards) keep the rows, the option and the
#   slim form;
# - ALTER TABLE ... SET (slimheap.null_bitmap = ...) on the coordinator: what
#   reaches the shards (see docs/scale-out.md);
# - a worker that does not preload slimheap refuses slimheap shards with an
#   option with a clear error, and nothing is distributed.
#
use strict;
use warnings;

use FindBin;
use lib "$FindBin::RealBin/..";

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $NCOLS = 200;
my $NSET = 20;
my $NROWS = 4000;
my $NCOPY = 1000;

# A node that preloads Citus (first, as Citus requires) and, unless
# $preload is given, slimheap.
sub citus_node
{
	my ($name, $preload) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);

	$node->init;
	$preload //= 'citus, slimheap';
	# the nodes listen on a unix socket only: Citus's connections to the
	# node itself (shard moves) must use it too, not localhost
	# multi-shard writes commit with two-phase commit; shard moves with
	# block_writes need no logical decoding.  4 shards keep it small.
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = '$preload'
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

is($w1->safe_psql('postgres', 'SHOW shared_preload_libraries'),
	'citus, slimheap', 'the workers preload citus, then slimheap');

$coord->safe_psql(
	'postgres', qq{
SELECT citus_set_coordinator_host('$host', @{[ $coord->port ]});
SELECT citus_add_node('$host', @{[ $w1->port ]});
SELECT citus_add_node('$host', @{[ $w2->port ]});
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
});
is( $coord->safe_psql(
		'postgres',
		"SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND nodeport <> @{[ $coord->port ]}"
	),
	'2',
	'the coordinator has two active workers');
for my $w ($w1, $w2)
{
	is( $w->safe_psql(
			'postgres',
			"SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension WHERE extname IN ('slimheap', 'pageinspect')"
		),
		'pageinspect,slimheap',
		$w->name . ': Citus created slimheap and pageinspect there too');
}

# The twins.  __AM__ is the access method, __WITH__ the storage options.
my $defs = wide_column_defs($NCOLS);
my $w1_values = join(', ',
	map { $_ <= $NSET ? "(g * 1000 + $_)::int4" : 'NULL' } 1 .. $NCOLS);
my $create = qq{
CREATE TABLE __T__ (id bigint NOT NULL, $defs) USING __AM__ __WITH__;
};
my %tables = (
	dist_heap => ['heap', '', 'create_distributed_table', 'hash'],
	dist_slim => ['slimheap', "WITH (slimheap.null_bitmap = 'truncate')",
		'create_distributed_table', 'hash'],
	ref_heap => ['heap', '', 'create_reference_table'],
	ref_slim => ['slimheap', "WITH (slimheap.null_bitmap = 'truncate')",
		'create_reference_table'],);
for my $t (sort keys %tables)
{
	my ($am, $with, $fn) = @{ $tables{$t} };
	(my $sql = $create) =~ s/__T__/$t/;
	$sql =~ s/__AM__/$am/;
	$sql =~ s/__WITH__/$with/;
	$sql .=
	  $fn eq 'create_reference_table'
	  ? "SELECT create_reference_table('$t');"
	  : "SELECT create_distributed_table('$t', 'id', 'hash', colocate_with => 'none');";
	$coord->safe_psql('postgres', $sql);
}
is( $coord->safe_psql(
		'postgres',
		"SELECT string_agg(logicalrelid::text || ':' || partmethod::text, ',' ORDER BY logicalrelid::text) FROM pg_dist_partition WHERE logicalrelid::text ~ '^(dist|ref)_'"
	),
	'dist_heap:h,dist_slim:h,ref_heap:n,ref_slim:n',
	'hash-distributed and reference twins');

# The placements of table $t: [shard name, node] pairs.
sub placements
{
	my ($t) = @_;
	my @rows = split /\n/, $coord->safe_psql('postgres',
		"SELECT shard_name, nodeport FROM citus_shards WHERE table_name = '$t'::regclass ORDER BY 1, 2"
	);
	return map { my ($s, $p) = split /\|/; [ $s, $by_port{$p} ] } @rows;
}

# On a node, past Citus's shard hiding: the shard's access method and
# options, as pg_class stores them.
sub shard_storage
{
	my ($node, $shard) = @_;
	return $node->safe_psql(
		'postgres', qq{
SET citus.override_table_visibility = off;
SELECT a.amname || ' ' || coalesce(c.reloptions::text, '{}')
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.oid = '$shard'::regclass});
}

my %nshards = (dist_slim => 4, ref_slim => 3);
for my $t ('dist_slim', 'ref_slim')
{
	my @p = placements($t);
	is(scalar(@p), $nshards{$t}, "$t: $nshards{$t} shard placements");
	is(scalar(grep { $_->[1] != $coord } @p),
		$t eq 'dist_slim' ? 4 : 2, "$t: the shards are on the workers");
	is( join(',', map { shard_storage($_->[1], $_->[0]) } @p),
		join(',', ("slimheap {slimheap.null_bitmap=truncate}") x @p),
		"$t: every shard uses slimheap with the option");
}

# Writes: INSERT ... SELECT, multi-row INSERT, COPY, UPDATE, DELETE.
my $copy = join('',
	map {
		my $g = $_;
		join("\t", $g, map { $_ <= $NSET ? $g * 1000 + $_ : '\N' } 1 .. $NCOLS)
		  . "\n"
	} ($NROWS + 1) .. ($NROWS + $NCOPY));
my $load = qq{
INSERT INTO __T__ SELECT g, $w1_values FROM generate_series(1, $NROWS) g;
INSERT INTO __T__ (id, c1, c200) VALUES (-1, 1, 200), (-2, NULL, NULL), (-3, 3, NULL);
COPY __T__ FROM STDIN;
$copy\\.
};
my $change = q{
UPDATE __T__ SET c150 = -id WHERE id % 7 = 0;
UPDATE __T__ SET c5 = NULL, c20 = NULL WHERE id % 11 = 0;
UPDATE __T__ SET c1 = c1 + 1 WHERE id = 42;
DELETE FROM __T__ WHERE id % 13 = 0;
};
for my $t (sort keys %tables)
{
	(my $sql = $load) =~ s/__T__/$t/g;
	$coord->safe_psql('postgres', $sql);
}

# The saving, on freshly loaded W1 rows: main fork bytes of every shard.
sub shard_bytes
{
	my ($t) = @_;
	my $sum = 0;
	$sum += $_->[1]->safe_psql('postgres', "SELECT pg_relation_size('$_->[0]')")
	  for grep { $_->[1] != $coord } placements($t);
	return $sum;
}
my %bytes = map { $_ => shard_bytes($_) } sort keys %tables;
for my $kind ('dist', 'ref')
{
	my $ratio = $bytes{"${kind}_slim"} / $bytes{"${kind}_heap"};
	note(sprintf('%s: W1 shards on the workers: slimheap %d bytes, heap %d bytes, ratio %.3f',
			$kind, $bytes{"${kind}_slim"}, $bytes{"${kind}_heap"}, $ratio));
	cmp_ok($ratio, '<', 0.9, "${kind}_slim: the shards take less than 0.9 of the heap twin's");
}

# Shards are loaded by COPY (Citus sends INSERT ... SELECT and
# COPY to the shards as COPY), which from PostgreSQL 16 on extends files in
# bulk; slimheap extends by what its rows need.  The same rows INSERTed into
# local tables give the ratio the shards must reach (within 0.02).
$coord->safe_psql('postgres', qq{
CREATE TABLE local_slim (LIKE dist_slim) USING slimheap WITH (slimheap.null_bitmap = 'truncate');
CREATE TABLE local_heap (LIKE dist_heap) USING heap;
INSERT INTO local_slim SELECT * FROM dist_slim ORDER BY id;
INSERT INTO local_heap SELECT * FROM dist_heap ORDER BY id;
});
my $local_ratio = $coord->safe_psql('postgres',
	"SELECT pg_relation_size('local_slim')::float8 / pg_relation_size('local_heap')");
my $dist_ratio = $bytes{dist_slim} / $bytes{dist_heap};
note(sprintf('the same rows by INSERT into local tables: ratio %.3f; the shards: %.3f',
		$local_ratio, $dist_ratio));
cmp_ok(abs($dist_ratio - $local_ratio), '<=', 0.02,
	'dist_slim: the shards are as full as an INSERT fills pages');
$coord->safe_psql('postgres', 'DROP TABLE local_slim, local_heap');

for my $t (sort keys %tables)
{
	(my $sql = $change) =~ s/__T__/$t/g;
	$coord->safe_psql('postgres', $sql);
}

# Reads: the same queries on each twin, through the coordinator.
my @reads = (
	'SELECT * FROM __T__ ORDER BY id',
	'SELECT count(*), count(c5), count(c150), count(c200), sum(c1), sum(c150), min(c20), max(c20), avg(c3)::numeric(20,4) FROM __T__',
	'SELECT id % 10 AS k, count(*), sum(c7), count(c150), max(c200) FROM __T__ GROUP BY 1 ORDER BY 1',
	'SELECT id, c1, c5, c150 FROM __T__ WHERE c150 IS NOT NULL AND c5 IS NULL ORDER BY id',
	'SELECT id, c1, c20 FROM __T__ WHERE id IN (-1, -2, -3, 42, 77, 4500) ORDER BY id',);
for my $kind ('dist', 'ref')
{
	is( $coord->safe_psql(
			'postgres',
			diff_count_sql("SELECT * FROM ${kind}_heap", "SELECT * FROM ${kind}_slim")
		),
		'0',
		"${kind}_slim holds the same rows as ${kind}_heap");
	for my $i (0 .. $#reads)
	{
		(my $q_heap = $reads[$i]) =~ s/__T__/${kind}_heap/g;
		(my $q_slim = $reads[$i]) =~ s/__T__/${kind}_slim/g;
		my $on_heap = $coord->safe_psql('postgres', $q_heap);
		cmp_ok(length($on_heap), '>', 0, "${kind}: read $i returns something");
		ok($coord->safe_psql('postgres', $q_slim) eq $on_heap,
			"${kind}: read $i returns on slimheap what it returns on heap");
	}
}
is($coord->safe_psql('postgres', 'SELECT count(*) FROM dist_slim'),
	$NROWS + $NCOPY + 3 - int(($NROWS + $NCOPY) / 13), 'dist_slim: the rows left after the DELETE');

# Every row of every shard is stored in the truncate form (its header
# checked against its values), on the node that holds the shard.
sub check_forms
{
	my ($t, $what) = @_;
	for my $p (placements($t))
	{
		my ($shard, $node) = @$p;
		my ($total, $bad_natts, $bad_hasnull, $bad_hoff) = split /\|/,
		  $node->safe_psql('postgres', stored_forms_check_sql($shard, $NCOLS, 1));
		is($total, $node->safe_psql('postgres', "SELECT count(*) FROM $shard"),
			"$what: every row of $shard on " . $node->name . ' was inspected');
		is("$bad_natts/$bad_hasnull/$bad_hoff", '0/0/0',
			"$what: the $total rows of $shard on " . $node->name . ' are in the truncate form');
	}
}
check_forms('dist_slim', 'dist_slim');
check_forms('ref_slim', 'ref_slim');

# The heap twin's shards hold all 201 attributes in every row.
my ($heap_shard, $heap_node) = @{ (placements('dist_heap'))[0] };
is( $heap_node->safe_psql(
		'postgres',
		'SELECT min(natts) || \'/\' || max(natts) FROM (' . page_items_sql($heap_shard) . ') i WHERE lp_flags = 1'),
	($NCOLS + 1) . '/' . ($NCOLS + 1),
	"dist_heap: $heap_shard stores every attribute of every row");

# A shard move: one slimheap shard from worker1 to worker2.
my ($moving) = grep { $_->[1] == $w1 } placements('dist_slim');
my $shard = $moving->[0];
(my $shardid = $shard) =~ s/.*_//;
my $before = $w1->safe_psql('postgres', "SELECT * FROM $shard ORDER BY id");
cmp_ok(length($before), '>', 0, "$shard on worker1 holds rows before the move");
$coord->safe_psql(
	'postgres', qq{
SELECT citus_move_shard_placement($shardid, '$host', @{[ $w1->port ]}, '$host', @{[ $w2->port ]},
       shard_transfer_mode => 'block_writes');
CALL citus_cleanup_orphaned_resources();
});
is( $coord->safe_psql('postgres',
		"SELECT string_agg(nodeport::text, ',') FROM citus_shards WHERE shardid = $shardid"),
	$w2->port, "$shard is placed on worker2 after the move");
is( $w1->safe_psql(
		'postgres',
		"SET citus.override_table_visibility = off; SELECT count(*) FROM pg_class WHERE relname = '$shard'"
	),
	'0',
	"$shard is gone from worker1");
ok($w2->safe_psql('postgres', "SELECT * FROM $shard ORDER BY id") eq $before,
	"$shard on worker2 holds the rows it held on worker1");
is(shard_storage($w2, $shard), 'slimheap {slimheap.null_bitmap=truncate}',
	"$shard on worker2 uses slimheap with the option");
check_forms('dist_slim', 'after the move');
is( $coord->safe_psql(
		'postgres',
		diff_count_sql('SELECT * FROM dist_heap', 'SELECT * FROM dist_slim')),
	'0',
	'after the move dist_slim holds the same rows as dist_heap');

# The rebalancer evens the placements out again (worker1 has 1 of the 4
# shards now): it moves a shard back the same way.
$coord->safe_psql(
	'postgres', qq{
SELECT rebalance_table_shards('dist_slim', shard_transfer_mode => 'block_writes');
CALL citus_cleanup_orphaned_resources();
});
is( $coord->safe_psql('postgres',
		"SELECT string_agg(n::text, ',' ORDER BY nodeport) FROM (SELECT nodeport, count(*) AS n FROM citus_shards WHERE table_name = 'dist_slim'::regclass GROUP BY 1) s"),
	'2,2', 'the rebalancer leaves 2 shards of dist_slim on each worker');
is( join(',', map { shard_storage($_->[1], $_->[0]) } placements('dist_slim')),
	join(',', ('slimheap {slimheap.null_bitmap=truncate}') x 4),
	'after the rebalance every shard uses slimheap with the option');
check_forms('dist_slim', 'after the rebalance');
is( $coord->safe_psql(
		'postgres',
		diff_count_sql('SELECT * FROM dist_heap', 'SELECT * FROM dist_slim')),
	'0',
	'after the rebalance dist_slim holds the same rows as dist_heap');

# ALTER TABLE ... SET (slimheap.null_bitmap = 'full') on the coordinator.
$coord->safe_psql('postgres',
	"ALTER TABLE dist_slim SET (slimheap.null_bitmap = 'full')");
is( $coord->safe_psql('postgres',
		"SELECT reloptions::text FROM pg_class WHERE oid = 'dist_slim'::regclass"),
	'{slimheap.null_bitmap=full}',
	'ALTER on the coordinator: its table has the new option');
# Citus forwards the statement's text to every shard (and to the shell
# tables of the workers' metadata); each worker's slimheap stores the option
# there.
is( join(',', map { shard_storage($_->[1], $_->[0]) } placements('dist_slim')),
	join(',', ('slimheap {slimheap.null_bitmap=full}') x 4),
	'ALTER on the coordinator reaches every shard of dist_slim');
for my $w ($w1, $w2)
{
	is(shard_storage($w, 'dist_slim'), 'slimheap {slimheap.null_bitmap=full}',
		$w->name . ': the shell table of dist_slim has the new option too');
}

# Rows written after the ALTER are in the full form on every shard; the
# rows stored before keep theirs.
$coord->safe_psql('postgres',
	"INSERT INTO dist_slim SELECT g, $w1_values FROM generate_series(100001, 100400) g");
my %natts_after;
for my $p (placements('dist_slim'))
{
	my ($s, $node) = @$p;
	$natts_after{$s} = $node->safe_psql(
		'postgres', qq{
SELECT count(*) FILTER (WHERE t.id > 100000 AND i.natts = @{[ $NCOLS + 1 ]})
       || '/' || count(*) FILTER (WHERE t.id > 100000)
       || ' ' || count(*) FILTER (WHERE t.id <= 100000
                                  AND i.natts <> @{[ wide_natts_sql($NCOLS, 1) ]})
  FROM $s t JOIN (@{[ page_items_sql($s) ]}) i ON i.tid = t.ctid});
}
my $new_rows = 0;
for my $s (sort keys %natts_after)
{
	my ($new, $old_full) = split / /, $natts_after{$s};
	my ($full, $all) = split m{/}, $new;
	$new_rows += $all;
	is($full, $all, "$s: the $all rows written after the ALTER store all attributes");
	is($old_full, '0', "$s: the rows written before keep the truncate form");
}
is($new_rows, 400, 'the 400 rows written after the ALTER were all inspected');

# RESET together with a core option, on a reference table: every placement,
# the coordinator's included (RESET stores truncate, the built-in mode).
$coord->safe_psql('postgres',
	'ALTER TABLE ref_slim RESET (slimheap.null_bitmap), SET (fillfactor = 90)');
is( join(',', map { shard_storage($_->[1], $_->[0]) } placements('ref_slim')),
	join(',', ('slimheap {slimheap.null_bitmap=truncate,fillfactor=90}') x 3),
	'RESET and SET (fillfactor) on the coordinator reach every placement of ref_slim');

# A worker that does not preload slimheap: its sessions have no hook for
# slimheap's options, so the shard DDL Citus sends there (CREATE TABLE ...
# WITH (slimheap.null_bitmap = ...)) stops with slimheap's error, never
# creating a shard without the option.
my $w3 = citus_node('worker3', 'citus');
$by_port{ $w3->port } = $w3;
is( $coord->safe_psql('postgres',
		"SELECT citus_add_node('$host', @{[ $w3->port ]}) > 0"),
	't', 'worker3 (citus only, no slimheap preloaded) is added');
$coord->safe_psql('postgres', qq{
CREATE TABLE dist_new (id bigint NOT NULL, $defs) USING slimheap WITH (slimheap.null_bitmap = 'truncate');
INSERT INTO dist_new SELECT g, $w1_values FROM generate_series(1, 100) g;
});
my ($rc, $out, $err) = $coord->psql('postgres',
	"SELECT create_distributed_table('dist_new', 'id', colocate_with => 'none')");
isnt($rc, 0, 'create_distributed_table with a shard on worker3 fails');
like($err, qr/ERROR:  slimheap options need the slimheap library loaded before the statement starts/,
	'the error is slimheap\'s, about the library not being loaded');
like($err, qr/HINT:  Add slimheap to shared_preload_libraries/,
	'the hint says to preload slimheap');
like($err, qr/while executing command on \S+:@{[ $w3->port ]}/,
	'the error comes from worker3');
is( $coord->safe_psql('postgres', qq{
SELECT (SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'dist_new'::regclass)
       || '/' || (SELECT count(*) FROM dist_new)
       || '/' || (SELECT reloptions::text FROM pg_class WHERE oid = 'dist_new'::regclass)}),
	'0/100/{slimheap.null_bitmap=truncate}',
	'dist_new stays a local slimheap table on the coordinator, with its rows and option');
for my $w ($w1, $w2, $w3)
{
	is( $w->safe_psql(
			'postgres',
			"SET citus.override_table_visibility = off; SELECT count(*) FROM pg_class WHERE relname ~ '^dist_new'"
		),
		'0',
		$w->name . ': no shard of dist_new was left behind');
}

done_testing();
