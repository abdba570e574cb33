#
# Logical decoding reads the rows that slimheap wrote to WAL (short rows:
# trailing NULLs left out) with the table's descriptor.  The same DML on a
# heap table and its slimheap twin must decode to the same changes, NULLs
# and fast defaults included, through test_decoding.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('decoding', allows_streaming => 'logical');
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION slimheap');

# the same statements for t_heap and t_slim
my @ddl = (
	'CREATE TABLE %s (id int PRIMARY KEY, a int, b text, c int) USING %s',
	'INSERT INTO %s VALUES (1, 1, NULL, NULL), (2, NULL, NULL, NULL)',
	# rows stored before this read the default; later NULLs must not
	'ALTER TABLE %s ADD COLUMN d int DEFAULT 7, ADD COLUMN e text');
my @dml = (
	"INSERT INTO %s VALUES (3, 3, 'x', NULL, NULL, NULL), (4, NULL, NULL, NULL, NULL, NULL)",
	"INSERT INTO %s (id, a) SELECT g, g FROM generate_series(5, 20) g",
	"UPDATE %s SET b = 'upd' WHERE id IN (1, 5)",
	"UPDATE %s SET a = NULL, d = NULL WHERE id = 3",
	"UPDATE %s SET e = 'tail' WHERE id = 6",
	"DELETE FROM %s WHERE id IN (2, 7)",
	"ALTER TABLE %s REPLICA IDENTITY FULL",
	"UPDATE %s SET c = 9 WHERE id = 8",
	"DELETE FROM %s WHERE id = 4");

for my $am ('heap', 'slimheap')
{
	my $t = $am eq 'heap' ? 't_heap' : 't_slim';
	$node->safe_psql('postgres', sprintf($_, $t, $am)) for @ddl;
}

$node->safe_psql('postgres',
	"SELECT pg_create_logical_replication_slot('s', 'test_decoding')");
for my $am ('heap', 'slimheap')
{
	my $t = $am eq 'heap' ? 't_heap' : 't_slim';
	$node->safe_psql('postgres', sprintf($_, $t)) for @dml;
}

my $changes = $node->safe_psql('postgres',
	"SELECT data FROM pg_logical_slot_get_changes('s', NULL, NULL,
	 'include-xids', '0', 'skip-empty-xacts', '1')
	 WHERE data LIKE 'table %'");
my (@heap, @slim);
for my $line (split /\n/, $changes)
{
	if ($line =~ s/^table public\.t_heap: //) { push @heap, $line; }
	elsif ($line =~ s/^table public\.t_slim: //) { push @slim, $line; }
}

is(scalar(@heap), 26, 'heap: 26 changes decoded');
is_deeply(\@slim, \@heap, 'slimheap decodes to the same changes as heap');

# the rows really were stored short
my $short = $node->safe_psql('postgres',
	"CREATE EXTENSION pageinspect;
	 SELECT count(*) FROM heap_page_items(get_raw_page('t_slim', 0))
	 WHERE lp_flags = 1 AND t_infomask2 & 2047 < 6");
cmp_ok($short, '>', 0, 'slimheap stored rows with fewer attributes');

# the changes name the values a reader expects, the default included
ok((grep { /id\[integer\]:10 a\[integer\]:10 b\[text\]:null c\[integer\]:null d\[integer\]:7 e\[text\]:null/ } @slim),
	'an inserted row decodes with its explicit default and NULLs');
ok((grep { /UPDATE: old-key: .* new-tuple: id\[integer\]:8 .* c\[integer\]:9 d\[integer\]:7 e\[text\]:null/ } @slim),
	'a REPLICA IDENTITY FULL update decodes old and new rows');

$node->stop;
done_testing();
