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
