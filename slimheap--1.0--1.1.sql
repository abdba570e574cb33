/* slimheap--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION slimheap UPDATE TO '1.1'" to load this file. \quit

-- 1.1 fixes what PostgreSQL looks up by name while slimheap's functions run
-- (docs/security.md): whatever they resolve, they resolve in pg_catalog,
-- never in a schema that another role can create objects in.  The C code
-- of 1.1 runs no SQL at all; this gives the SQL-callable functions the
-- same search_path that a new CREATE EXTENSION gives them.  The access
-- method's handler and the event trigger's function keep the caller's
-- (slimheap--1.1.sql says why).
ALTER FUNCTION @extschema@.stats(pg_catalog.regclass)
	SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.estimate(pg_catalog.regclass, integer)
	SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.advise(bigint, integer, pg_catalog.name[], interval)
	SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.page_items(pg_catalog.regclass, bigint)
	SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.verify(pg_catalog.regclass)
	SET search_path = pg_catalog, pg_temp;

-- A slimheap table without a stored slimheap.null_bitmap (one created
-- before slimheap.default_null_bitmap existed, or after ALTER TABLE ...
-- RESET (slimheap.null_bitmap)) is truncate, but a dump would restore it
-- in the mode of the restoring database's setting.  1.1 stores the mode of
-- every slimheap table (RESET stores truncate); store it on those too.
-- The change is to the options only: rows keep their forms, and a change
-- of pg_class invalidates the tables' cached entries.
-- Each table is locked as ALTER TABLE ... SET (...) locks it, so that no
-- concurrent change of its options (or VACUUM) meets this one.
DO $store_mode$
DECLARE
	t record;
BEGIN
	FOR t IN
		SELECT c.oid, n.nspname, c.relname
		  FROM pg_catalog.pg_class c
		  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
		 WHERE c.relam OPERATOR(pg_catalog.=)
			   (SELECT a.oid FROM pg_catalog.pg_am a
				 WHERE a.amname OPERATOR(pg_catalog.=) 'slimheap'::pg_catalog.name)
		   AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,m}'::pg_catalog."char"[])
		   AND NOT pg_catalog.pg_is_other_temp_schema(c.relnamespace)
		   AND NOT EXISTS (SELECT FROM pg_catalog.unnest(c.reloptions) o
							WHERE pg_catalog.starts_with(o, 'slimheap.null_bitmap='))
		 ORDER BY c.oid
	LOOP
		EXECUTE pg_catalog.format('LOCK TABLE %I.%I IN SHARE UPDATE EXCLUSIVE MODE',
								  t.nspname, t.relname);
		-- (slimheap's entries come first, as the extension stores them)
		UPDATE pg_catalog.pg_class c
		   SET reloptions = pg_catalog.array_prepend('slimheap.null_bitmap=truncate'::pg_catalog.text,
													 c.reloptions)
		 WHERE c.oid OPERATOR(pg_catalog.=) t.oid
		   AND NOT EXISTS (SELECT FROM pg_catalog.unnest(c.reloptions) o
							WHERE pg_catalog.starts_with(o, 'slimheap.null_bitmap='));
	END LOOP;
END
$store_mode$;
