#
# Invariant C3 decided per write: a tail row inserted
# while logical decoding is on is logged by slimheap's own record for
# decoding, and a new row version of an UPDATE (which heap logs for
# decoding) gets no compressed tail, also in a session that formed rows
# before decoding switched on.
#
# PostgreSQL 19 turns logical decoding on while a logical slot exists, also
# under wal_level = replica (effective_wal_level): there the node runs with
# replica, one session inserts rows that get tails, a logical slot is
# created from another session, and the first session goes on writing
# (INSERT, COPY, INSERT ... ON CONFLICT, UPDATE) with the relation's cached
# facts of before.  On 15 to 18 wal_level = logical from the start.  Every
# row test_decoding decodes carries the values the table holds; inserted
# rows have tails before and after the slot, updated ones none.
#
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use lib "$FindBin::RealBin/fuzz";

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use SlimFuzz::Session;
use Test::More;

my $probe = PostgreSQL::Test::Cluster->new('probe');
my $at_run_time = $probe->pg_version->major >= 19;	# 19rc1 too

my $node = slim_node('node', allows_streaming => ($at_run_time ? 1 : 'logical'));
$node->start;
is( $node->safe_psql('postgres', 'SHOW wal_level'),
	$at_run_time ? 'replica' : 'logical',
	$at_run_time ? 'wal_level is replica (19)' : 'wal_level is logical (15-18)');

my $defs = join(', ', map { "c$_ int4" } 2 .. 100);
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE TABLE s (id int4 PRIMARY KEY, $defs) USING slimheap
  WITH (slimheap.null_bitmap = compress);
});

# one session for all the writes: its cached facts of s outlive the slot
my $sess = SlimFuzz::Session->new(
	psql => 'psql',
	host => $node->host,
	port => $node->port,
	dbname => 'postgres');
$sess->query_safe('SET client_min_messages = error');
$sess->query_safe(
	'INSERT INTO s (id, c2, c50, c100) SELECT g, g, g * 10, g FROM generate_series(1, 100) g');

# rows of s with a compressed tail, with id in [lo, hi]
sub tails
{
	my ($lo, $hi) = @_;
	return $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM generate_series(0::bigint, pg_relation_size('s') / 8192 - 1) b,
       slimheap.page_items('s', b) i, s q
 WHERE q.ctid = format('(%s,%s)', b, i.lp)::tid
   AND i.tail_encoding IS NOT NULL AND q.id BETWEEN $lo AND $hi});
}
is(tails(1, 100), 100,
	$at_run_time ? 'rows written before the slot have tails' : 'rows inserted under wal_level = logical have tails');

$node->safe_psql('postgres',
	"SELECT pg_create_logical_replication_slot('rt', 'test_decoding')");

# the same session goes on writing
$sess->query_safe(
	'INSERT INTO s (id, c2, c50, c100) SELECT g, g, g * 10, g FROM generate_series(101, 200) g');
$sess->query_safe("COPY s (id, c2, c50, c100) FROM STDIN;\n"
	  . join('', map { "$_\t$_\t" . ($_ * 10) . "\t$_\n" } 201 .. 210)
	  . "\\.");
$sess->query_safe(
	'INSERT INTO s (id, c2, c50, c100) VALUES (300, 300, 3000, 300), (150, 150, -1, 150) '
	  . 'ON CONFLICT (id) DO UPDATE SET c50 = EXCLUDED.c50');
$sess->query_safe('UPDATE s SET c60 = id WHERE id IN (120, 205)');
$sess->close;

is(tails(101, 300), 108,
	'rows inserted after the slot have tails, the 3 updated (150 by ON CONFLICT, 120, 205) none');

# the last decoded values of each row, against the table's
my %decoded;
for my $line (split /\n/,
	$node->safe_psql(
		'postgres', q{
SELECT data FROM pg_logical_slot_get_changes('rt', NULL, NULL,
       'include-xids', '0', 'skip-empty-xacts', '1')
 WHERE data LIKE 'table public.s: %'}))
{
	my ($id) = $line =~ /\bid\[integer\]:(\d+)/ or next;
	$decoded{$id} = join(' ', map { $line =~ /\b$_\[integer\]:(\S+)/ ? $1 : '?' }
		  qw(c2 c50 c60 c100));
}
is(scalar(keys %decoded), 111, 'every row written after the slot was decoded');
my %table = map { my @f = split /\|/; (shift(@f) => join(' ', map { $_ eq '' ? 'null' : $_ } @f)) }
  split /\n/,
  $node->safe_psql('postgres',
	'SELECT id, c2, c50, c60, c100 FROM s WHERE id > 100 ORDER BY id');
my @wrong = grep { ($decoded{$_} // '') ne ($table{$_} // '') } sort { $a <=> $b } keys %table;
is(scalar(@wrong), 0, 'every decoded row carries the values the table holds')
  or diag(join("\n", map { "id $_: decoded '" . ($decoded{$_} // '') . "', table '$table{$_}'" } @wrong[0 .. ($#wrong < 4 ? $#wrong : 4)]));

$node->stop;
done_testing();
