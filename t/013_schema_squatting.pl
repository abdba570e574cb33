
# The extension's schema is its own.  CREATE EXTENSION slimheap reuses an
# existing schema "slimheap", so a role with CREATE on the database could
# prepare one with a function stats(text): a superuser's
# slimheap.stats('t') would then run it (a string literal prefers text over
# regclass).  The script refuses such a schema, with an error that says
# why and what to do, and installs nothing; once the schema is gone the
# extension installs and stats('t') is slimheap's own.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('squat');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'slimheap'");
$node->start;

my $squat_sql = q{
CREATE SCHEMA slimheap;
CREATE FUNCTION slimheap.stats(text) RETURNS TABLE (live_rows bigint)
  LANGUAGE sql AS $$ INSERT INTO public.squatter_log VALUES (current_user) RETURNING 42::bigint $$;
};

sub try_install
{
	my ($db) = @_;
	my ($ret, $stdout, $stderr) =
	  $node->psql($db, 'CREATE EXTENSION slimheap', extra_params => ['-v', 'VERBOSITY=verbose']);
	return ($ret, $stderr);
}

sub installed
{
	my ($db) = @_;
	return $node->safe_psql($db,
		"SELECT count(*) FROM pg_extension WHERE extname = 'slimheap'");
}

# 1. a schema owned by an unprivileged role
$node->safe_psql(
	'postgres', q{
CREATE ROLE squatter LOGIN;
CREATE DATABASE squat1;
GRANT CREATE ON DATABASE squat1 TO squatter;
});
$node->safe_psql('squat1',
	'CREATE TABLE squatter_log (who name); GRANT INSERT ON squatter_log TO PUBLIC;');
$node->safe_psql('squat1', $squat_sql, extra_params => [ '-U', 'squatter' ]);
my ($ret, $stderr) = try_install('squat1');
isnt($ret, 0, 'CREATE EXTENSION refuses a schema owned by another role');
like($stderr, qr/42501: schema "slimheap" already exists and is owned by role "squatter"/,
	'the error names the owner (insufficient_privilege)');
like($stderr, qr/HINT:  Drop or rename schema "slimheap"/, 'and says what to do');
is(installed('squat1'), '0', 'nothing is installed');

# 2. a superuser's schema that others may create objects in
$node->safe_psql(
	'postgres', q{
CREATE DATABASE squat2;
});
$node->safe_psql('squat2', 'CREATE SCHEMA slimheap; GRANT CREATE ON SCHEMA slimheap TO squatter;');
($ret, $stderr) = try_install('squat2');
isnt($ret, 0, 'CREATE EXTENSION refuses a schema open to CREATE by others');
like($stderr, qr/42501: schema "slimheap" already exists and other roles may create objects in it/,
	'the error says so');
is(installed('squat2'), '0', 'nothing is installed');

# 3. a superuser's schema that holds an overload of one of our functions
$node->safe_psql('postgres', 'CREATE DATABASE squat3');
$node->safe_psql('squat3', 'CREATE TABLE squatter_log (who name)');
$node->safe_psql('squat3', $squat_sql);
($ret, $stderr) = try_install('squat3');
isnt($ret, 0, 'CREATE EXTENSION refuses a schema holding a function of our names');
like($stderr, qr/42723: schema "slimheap" already holds functions named like slimheap's: slimheap\.stats\(text\)/,
	'the error lists the functions');
is(installed('squat3'), '0', 'nothing is installed');

# the way out: drop the schema, install, and stats('t') is ours.  t has 9
# columns, p3 .. p9 never set, so that its rows are truncated: a table of
# at most 8 attributes stores heap's full form in every mode
# (docs/narrow-slot.md).
$node->safe_psql('squat1', 'DROP SCHEMA slimheap CASCADE', extra_params => [ '-U', 'squatter' ]);
($ret, $stderr) = try_install('squat1');
is($ret, 0, 'CREATE EXTENSION works once the schema is gone');
is( $node->safe_psql(
		'squat1', q{
CREATE TABLE t (a int4, b int4, p3 int4, p4 int4, p5 int4, p6 int4, p7 int4,
  p8 int4, p9 int4) USING slimheap;
INSERT INTO t (a) SELECT g FROM generate_series(1, 5) g;
SELECT live_rows, truncated_rows FROM slimheap.stats('t');
}),
	'5|5',
	"slimheap.stats('t') with a literal is slimheap's own");
is($node->safe_psql('squat1', 'SELECT count(*) FROM squatter_log'),
	'0', "the squatter's function never ran");

# a schema the installing role owns itself (what a restore of pg_dump's
# output creates before CREATE EXTENSION) is fine
$node->safe_psql('postgres', 'CREATE DATABASE own');
$node->safe_psql('own', 'CREATE SCHEMA slimheap');
($ret, $stderr) = try_install('own');
is($ret, 0, "CREATE EXTENSION accepts the installing role's own empty schema");

$node->stop;
done_testing();
