/* slimheap--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION slimheap" to load this file. \quit

CREATE FUNCTION slimheap_tableam_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE ACCESS METHOD slimheap TYPE TABLE HANDLER slimheap_tableam_handler;
COMMENT ON ACCESS METHOD slimheap IS 'heap storage with truncated NULL bitmaps';
