/* slimheap--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION slimheap UPDATE TO '1.2'" to load this file. \quit

-- 1.2: a NULL relation (or block number) is an error with a hint, not a
-- row of NULLs (stats) or no row (page_items, verify; estimate, which took
-- NULL already, now says so too): it comes from to_regclass() of a
-- misspelt name more often than not.  And every object of the extension
-- says what it is, for \df+ and \dx+.
ALTER FUNCTION @extschema@.stats(pg_catalog.regclass) CALLED ON NULL INPUT;
ALTER FUNCTION @extschema@.page_items(pg_catalog.regclass, bigint) CALLED ON NULL INPUT;
ALTER FUNCTION @extschema@.verify(pg_catalog.regclass) CALLED ON NULL INPUT;

COMMENT ON FUNCTION @extschema@.slimheap_tableam_handler(pg_catalog.internal) IS
	'table access method handler of slimheap: heap''s storage, rows formed with smaller NULL bitmaps';
COMMENT ON FUNCTION @extschema@.stats(pg_catalog.regclass) IS
	'what slimheap saved on a table: its rows by form, live, dead and free bytes, and the bytes saved against heap''s layout';
COMMENT ON FUNCTION @extschema@.estimate(pg_catalog.regclass, integer) IS
	'what a table would take in each slimheap mode, projected from a sample of its rows (sample_rows NULL: every row)';
COMMENT ON FUNCTION @extschema@.advise(bigint, integer, pg_catalog.name[], interval) IS
	'the tables of this database worth converting to slimheap (or to another mode), ranked by the bytes a rewrite would save, with the statement that converts each';
COMMENT ON FUNCTION @extschema@.page_items(pg_catalog.regclass, bigint) IS
	'the items of one page of a slimheap or heap table: each row''s form, length and stored attributes (superusers only)';
COMMENT ON FUNCTION @extschema@.slimheap_options_guard() IS
	'event trigger function: stops a statement with slimheap options that reached a session which loaded slimheap too late to handle them';
COMMENT ON EVENT TRIGGER slimheap_options_guard IS
	'stops DDL with slimheap options in a session that loaded slimheap too late for it (add slimheap to shared_preload_libraries)';
