
# Copyright (c) slimheap contributors
#
# No SQL of slimheap's can be hijacked (docs/security.md).  An ordinary
# role with CREATE on schema public (what databases upgraded from
# PostgreSQL 14 or older still grant) plants operators for every type that
# slimheap's code and script compare, and functions that shadow the ones
# they call; every planted function records its calls.  A superuser then
# runs every SQL-callable function of the extension and the DDL the utility
# hook handles, with the default search_path and with public before
# pg_catalog, and nothing planted may have run.  The same on a database
# that had 1.0 and was updated with ALTER EXTENSION slimheap UPDATE, whose
# functions must then carry what a new install of the newest version gives
# them.

use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $node = slim_node('hostile');
$node->start;

# the types the queries of 1.0 and of the extension script compare, and
# the operators a query could name for them
my @types = ('name', 'text', 'oid', 'regclass', 'int8', 'bool', '"char"');
my @ops = ('=', '<>', '<', '>', '<=', '>=', '~', '!~', '~~', '!~~');
my @pairs = ((map { [ $_, $_ ] } @types), [ 'name', 'text' ], [ 'text', 'name' ]);

# functions that slimheap's SQL called or calls, shadowed with the same
# arguments (they win over pg_catalog's when public comes first)
my @shadows = (
	[ 'pg_is_other_temp_schema', 'oid', 'bool', 'false' ],
	[ 'pg_get_function_identity_arguments', 'oid', 'text', "''" ],
	[ 'format', 'text', 'text', "''" ],
	[ 'quote_ident', 'text', 'text', "''" ],
	[ 'regexp_match', 'text, text', 'text[]', 'NULL' ],
	[ 'textcat', 'text, text', 'text', "''" ],
	[ 'nameeq', 'name, name', 'bool', 'false' ],
	[ 'pg_relation_size', 'regclass', 'int8', '0' ],);

sub plant_sql
{
	my @sql = (
		'CREATE TABLE public.planted_calls (fn text, caller name, at timestamptz DEFAULT now())',
		'GRANT INSERT ON public.planted_calls TO PUBLIC');
	my $i = 0;
	foreach my $p (@pairs)
	{
		my ($l, $r) = @$p;
		foreach my $op (@ops)
		{
			$i++;
			push @sql, qq{CREATE FUNCTION public.planted_op_$i($l, $r) RETURNS bool
			  LANGUAGE plpgsql AS \$\$ BEGIN
			    INSERT INTO public.planted_calls (fn, caller)
			      VALUES ('$l $op $r', current_user);
			    RETURN false; END \$\$},
			  qq{CREATE OPERATOR public.$op (LEFTARG = $l, RIGHTARG = $r,
			       FUNCTION = public.planted_op_$i)};
		}
	}
	foreach my $s (@shadows)
	{
		my ($fn, $args, $ret, $value) = @$s;
		push @sql, qq{CREATE FUNCTION public.$fn($args) RETURNS $ret
		  LANGUAGE plpgsql AS \$\$ BEGIN
		    INSERT INTO public.planted_calls (fn, caller) VALUES ('$fn', current_user);
		    RETURN $value; END \$\$};
	}
	# concat(VARIADIC "any") and aclexplode's OUT columns, in plpgsql's terms
	push @sql, q{CREATE FUNCTION public.concat(VARIADIC text[]) RETURNS text
	  LANGUAGE plpgsql AS $$ BEGIN
	    INSERT INTO public.planted_calls (fn, caller) VALUES ('concat', current_user);
	    RETURN ''; END $$},
	  q{CREATE FUNCTION public.aclexplode(aclitem[], OUT grantor oid, OUT grantee oid,
	      OUT privilege_type text, OUT is_grantable bool) RETURNS SETOF record
	  LANGUAGE plpgsql AS $$ BEGIN
	    INSERT INTO public.planted_calls (fn, caller) VALUES ('aclexplode', current_user);
	    END $$};
	return join(";\n", @sql) . ';';
}

# what the superuser runs: every SQL-callable function, the DDL paths of
# the utility hook, index builds and rewrites of every mode
my $victim_sql = q{
CREATE TABLE hs_heap (id int PRIMARY KEY, a int, b text, c int, d int);
INSERT INTO hs_heap SELECT g, g, NULL, NULL, CASE WHEN g % 3 = 0 THEN g END
  FROM generate_series(1, 3000) g;
CREATE TABLE hs_slim (LIKE hs_heap) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO hs_slim SELECT * FROM hs_heap;
CREATE INDEX ON hs_slim (d);
ALTER TABLE hs_slim ADD PRIMARY KEY (id);
CREATE TABLE hs_ctas USING slimheap WITH (slimheap.null_bitmap = truncate)
  AS SELECT * FROM hs_heap;
ALTER TABLE hs_ctas SET (slimheap.null_bitmap = compress);
ALTER TABLE hs_ctas RESET (slimheap.null_bitmap);
ALTER TABLE hs_ctas SET ACCESS METHOD heap;
ALTER TABLE hs_ctas SET ACCESS METHOD slimheap, SET (slimheap.null_bitmap = truncate);
UPDATE hs_slim SET c = id WHERE id % 7 = 0;
DELETE FROM hs_slim WHERE id % 11 = 0;
VACUUM FULL hs_slim;
CLUSTER hs_slim USING hs_slim_pkey;
SELECT count(*) FROM slimheap.stats('hs_slim');
SELECT count(*) FROM slimheap.estimate('hs_heap', NULL);
SELECT count(*) FROM slimheap.estimate('hs_slim');
SELECT count(*) FROM slimheap.page_items('hs_slim', 0);
SELECT count(*) FROM slimheap.verify('hs_slim');
SELECT count(*) FROM slimheap.advise(0, 100, NULL, '0 s');
SELECT count(*) FROM slimheap.advise(0, 100, '{public}', NULL);
DROP TABLE hs_heap, hs_slim, hs_ctas;
};

sub planted_calls
{
	my ($db) = @_;
	return $node->safe_psql($db,
		q{SELECT coalesce(string_agg(DISTINCT fn, '; '), '') FROM public.planted_calls});
}

# a database set up as an upgraded one is, with the plants in place
sub hostile_db
{
	my ($db, $install) = @_;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, 'GRANT CREATE ON SCHEMA public TO PUBLIC');
	$node->safe_psql($db, plant_sql(), extra_params => [ '-U', 'mallory' ]);

	# the plants work: an unqualified comparison of the kind advise() made
	# in 1.0, and one with public first, run them
	$node->safe_psql($db, q{SELECT 'pg_toast'::name !~ '^pg_toast_temp_'});
	$node->safe_psql($db,
		q{SET search_path = public, pg_catalog; SELECT 'a'::name <> 'b'::name, pg_is_other_temp_schema(0)});
	is(planted_calls($db), 'name !~ name; name <> name; pg_is_other_temp_schema',
		"$db: the planted operators and functions catch unqualified SQL");
	$node->safe_psql($db, 'TRUNCATE public.planted_calls');

	# the install itself, from a session whose path puts public first
	$node->safe_psql($db, "SET search_path = public, pg_catalog; $install");
	is(planted_calls($db), '', "$db: installing ran nothing planted");
}

sub check_victim
{
	my ($db) = @_;
	foreach my $path ('"$user", public', 'public, pg_catalog')
	{
		my ($ret, $out, $err) = $node->psql($db,
			"SET client_min_messages = warning; SET search_path = $path; $victim_sql",
			on_error_stop => 1);
		is($ret, 0, "$db, search_path $path: every function and DDL path ran")
		  or diag($err);
		is(planted_calls($db), '', "$db, search_path $path: nothing planted ran");
		$node->safe_psql($db, 'TRUNCATE public.planted_calls');
	}
}

$node->safe_psql('postgres', 'CREATE ROLE mallory LOGIN');

# 1. a new install of the current version
hostile_db('hs_new', 'CREATE EXTENSION slimheap');
check_victim('hs_new');

# 2. 1.0, then ALTER EXTENSION UPDATE
hostile_db('hs_upd', q{CREATE EXTENSION slimheap VERSION '1.0'});
# a table without a stored mode (as 1.0's RESET left one), so that the
# update's loop that stores it runs under the hostile path too
$node->safe_psql('hs_upd', q{
CREATE TABLE hs_legacy (a int, b int) USING slimheap;
UPDATE pg_class SET reloptions = NULL WHERE oid = 'hs_legacy'::regclass::oid;
});
$node->safe_psql('hs_upd', 'TRUNCATE public.planted_calls');
my $config_sql = q{
SELECT p.proname || ': ' || coalesce(array_to_string(p.proconfig, ' '), '-')
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
       AND d.classid = 'pg_proc'::regclass::oid
 WHERE d.refclassid = 'pg_extension'::regclass::oid AND d.deptype = 'e'
   AND d.refobjid = (SELECT e.oid FROM pg_extension e WHERE e.extname = 'slimheap')
 ORDER BY p.proname};
my $old = $node->safe_psql('hs_upd', $config_sql);
like($old, qr/^advise: -$/m, '1.0: advise() has no fixed search_path');
$node->safe_psql('hs_upd', 'SET search_path = public, pg_catalog; ALTER EXTENSION slimheap UPDATE');
is(planted_calls('hs_upd'), '', 'the update ran nothing planted');
is($node->safe_psql('hs_upd',
	q{SELECT reloptions::text FROM pg_class WHERE oid = 'hs_legacy'::regclass::oid}),
	'{slimheap.null_bitmap=truncate}', 'and stored the mode of the table that had none');
is($node->safe_psql('hs_upd', q{SELECT extversion FROM pg_extension WHERE extname = 'slimheap'}),
	'1.4', 'ALTER EXTENSION UPDATE reaches 1.4');
my $updated = $node->safe_psql('hs_upd', $config_sql);
is($updated, $node->safe_psql('hs_new', $config_sql),
	'the updated functions carry what a new install gives them');
is($updated, join("\n",
	'adopt: -',
	'advise: search_path=pg_catalog, pg_temp',
	'compact: -',
	'estimate: search_path=pg_catalog, pg_temp',
	'get_progress: search_path=pg_catalog, pg_temp',
	'page_items: search_path=pg_catalog, pg_temp',
	'record_full_rows: search_path=pg_catalog, pg_temp',
	'release: -',
	'slimheap_options_guard: -',
	'slimheap_tableam_handler: -',
	'stats: search_path=pg_catalog, pg_temp',
	'verify: search_path=pg_catalog, pg_temp'),
	'every function but the handler, the guard, adopt, compact and release (which commit, and run no SQL) has search_path = pg_catalog, pg_temp');
check_victim('hs_upd');

# 3. the statements advise() prints name exactly the table they convert
$node->safe_psql('hs_new', q{
CREATE SCHEMA "We ird";
CREATE TABLE "We ird"."T ""1""" (id int, a int, b int, c int, d int, e int, f int, g int, h int);
INSERT INTO "We ird"."T ""1""" (id) SELECT g FROM generate_series(1, 20000) g;
});
my $statement = $node->safe_psql('hs_new',
	q{SET search_path = public, pg_catalog; SELECT statement FROM slimheap.advise(0, 1000, '{We ird}')});
is($statement,
	q{CALL slimheap.adopt('"We ird"."T ""1"""', 'truncate'); CALL slimheap.compact('"We ird"."T ""1"""');},
	'the statement quotes and qualifies the name');
# each statement on its own (adopt and compact commit themselves)
foreach my $call (split /(?<=\);) /, $statement)
{
	$node->safe_psql('hs_new', "SET search_path = public, pg_catalog; $call");
}
is($node->safe_psql('hs_new',
		q{SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '"We ird"."T ""1"""'::regclass}),
	'slimheap', 'the statements adopt the table');
is(planted_calls('hs_new'), '', 'and nothing planted ran');

# 4. the extension's scripts name PostgreSQL's operators, functions and
# types with pg_catalog: no bare comparison operator outside comments and
# strings in the newest script and the update scripts
my $root = $ENV{TESTDIR} // '.';
foreach my $file ('slimheap--1.4.sql', 'slimheap--1.0--1.1.sql', 'slimheap--1.1--1.2.sql',
	'slimheap--1.2--1.3.sql', 'slimheap--1.3--1.4.sql')
{
	my $script = slurp_file("$root/$file");
	$script =~ s/--[^\n]*//g;
	$script =~ s/'(?:[^']|'')*'//g;
	# (what "=" stands in as syntax: SET search_path =, UPDATE ... SET and RAISE ... USING)
	$script =~ s/\b(?:SET search_path|SET reloptions|ERRCODE|MESSAGE|DETAIL|HINT) =//g;
	$script =~ s/OPERATOR\(pg_catalog\.[^)]+\)//g;
	my @bare = ($script =~ /(<>|!=|<=|>=|!~|~~|\|\||=|~)/g);
	is("@bare", '', "$file has no unqualified operator");
}

$node->stop;
done_testing();
