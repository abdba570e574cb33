
# Copyright (c) slimheap contributors
#
# pg_partman with heap and slimheap partition sets in one database
# (docs/tools.md).  pg_partman creates each partition with CREATE TABLE
# ... (LIKE parent INCLUDING ...), which takes default_table_access_method,
# and then runs ALTER TABLE child SET (<the template table's options>), for
# every partition set in one transaction.  A slimheap template's
# slimheap.null_bitmap on a child that came out heap must not stop that
# transaction: it is ignored with a WARNING, as CREATE TABLE ... USING heap
# WITH (slimheap...) ignores it.  With the README's recipe (the maintaining
# role's default_table_access_method = slimheap) the children are slimheap,
# of the template's mode where the template names one and of the role's
# slimheap.default_null_bitmap elsewhere.

use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('partman');
$node->start;

my $version = $node->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'pg_partman'});
if ($version eq '')
{
	$node->stop;
	plan skip_all => 'pg_partman is not installed for PostgreSQL '
	  . $node->pg_version->major
	  . ' (no postgresql-NN-partman package for this server)';
}
note "pg_partman $version";
# 4.x names native range partitioning 'native', 5.x 'range'
my $type = $version =~ /^4\./ ? 'native' : 'range';

my $db = 'pm';
$node->safe_psql('postgres', "CREATE DATABASE $db");
my $cols = join(', ', map { "c$_ int" } 2 .. 60);
$node->safe_psql(
	$db, qq{
CREATE EXTENSION slimheap;
CREATE SCHEMA partman;
CREATE EXTENSION pg_partman SCHEMA partman;
CREATE TABLE pm_plain (id int NOT NULL, $cols) PARTITION BY RANGE (id);
CREATE TABLE pm_slim (id int NOT NULL, $cols) PARTITION BY RANGE (id);
CREATE TABLE pm_slim_tpl (id int NOT NULL, $cols)
  USING slimheap WITH (slimheap.null_bitmap = truncate);
});

# the partitions of a set: name, access method, options, most recent last
sub children
{
	my ($parent) = @_;
	return $node->safe_psql(
		$db, qq{
		SELECT string_agg(format('%s %s %s', c.relname, a.amname,
		                         coalesce(c.reloptions::text, '-')), E'\\n' ORDER BY c.oid)
		  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		  JOIN pg_am a ON a.oid = c.relam
		 WHERE i.inhparent = '$parent'::regclass});
}

sub create_parent
{
	my ($parent, $template) = @_;
	my $tpl = $template ? ", p_template_table := 'public.$template'" : '';
	return $node->psql($db,
		qq{SELECT partman.create_parent(p_parent_table := 'public.$parent',
		     p_control := 'id', p_type := '$type', p_interval := '1000',
		     p_premake := 2 $tpl)});
}

# 1. a heap session (the default): both sets get their partitions; the
# slimheap template's option is ignored on the heap children, with a WARNING
my ($ret, $out, $err) = create_parent('pm_plain');
is($ret, 0, 'create_parent() of a set without a template succeeds') or diag($err);
($ret, $out, $err) = create_parent('pm_slim', 'pm_slim_tpl');
is($ret, 0, 'create_parent() of a set with a slimheap template succeeds in a heap session')
  or diag($err);
like($err, qr/WARNING:  slimheap options on "pm_slim_p\d+" are ignored/,
	'the template\'s slimheap option on a heap child is ignored with a WARNING');
my $heap_children = children('pm_slim');
unlike($heap_children, qr/ slimheap |slimheap\.null_bitmap/,
	'the children are heap, without slimheap entries');
my $nheap = () = children('pm_plain') =~ /\n/g;
my $nslim = () = $heap_children =~ /\n/g;

# 2. the README's recipe: the role that runs maintenance creates slimheap
# tables; one run_maintenance() extends both sets
my $me = $node->safe_psql($db, 'SELECT current_user');
$node->safe_psql($db, qq{
ALTER ROLE "$me" IN DATABASE $db SET default_table_access_method = slimheap;
ALTER ROLE "$me" IN DATABASE $db SET slimheap.default_null_bitmap = compress;
});
$node->safe_psql(
	$db, q{
INSERT INTO pm_plain (id, c2, c50) SELECT g, g, CASE WHEN g % 3 = 0 THEN g END FROM generate_series(0, 2999) g;
INSERT INTO pm_slim (id, c2, c50) SELECT g, g, CASE WHEN g % 3 = 0 THEN g END FROM generate_series(0, 2999) g;
});
($ret, $out, $err) = $node->psql($db, 'SELECT partman.run_maintenance()');
is($ret, 0, 'one run_maintenance() extends both sets') or diag($err);
my @heap_new = (split /\n/, children('pm_plain'))[ $nheap + 1 .. $nheap + 3 ];
my @slim_new = (split /\n/, children('pm_slim'))[ $nslim + 1 .. $nslim + 3 ];
ok(@heap_new && defined $heap_new[0], 'the first set got new partitions')
  or diag(children('pm_plain'));
ok(@slim_new && defined $slim_new[0], 'the second set got new partitions')
  or diag(children('pm_slim'));
foreach my $c (grep { defined } @slim_new)
{
	like($c, qr/^pm_slim_p\d+ slimheap \{slimheap\.null_bitmap=truncate\}$/,
		"$c: slimheap, with the template's mode");
}
foreach my $c (grep { defined } @heap_new)
{
	like($c, qr/^pm_plain_p\d+ slimheap \{slimheap\.null_bitmap=compress\}$/,
		"$c: slimheap, with the role's default mode");
}

# rows go into the new partitions and read back as in the heap partitions
$node->safe_psql(
	$db, q{
INSERT INTO pm_plain (id, c2, c50) SELECT g, g, CASE WHEN g % 3 = 0 THEN g END FROM generate_series(3000, 4999) g;
INSERT INTO pm_slim (id, c2, c50) SELECT g, g, CASE WHEN g % 3 = 0 THEN g END FROM generate_series(3000, 4999) g;
});
is($node->safe_psql($db,
	diff_count_sql('SELECT * FROM pm_plain', 'SELECT * FROM pm_slim')),
	'0', 'both sets hold the same rows');
is($node->safe_psql($db,
	q{SELECT count(*) FROM pm_slim WHERE id >= 3000 AND c50 IS NOT NULL}),
	'667', 'the rows in the new slimheap partitions read back');

$node->stop;
done_testing();
