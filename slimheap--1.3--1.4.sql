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
-- 1.4: the record of each narrow table's file that holds no short row,
-- which lets its scans take heap's rows with no check (docs/narrow-slot.md,
-- "The record of full files"); the library writes it when it makes a file.
-- Unlogged: never WAL-logged, so never published or decoded (a subscriber's
-- files are other files), unread on a standby, emptied by a crash, which
-- only costs the check again.  Not a configuration table: a dump must not
-- carry records that name this cluster's files.  No rights for PUBLIC.
CREATE UNLOGGED TABLE @extschema@.full_row_files (
	relid pg_catalog.oid PRIMARY KEY,
	spcoid pg_catalog.oid NOT NULL,
	relfilenode pg_catalog.oid NOT NULL,
	natts pg_catalog.int2 NOT NULL
) USING heap;
COMMENT ON TABLE @extschema@.full_row_files IS
	'files of narrow slimheap tables that hold no row shorter than natts: their scans skip the check (written by the library)';
REVOKE ALL ON @extschema@.full_row_files FROM PUBLIC;

-- 1.4: check every row of a narrow table's file made before its record
-- could be (an older catalog or library, pg_upgrade, a crash), and record
-- it when none is short.  The table's owner calls it.
CREATE FUNCTION @extschema@.record_full_rows(rel pg_catalog.regclass)
RETURNS pg_catalog.bool
AS 'MODULE_PATHNAME', 'slimheap_record_full_rows'
LANGUAGE C STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.record_full_rows(pg_catalog.regclass) IS
	'reads every row of a narrow slimheap table under SHARE ROW EXCLUSIVE lock and, when none lacks an attribute, records its file so that its scans skip the check of each row';

CREATE FUNCTION @extschema@.start_tail_form() RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'slimheap_start_tail_form'
LANGUAGE C STRICT;
SELECT @extschema@.start_tail_form();
DROP FUNCTION @extschema@.start_tail_form();
