# Copyright (c) slimheap contributors
#
# compress keeps its tails under logical decoding (invariant C3,
# docs/format.md "Logical decoding").  A publisher with wal_level =
# logical that preloads slimheap writes W4-like rows (values of ten types
# past the prefix) into compress tables by INSERT ... SELECT, COPY, ON
# CONFLICT DO UPDATE and DO NOTHING, a rolled-back subtransaction, a
# streamed transaction (larger than logical_decoding_work_mem), prepared
# transactions (one left prepared across a crash) and a row with a TOASTed
# value; then UPDATEs and DELETEs of those rows.  Then:
#   - the rows are stored with tails (pageinspect);
#   - a pgoutput subscriber of heap tables (streaming, two_phase) holds
#     exactly the publisher's rows;
#   - every INSERT test_decoding decodes of the all-integer table carries
#     the values the table holds, and there is one per row;
#   - pg_recvlogical receives the same INSERTs as test_decoding through SQL;
#   - a streaming standby that preloads slimheap holds the same rows, and
#     the publisher after an immediate stop during a COPY (crash recovery)
#     too, without the COPY's rows;
#   - slimheap's own record is the one pg_waldump names.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest qw(:DEFAULT rows_of);
use Test::More;

my $NCOLS = 120;
my @types = qw(int4 text int8 uuid interval bool int2 numeric float8 date);
my $mixed_defs = join(', ', map { "c$_ $types[$_ % 10]" } 1 .. $NCOLS);
my $int_defs = wide_column_defs($NCOLS);

# the value of column i of row g, of its type; about 4 values a row
sub value_sql
{
	my ($i) = @_;
	my $t = $types[ $i % 10 ];
	my $v =
		$t eq 'text' ? "'v' || g || repeat('x', g % 20)"
	  : $t eq 'uuid' ? "md5(g::text || $i)::uuid"
	  : $t eq 'interval' ? "make_interval(days => g, secs => $i)"
	  : $t eq 'bool' ? "g % 2 = 0"
	  : $t eq 'numeric' ? "(g * 1.5 + $i)::numeric"
	  : $t eq 'float8' ? "g / 7.0::float8"
	  : $t eq 'date' ? "date '2026-01-01' + g"
	  : $t eq 'int2' ? "((g * 7 + $i) % 32000)::int2"
	  : "(g * 1000 + $i)::$t";
	return "CASE WHEN mod(g * 7 + $i * 13, 31) = 0 OR $i = 100 THEN $v END";
}
my $mixed_values = join(', ', map { value_sql($_) } 1 .. $NCOLS);
my $int_values = join(', ',
	map { "CASE WHEN mod(g * 7 + $_ * 13, 31) = 0 OR $_ = 100 THEN g * 1000 + $_ END" }
	  1 .. $NCOLS);
my $compress = "USING slimheap WITH (slimheap.null_bitmap = compress)";

my $pub = slim_node('publisher', allows_streaming => 'logical');
$pub->append_conf(
	'postgresql.conf', q{
max_prepared_transactions = 5
logical_decoding_work_mem = 64kB
});
$pub->start;
$pub->backup('empty');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($pub, 'empty', has_streaming => 1);
$standby->start;

$pub->safe_psql(
	'postgres', qq{
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;
CREATE TABLE tm (id int4 PRIMARY KEY, $mixed_defs) $compress;
CREATE TABLE ti (id int4 PRIMARY KEY, $int_defs) $compress;
CREATE TABLE tb (id int4 PRIMARY KEY, big text, $mixed_defs) $compress;
CREATE PUBLICATION tails FOR TABLE tm, ti, tb;
SELECT 'slot' FROM pg_create_logical_replication_slot('td', 'test_decoding');
SELECT 'slot' FROM pg_create_logical_replication_slot('rl', 'test_decoding');
});

my $sub = slim_node('subscriber');
$sub->append_conf('postgresql.conf', 'max_prepared_transactions = 5');
$sub->start;
$sub->safe_psql(
	'postgres', qq{
CREATE TABLE tm (id int4 PRIMARY KEY, $mixed_defs);
CREATE TABLE ti (id int4 PRIMARY KEY, $int_defs);
CREATE TABLE tb (id int4 PRIMARY KEY, big text, $mixed_defs);
CREATE SUBSCRIPTION tails CONNECTION '@{[ $pub->connstr ]} dbname=postgres'
  PUBLICATION tails WITH (streaming = on, two_phase = on);
});
$sub->wait_for_subscription_sync($pub, 'tails');

my $copy_file = $pub->basedir . '/rows.copy';
$pub->safe_psql(
	'postgres', qq{
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(1, 500) g;
INSERT INTO ti SELECT g, $int_values FROM generate_series(1, 500) g;
COPY (SELECT g, $mixed_values FROM generate_series(501, 900) g) TO '$copy_file';
COPY tm FROM '$copy_file';
COPY (SELECT g, $int_values FROM generate_series(501, 900) g) TO '$copy_file';
COPY ti FROM '$copy_file';
-- ON CONFLICT: new keys are speculative inserts, old ones updates
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(850, 1000) g
  ON CONFLICT (id) DO UPDATE SET c10 = -excluded.id, c60 = NULL;
INSERT INTO ti SELECT g, $int_values FROM generate_series(880, 1100) g
  ON CONFLICT (id) DO NOTHING;
-- a row with a TOASTed value: stored without a tail (C2)
INSERT INTO tb SELECT 1, (SELECT string_agg(md5(x::text), '') FROM generate_series(1, 3000) x),
  $mixed_values FROM generate_series(1, 1) g;
INSERT INTO tb SELECT g, 'small', $mixed_values FROM generate_series(2, 100) g;
});
# a rolled-back subtransaction between kept rows
$pub->safe_psql(
	'postgres', qq{
BEGIN;
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(2001, 2010) g;
SAVEPOINT s;
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(2011, 2020) g;
INSERT INTO ti SELECT g, $int_values FROM generate_series(2011, 2020) g;
ROLLBACK TO s;
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(2021, 2030) g;
COMMIT;
});
# a transaction larger than logical_decoding_work_mem: streamed
$pub->safe_psql('postgres',
	"INSERT INTO tm SELECT g, $mixed_values FROM generate_series(3001, 6000) g");
# a prepared transaction, committed
$pub->safe_psql(
	'postgres', qq{
BEGIN;
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(7001, 7100) g;
INSERT INTO ti SELECT g, $int_values FROM generate_series(7001, 7100) g;
PREPARE TRANSACTION 'p1';
COMMIT PREPARED 'p1';
});
# writes on tail rows: updates (their new rows have no tail) and deletes
$pub->safe_psql(
	'postgres', qq{
UPDATE tm SET c30 = id, c100 = NULL WHERE id % 9 = 0;
UPDATE tm SET id = id + 100000 WHERE id % 11 = 0;
DELETE FROM tm WHERE id % 13 = 0;
DELETE FROM tb WHERE id % 5 = 0;
});

my $tails = $pub->safe_psql('postgres',
	"SELECT count(*) FROM (@{[ page_items_sql('tm') ]}) i WHERE i.tail");
cmp_ok($tails, '>', 3000, "wal_level = logical: tm holds rows with tails ($tails)");
is( $pub->safe_psql(
		'postgres',
		"SELECT count(*) FILTER (WHERE i.tail) || '/' || count(*) FROM ti t JOIN (@{[ page_items_sql('ti') ]}) i ON i.tid = t.ctid"),
	$pub->safe_psql('postgres', 'SELECT count(*) || \'/\' || count(*) FROM ti'),
	'every row of ti has a tail');

$pub->wait_for_catchup('tails');
foreach my $t ('tm', 'ti', 'tb')
{
	is(rows_of($sub, $t), rows_of($pub, $t),
		"subscriber: $t holds the publisher's rows");
}
is($pub->safe_psql('postgres', "SELECT count(*) FROM (@{[ page_items_sql('tb') ]}) i WHERE i.tail AND i.lp = 1 AND i.blk = 0"),
	'0', 'the row with a TOASTed value has no tail');

# test_decoding: one INSERT for each row of ti (ti has inserts only), each
# with the table's values
$pub->safe_psql(
	'postgres', q{
CREATE TABLE decoded AS
  SELECT data FROM pg_logical_slot_peek_changes('td', NULL, NULL)
   WHERE data LIKE 'table public.ti: INSERT:%'});
is( $pub->safe_psql(
		'postgres', qq{
WITH expected AS (
  SELECT 'table public.ti: INSERT: id[integer]:' || t.id || ' ' ||
         (SELECT string_agg(format('c%s[integer]:%s', k,
                                   coalesce(to_jsonb(t) ->> ('c' || k), 'null')),
                            ' ' ORDER BY k)
            FROM generate_series(1, $NCOLS) k) AS data
    FROM ti t)
SELECT (SELECT count(*) FROM decoded) || ' ' ||
       (SELECT count(*) FROM (SELECT data FROM decoded EXCEPT ALL
                              SELECT data FROM expected) d) || ' ' ||
       (SELECT count(*) FROM (SELECT data FROM expected EXCEPT ALL
                              SELECT data FROM decoded) d)}),
	$pub->safe_psql('postgres', 'SELECT count(*) FROM ti') . ' 0 0',
	'test_decoding: one INSERT per row of ti, with the values the table holds');

# the standby replays heap's records and skips slimheap's
$pub->wait_for_catchup($standby);
foreach my $t ('tm', 'ti', 'tb')
{
	is(rows_of($standby, $t), rows_of($pub, $t),
		"standby: $t holds the publisher's rows");
}

# crash recovery, with a prepared transaction of tail rows in between and
# a COPY under way when the server stops (300,000 rows: long enough that
# the stop lands while it runs, also on a loaded machine)
$pub->safe_psql(
	'postgres', qq{
BEGIN;
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(8001, 8200) g;
PREPARE TRANSACTION 'p2';
INSERT INTO tm SELECT g, $mixed_values FROM generate_series(9001, 9200) g;
COPY (SELECT g, $mixed_values FROM generate_series(200001, 500000) g) TO '$copy_file';
});
my %before = map { $_ => rows_of($pub, $_) } ('tm', 'ti', 'tb');
my ($copy_out, $copy_err) = ('', '');
my $copy = IPC::Run::start(
	[ 'psql', '-X', '-d', $pub->connstr('postgres'), '-c', "COPY tm FROM '$copy_file'" ],
	'>', \$copy_out, '2>', \$copy_err);
$pub->poll_query_until('postgres',
	"SELECT EXISTS (SELECT FROM pg_stat_progress_copy WHERE tuples_processed > 1000)")
  or die 'the COPY did not start';
$pub->stop('immediate');
$copy->finish;
$pub->start;
foreach my $t ('tm', 'ti', 'tb')
{
	is(rows_of($pub, $t), $before{$t}, "after crash recovery $t holds its rows");
	is($pub->safe_psql('postgres', "SELECT count(*) FROM slimheap.verify('$t')"),
		'0', "verify($t) finds nothing after crash recovery");
}
$pub->safe_psql('postgres', "COMMIT PREPARED 'p2'");
$pub->wait_for_catchup('tails');
is(rows_of($sub, 'tm'), rows_of($pub, 'tm'),
	'subscriber: tm holds the publisher\'s rows after the crash and COMMIT PREPARED');
cmp_ok($pub->safe_psql('postgres', 'SELECT count(*) FROM tm WHERE id BETWEEN 8001 AND 8200'),
	'==', 200, 'the prepared rows are there');
is($pub->safe_psql('postgres', 'SELECT count(*) FROM tm WHERE id BETWEEN 200001 AND 500000'),
	'0', 'the COPY cut short by the stop left no row');

# pg_recvlogical, from a slot made at the start: the INSERTs of ti it
# receives are those test_decoding decoded through SQL
my $recv_file = $pub->basedir . '/recvlogical.out';
my $endpos = $pub->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my ($recv_out, $recv_err) = ('', '');
IPC::Run::run(
	[ 'pg_recvlogical', '-d', $pub->connstr('postgres'), '--slot', 'rl',
		'--start', '--endpos', $endpos, '--no-loop', '-f', $recv_file ],
	'>', \$recv_out, '2>', \$recv_err)
  or diag("pg_recvlogical: $recv_err");
my @received = sort grep { /^table public\.ti: INSERT:/ } split /\n/,
  slurp_file($recv_file);
my @decoded = sort split /\n/,
  $pub->safe_psql('postgres', 'SELECT data FROM decoded');
is(scalar(@received), scalar(@decoded),
	'pg_recvlogical: as many INSERTs of ti as test_decoding through SQL');
ok(join("\n", @received) eq join("\n", @decoded),
	'pg_recvlogical: the same INSERTs, with the same values');

# pg_waldump (a frontend program: it knows no custom resource manager's
# descriptions) lists slimheap's records as custom151, kind 0x10
my $waldump = $pub->config_data('--bindir') . '/pg_waldump';
my $waldir = $pub->data_dir . '/pg_wal';
opendir(my $dh, $waldir) or die "cannot open $waldir: $!";
my ($first_segment) = sort grep { /^[0-9A-F]{24}$/ } readdir($dh);
closedir($dh);
my ($stdout, $stderr);
IPC::Run::run([ $waldump, '-p', $waldir, '-r', 'custom151', $first_segment ],
	'>', \$stdout, '2>', \$stderr);
like($stdout // '', qr/rmgr: custom151 .* desc: UNKNOWN \(10\) rmid: 151/,
	'pg_waldump lists slimheap\'s insert records (custom151, kind 0x10)');

$sub->stop;
$standby->stop;
$pub->stop;
done_testing();
