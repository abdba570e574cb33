/* slimheap--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION slimheap" to load this file. \quit

CREATE FUNCTION slimheap_tableam_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE ACCESS METHOD slimheap TYPE TABLE HANDLER slimheap_tableam_handler;
COMMENT ON ACCESS METHOD slimheap IS 'heap storage with truncated NULL bitmaps';

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
