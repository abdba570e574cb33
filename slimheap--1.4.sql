/* slimheap--1.4.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION slimheap" to load this file. \quit

-- ---------------------------------------------------------------------------
-- The schema is the extension's own (docs/options.md, "The schema").  CREATE EXTENSION
-- reuses a schema of the control file's name that already exists, so refuse
-- one that someone else could have prepared: owned by another role (unless a
-- superuser), open to CREATE by other roles, or already holding a function of
-- one of our names (an overload such as stats(text) would win over
-- stats(regclass) for a call with a string literal, and run as the caller).
-- Every name below is qualified with @extschema@ (always "slimheap": the
-- control file fixes the schema and the extension is not relocatable), and
-- every operator, function and type of PostgreSQL's with pg_catalog: no
-- object that another role creates in any schema can take their place
-- (docs/security.md).  Every SQL-callable function but the access method's
-- handler carries SET search_path = pg_catalog, pg_temp, so that whatever
-- it looks up by name while it runs resolves to PostgreSQL's own objects.
-- ---------------------------------------------------------------------------
DO $check$
DECLARE
	nsp pg_catalog.oid;
	owner pg_catalog.oid;
	clash pg_catalog.text;
BEGIN
	SELECT n.oid, n.nspowner INTO nsp, owner
	  FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) '@extschema@';

	IF owner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
				  WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
	   AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r
				 WHERE r.oid OPERATOR(pg_catalog.=) owner) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'insufficient_privilege',
			MESSAGE = pg_catalog.format('schema "%s" already exists and is owned by role "%s"',
									   '@extschema@',
									   (SELECT r.rolname FROM pg_catalog.pg_roles r
										 WHERE r.oid OPERATOR(pg_catalog.=) owner)),
			DETAIL = 'slimheap installs only into a schema of its own: whoever owns the schema can create functions in it that calls of slimheap''s functions would run.',
			HINT = pg_catalog.format('Drop or rename schema "%s" (after checking what it holds), then run CREATE EXTENSION slimheap again.',
									'@extschema@');
	END IF;

	IF EXISTS (SELECT FROM pg_catalog.aclexplode(
					(SELECT n.nspacl FROM pg_catalog.pg_namespace n
					  WHERE n.oid OPERATOR(pg_catalog.=) nsp)) a
				WHERE a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
				  AND a.grantee OPERATOR(pg_catalog.<>) owner) THEN
		RAISE EXCEPTION USING
			ERRCODE = 'insufficient_privilege',
			MESSAGE = pg_catalog.format('schema "%s" already exists and other roles may create objects in it',
									   '@extschema@'),
			HINT = pg_catalog.format('REVOKE CREATE ON SCHEMA %s from every role but its owner, or drop the schema, then run CREATE EXTENSION slimheap again.',
									'@extschema@');
	END IF;

	SELECT pg_catalog.string_agg(pg_catalog.concat('@extschema@.', p.proname, '(',
								  pg_catalog.pg_get_function_identity_arguments(p.oid), ')'),
								  ', ' ORDER BY p.proname, p.oid)
	  INTO clash
	  FROM pg_catalog.pg_proc p
	 WHERE p.pronamespace OPERATOR(pg_catalog.=) nsp
	   AND p.proname OPERATOR(pg_catalog.=) ANY ('{slimheap_tableam_handler, stats, estimate,
						 advise, page_items, slimheap_options_guard, verify, get_progress,
						 adopt, compact, release, record_full_rows}'::pg_catalog.name[]);
	IF clash IS NOT NULL THEN
		RAISE EXCEPTION USING
			ERRCODE = 'duplicate_function',
			MESSAGE = pg_catalog.format('schema "%s" already holds functions named like slimheap''s: %s',
									   '@extschema@', clash),
			DETAIL = 'A call such as slimheap.stats(''t'') could run one of them instead of slimheap''s.',
			HINT = 'Drop or move those functions, then run CREATE EXTENSION slimheap again.';
	END IF;
END
$check$;

CREATE FUNCTION @extschema@.slimheap_tableam_handler(pg_catalog.internal)
RETURNS pg_catalog.table_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;
-- (no SET search_path: the handler runs no SQL and looks up nothing by
-- name, and the relation cache calls it for every slimheap table it loads)
COMMENT ON FUNCTION @extschema@.slimheap_tableam_handler(pg_catalog.internal) IS
	'table access method handler of slimheap: heap''s storage, rows formed with smaller NULL bitmaps';

CREATE ACCESS METHOD slimheap TYPE TABLE HANDLER @extschema@.slimheap_tableam_handler;
COMMENT ON ACCESS METHOD slimheap IS 'heap storage with truncated NULL bitmaps';

-- ---------------------------------------------------------------------------
-- Introspection and advice (docs/inspect.md; src/inspect/slim_stats.c,
-- slim_estimate.c, slim_advise.c, slim_page_items.c):
--   stats(regclass)             what slimheap saved on a slimheap table
--   estimate(regclass, int)     what it would save on a heap table (or any
--                               table storing heap tuples), per mode
--   advise(...)                 the tables worth converting, ranked
--   page_items(regclass, int8)  the rows of one page of a slimheap table
-- stats() and estimate() show totals, like pgstattuple's functions: for
-- superusers and members of pg_stat_scan_tables.  page_items() shows facts
-- about single rows (their last set column, their length) whatever the
-- table's privileges and row security policies allow, so, like
-- pageinspect's functions, it is for superusers only (it checks that itself
-- too).  PARALLEL RESTRICTED: a parallel worker cannot read the leader's
-- temporary tables.  A NULL relation is an error, not a row of NULLs or no
-- row: it comes from to_regclass() of a misspelt name more often than not.
-- ---------------------------------------------------------------------------
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

-- sample_rows NULL: read every row
CREATE FUNCTION @extschema@.estimate(rel pg_catalog.regclass, sample_rows integer DEFAULT 30000,
	OUT mode pg_catalog.text,
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
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'slimheap_estimate'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 3
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.estimate(pg_catalog.regclass, integer) IS
	'what a table would take in each slimheap mode, projected from a sample of its rows (sample_rows NULL: every row)';

-- every table of the current database the caller may read, ranked by what
-- a rewrite into its best mode would save (src/inspect/slim_advise.c); the
-- figures are estimate()'s on the same sample.  progress_after: a NOTICE per
-- table once the run has taken that long (NULL: never)
CREATE FUNCTION @extschema@.advise(min_saved_bytes bigint DEFAULT 1048576,
	sample_rows integer DEFAULT 30000,
	schemas pg_catalog.name[] DEFAULT NULL,
	progress_after interval DEFAULT '10 s',
	OUT rel pg_catalog.regclass,
	OUT access_method pg_catalog.text,
	OUT current_mode pg_catalog.text,
	OUT mode pg_catalog.text,
	OUT current_bytes bigint,
	OUT full_bytes bigint,
	OUT truncate_bytes bigint,
	OUT compress_bytes bigint,
	OUT saved_bytes bigint,
	OUT saved_percent numeric,
	OUT sampled_rows bigint,
	OUT total_rows bigint,
	OUT full_scan boolean,
	OUT rewrite_estimate interval,
	OUT statement pg_catalog.text)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'slimheap_advise'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.advise(bigint, integer, pg_catalog.name[], interval) IS
	'the tables of this database worth converting to slimheap (or to another mode), ranked by the bytes a rewrite would save, with the statement that converts each';

CREATE FUNCTION @extschema@.page_items(rel pg_catalog.regclass, blkno bigint,
	OUT lp integer,
	OUT lp_off integer,
	OUT lp_flags pg_catalog.text,
	OUT lp_len integer,
	OUT form pg_catalog.text,
	OUT natts integer,
	OUT t_hoff integer,
	OUT has_bitmap boolean,
	OUT problem pg_catalog.text,
	OUT tail_encoding pg_catalog.text,
	OUT stored_natts integer)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'slimheap_page_items'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL RESTRICTED ROWS 100
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.page_items(pg_catalog.regclass, bigint) IS
	'the items of one page of a slimheap or heap table: each row''s form, length and stored attributes (superusers only)';

-- members of pg_stat_scan_tables reach the functions through the schema
GRANT USAGE ON SCHEMA @extschema@ TO pg_stat_scan_tables;
REVOKE ALL ON FUNCTION @extschema@.stats(pg_catalog.regclass) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.estimate(pg_catalog.regclass, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.page_items(pg_catalog.regclass, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.stats(pg_catalog.regclass) TO pg_stat_scan_tables;
GRANT EXECUTE ON FUNCTION @extschema@.estimate(pg_catalog.regclass, integer) TO pg_stat_scan_tables;
REVOKE ALL ON FUNCTION @extschema@.advise(bigint, integer, pg_catalog.name[], interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @extschema@.advise(bigint, integer, pg_catalog.name[], interval) TO pg_stat_scan_tables;

-- options (src/options/slim_options_ddl.c): a session that loads the library only
-- after a statement started cannot take that statement's slimheap.* options
-- out before core sees them; stop such statements with an error that says
-- to preload the library.
CREATE FUNCTION @extschema@.slimheap_options_guard()
RETURNS pg_catalog.event_trigger
AS 'MODULE_PATHNAME', 'slimheap_options_guard'
LANGUAGE C;
-- (no SET search_path: the guard runs no SQL, and it must look up the
-- relation an ALTER TABLE names exactly as core will, by the statement's
-- own search_path)
COMMENT ON FUNCTION @extschema@.slimheap_options_guard() IS
	'event trigger function: stops a statement with slimheap options that reached a session which loaded slimheap too late to handle them';

CREATE EVENT TRIGGER slimheap_options_guard ON ddl_command_start
    WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
                 'CREATE MATERIALIZED VIEW', 'CREATE VIEW', 'CREATE INDEX',
                 'CREATE SCHEMA', 'ALTER TABLE', 'ALTER MATERIALIZED VIEW',
                 'ALTER VIEW', 'ALTER INDEX')
    EXECUTE FUNCTION @extschema@.slimheap_options_guard();
COMMENT ON EVENT TRIGGER slimheap_options_guard IS
	'stops DDL with slimheap options in a session that loaded slimheap too late for it (add slimheap to shared_preload_libraries)';

-- reliability: slimheap.verify(), the integrity check of stored tuples
-- (src/inspect/slim_verify.c, docs/reliability.md).  Its reports describe single
-- rows, so like page_items() it is for superusers only.
CREATE FUNCTION @extschema@.verify(rel pg_catalog.regclass,
					   blkno OUT bigint, offnum OUT integer, msg OUT pg_catalog.text)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'slimheap_verify'
LANGUAGE C CALLED ON NULL INPUT PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.verify(pg_catalog.regclass) IS
	'check the stored form of every tuple of a slimheap or heap table; one row per problem';
REVOKE ALL ON FUNCTION @extschema@.verify(pg_catalog.regclass) FROM PUBLIC;

-- Without the library in shared_preload_libraries (or
-- session_preload_libraries), a session loads it only when it first needs
-- it, too late for that statement's slimheap.* options: the guard above
-- then stops such statements with an error.  Say so now, once, with the fix.
DO $preload$
BEGIN
	IF NOT pg_catalog.concat_ws(',',
			pg_catalog.current_setting('shared_preload_libraries'),
			pg_catalog.current_setting('session_preload_libraries'))
		   OPERATOR(pg_catalog.~) '(^|[,/" ])slimheap("|,| |$)' THEN
		RAISE WARNING USING
			ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = 'slimheap is not in shared_preload_libraries',
			DETAIL = 'A session that loads the library only when it first needs it cannot handle that statement''s slimheap options, and stops it with an error.',
			HINT = 'Add slimheap to shared_preload_libraries in postgresql.conf and restart the server.';
	END IF;
END
$preload$;
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
-- Owners of tables call them: the schema is usable by every role.  Its other
-- members stay as they were: EXECUTE on the inspection functions is
-- revoked from PUBLIC, and the handler and the event trigger function
-- cannot be called from SQL.
GRANT USAGE ON SCHEMA @extschema@ TO PUBLIC;

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

-- 1.4: a compressed tail may end with stored NULLs (docs/fast-defaults.md).
-- Before any such row, mark the WAL, so that a standby or a recovery with
-- an older slimheap library stops there instead of misreading the rows
-- (src/wal/slim_wal_format.c); the call also makes every backend compute
-- its cached facts again.  As in the 1.3--1.4 script.
CREATE FUNCTION @extschema@.start_tail_form() RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'slimheap_start_tail_form'
LANGUAGE C STRICT;
SELECT @extschema@.start_tail_form();
DROP FUNCTION @extschema@.start_tail_form();
