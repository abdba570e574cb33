/* slimheap--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION slimheap UPDATE TO '1.4'" to load this file. \quit

-- 1.4: a compressed tail may end with stored NULLs, so a column added with
-- ADD COLUMN ... DEFAULT no longer keeps every later row's prefix through
-- it (docs/fast-defaults.md).  The library writes that form only once the
-- catalog says 1.4: libraries of 1.2 and earlier, and 1.3 builds from
-- before its read path refused it, would misread it.  Update the library
-- on every server that reads the data (standbys, logical decoders), and
-- restart them, before running this.
--
-- Each backend reads the catalog's version when it computes a table's
-- cached facts; make every backend compute them again at its next use
-- (and this one, should this transaction roll back).  The call first
-- marks the WAL, before any row of the new form, so that a standby or a
-- recovery with an older library stops there instead of misreading them
-- (src/wal/slim_wal_format.c).
CREATE FUNCTION @extschema@.start_tail_form() RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'slimheap_start_tail_form'
LANGUAGE C STRICT;
SELECT @extschema@.start_tail_form();
DROP FUNCTION @extschema@.start_tail_form();
