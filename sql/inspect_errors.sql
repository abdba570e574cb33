--
-- What the inspection functions refuse, and who may run them.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

CREATE TABLE ie_slim (a int4, b int4) USING slimheap;
INSERT INTO ie_slim (a) SELECT g FROM generate_series(1, 10) g;
CREATE TABLE ie_heap (a int4, b int4) USING heap;
INSERT INTO ie_heap (a) SELECT g FROM generate_series(1, 10) g;

-- Relations without rows of their own.
CREATE VIEW ie_view AS SELECT * FROM ie_slim;
CREATE INDEX ie_index ON ie_slim (a);
CREATE SEQUENCE ie_seq;
CREATE TABLE ie_parted (a int4) PARTITION BY RANGE (a);
CREATE TYPE ie_type AS (a int4);
SELECT * FROM slimheap.stats('ie_view');
SELECT * FROM slimheap.stats('ie_index');
SELECT * FROM slimheap.estimate('ie_seq');
SELECT * FROM slimheap.estimate('ie_parted');
SELECT * FROM slimheap.page_items('ie_type', 0);
SELECT * FROM slimheap.page_items('ie_view', 0);

-- stats() and page_items() read slimheap tables only; estimate() reads both.
SELECT * FROM slimheap.stats('ie_heap');
SELECT * FROM slimheap.page_items('ie_heap', 0);
SELECT mode, total_rows FROM slimheap.estimate('ie_heap');
SELECT mode, total_rows FROM slimheap.estimate('ie_slim');

-- sample_rows: from 1 to 10 million, or NULL for every row.  The memory an
-- estimate takes does not grow with it, but a larger sample is a full scan
-- in all but name.
SELECT * FROM slimheap.estimate('ie_heap', 0);
SELECT * FROM slimheap.estimate('ie_heap', 2147483647);
SELECT * FROM slimheap.estimate('ie_heap', 10000001);
SELECT mode, sampled_rows, full_scan FROM slimheap.estimate('ie_heap', 10000000);
SELECT mode, sampled_rows, full_scan FROM slimheap.estimate('ie_heap', NULL);

-- An OID without a relation (0, or a table dropped since) is the caller's
-- mistake: undefined_table naming the OID, not an internal error.
CREATE FUNCTION ie_error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE TABLE ie_dropped (a int4) USING slimheap;
SELECT 'ie_dropped'::regclass::oid AS ie_dropped_oid \gset
DROP TABLE ie_dropped;
SELECT f, CASE relid WHEN '0' THEN '0' ELSE '<dropped>' END AS relid,
       replace(ie_error_of(format(f, relid)), :'ie_dropped_oid', '<dropped>')
         AS error
  FROM unnest(ARRAY['SELECT * FROM slimheap.stats(%s)',
                    'SELECT * FROM slimheap.estimate(%s)',
                    'SELECT * FROM slimheap.estimate(%s, NULL)',
                    'SELECT * FROM slimheap.page_items(%s, 0)',
                    'SELECT * FROM slimheap.verify(%s)']) AS f,
       unnest(ARRAY['0', :'ie_dropped_oid']) AS relid
 ORDER BY 1, relid = '0' DESC;
DROP FUNCTION ie_error_of(text);

-- A NULL relation (to_regclass() of a name that does not exist) is an error
-- with a hint from every function, not a row of NULLs (stats() was STRICT)
-- or no row; so is page_items()'s NULL block number.
SELECT * FROM slimheap.stats(to_regclass('ie_no_such_table'));
SELECT * FROM slimheap.estimate(NULL);
SELECT * FROM slimheap.estimate(NULL, NULL);
SELECT * FROM slimheap.page_items(NULL, 0);
SELECT * FROM slimheap.page_items('ie_slim', NULL);
SELECT * FROM slimheap.verify(NULL);

-- Every function of the extension, its access method, its event trigger
-- and its view say what they are (\df+, \dx+): no member without a
-- comment (a view's row type, which 17 and later list as members too, is
-- described by the view's).
SELECT d.classid::regclass AS catalog, pg_describe_object(d.classid, d.objid, 0) AS member
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT e.oid FROM pg_extension e WHERE e.extname = 'slimheap')
   AND obj_description(d.objid, d.classid::regclass::name) IS NULL
   AND NOT EXISTS (SELECT 1 FROM pg_type t LEFT JOIN pg_type e ON e.oid = t.typelem
                    WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                      AND (t.typrelid <> 0 OR e.typrelid <> 0))
 ORDER BY 1, 2;

-- Nothing was changed by the failed calls.
SELECT count(*) FROM ie_slim;
SELECT live_rows, dead_rows FROM slimheap.stats('ie_slim');

-- Permissions.  stats() and estimate() show totals, like pgstattuple's
-- functions: for superusers and members of pg_stat_scan_tables, whoever owns
-- the table.  page_items() and verify() show facts about single rows (the
-- last set column, the length), which table and column privileges and row
-- security would hide: superusers only, as pageinspect's functions.
CREATE ROLE regress_inspect_plain;
CREATE ROLE regress_inspect_scanner IN ROLE pg_stat_scan_tables;
-- pg_monitor includes pg_stat_scan_tables; this one may not read ie_slim
CREATE ROLE regress_inspect_monitor IN ROLE pg_monitor;
-- (privileges and row security do not hide totals, as with pgstattuple)
ALTER TABLE ie_slim ENABLE ROW LEVEL SECURITY;

-- Every role may use the schema (for adopt(), which checks ownership),
-- and that does not open the functions.
SET ROLE regress_inspect_plain;
SELECT live_rows FROM slimheap.stats('ie_slim');
RESET ROLE;
GRANT USAGE ON SCHEMA slimheap TO regress_inspect_plain;
SET ROLE regress_inspect_plain;
SELECT live_rows FROM slimheap.stats('ie_slim');
SELECT mode, total_rows FROM slimheap.estimate('ie_heap');
SELECT count(*) FROM slimheap.page_items('ie_slim', 0);
RESET ROLE;
REVOKE USAGE ON SCHEMA slimheap FROM regress_inspect_plain;

SET ROLE regress_inspect_scanner;
SELECT live_rows FROM slimheap.stats('ie_slim');
SELECT mode, total_rows FROM slimheap.estimate('ie_heap');
SELECT count(*) FROM slimheap.page_items('ie_slim', 0);
SELECT count(*) FROM slimheap.verify('ie_slim');
RESET ROLE;

-- A pg_monitor member without SELECT on ie_slim: totals, but no row.
SET ROLE regress_inspect_monitor;
SELECT count(*) FROM ie_slim;
SELECT live_rows, live_bytes FROM slimheap.stats('ie_slim');
SELECT count(*) FROM slimheap.page_items('ie_slim', 0);
SELECT count(*) FROM slimheap.verify('ie_slim');
RESET ROLE;
-- EXECUTE granted (as a database installed before kept it): the functions
-- check for a superuser themselves, before they look at the relation
GRANT EXECUTE ON FUNCTION slimheap.page_items(regclass, bigint),
	slimheap.verify(regclass) TO regress_inspect_monitor;
SET ROLE regress_inspect_monitor;
SELECT count(*) FROM slimheap.page_items('ie_slim', 0);
SELECT count(*) FROM slimheap.verify('ie_slim');
SELECT count(*) FROM slimheap.page_items(0, 0);
RESET ROLE;
REVOKE EXECUTE ON FUNCTION slimheap.page_items(regclass, bigint),
	slimheap.verify(regclass) FROM regress_inspect_monitor;
ALTER TABLE ie_slim DISABLE ROW LEVEL SECURITY;

SELECT p.proname, r.rolname, has_function_privilege(r.oid, p.oid, 'EXECUTE')
  FROM pg_proc p, pg_roles r
 WHERE p.pronamespace = 'slimheap'::regnamespace
   AND p.proname IN ('stats', 'estimate', 'page_items', 'verify')
   AND r.rolname IN ('regress_inspect_plain', 'regress_inspect_scanner',
					 'regress_inspect_monitor')
 ORDER BY 1, 2;

DROP ROLE regress_inspect_plain;
DROP ROLE regress_inspect_scanner;
DROP ROLE regress_inspect_monitor;
DROP VIEW ie_view;
DROP TABLE ie_slim, ie_heap, ie_parted;
DROP SEQUENCE ie_seq;
DROP TYPE ie_type;
