#
# Logical replication of slimheap tables (docs/scale-out.md).
#
# A publisher (wal_level = logical) publishes a wide sparse slimheap table
# and its heap twin; the subscriber stores the slimheap table's changes in a
# heap table and the heap table's in a slimheap table, so both directions
# between the access methods are covered.  Two identities: a primary key,
# and REPLICA IDENTITY FULL (the old row, logged whole from a short stored
# row, must still find its match on the subscriber).  After INSERT, COPY,
# UPDATE (NULLs that move) and DELETE, every subscriber table holds what
# its publisher table holds, and the slimheap tables of both nodes store
# their rows in the truncate form.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $NCOLS = 120;
my $NROWS = 2000;

my $pub = slim_node('publisher', allows_streaming => 'logical');
$pub->start;
my $sub = slim_node('subscriber');
$sub->start;
is($pub->safe_psql('postgres', 'SHOW wal_level'), 'logical',
	'the publisher logs logically');
for my $node ($pub, $sub)
{
	$node->safe_psql('postgres',
		'CREATE EXTENSION slimheap; CREATE EXTENSION pageinspect;');
}

my $defs = wide_column_defs($NCOLS);
# row g sets c1 .. c(g % 40), the rest NULL
my $values = join(', ',
	map { "CASE WHEN mod(g, 40) >= $_ THEN g * 1000 + $_ END" } 1 .. $NCOLS);
my $slim_with = "USING slimheap WITH (slimheap.null_bitmap = 'truncate')";

# On the publisher: pk_slim and full_slim are slimheap, pk_heap and
# full_heap are heap.  On the subscriber the other way round.
my %am = (
	publisher => { slim => $slim_with, heap => 'USING heap' },
	subscriber => { slim => 'USING heap', heap => $slim_with },);
for my $node ($pub, $sub)
{
	my $a = $am{ $node->name };
	for my $k ('slim', 'heap')
	{
		$node->safe_psql(
			'postgres', qq{
CREATE TABLE pk_$k (id int4 PRIMARY KEY, $defs) $a->{$k};
CREATE TABLE full_$k (id int4 NOT NULL, $defs) $a->{$k};
ALTER TABLE full_$k REPLICA IDENTITY FULL;
});
	}
}
# rows that exist before the subscription: the initial table copy
for my $t ('pk_slim', 'pk_heap', 'full_slim', 'full_heap')
{
	$pub->safe_psql('postgres',
		"INSERT INTO $t SELECT g, $values FROM generate_series(1, $NROWS / 2) g");
}
$pub->safe_psql('postgres',
	'CREATE PUBLICATION wide FOR TABLE pk_slim, pk_heap, full_slim, full_heap');
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION wide CONNECTION '@{[ $pub->connstr ]} dbname=postgres' PUBLICATION wide");
$sub->wait_for_subscription_sync($pub, 'wide');

my $copy = join('',
	map {
		my $g = $_;
		join("\t", $g, map { $g % 40 >= $_ ? $g * 1000 + $_ : '\N' } 1 .. $NCOLS)
		  . "\n"
	} ($NROWS + 1) .. ($NROWS + 500));
for my $t ('pk_slim', 'pk_heap', 'full_slim', 'full_heap')
{
	$pub->safe_psql(
		'postgres', qq{
INSERT INTO $t SELECT g, $values FROM generate_series($NROWS / 2 + 1, $NROWS) g;
COPY $t FROM STDIN;
$copy\\.
UPDATE $t SET c100 = -id WHERE id % 7 = 0;
UPDATE $t SET c2 = NULL WHERE id % 11 = 0;
UPDATE $t SET c100 = NULL WHERE id % 21 = 0;
DELETE FROM $t WHERE id % 13 = 0;
DELETE FROM $t WHERE id % 40 = 0;
});
}
$pub->wait_for_catchup('wide');

for my $t ('pk_slim', 'pk_heap', 'full_slim', 'full_heap')
{
	my $q = "SELECT * FROM $t ORDER BY id";
	my $on_pub = $pub->safe_psql('postgres', $q);
	cmp_ok(length($on_pub), '>', 0, "publisher: $t is not empty");
	ok($sub->safe_psql('postgres', $q) eq $on_pub,
		"subscriber: $t holds what the publisher's $t holds");
}
(my $heap_twin = 'SELECT * FROM pk_heap ORDER BY id');
ok($pub->safe_psql('postgres', 'SELECT * FROM pk_slim ORDER BY id') eq
	  $pub->safe_psql('postgres', $heap_twin),
	'publisher: pk_slim holds what its heap twin holds');

# The slimheap tables store every row in the truncate form: on the
# publisher the ones it wrote, on the subscriber the ones the apply worker
# wrote.
for my $case ([ $pub, 'pk_slim' ], [ $pub, 'full_slim' ], [ $sub, 'pk_heap' ],
	[ $sub, 'full_heap' ])
{
	my ($node, $t) = @$case;
	is( $node->safe_psql('postgres',
			"SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '$t'::regclass"),
		'slimheap',
		$node->name . ": $t uses slimheap");
	my ($total, $bad_natts, $bad_hasnull, $bad_hoff) = split /\|/,
	  $node->safe_psql('postgres', stored_forms_check_sql($t, $NCOLS, 1));
	is($total, $node->safe_psql('postgres', "SELECT count(*) FROM $t"),
		$node->name . ": every row of $t was inspected");
	is("$bad_natts/$bad_hasnull/$bad_hoff", '0/0/0',
		$node->name . ": the $total rows of $t are in the truncate form");
}

$sub->stop;
$pub->stop;
done_testing();
