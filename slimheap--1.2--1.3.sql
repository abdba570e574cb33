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
-- 1.3: the way back (src/am/slim_release.c, docs/release.md): a
-- slimheap table becomes heap again, same file, its rows with a tail
-- re-laid (or stored again) first, online.
CREATE PROCEDURE @extschema@.release(rel pg_catalog.regclass,
	wait pg_catalog.interval DEFAULT '1 min')
AS 'MODULE_PATHNAME', 'slimheap_release'
LANGUAGE C;
-- (no SET search_path: a procedure with one cannot commit; it runs no SQL)
COMMENT ON PROCEDURE @extschema@.release(pg_catalog.regclass, pg_catalog.interval) IS
	'makes a slimheap table heap again, same file: its rows with a compressed tail re-laid in place (or stored again where their page has no room), online, then the catalog changed; waits at most wait for its locks and for older snapshots';
-- 1.3: what compact, VACUUM's re-layout and the index builds' re-layout
-- have done so far (src/am/slim_progress.c, docs/inspect.md), as
-- pg_stat_progress_vacuum shows VACUUM: every role may look; the figures
-- of other roles' sessions show only with pg_read_all_stats.
CREATE FUNCTION @extschema@.get_progress(
	OUT pid integer,
	OUT relid pg_catalog.regclass,
	OUT command pg_catalog.text,
	OUT phase pg_catalog.text,
	OUT pages_total bigint,
	OUT pages_done bigint,
	OUT rows_relaid bigint,
	OUT rows_moved bigint,
	OUT bytes_saved bigint)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'slimheap_get_progress'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.get_progress() IS
	'the passes over tables slimheap''s sessions of this database are making now: what the view slimheap.progress shows';
CREATE VIEW @extschema@.progress AS
	SELECT pid, relid, command, phase, pages_total, pages_done,
		   rows_relaid, rows_moved, bytes_saved
	  FROM @extschema@.get_progress();
COMMENT ON VIEW @extschema@.progress IS
	'one row per slimheap pass under way in this database: compact, VACUUM''s re-layout, an index build''s re-layout and moves';
GRANT SELECT ON @extschema@.progress TO PUBLIC;
-- 1.3: stats() also counts the rows compact would store shorter (two
-- columns at the end); a function's columns change only by drop and
-- create, with its privileges as they were.
DROP FUNCTION @extschema@.stats(pg_catalog.regclass);
CREATE FUNCTION @extschema@.stats(rel pg_catalog.regclass,
	OUT table_bytes bigint,
	OUT pages bigint,
	OUT live_rows bigint,
	OUT live_bytes bigint,
	OUT dead_rows bigint,
	OUT dead_bytes bigint,
	OUT free_bytes bigint,
	OUT full_rows bigint,
	OUT full_bytes bigint,
	OUT truncated_rows bigint,
	OUT truncated_bytes bigint,
	OUT heap_layout_bytes bigint,
	OUT saved_bytes bigint,
	OUT saved_percent numeric,
	OUT tail_rows bigint,
	OUT tail_bytes bigint,
	OUT tail_saved_bytes bigint,
	OUT relayable_rows bigint,
	OUT relayable_saved_bytes bigint)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'slimheap_stats'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.stats(pg_catalog.regclass) IS
	'what slimheap saved on a table: its rows by form, live, dead and free bytes, the bytes saved against heap''s layout, and the rows compact would store shorter';
REVOKE ALL ON FUNCTION @extschema@.stats(pg_catalog.regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.stats(pg_catalog.regclass) TO pg_stat_scan_tables;
-- Owners of tables call them: the schema is usable by every role.  Its other
-- members stay as they were: EXECUTE on the inspection functions is
-- revoked from PUBLIC, and the handler and the event trigger function
-- cannot be called from SQL.
GRANT USAGE ON SCHEMA @extschema@ TO PUBLIC;
