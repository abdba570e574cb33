/* slimheap--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION slimheap" to load this file. \quit

CREATE FUNCTION slimheap_tableam_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE ACCESS METHOD slimheap TYPE TABLE HANDLER slimheap_tableam_handler;
COMMENT ON ACCESS METHOD slimheap IS 'heap storage with truncated NULL bitmaps';

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
