
# Copyright (c) slimheap contributors
#
# A table's mode never drifts through a dump (docs/options.md).  A slimheap
# table with no stored slimheap.null_bitmap is truncate, but a restore
# would create it under the restoring database's slimheap.default_null_bitmap.
# Since 1.1 every slimheap table stores its mode: ALTER TABLE ... RESET
# (slimheap.null_bitmap) stores truncate, and ALTER EXTENSION slimheap
# UPDATE stores it on tables that have none (made before the setting
# existed, or reset under 1.0).  A database set up that way under 1.0 is
# updated, dumped with pg_dump -Fc and restored, with pg_restore -C under
# each setting and into databases of each setting: every table keeps its
# access method, options, rows and row forms.

use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('drift_src');
$node->start;

my $cols = join(', ', map { "w$_ int" } 1 .. 120);
my $values = 'SELECT i, '
  . join(', ', map { "CASE WHEN (i * 7 + $_ * 13) % 29 = 0 THEN i * 1000 + $_ END" } 1 .. 120)
  . ' FROM generate_series(1, 300) i';

$node->safe_psql('postgres', 'CREATE DATABASE legacy');
$node->safe_psql(
	'legacy', qq{
CREATE EXTENSION slimheap VERSION '1.0';
CREATE EXTENSION pageinspect;
CREATE TABLE t_old (id int, $cols) USING slimheap;
INSERT INTO t_old $values;
CREATE TABLE t_reset (id int, $cols) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE t_compress (id int, $cols) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO t_compress $values;
CREATE TABLE t_heap (id int, $cols) USING heap;
INSERT INTO t_heap $values;
});

# a table from before slimheap.default_null_bitmap: no entry at all (what
# 1.0's RESET also left)
$node->safe_psql('legacy',
	q{UPDATE pg_class SET reloptions = NULL WHERE oid = 't_old'::regclass});
my $opts_sql = q{SELECT c.relname || ' ' || a.amname || ' ' || coalesce(c.reloptions::text, '-')
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relname IN ('t_old', 't_reset', 't_compress', 't_heap') ORDER BY 1};
like($node->safe_psql('legacy', $opts_sql), qr/^t_old slimheap -$/m,
	'1.0: t_old has no stored mode');

# RESET stores truncate (the rows come after: written in its mode)
$node->safe_psql('legacy', 'ALTER TABLE t_reset RESET (slimheap.null_bitmap)');
$node->safe_psql('legacy', "INSERT INTO t_reset $values");
like($node->safe_psql('legacy', $opts_sql),
	qr/^t_reset slimheap \{slimheap.null_bitmap=truncate\}$/m,
	'RESET (slimheap.null_bitmap) stores truncate');

# the update stores it on tables without one
$node->safe_psql('legacy', 'ALTER EXTENSION slimheap UPDATE');
my $opts = $node->safe_psql('legacy', $opts_sql);
is($opts, join("\n",
	't_compress slimheap {slimheap.null_bitmap=compress}',
	't_heap heap -',
	't_old slimheap {slimheap.null_bitmap=truncate}',
	't_reset slimheap {slimheap.null_bitmap=truncate}'),
	'after ALTER EXTENSION UPDATE every slimheap table stores its mode');

# the database's own setting is dumped with -C; make it another mode
$node->safe_psql('postgres', q{
ALTER DATABASE legacy SET default_table_access_method = slimheap;
ALTER DATABASE legacy SET slimheap.default_null_bitmap = full;
});

my @tables = qw(t_old t_reset t_compress t_heap);
my $source = dump_fingerprint($node, 'legacy', $opts_sql, @tables);
my $dump = $node->basedir . '/legacy.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('legacy') ],
	'pg_dump -Fc');

my $target = slim_node('drift_dst');
$target->start;

sub restore
{
	my ($how, $pgoptions, @args) = @_;
	local $ENV{PGOPTIONS} = $pgoptions;
	my ($stdout, $stderr);
	my $ok = IPC::Run::run([ 'pg_restore', '--exit-on-error', @args, $dump ],
		'>', \$stdout, '2>', \$stderr);
	ok($ok, "$how: pg_restore succeeds") or diag($stderr);
}

foreach my $default ('full', 'truncate', 'compress')
{
	# -C: the dumped database, with its dumped settings, restored from a
	# session whose own setting is $default
	$target->safe_psql('postgres', 'DROP DATABASE IF EXISTS legacy');
	restore("-C, session setting $default", "-c slimheap.default_null_bitmap=$default",
		'-C', '-d', $target->connstr('postgres'));
	check_restored_fingerprint(dump_fingerprint($target, 'legacy', $opts_sql, @tables),
		$source, 'legacy', "-C under $default: the same access methods and modes", @tables);

	# into a database whose setting is $default
	my $db = "into_$default";
	$target->safe_psql('postgres', "CREATE DATABASE $db");
	$target->safe_psql('postgres', qq{
ALTER DATABASE $db SET default_table_access_method = slimheap;
ALTER DATABASE $db SET slimheap.default_null_bitmap = $default;
});
	restore("into a database of $default", '', '-d', $target->connstr($db));
	check_restored_fingerprint(dump_fingerprint($target, $db, $opts_sql, @tables),
		$source, $db, "into $default: the same access methods and modes", @tables);
}

$target->stop;
$node->stop;
done_testing();
