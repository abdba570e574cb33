
# Copyright (c) slimheap contributors
#
# pg_repack on heap and slimheap tables (docs/tools.md).  pg_repack copies
# a table into repack.table_<oid> with CREATE TABLE ... WITH (<the table's
# options>) AS SELECT ... WITH NO DATA, which names no access method, and
# then swaps the copy's file in under the original's catalog rows.  So the
# copy must be stored as the original is: heap's rows for a heap table,
# whatever default_table_access_method says; the original's mode and row
# forms (tails kept) for a slimheap table, whatever
# slimheap.default_null_bitmap says; and rows that keep the columns of the
# original's fast defaults, which the swapped-in file is read with.
#
# For each default (heap; slimheap with compress), each kind of table
# (heap, slimheap full, truncate, compress) gets a heap twin with the same
# rows, a fast default some rows override with NULL and a dropped column,
# and goes through plain pg_repack, --order-by, --only-indexes and a
# pg_repack with writes running into both tables: afterwards the table has
# the same access method, options and contents as before (the twin's), its
# rows are heap's forms (heap) or its mode's (no fewer tails), and
# slimheap.verify() finds nothing.

use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('repack');
$node->start;

my $bindir = $node->config_data('--bindir');
my $have_ext = $node->safe_psql('postgres',
	q{SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_repack'});
if (!-x "$bindir/pg_repack" || $have_ext ne '1')
{
	$node->stop;
	plan skip_all => 'pg_repack is not installed for PostgreSQL '
	  . $node->pg_version->major
	  . ' (no postgresql-NN-repack package for this server)';
}
my ($repack_version) = `$bindir/pg_repack --version` =~ /([\d.]+)/;
note "pg_repack $repack_version";

my $ncols = 200;
my $cols = join(', ', map { "c$_ int" } 2 .. $ncols);

# c2 always set, c9 (indexed) on a fifth of the rows, c140 on a third,
# c190 on a seventh: NULLs before and after set columns, so compress stores
# tails and truncate trims
sub fill_sql
{
	my ($t, $from, $to) = @_;
	return qq{INSERT INTO $t (id, c2, c9, c140, c190, pay)
	  SELECT g, g, CASE WHEN g % 5 = 0 THEN g END, CASE WHEN g % 3 = 0 THEN g END,
	         CASE WHEN g % 7 = 0 THEN g END,
	         CASE WHEN g % 11 = 0 THEN repeat('x', g % 50) END
	    FROM generate_series($from, $to) g};
}

# a table and its heap twin, with a fast default (unless $plain), NULLs
# over it, a dropped column and an index on a tail column
sub make_pair
{
	my ($db, $t, $using, $plain) = @_;
	my $add = $plain ? 'ADD COLUMN gone int' : 'ADD COLUMN d int DEFAULT 42, ADD COLUMN gone int';
	my $nulls = $plain ? '' : "UPDATE %s SET d = NULL WHERE id % 10 = 0;";
	foreach my $spec ([ $t, $using ], [ "${t}_twin", 'USING heap' ])
	{
		my ($rel, $am) = @$spec;
		$node->safe_psql(
			$db, qq{
CREATE TABLE $rel (id int PRIMARY KEY, $cols, pay text) $am;
CREATE INDEX ${rel}_c9 ON $rel (c9);
@{[ fill_sql($rel, 1, 3000) ]};
ALTER TABLE $rel $add;
@{[ sprintf($nulls, $rel) ]}
ALTER TABLE $rel DROP COLUMN gone;
@{[ fill_sql($rel, 3001, 3500) ]};
});
	}
}

# what must not change: access method and options; and the rows' forms
sub catalog_of
{
	my ($db, $t) = @_;
	return $node->safe_psql($db,
		qq{SELECT a.amname, c.reloptions FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		    WHERE c.oid = '$t'::regclass});
}

sub forms_of
{
	my ($db, $t) = @_;
	my $items = page_items_sql($t);
	my $relnatts = $node->safe_psql($db, "SELECT relnatts FROM pg_class WHERE oid = '$t'::regclass");
	# rows, tail rows, rows whose header is not heap's (every attribute,
	# no tail), rows whose natts stop before the fast default's column (d:
	# attnum 202, when there is one)
	return $node->safe_psql($db, qq{
		SELECT count(*), count(*) FILTER (WHERE tail),
		       count(*) FILTER (WHERE natts <> $relnatts OR tail),
		       count(*) FILTER (WHERE $relnatts = 203 AND natts < 202 AND NOT tail)
		  FROM ($items) i WHERE lp_flags = 1 AND lp_len > 0});
}

# how many rows of each stored form (natts, tail) the table has
sub forms_histogram
{
	my ($db, $t) = @_;
	my $items = page_items_sql($t);
	# (dead versions gone first: pg_repack's replay of writes leaves some)
	$node->safe_psql($db, "VACUUM $t");
	return $node->safe_psql($db, qq{
		SELECT string_agg(format('%s%s:%s', natts, CASE WHEN tail THEN 't' END, n), ' '
		                  ORDER BY natts, tail)
		  FROM (SELECT natts, tail, count(*) AS n FROM ($items) i
		         WHERE lp_flags = 1 AND lp_len > 0 GROUP BY natts, tail) f});
}

sub same_rows
{
	my ($db, $t, $how) = @_;
	is($node->safe_psql($db, diff_count_sql("SELECT * FROM $t", "SELECT * FROM ${t}_twin")),
		'0', "$how: the same rows as the heap twin");
	is($node->safe_psql($db, "SELECT count(*) FILTER (WHERE d IS NULL) FROM $t"),
		$node->safe_psql($db, "SELECT count(*) FILTER (WHERE d IS NULL) FROM ${t}_twin"),
		"$how: the NULLs over the fast default are NULLs")
	  if $t !~ /_plain$/;
}

sub repack
{
	my ($db, @args) = @_;
	my ($out, $err);
	my $ok = IPC::Run::run(
		[ "$bindir/pg_repack", '--no-kill-backend', '-h', $node->host,
		  '-p', $node->port, '-d', $db, @args ],
		'>', \$out, '2>', \$err);
	return ($ok, $err);
}

# writes into the table and its twin, one transaction each, while
# pg_repack runs
sub start_writer
{
	my ($db, $t) = @_;
	my $sql = join("\n", map {
		"BEGIN; UPDATE $t SET c2 = c2 + 1, c147 = $_ WHERE id = $_;"
		  . " UPDATE ${t}_twin SET c2 = c2 + 1, c147 = $_ WHERE id = $_;"
		  . " INSERT INTO $t (id, c199) VALUES (" . (10000 + $_) . ", $_);"
		  . " INSERT INTO ${t}_twin (id, c199) VALUES (" . (10000 + $_) . ", $_);"
		  . " DELETE FROM $t WHERE id = " . (3500 - $_) . ';'
		  . " DELETE FROM ${t}_twin WHERE id = " . (3500 - $_) . '; COMMIT;'
		  . ' SELECT pg_sleep(0.005);'
	} 1 .. 300);
	my ($out, $err) = ('', '');
	return IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db) ],
		'<', \$sql, '>', \$out, '2>', \$err);
}

# (a compress table whose last column has a fast default keeps no tails
# in the rows written since, docs/invariants.md T1; pg_repack re-forms every
# row and keeps the fast default: compress_plain has none, and keeps its
# tails)
my @kinds = (
	[ 'heap', 'USING heap' ],
	[ 'full', q{USING slimheap WITH (slimheap.null_bitmap = full)} ],
	[ 'truncate', q{USING slimheap WITH (slimheap.null_bitmap = truncate)} ],
	[ 'compress', q{USING slimheap WITH (slimheap.null_bitmap = compress)} ],
	[ 'compress_plain', q{USING slimheap WITH (slimheap.null_bitmap = compress)}, 1 ],);

foreach my $default ('heap', 'slimheap')
{
	my $db = "rp_$default";
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql('postgres',
		"ALTER DATABASE $db SET default_table_access_method = $default");
	$node->safe_psql('postgres',
		"ALTER DATABASE $db SET slimheap.default_null_bitmap = compress")
	  if $default eq 'slimheap';
	$node->safe_psql($db,
		'CREATE EXTENSION slimheap; CREATE EXTENSION pg_repack; CREATE EXTENSION pageinspect');

	foreach my $kind (@kinds)
	{
		my ($name, $using, $plain) = @$kind;
		my $t = "t_$name";
		my $how = "default $default, $name";
		make_pair($db, $t, $using, $plain);
		my $catalog = catalog_of($db, $t);
		my ($rows, $tails) = split /\|/, forms_of($db, $t);
		same_rows($db, $t, "$how, before");

		foreach my $run ([ 'plain' ], [ '--order-by', '--order-by=c140 DESC, id' ],
			[ '--only-indexes', '--only-indexes' ], [ 'with writes' ])
		{
			my ($what, @args) = @$run;
			my $writer = $what eq 'with writes' ? start_writer($db, $t) : undef;
			my ($ok, $err) = repack($db, '-t', $t, @args);
			$writer->finish if $writer;
			ok($ok, "$how: pg_repack $what succeeds") or diag($err);
			unlike($err, qr/WARNING|ERROR/, "$how: pg_repack $what says no warning");
			is(catalog_of($db, $t), $catalog,
				"$how, $what: the same access method and options");
			same_rows($db, $t, "$how, $what");
			my ($r, $tl, $not_heap, $short) = split /\|/, forms_of($db, $t);
			if ($name eq 'heap' || $name eq 'full')
			{
				is($not_heap, '0', "$how, $what: every row has heap's header (every attribute, no tail)");
			}
			elsif ($name eq 'truncate')
			{
				is($tl, '0', "$how, $what: no tails");
			}
			elsif ($plain)
			{
				# what the table's own rewrite stores (no fast default to
				# honour: the same rule as the copy's)
				my $forms = forms_histogram($db, $t);
				$node->safe_psql($db, "VACUUM FULL $t");
				is($forms, forms_histogram($db, $t),
					"$how, $what: the row forms a VACUUM FULL makes");
				cmp_ok($tl, '>', 0, "$how, $what: tail rows kept ($tl of $r, $tails before)");
			}
			is($short, '0', "$how, $what: no row stops before the fast default's column")
			  unless $what eq '--only-indexes';
			is($node->safe_psql($db, "SELECT count(*) FROM slimheap.verify('$t')"),
				'0', "$how, $what: slimheap.verify() finds nothing");
		}
	}
}

# a name in pg_repack's schema that reads like a copy's but is not one
$node->safe_psql('postgres', 'CREATE ROLE rp_other LOGIN');
$node->safe_psql('rp_heap', 'GRANT USAGE, CREATE ON SCHEMA repack TO rp_other');
my ($ret, $out, $err) = $node->psql('rp_heap',
	'CREATE TABLE repack.table_4000000000 (a int)', extra_params => [ '-U', 'rp_other' ]);
like($err, qr/cannot tell what "repack\.table_4000000000" is a pg_repack copy of/,
	'a copy of no table is refused, naming pg_repack');
my $victim = $node->safe_psql('rp_heap', q{SELECT 't_compress_plain'::regclass::oid});
($ret, $out, $err) = $node->psql('rp_heap',
	"CREATE TABLE repack.table_$victim (a int)", extra_params => [ '-U', 'rp_other' ]);
like($err, qr/must be owner of table t_compress_plain to create its pg_repack copy/,
	'a copy of another role\'s table is refused');

$node->stop;
done_testing();
