
# Copyright (c) slimheap contributors
#
# pg_upgrade of a cluster with slimheap tables in every mode: truncated
# rows below a fast default (T1), compress rows with tails and indexes built
# after the load (rows moved), a full table, compress and truncate
# partitions, a compress materialized view, a heap table adopted and
# compacted, a compress table released back to heap, compress rows whose
# tails end with the stored NULLs of fast-default columns (1.4), each with a
# heap twin.
#
# After the upgrade every table has its access method and options, its rows
# (and the twin's), the same stored form for every line pointer (pg_upgrade
# copies the files), no problem in slimheap.verify(), and its btree indexes
# pass amcheck with heapallindexed.  Then the same writes on the slimheap
# tables and their heap twins leave them equal.
#
# Two upgrades: from this server's own version (pg_upgrade's binary-upgrade
# dump and restore, with slimheap's DDL hook, on every version the suite
# runs on), and from every older server with slimheap in
# /usr/lib/postgresql/N, N from 15 up to this version (scripts/run-tests.sh
# builds slimheap for them: 15 to 18 on the host, 18 to 19 in the sid root;
# when there is none, that part says so).

use strict;
use warnings;

use Cwd qw(getcwd);
use File::Temp qw(tempdir);
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use SlimheapTest;

my $wide = join(', ', map { "w$_ int" } 1 .. 120);
my $wide_values = 'SELECT i, '
  . join(', ', map { "CASE WHEN (i * 7 + $_ * 13) % 29 = 0 THEN i * 1000 + $_ END" } 1 .. 120)
  . ' FROM generate_series(1, 400) i';

# each slimheap table and its heap twin
my @pairs = (
	[ 't_trunc', 'h_trunc' ],
	[ 't_comp', 'h_comp' ],
	[ 't_full', 'h_full' ],
	[ 'p_comp', 'hp' ],
	[ 'mv_comp', 'h_comp' ],
	[ 't_adopt', 'h_adopt' ],
	[ 't_rel', 'h_rel' ],
	[ 't_cfd', 'h_cfd' ],);

my $load = qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION amcheck;

CREATE TABLE t_trunc (id int PRIMARY KEY, a int, b text, c int)
  USING slimheap WITH (slimheap.null_bitmap = truncate);
CREATE TABLE h_trunc (id int PRIMARY KEY, a int, b text, c int);
INSERT INTO t_trunc SELECT i, CASE WHEN i % 3 > 0 THEN i END,
  CASE WHEN i % 3 > 1 THEN repeat('b', i % 40) END, NULL
  FROM generate_series(1, 300) i;
INSERT INTO h_trunc SELECT * FROM t_trunc;
-- rows stored before the default have natts < 5 and read 42 (T1)
ALTER TABLE t_trunc ADD COLUMN d int DEFAULT 42;
ALTER TABLE h_trunc ADD COLUMN d int DEFAULT 42;
INSERT INTO t_trunc SELECT i, i, NULL, NULL, NULL FROM generate_series(301, 400) i;
INSERT INTO h_trunc SELECT i, i, NULL, NULL, NULL FROM generate_series(301, 400) i;

CREATE TABLE t_comp (id int, $wide)
  USING slimheap WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 3);
CREATE TABLE h_comp (id int, $wide);
INSERT INTO t_comp $wide_values;
INSERT INTO h_comp $wide_values;
-- keys and a tail column's index after the load, as pg_restore makes them
ALTER TABLE t_comp ADD PRIMARY KEY (id);
ALTER TABLE h_comp ADD PRIMARY KEY (id);
CREATE INDEX t_comp_w100 ON t_comp (w100);
CREATE INDEX h_comp_w100 ON h_comp (w100);

CREATE TABLE t_full (id int PRIMARY KEY, a int, b int)
  USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE h_full (id int PRIMARY KEY, a int, b int);
INSERT INTO t_full SELECT i, CASE WHEN i % 2 = 0 THEN i END, NULL
  FROM generate_series(1, 200) i;
INSERT INTO h_full SELECT * FROM t_full;

CREATE TABLE p_comp (id int, $wide) PARTITION BY RANGE (id);
CREATE TABLE p_comp_1 PARTITION OF p_comp FOR VALUES FROM (0) TO (200)
  USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE p_comp_2 PARTITION OF p_comp FOR VALUES FROM (200) TO (MAXVALUE)
  USING slimheap WITH (slimheap.null_bitmap = truncate);
CREATE TABLE hp (id int, $wide);
INSERT INTO p_comp $wide_values;
INSERT INTO hp $wide_values;

CREATE MATERIALIZED VIEW mv_comp USING slimheap
  WITH (slimheap.null_bitmap = compress) AS SELECT * FROM t_comp;

-- a heap table to adopt and compact, a compress table to release
CREATE TABLE t_adopt (id int PRIMARY KEY, $wide);
CREATE TABLE h_adopt (id int PRIMARY KEY, $wide);
INSERT INTO t_adopt $wide_values;
INSERT INTO h_adopt $wide_values;
CREATE TABLE t_rel (id int PRIMARY KEY, $wide)
  USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE h_rel (id int PRIMARY KEY, $wide);
INSERT INTO t_rel $wide_values;
INSERT INTO h_rel $wide_values;

-- compress rows written after ADD COLUMN ... DEFAULT: their tails end
-- with the stored NULLs of d and e (extension 1.4's form)
CREATE TABLE t_cfd (id int PRIMARY KEY, $wide)
  USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE h_cfd (id int PRIMARY KEY, $wide);
INSERT INTO t_cfd $wide_values;
INSERT INTO h_cfd $wide_values;
ALTER TABLE t_cfd ADD COLUMN d int DEFAULT 42, ADD COLUMN e text DEFAULT 'e';
ALTER TABLE h_cfd ADD COLUMN d int DEFAULT 42, ADD COLUMN e text DEFAULT 'e';
INSERT INTO t_cfd (id, w3, w90, d, e) SELECT i, i, i, CASE WHEN i % 2 = 0 THEN i END, NULL
  FROM generate_series(1001, 1300) i;
INSERT INTO h_cfd SELECT * FROM t_cfd WHERE id > 1000;
};
# each on its own: they commit
my @calls = (
	"CALL slimheap.adopt('t_adopt', 'compress')",
	"CALL slimheap.compact('t_adopt')",
	"CALL slimheap.release('t_rel')");

# the stored relations whose options and forms are compared
my @stored = qw(t_trunc t_comp t_full p_comp_1 p_comp_2 mv_comp t_adopt t_cfd);

# what must survive: one line of text per query
sub snapshot
{
	my ($node) = @_;
	my %snap;

	foreach my $rel (@stored)
	{
		$snap{"options $rel"} = $node->safe_psql('postgres', qq{
SELECT a.amname || ' ' || coalesce(array_to_string(c.reloptions, ','), '')
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '$rel'::regclass});
		$snap{"forms $rel"} = $node->safe_psql('postgres', qq{
SELECT md5(string_agg(format('%s/%s:%s:%s:%s', blk, lp, form, natts,
                             stored_natts), ',' ORDER BY blk, lp))
  FROM generate_series(0, pg_relation_size('$rel') / 8192 - 1) AS blk,
       LATERAL slimheap.page_items('$rel', blk)});
	}
	foreach my $pair (@pairs)
	{
		my ($rel) = @$pair;
		$snap{"rows $rel"} = $node->safe_psql('postgres',
			"SELECT count(*) || ' ' || md5(string_agg(r::text, ',' ORDER BY r.id)) FROM $rel r");
	}
	$snap{'tail rows'} = $node->safe_psql('postgres',
		"SELECT (slimheap.stats('t_comp')).tail_rows + (slimheap.stats('p_comp_1')).tail_rows");
	$snap{'adopted tail rows'} = $node->safe_psql('postgres',
		"SELECT (slimheap.stats('t_adopt')).tail_rows > 100");
	$snap{'released'} = $node->safe_psql('postgres',
		"SELECT a.amname || ' ' || coalesce(array_to_string(c.reloptions, ','), '') FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 't_rel'::regclass");
	# pg_upgrade keeps relids, file numbers and tablespaces: the record of
	# full files (unlogged, carried as it is) names the same files after
	$snap{'records of full files'} = $node->safe_psql('postgres', q{
SELECT string_agg(f.relid::regclass || ':' ||
                  (f.relfilenode = pg_relation_filenode(f.relid) AND
                   f.natts = c.relnatts), ',' ORDER BY f.relid::regclass::text)
  FROM slimheap.full_row_files f JOIN pg_class c ON c.oid = f.relid});
	$snap{'fast default'} = $node->safe_psql('postgres',
		'SELECT count(*) FROM t_trunc WHERE d = 42');
	$snap{'stored NULLs of fast defaults'} = $node->safe_psql('postgres',
		"SELECT count(*) FILTER (WHERE d IS NULL) || ' ' || count(*) FILTER (WHERE e IS NULL) || ' ' || (slimheap.stats('t_cfd')).tail_rows FROM t_cfd");
	return %snap;
}

sub check_tables
{
	my ($node, $label) = @_;

	foreach my $pair (@pairs)
	{
		my ($slim, $heap) = @$pair;
		is( $node->safe_psql(
				'postgres',
				diff_count_sql("SELECT * FROM $slim", "SELECT * FROM $heap")),
			'0',
			"$label: $slim holds what $heap holds");
	}
	foreach my $rel (@stored)
	{
		is($node->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('$rel')"),
			'0', "$label: verify($rel) finds nothing");
	}
	is( $node->safe_psql(
			'postgres', q{
SELECT count(*) FROM (
  SELECT bt_index_check(i.indexrelid, true)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_am a ON a.oid = c.relam
   WHERE a.amname = 'btree' AND i.indrelid IN
         (SELECT oid FROM pg_class WHERE relname ~ '^(t|p)_')) s}),
		'7',
		"$label: the seven btree indexes of the slimheap tables (and the released one) pass bt_index_check(heapallindexed)");
}

# pg_upgrade from old's data directory into new's; returns whether it
# succeeded and, when not, the first ERROR line of its logs
sub run_pg_upgrade
{
	my ($old, $new) = @_;

	# pg_upgrade writes its logs into the directory it runs in (and 15+ into
	# the new cluster's pg_upgrade_output.d); it copies the files by default
	my $cwd = getcwd();
	my $workdir = tempdir(CLEANUP => 1);
	chdir $workdir or die "cannot enter $workdir: $!";
	my ($stdout, $stderr);
	my $ok = IPC::Run::run(
		[
			$new->config_data('--bindir') . '/pg_upgrade', '--no-sync',
			'-d', $old->data_dir, '-D', $new->data_dir,
			'-b', $old->config_data('--bindir'),
			'-B', $new->config_data('--bindir'),
			'-s', $new->host, '-p', $old->port, '-P', $new->port
		],
		'>', \$stdout, '2>', \$stderr);
	chdir $cwd or die "cannot return to $cwd: $!";
	return (1, '') if $ok;

	my $error = 'no ERROR in its logs';
	foreach my $log (glob($new->data_dir . '/pg_upgrade_output.d/*/log/*.log'))
	{
		open my $fh, '<', $log or next;
		while (my $line = <$fh>)
		{
			if ($line =~ /(ERROR: .*)/)
			{
				$error = $1;
				last;
			}
		}
	}
	note "pg_upgrade failed:\n$stdout$stderr";
	return (0, $error);
}

# a new node for old's upgrade; its checksums must match the old one's
# (18's initdb turns them on by default, 15's does not know the option)
sub new_node_for
{
	my ($old, $name) = @_;
	my $new = PostgreSQL::Test::Cluster->new($name);

	$new->init($old->pg_version < 18 ? no_checksums($new) : ());
	$new->append_conf('postgresql.conf',
		"shared_preload_libraries = 'slimheap'\nautovacuum = off\n");
	return $new;
}

# Whether pg_upgrade from the server in $old_install to this one works for a
# cluster of heap tables only; when not, the reason (it is then core's
# limit, not slimheap's)
sub heap_upgrade_fails
{
	my ($old_install, $name) = @_;
	my $old = PostgreSQL::Test::Cluster->new("${name}_old", install_path => $old_install);

	$old->init;
	$old->start;
	$old->safe_psql('postgres', 'CREATE TABLE h (id int, a int, b text); INSERT INTO h SELECT i, i, i::text FROM generate_series(1, 10) i');
	$old->stop;
	my $new = new_node_for($old, "${name}_new");
	my ($ok, $error) = run_pg_upgrade($old, $new);
	return $ok ? undef : $error;
}

sub upgrade
{
	my ($label, $old_install) = @_;

	my $old = PostgreSQL::Test::Cluster->new("old_$label",
		defined $old_install ? (install_path => $old_install) : ());
	$old->init;
	$old->append_conf('postgresql.conf',
		"shared_preload_libraries = 'slimheap'\nautovacuum = off\n");
	$old->start;
	$old->safe_psql('postgres', $load);
	$old->safe_psql('postgres', $_) foreach @calls;
	my %before = snapshot($old);
	is($before{'adopted tail rows'}, 't', "$label: the adopted table was compacted");
	is($before{'released'}, 'heap ', "$label: the released table is heap");
	ok($before{'tail rows'} > 100, "$label: the compress tables have tails ($before{'tail rows'} rows)");
	is($before{'fast default'}, '300', "$label: 300 rows stored before the default read it");
	like($before{'records of full files'}, qr/^(.*,)?t_full:true(,|$)/,
		"$label: the narrow t_full's file is recorded ($before{'records of full files'})");
	like($before{'stored NULLs of fast defaults'}, qr/^150 300 [1-9]\d\d+$/,
		"$label: rows after the defaults store their NULLs, with tails ($before{'stored NULLs of fast defaults'})");
	check_tables($old, "$label, before");
	$old->stop;

	my $new = new_node_for($old, "new_$label");
	my ($upgraded, $error) = run_pg_upgrade($old, $new);
	ok($upgraded, "$label: pg_upgrade") or diag($error);

	$new->start;
	my %after = snapshot($new);
	foreach my $key (sort keys %before)
	{
		is($after{$key}, $before{$key}, "$label: $key as before the upgrade");
	}
	check_tables($new, "$label, after");

	# the same writes on both sides, tails and fast defaults included
	foreach my $pair ([ 't_trunc', 'h_trunc' ], [ 't_comp', 'h_comp' ],
		[ 't_full', 'h_full' ], [ 'p_comp', 'hp' ], [ 't_adopt', 'h_adopt' ],
		[ 't_rel', 'h_rel' ], [ 't_cfd', 'h_cfd' ])
	{
		my ($slim, $heap) = @$pair;
		foreach my $rel ($slim, $heap)
		{
			my $set = $rel =~ /trunc/ ? 'c = id, d = NULL' : $rel =~ /full/ ? 'b = id' : 'w5 = id, w119 = NULL';
			$new->safe_psql('postgres', qq{
UPDATE $rel SET $set WHERE id % 7 = 0;
DELETE FROM $rel WHERE id % 11 = 0;
INSERT INTO $rel (id) SELECT i FROM generate_series(2000, 2050) i;
});
		}
	}
	$new->safe_psql('postgres', 'REFRESH MATERIALIZED VIEW mv_comp');
	check_tables($new, "$label, after writes");

	# the options hook runs in the new cluster
	$new->safe_psql('postgres', qq{
CREATE TABLE t_new (id int, $wide) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO t_new $wide_values;});
	is( $new->safe_psql(
			'postgres',
			"SELECT array_to_string(reloptions, ',') || ' ' || ((slimheap.stats('t_new')).tail_rows > 0) FROM pg_class WHERE relname = 't_new'"),
		'slimheap.null_bitmap=compress true',
		"$label: a compress table created after the upgrade has its option and tails");
	$new->stop;
}

upgrade('same_version');

# from each older server of this machine that has slimheap (run-tests.sh
# installs it into /usr/lib/postgresql/N for every N from 15 below this
# version: 15 on the host, sid's 18 in the root of PostgreSQL 19)
my $version = PostgreSQL::Test::Cluster->new('probe')->pg_version->major;
my @older = grep { -x "$_/bin/pg_ctl" && -e "$_/lib/slimheap.so" }
  map { "/usr/lib/postgresql/$_" } 15 .. $version - 1;
SKIP:
{
	skip "no older PostgreSQL with slimheap in /usr/lib/postgresql (15 to "
	  . ($version - 1) . "): only the same-version upgrade runs", 1
	  unless @older;
}
foreach my $old_install (@older)
{
  SKIP:
	{
		my ($old_major) = $old_install =~ m{/(\d+)$};
		my $heap_error = heap_upgrade_fails($old_install, "probe_$old_major");
		skip "pg_upgrade from $old_install to PostgreSQL $version fails for a cluster "
		  . "of heap tables too ($heap_error): core's limit, not tried with slimheap", 1
		  if defined $heap_error;
		upgrade("from_$old_major", $old_install);
	}
}

done_testing();
