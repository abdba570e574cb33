# Copyright (c) slimheap contributors
#
# A DDL script with slimheap options runs twice, as scripts do.  With
# wal_level = logical and slimheap not preloaded, setting
# slimheap.null_bitmap = compress gives a WARNING (invariant C3: no
# compressed tails in inserted rows while logical): once, when a
# table is created or altered with it, and never for a statement that
# creates nothing (CREATE ... IF NOT EXISTS of an existing table, EXPLAIN
# without ANALYZE).  The second run gets core's NOTICE, also for an option
# value this version does not know, and changes nothing.

use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

# slimheap loaded by each session, not preloaded: only then does it store
# no tails under logical decoding, and warn (t/065 has the preloaded case)
my $node = PostgreSQL::Test::Cluster->new('twice');
$node->init;
$node->append_conf('postgresql.conf',
	"wal_level = logical\nsession_preload_libraries = 'slimheap'\nautovacuum = off");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION slimheap');

my $script = q{
CREATE TABLE IF NOT EXISTS s (a int, b int) USING slimheap
  WITH (slimheap.null_bitmap = 'compress', fillfactor = 90);
CREATE TABLE IF NOT EXISTS s_as USING slimheap
  WITH (slimheap.null_bitmap = 'compress') AS SELECT 1 AS a;
CREATE MATERIALIZED VIEW IF NOT EXISTS s_mv USING slimheap
  WITH (slimheap.null_bitmap = 'compress') AS SELECT 1 AS a;
SELECT relname, reloptions FROM pg_class
 WHERE relname IN ('s', 's_as', 's_mv') ORDER BY relname;
};

my ($ret, $stdout, $stderr) = $node->psql('postgres', $script);
is($ret, 0, 'first run');
is( $stdout,
	"s|{slimheap.null_bitmap=compress,fillfactor=90}\n"
	  . "s_as|{slimheap.null_bitmap=compress}\n"
	  . "s_mv|{slimheap.null_bitmap=compress}",
	'first run: created with the options');
my @warnings = $stderr =~ /WARNING:  slimheap.null_bitmap = compress stores no compressed tails while (?:wal_level is logical|logical decoding is active)/g;
is(scalar @warnings, 3, 'first run: one WARNING for each table created');

($ret, $stdout, $stderr) = $node->psql('postgres', $script);
is($ret, 0, 'second run');
unlike($stderr, qr/WARNING/, 'second run: no WARNING');
is( $stderr =~ s/.*NOTICE:  //gmr,
	qq{relation "s" already exists, skipping\n}
	  . qq{relation "s_as" already exists, skipping\n}
	  . qq{relation "s_mv" already exists, skipping},
	'second run: core\'s NOTICE for each');

# an option value unknown here, the way a newer script may carry one
($ret, $stdout, $stderr) = $node->psql('postgres',
	q{CREATE TABLE IF NOT EXISTS s (a int, b int) USING slimheap WITH (slimheap.null_bitmap = 'zstd')});
is($ret, 0, 'IF NOT EXISTS of an existing table with an unknown value');
like($stderr, qr/NOTICE:  relation "s" already exists, skipping/,
	'core\'s NOTICE');

# EXPLAIN without ANALYZE creates nothing either
($ret, $stdout, $stderr) = $node->psql('postgres',
	q{EXPLAIN (COSTS OFF) CREATE TABLE s_ex USING slimheap WITH (slimheap.null_bitmap = 'compress') AS SELECT 1 AS a});
is($ret, 0, 'EXPLAIN CREATE TABLE AS');
unlike($stderr, qr/WARNING/, 'EXPLAIN CREATE TABLE AS: no WARNING');

# an ALTER that sets compress says so
($ret, $stdout, $stderr) = $node->psql('postgres',
	q{ALTER TABLE s SET (slimheap.null_bitmap = 'truncate');
	  ALTER TABLE s SET (slimheap.null_bitmap = 'compress')});
is($ret, 0, 'ALTER TABLE');
@warnings = $stderr =~ /WARNING:  slimheap.null_bitmap = compress/g;
is(scalar @warnings, 1, 'ALTER TABLE SET compress: the WARNING');

is( $node->safe_psql('postgres',
		"SELECT reloptions FROM pg_class WHERE relname = 's'"),
	'{slimheap.null_bitmap=compress,fillfactor=90}',
	'the options of the last ALTER');

$node->stop;
done_testing();
