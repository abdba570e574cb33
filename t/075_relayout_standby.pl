# Copyright (c) slimheap contributors
#
# What compact's WAL does to the queries of a hot standby
# (docs/reliability.md, "Standby queries").  The redo of slimheap's
# re-layout record takes a cleanup lock of its page, as the redo of heap's
# pruning does, and removes no row: it can conflict with a standby query
# only through a buffer pin, never through a snapshot.  On a standby with
# max_standby_streaming_delay = 2s, while the primary compacts a table
# that was adopted from heap:
#   - queries that read the table and end (a loop of scans) run without
#     error all along, and none is cancelled;
#   - a cursor parked on the table's first page holds replay up for the
#     delay, then its session is ended for holding a buffer pin
#     (pg_stat_database_conflicts counts it, the log says so);
#   - replay then goes on: the standby returns the primary's rows.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;
use Time::HiRes ();

my $defs = wide_column_defs(300);
my $values = join(', ',
	map { "CASE WHEN $_ IN (3, 77, 150, 222, 300) THEN g * 1000 + $_ END" } 1 .. 300);

sub rows_of
{
	my ($node) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) || ':' || md5(string_agg(t::text, ',' ORDER BY id)) FROM t");
}

my $primary = slim_node('primary', allows_streaming => 1);
$primary->start;
$primary->backup('empty');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'empty', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"max_standby_streaming_delay = 2s\nhot_standby_feedback = off");
$standby->start;

$primary->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE TABLE t (id int PRIMARY KEY, $defs) USING heap;
INSERT INTO t SELECT g, $values FROM generate_series(1, 20000) g;
VACUUM t;
});
my ($ret, $stdout, $stderr) = $primary->psql('postgres', "CALL slimheap.adopt('t', 'compress')");
is($ret, 0, 'the heap table is adopted');
$primary->wait_for_catchup($standby, 'replay');

# on the standby: a reader whose scans end, and a cursor parked on page 0.
# When replay's wait for its cleanup lock runs out, PostgreSQL cancels the
# statements that hold a pin on that page at that instant: the parked
# cursor's, and a scan of the reader's too if it is passing the page just
# then (as heap's VACUUM replay would).  The reader's scans are top-level
# statements, so such a cancel ends that scan only.
my $reader = $standby->background_psql('postgres', on_error_stop => 0);
$reader->query_until(qr/reading/,
	"\\echo reading\n"
	  . join('', map { "SELECT count(*) FROM t;\nSELECT pg_sleep(0.1);\n" } 1 .. 60)
	  . "\\echo read\n");
my $parked = $standby->background_psql('postgres', on_error_stop => 0);
# a synchronized scan would start where the reader's scan is: page 0 it is
$parked->query_safe('SET synchronize_seqscans = off');
$parked->query_safe('BEGIN; DECLARE c CURSOR FOR SELECT id FROM t');
is($parked->query_safe('FETCH 1 FROM c'), '1', 'a cursor is parked on the first page');
my $conflicts_sql =
  "SELECT confl_bufferpin FROM pg_stat_database_conflicts WHERE datname = 'postgres'";
my $conflicts_before = $standby->safe_psql('postgres', $conflicts_sql);

# (the limit counts from the WAL's receipt, which may come a little before
# replay reaches the record: more than 1.5 s shows the wait, none would
# take a tenth of that)
my $start = Time::HiRes::time();
($ret, $stdout, $stderr) = $primary->psql('postgres', "CALL slimheap.compact('t')");
is($ret, 0, 'compact runs on the primary');
$primary->wait_for_catchup($standby, 'replay');
my $took = sprintf('%.1f', Time::HiRes::time() - $start);
cmp_ok($took, '>=', 1.5,
	"replay waited for the parked cursor's pin ($took s with compact)");

my $reader_out = $reader->query_until(qr/^read$/m, '');
my $reader_err = $reader->{stderr} // '';
$reader->quit;
# what is left once the cancels of a scan for a buffer pin are taken out
(my $other_errors = $reader_err) =~
  s/[^\n]*ERROR:  canceling statement due to conflict with recovery\n[^\n]*DETAIL:  User was holding shared buffer pin for too long\.\n//g;
unlike($other_errors, qr/ERROR|FATAL/,
	'the reader\'s scans ran without error, but a buffer pin conflict\'s');
like($reader_out, qr/^read$/m, 'its session ran to its end');

cmp_ok($standby->safe_psql('postgres', $conflicts_sql), '>', $conflicts_before,
	'the parked cursor\'s session was ended for a buffer pin conflict');
like(slurp_file($standby->logfile), qr/User was holding shared buffer pin for too long/,
	'and the standby\'s log says so');
is(rows_of($standby), rows_of($primary), "the standby returns the primary's rows");

$standby->stop;
$primary->stop;
done_testing();
