/* slimheap--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION slimheap UPDATE TO '1.3'" to load this file. \quit

-- 1.3: adopt a heap table without a rewrite (src/am/slim_adopt.c): its
-- access method and mode change in the catalog, its file stays.  The
-- procedure runs no SQL; the owner check is its own.
CREATE PROCEDURE @extschema@.adopt(rel pg_catalog.regclass,
	mode pg_catalog.text DEFAULT 'compress',
	wait pg_catalog.interval DEFAULT '1 min')
AS 'MODULE_PATHNAME', 'slimheap_adopt'
LANGUAGE C;
-- (no SET search_path: a procedure with one cannot commit; it runs no SQL)
COMMENT ON PROCEDURE @extschema@.adopt(pg_catalog.regclass, pg_catalog.text, pg_catalog.interval) IS
	'makes a heap table slimheap in mode, catalog only (same file, no row rewritten), waiting at most wait for its lock in short tries';
CREATE PROCEDURE @extschema@.compact(rel pg_catalog.regclass)
AS 'MODULE_PATHNAME', 'slimheap_compact'
LANGUAGE C;
-- (no SET search_path: a procedure with one cannot commit; it runs no SQL)
COMMENT ON PROCEDURE @extschema@.compact(pg_catalog.regclass) IS
	're-lays the rows of a slimheap table in place into its mode where that takes less room, page by page, committing every 1024 pages when called on its own';
-- Owners of tables call them: the schema is usable by every role.  Its other
-- members stay as they were: EXECUTE on the inspection functions is
-- revoked from PUBLIC, and the handler and the event trigger function
-- cannot be called from SQL.
GRANT USAGE ON SCHEMA @extschema@ TO PUBLIC;
