/* slimheap--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION slimheap" to load this file. \quit

CREATE FUNCTION slimheap_tableam_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE ACCESS METHOD slimheap TYPE TABLE HANDLER slimheap_tableam_handler;
COMMENT ON ACCESS METHOD slimheap IS 'heap storage with truncated NULL bitmaps';

-- ---------------------------------------------------------------------------
-- Introspection and advice (docs/inspect.md; src/slim_stats.c,
-- src/slim_estimate.c, src/slim_page_items.c):
--   stats(regclass)             what slimheap saved on a slimheap table
--   estimate(regclass, int)     what it would save on a heap table (or any
--                               table storing heap tuples), per mode
--   page_items(regclass, int8)  the rows of one page of a slimheap table
-- Like pgstattuple's, these read every row: only superusers and members of
-- pg_stat_scan_tables may run them.  PARALLEL RESTRICTED: a parallel worker
-- cannot read the leader's temporary tables.
-- ---------------------------------------------------------------------------
CREATE FUNCTION stats(rel regclass,
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
	OUT saved_percent numeric)
RETURNS record
AS 'MODULE_PATHNAME', 'slimheap_stats'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- sample_rows NULL: read every row
CREATE FUNCTION estimate(rel regclass, sample_rows integer DEFAULT 30000,
	OUT mode text,
	OUT sampled_rows bigint,
	OUT sampled_pages bigint,
	OUT full_scan boolean,
	OUT total_rows bigint,
	OUT toasted_rows bigint,
	OUT current_bytes bigint,
	OUT projected_pages bigint,
	OUT projected_bytes bigint,
	OUT saved_bytes bigint,
	OUT saved_percent numeric)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'slimheap_estimate'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 2;

CREATE FUNCTION page_items(rel regclass, blkno bigint,
	OUT lp integer,
	OUT lp_off integer,
	OUT lp_flags text,
	OUT lp_len integer,
	OUT form text,
	OUT natts integer,
	OUT t_hoff integer,
	OUT has_bitmap boolean,
	OUT problem text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'slimheap_page_items'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED ROWS 100;

-- members of pg_stat_scan_tables reach the functions through the schema
GRANT USAGE ON SCHEMA @extschema@ TO pg_stat_scan_tables;
REVOKE ALL ON FUNCTION stats(regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION estimate(regclass, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION page_items(regclass, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION stats(regclass) TO pg_stat_scan_tables;
GRANT EXECUTE ON FUNCTION estimate(regclass, integer) TO pg_stat_scan_tables;
GRANT EXECUTE ON FUNCTION page_items(regclass, bigint) TO pg_stat_scan_tables;

-- options (src/slim_options_ddl.c): a session that loads the library only
-- after a statement started cannot take that statement's slimheap.* options
-- out before core sees them; stop such statements with an error that says
-- to preload the library.
CREATE FUNCTION slimheap_options_guard()
RETURNS event_trigger
AS 'MODULE_PATHNAME', 'slimheap_options_guard'
LANGUAGE C;

CREATE EVENT TRIGGER slimheap_options_guard ON ddl_command_start
    WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
                 'CREATE MATERIALIZED VIEW', 'CREATE VIEW', 'CREATE INDEX',
                 'CREATE SCHEMA', 'ALTER TABLE', 'ALTER MATERIALIZED VIEW',
                 'ALTER VIEW', 'ALTER INDEX')
    EXECUTE FUNCTION slimheap_options_guard();

-- reliability: slimheap.verify(), the integrity check of stored tuples
-- (src/slim_verify.c, docs/reliability.md).  Like amcheck's verify_heapam it
-- reads every page of the table, so it is for superusers and members of
-- pg_stat_scan_tables only.
CREATE FUNCTION verify(rel regclass,
					   blkno OUT bigint, offnum OUT integer, msg OUT text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'slimheap_verify'
LANGUAGE C STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION verify(regclass) IS
	'check the stored form of every tuple of a slimheap or heap table; one row per problem';
REVOKE ALL ON FUNCTION verify(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION verify(regclass) TO pg_stat_scan_tables;
