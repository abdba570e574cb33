--
-- slimheap.default_null_bitmap: the mode of slimheap tables created without
-- slimheap.null_bitmap.  The mode in force is written into the new table's
-- reloptions; tables of other access methods get nothing.  Bad values,
-- session, per-database and per-role settings, and what CREATE TABLE (LIKE),
-- partitions, CREATE TABLE AS, SELECT INTO, materialized views and SET
-- ACCESS METHOD record.  (Dump and restore under another setting:
-- t/016_dump_default_null_bitmap.pl.)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;
CREATE SCHEMA slim_default;
SET search_path = slim_default, public;

-- reloptions and access method of every relation of this schema
CREATE FUNCTION show_tables() RETURNS TABLE (relname name, am name, reloptions text[])
LANGUAGE sql AS $$
  SELECT c.relname, a.amname, c.reloptions
    FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
   WHERE c.relnamespace = 'slim_default'::regnamespace AND c.relkind IN ('r', 'p', 'm')
   ORDER BY c.relname
$$;

-- the setting: its values, its default, and PostgreSQL's error for others
SELECT name, setting, boot_val, context, vartype, enumvals
  FROM pg_settings WHERE name = 'slimheap.default_null_bitmap';
SET slimheap.default_null_bitmap = bogus;
SET slimheap.default_null_bitmap = '';
ALTER DATABASE contrib_regression SET slimheap.default_null_bitmap = 'nulls';
ALTER ROLE CURRENT_USER SET slimheap.default_null_bitmap = 'nulls';
-- a misspelt name in the reserved prefix is refused too
SET slimheap.default_nul_bitmap = compress;
SHOW slimheap.default_null_bitmap;

-- the default: truncate, recorded
CREATE TABLE t_plain (a int, b int) USING slimheap;
-- case does not matter, as for the option itself
SET slimheap.default_null_bitmap = 'COMPRESS';
SHOW slimheap.default_null_bitmap;
CREATE TABLE t_compress (a int, b int) USING slimheap;
-- an explicit mode wins; other slimheap and core options are kept
CREATE TABLE t_explicit (a int) USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE t_others (a int) USING slimheap
  WITH (fillfactor = 70, slimheap.prefix_columns = 1);
-- a heap table gets nothing, and no warning
CREATE TABLE t_heap (a int) USING heap;
CREATE TABLE t_heap_default (a int);
-- CREATE TABLE AS, SELECT INTO, materialized views
CREATE TABLE t_ctas USING slimheap AS SELECT 1 AS a;
CREATE TABLE t_ctas_heap AS SELECT 1 AS a;
CREATE MATERIALIZED VIEW m_view USING slimheap AS SELECT 1 AS a;
CREATE TABLE t_explain USING slimheap AS SELECT 1 AS a WITH NO DATA;
-- (EXPLAIN's output differs between versions: run for its effect only)
DO $$ BEGIN
  EXECUTE 'EXPLAIN (ANALYZE) CREATE TABLE t_explain_analyze USING slimheap AS SELECT 1 AS a';
END $$;
-- IF NOT EXISTS on an existing table changes nothing
SET slimheap.default_null_bitmap = full;
CREATE TABLE IF NOT EXISTS t_compress (a int, b int) USING slimheap;
SET slimheap.default_null_bitmap = compress;
SELECT * FROM show_tables();

-- changing the setting later does not change existing tables
SET slimheap.default_null_bitmap = full;
SELECT relname, reloptions FROM show_tables() WHERE relname IN ('t_plain', 't_compress');
RESET slimheap.default_null_bitmap;

-- with default_table_access_method = slimheap, DDL that names neither
SET default_table_access_method = slimheap;
SET slimheap.default_null_bitmap = compress;
CREATE TABLE d_plain (a int, b int);
-- LIKE copies no access method and no reloptions: the setting's mode
CREATE TABLE d_like (LIKE t_explicit INCLUDING ALL);
CREATE TABLE d_like_heap (LIKE t_explicit) USING heap;
SELECT * INTO d_select_into FROM t_plain;
-- a partitioned table has no storage and gets nothing; its partitions are
-- created with the access method in force and get the setting's mode
CREATE TABLE d_parted (a int, b int) PARTITION BY RANGE (a);
CREATE TABLE d_part1 PARTITION OF d_parted FOR VALUES FROM (0) TO (10);
CREATE TABLE d_part2 PARTITION OF d_parted FOR VALUES FROM (10) TO (20) USING heap;
CREATE TABLE d_part3 PARTITION OF d_parted FOR VALUES FROM (20) TO (30)
  WITH (slimheap.null_bitmap = truncate);
-- a default partition, and a partition attached later keeps its own
CREATE TABLE d_part_default PARTITION OF d_parted DEFAULT;
SET slimheap.default_null_bitmap = full;
CREATE TABLE d_attached (a int, b int);
ALTER TABLE d_parted DETACH PARTITION d_part_default;
ALTER TABLE d_parted ATTACH PARTITION d_attached FOR VALUES FROM (30) TO (40);
RESET default_table_access_method;
SELECT * FROM show_tables() WHERE relname LIKE 'd\_%';

-- a table converted with SET ACCESS METHOD slimheap gets the setting's mode,
-- unless the statement sets one; one already slimheap keeps its own
CREATE TABLE c_heap1 (a int) WITH (fillfactor = 50);
CREATE TABLE c_heap2 (a int);
SET slimheap.default_null_bitmap = compress;
ALTER TABLE c_heap1 SET ACCESS METHOD slimheap;
ALTER TABLE c_heap2 SET ACCESS METHOD slimheap, SET (slimheap.null_bitmap = full);
ALTER TABLE t_plain SET ACCESS METHOD slimheap;
-- RESET goes back to truncate, the built-in default, not the setting's,
-- and stores it, so that a dump restores it as truncate under any setting
ALTER TABLE t_compress RESET (slimheap.null_bitmap);
-- and leaving slimheap drops the entry
ALTER TABLE c_heap2 SET ACCESS METHOD heap;
SELECT * FROM show_tables()
 WHERE relname IN ('c_heap1', 'c_heap2', 't_plain', 't_compress');
RESET slimheap.default_null_bitmap;

-- the rows of a table created under compress get compressed tails, with no
-- option in the DDL: 100 int columns, the 1st and the 90th set (W3's
-- shape: 48 bytes a row on the page in truncate form, 40 with a tail)
SET default_table_access_method = slimheap;
SET slimheap.default_null_bitmap = compress;
SELECT format('CREATE TABLE w_sparse (%s)',
              string_agg(format('c%s int', i), ', ' ORDER BY i))
  FROM generate_series(1, 100) i \gexec
RESET default_table_access_method;
RESET slimheap.default_null_bitmap;
INSERT INTO w_sparse (c1, c90) SELECT i, i FROM generate_series(1, 100) i;
SELECT form, lp_len, count(*) FROM slimheap.page_items('w_sparse', 0) GROUP BY 1, 2;
SELECT reloptions FROM pg_class WHERE oid = 'w_sparse'::regclass;

-- per database and per role: a database of its own, so that nothing here
-- outlives the test
CREATE DATABASE slim_default_db;
ALTER DATABASE slim_default_db SET slimheap.default_null_bitmap = compress;
CREATE ROLE regress_slim_default_role LOGIN;
ALTER ROLE regress_slim_default_role SET slimheap.default_null_bitmap = full;
\c slim_default_db
SET client_min_messages = warning;
CREATE EXTENSION slimheap;
RESET client_min_messages;
SHOW slimheap.default_null_bitmap;
CREATE TABLE db_table (a int) USING slimheap;
SELECT reloptions FROM pg_class WHERE relname = 'db_table';
GRANT CREATE ON SCHEMA public TO regress_slim_default_role;
\c - regress_slim_default_role
-- the role's setting wins over the database's
SHOW slimheap.default_null_bitmap;
CREATE TABLE role_table (a int) USING slimheap;
SELECT reloptions FROM pg_class WHERE relname = 'role_table';
-- and the session's over both
SET slimheap.default_null_bitmap = truncate;
CREATE TABLE session_table (a int) USING slimheap;
SELECT relname, reloptions FROM pg_class
 WHERE relname IN ('db_table', 'role_table', 'session_table') ORDER BY relname;
\c contrib_regression postgres
DROP DATABASE slim_default_db;
DROP ROLE regress_slim_default_role;

SET client_min_messages = warning;
DROP SCHEMA slim_default CASCADE;
