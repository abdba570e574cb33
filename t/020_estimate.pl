
# Copyright (c) slimheap contributors
#
# slimheap.estimate() against the real thing: on the workloads W1, W3, W4
# and W5 of WORKLOADS.md (at sizes that keep the test short), the projected
# main-fork size is within 2% of the size the table has after
# ALTER TABLE ... SET ACCESS METHOD slimheap ("truncate"), after converting
# it back to heap ("full"), and after converting it to slimheap with
# slimheap.null_bitmap = compress ("compress").  Checked for a full scan,
# for the default sample and for a sample of 2000 rows.  The figures are
# printed.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('estimate');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'slimheap'
autovacuum = off
# compiling 800-column projections would take most of the test's time
jit = off
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION slimheap');

# "c1 int4, c2 int4, ..." and friends
sub column_list
{
	my ($from, $to, $fmt) = @_;
	return join(', ', map { sprintf($fmt, ($_) x 3) } $from .. $to);
}

# estimate() of a table: { "<sample>/<mode>" => [projected_bytes, row] }
sub estimates
{
	my ($table, $sample) = @_;
	my $arg = defined $sample ? ", $sample" : '';
	my $out = $node->safe_psql('postgres',
		    "SELECT mode, projected_bytes, sampled_rows, sampled_pages, "
		  . "full_scan, total_rows, toasted_rows, saved_percent "
		  . "FROM slimheap.estimate('$table'$arg)");
	my %est;
	for my $line (split /\n/, $out)
	{
		my @f = split /\|/, $line;
		$est{ $f[0] } = \@f;
	}
	return \%est;
}

# Estimate a loaded heap table three ways, convert it to slimheap and back,
# and hold every estimate to 2% of the size each conversion produced.
sub check_table
{
	my ($label, $table, $nrows) = @_;
	my %samples = (
		'full scan' => 'NULL',
		'default sample' => undef,
		'2000-row sample' => 2000);
	my %est = map { $_ => estimates($table, $samples{$_}) } keys %samples;

	$node->safe_psql('postgres',
		"ALTER TABLE $table SET ACCESS METHOD slimheap");
	# the bytes of the pages that hold rows: from PostgreSQL 16 on, the
	# rewrite extends the file in bulk, so it may end in empty pages
	# (docs/versions.md)
	my $used_bytes = "SELECT 8192 * count(DISTINCT (ctid::text::point)[0]) "
	  . "FROM $table";
	my %actual;
	$actual{truncate} = $node->safe_psql('postgres', $used_bytes);

	# what slimheap saved, as stats() reads the converted table
	my $stats = $node->safe_psql('postgres',
		    "SELECT live_rows, heap_layout_bytes, saved_bytes, saved_percent "
		  . "FROM slimheap.stats('$table')");
	my ($live, $heap_layout, $saved, $saved_pct) = split /\|/, $stats;
	is($live, $nrows, "$label: stats() counts every row after conversion");
	note("$label: stats() after conversion: $live rows, "
		  . "heap layout $heap_layout bytes, saved $saved bytes ($saved_pct%)");

	$node->safe_psql('postgres', "ALTER TABLE $table SET ACCESS METHOD heap");
	$actual{full} = $node->safe_psql('postgres', $used_bytes);

	$node->safe_psql('postgres',
		    "ALTER TABLE $table SET ACCESS METHOD slimheap, "
		  . "SET (slimheap.null_bitmap = compress)");
	$actual{compress} = $node->safe_psql('postgres', $used_bytes);
	my $tails = $node->safe_psql('postgres',
		    "SELECT tail_rows, tail_saved_bytes, saved_percent "
		  . "FROM slimheap.stats('$table')");
	my ($tail_rows, $tail_saved, $compress_pct) = split /\|/, $tails;
	note("$label: stats() after conversion to compress: $tail_rows tail rows, "
		  . "$tail_saved bytes saved against truncate, "
		  . "$compress_pct% against heap's layout");
	$node->safe_psql('postgres',
		    "ALTER TABLE $table SET ACCESS METHOD heap, "
		  . "RESET (slimheap.null_bitmap)");

	for my $how (sort keys %samples)
	{
		for my $mode ('full', 'truncate', 'compress')
		{
			my $row = $est{$how}{$mode};
			my ($projected, $sampled_rows, $sampled_pages, $full_scan,
				$total_rows, $toasted)
			  = @$row[ 1 .. 6 ];
			my $error = abs($projected - $actual{$mode}) / $actual{$mode};
			my $figures = sprintf(
				"%s, %s mode, %s: projected %d bytes, actual %d bytes, "
				  . "error %.2f%% (sampled %d rows in %d pages, full_scan=%s, "
				  . "total_rows %d, toasted %d)",
				$label, $mode, $how, $projected, $actual{$mode},
				100 * $error, $sampled_rows, $sampled_pages, $full_scan,
				$total_rows, $toasted);
			diag($figures);
			ok($error <= 0.02, "$label, $mode mode, $how: within 2%");
		}
	}
	return;
}

# W1: 800 nullable int4 columns, the first 50 set.
{
	my $n = 10000;
	$node->safe_psql('postgres',
		'CREATE TABLE w1 (' . column_list(1, 800, 'c%d int4') . ') USING heap');
	$node->safe_psql('postgres',
		    'INSERT INTO w1 ('
		  . column_list(1, 50, 'c%d')
		  . ') SELECT '
		  . column_list(1, 50, 'g + %d')
		  . " FROM generate_series(1, $n) g");
	check_table('W1', 'w1', $n);
}

# W3: 100 nullable int4 columns and a NOT NULL id; one value at column 80,
# 90, 95 or 100.
for my $pos (80, 90, 95, 100)
{
	my $n = 20000;
	my $table = "w3_c$pos";
	$node->safe_psql('postgres',
		    "CREATE TABLE $table (id int4 NOT NULL, "
		  . column_list(1, 100, 'c%d int4')
		  . ') USING heap');
	$node->safe_psql('postgres',
		"INSERT INTO $table (id, c$pos) SELECT g, g FROM generate_series(1, $n) g"
	);
	check_table("W3 c$pos", $table, $n);
}

# W4: 800 nullable columns cycling int4, float8, bool, text; each row sets
# 40 columns at random positions (a fixed seed keeps the data stable).
{
	my $n = 10000;
	my @types = ('text', 'int4', 'float8', 'bool');
	my $cols = join(', ', map { "c$_ " . $types[ $_ % 4 ] } 1 .. 800);
	my $vals = join(
		', ',
		map {
			my $j = $_;
			my $expr =
			    $j % 4 == 1 ? "(g + $j)::int4"
			  : $j % 4 == 2 ? "((g + $j) * 0.5)::float8"
			  : $j % 4 == 3 ? "((g + $j) % 2 = 0)"
			  :               "('v' || g || '_$j')::text";
			"CASE WHEN m[$j] THEN $expr END"
		} 1 .. 800);
	$node->safe_psql('postgres', "CREATE TABLE w4 ($cols) USING heap");
	# 40 of the 800 positions per row: the first 40 of a Fisher-Yates shuffle
	$node->safe_psql(
		'postgres', qq{
CREATE FUNCTION w4_masks(n int, OUT g int, OUT m bool[]) RETURNS SETOF record
LANGUAGE plpgsql AS \$\$
DECLARE
	perm int[] := ARRAY(SELECT generate_series(1, 800));
	j int;
	t int;
BEGIN
	FOR r IN 1..n LOOP
		g := r;
		m := array_fill(false, ARRAY[800]);
		FOR i IN 1..40 LOOP
			j := i + floor(random() * (801 - i))::int;
			t := perm[i]; perm[i] := perm[j]; perm[j] := t;
			m[perm[i]] := true;
		END LOOP;
		RETURN NEXT;
	END LOOP;
END \$\$;
SELECT setseed(0.4);
INSERT INTO w4 SELECT $vals FROM w4_masks($n) ORDER BY g;
});
	my $set = $node->safe_psql('postgres',
		"SELECT count(*) FROM w4 WHERE c1 IS NOT NULL");
	note("W4: $set of $n rows set c1 (about 1 in 20 expected)");
	check_table('W4', 'w4', $n);
}

# W5: the same 800 columns; each row sets 3 contiguous groups of 10-20
# columns at random positions, one in each third of the row.
{
	my $n = 5000;
	my @types = ('text', 'int4', 'float8', 'bool');
	my $cols = join(', ', map { "c$_ " . $types[ $_ % 4 ] } 1 .. 800);
	my $vals = join(
		', ',
		map {
			my $j = $_;
			my $expr =
			    $j % 4 == 1 ? "(g + $j)::int4"
			  : $j % 4 == 2 ? "((g + $j) * 0.5)::float8"
			  : $j % 4 == 3 ? "((g + $j) % 2 = 0)"
			  :               "('v' || g || '_$j')::text";
			"CASE WHEN m[$j] THEN $expr END"
		} 1 .. 800);
	$node->safe_psql('postgres', "CREATE TABLE w5 ($cols) USING heap");
	$node->safe_psql(
		'postgres', qq{
CREATE FUNCTION w5_masks(n int, OUT g int, OUT m bool[]) RETURNS SETOF record
LANGUAGE plpgsql AS \$\$
DECLARE
	len int;
	first int;
BEGIN
	FOR r IN 1..n LOOP
		g := r;
		m := array_fill(false, ARRAY[800]);
		FOR k IN 0..2 LOOP
			len := 10 + floor(random() * 11)::int;
			first := 1 + k * 266 + floor(random() * (266 - len))::int;
			FOR i IN first..first + len - 1 LOOP
				m[i] := true;
			END LOOP;
		END LOOP;
		RETURN NEXT;
	END LOOP;
END \$\$;
SELECT setseed(0.5);
INSERT INTO w5 SELECT $vals FROM w5_masks($n) ORDER BY g;
});
	check_table('W5', 'w5', $n);
}

$node->stop;
done_testing();
