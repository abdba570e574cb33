--
-- slimheap.default_null_bitmap: the mode of slimheap tables created without
-- slimheap.null_bitmap.  The mode in force is written into the new table's
-- reloptions; tables of other access methods get nothing.  Bad values,
-- session, per-database and per-role settings, and what CREATE TABLE (LIKE),
-- partitions, CREATE TABLE AS, SELECT INTO, materialized views and SET
-- ACCESS METHOD record.  The tables have 9 attributes or more: a narrow
-- table (8 or fewer) stores no mode until an ADD COLUMN makes it wide (the
-- last part).  (Dump and restore under another setting:
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
-- eight more columns make a table wide
\set wide 'c2 int, c3 int, c4 int, c5 int, c6 int, c7 int, c8 int, c9 int'
\set wide_row '1 AS a, 2 AS c2, 3 AS c3, 4 AS c4, 5 AS c5, 6 AS c6, 7 AS c7, 8 AS c8, 9 AS c9'

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
CREATE TABLE t_plain (a int, :wide) USING slimheap;
-- case does not matter, as for the option itself
SET slimheap.default_null_bitmap = 'COMPRESS';
SHOW slimheap.default_null_bitmap;
CREATE TABLE t_compress (a int, :wide) USING slimheap;
-- an explicit mode wins; other slimheap and core options are kept
CREATE TABLE t_explicit (a int, :wide) USING slimheap
  WITH (slimheap.null_bitmap = full);
CREATE TABLE t_others (a int, :wide) USING slimheap
  WITH (fillfactor = 70, slimheap.prefix_columns = 1);
-- a heap table gets nothing, and no warning
CREATE TABLE t_heap (a int) USING heap;
CREATE TABLE t_heap_default (a int);
-- CREATE TABLE AS, SELECT INTO, materialized views
CREATE TABLE t_ctas USING slimheap AS SELECT :wide_row;
CREATE TABLE t_ctas_heap AS SELECT 1 AS a;
CREATE MATERIALIZED VIEW m_view USING slimheap AS SELECT :wide_row;
CREATE TABLE t_explain USING slimheap AS SELECT :wide_row WITH NO DATA;
-- (EXPLAIN's output differs between versions: run for its effect only)
DO $$ BEGIN
  EXECUTE 'EXPLAIN (ANALYZE) CREATE TABLE t_explain_analyze USING slimheap AS '
    'SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d, 5 AS e, 6 AS f, 7 AS g, 8 AS h, 9 AS i';
END $$;
-- IF NOT EXISTS on an existing table changes nothing
SET slimheap.default_null_bitmap = full;
CREATE TABLE IF NOT EXISTS t_compress (a int, :wide) USING slimheap;
SET slimheap.default_null_bitmap = compress;
SELECT * FROM show_tables();

-- changing the setting later does not change existing tables
SET slimheap.default_null_bitmap = full;
SELECT relname, reloptions FROM show_tables() WHERE relname IN ('t_plain', 't_compress');
RESET slimheap.default_null_bitmap;

-- with default_table_access_method = slimheap, DDL that names neither
SET default_table_access_method = slimheap;
SET slimheap.default_null_bitmap = compress;
CREATE TABLE d_plain (a int, :wide);
-- LIKE copies no access method and no reloptions: the setting's mode
CREATE TABLE d_like (LIKE t_explicit INCLUDING ALL);
CREATE TABLE d_like_heap (LIKE t_explicit) USING heap;
SELECT * INTO d_select_into FROM t_plain;
-- a partitioned table has no storage and gets nothing; its partitions are
-- created with the access method in force and get the setting's mode
CREATE TABLE d_parted (a int, :wide) PARTITION BY RANGE (a);
CREATE TABLE d_part1 PARTITION OF d_parted FOR VALUES FROM (0) TO (10);
CREATE TABLE d_part2 PARTITION OF d_parted FOR VALUES FROM (10) TO (20) USING heap;
CREATE TABLE d_part3 PARTITION OF d_parted FOR VALUES FROM (20) TO (30)
  WITH (slimheap.null_bitmap = truncate);
-- a default partition, and a partition attached later keeps its own
CREATE TABLE d_part_default PARTITION OF d_parted DEFAULT;
SET slimheap.default_null_bitmap = full;
CREATE TABLE d_attached (a int, :wide);
ALTER TABLE d_parted DETACH PARTITION d_part_default;
ALTER TABLE d_parted ATTACH PARTITION d_attached FOR VALUES FROM (30) TO (40);
RESET default_table_access_method;
SELECT * FROM show_tables() WHERE relname LIKE 'd\_%';

-- a table converted with SET ACCESS METHOD slimheap gets the setting's mode,
-- unless the statement sets one; one already slimheap keeps its own
CREATE TABLE c_heap1 (a int, :wide) WITH (fillfactor = 50);
CREATE TABLE c_heap2 (a int, :wide);
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

-- A narrow table (8 attributes or fewer, dropped ones included) stores
-- heap's full form whatever its mode, so it stores no mode from the
-- setting: a table without options costs heap's inserts (docs/options.md).
-- A named one is kept.
SET slimheap.default_null_bitmap = compress;
CREATE TABLE n_plain (a int, b int) USING slimheap;
CREATE TABLE n_named (a int) USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE n_ctas USING slimheap AS SELECT 1 AS a;
CREATE TABLE n_heap (a int) WITH (fillfactor = 90);
ALTER TABLE n_heap SET ACCESS METHOD slimheap;
CREATE TABLE n_set (a int) USING slimheap;
ALTER TABLE n_set SET (slimheap.prefix_columns = 2);
SELECT * FROM show_tables() WHERE relname LIKE 'n\_%';
-- up to 8 attributes it stays without one
ALTER TABLE n_plain ADD COLUMN c3 int, ADD COLUMN c4 int, ADD COLUMN c5 int,
  ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int;
SELECT reloptions FROM pg_class WHERE oid = 'n_plain'::regclass;
-- the column that makes it wide stores the setting in force then, also with
-- core's options in the same statement, which core checks with ours out
SET slimheap.default_null_bitmap = full;
ALTER TABLE n_plain ADD COLUMN c9 int, ADD COLUMN c10 int;
ALTER TABLE n_heap ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int, SET (fillfactor = 70);
ALTER TABLE n_set ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int, SET (slimheap.prefix_columns = 3);
-- a dropped column counts; a named mode stays
ALTER TABLE n_ctas ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int;
ALTER TABLE n_ctas DROP COLUMN c8;
ALTER TABLE n_ctas ADD COLUMN c9 int;
ALTER TABLE n_named ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int;
SELECT * FROM show_tables() WHERE relname LIKE 'n\_%';
-- an ADD COLUMN that rewrites the table (a volatile default) writes the
-- rewritten rows in the stored mode: truncate here, so the trailing NULLs
-- of the new columns are not stored (full would store 11 attributes)
SET slimheap.default_null_bitmap = truncate;
CREATE TABLE n_rewrite (a int, b int) USING slimheap;
INSERT INTO n_rewrite SELECT g, g FROM generate_series(1, 3) g;
ALTER TABLE n_rewrite ADD COLUMN c3 int, ADD COLUMN c4 int, ADD COLUMN c5 int,
  ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int, ADD COLUMN c9 int,
  ADD COLUMN c10 int,
  ADD COLUMN c11 int DEFAULT CASE WHEN random() < 2 THEN NULL ELSE 1 END;
SELECT reloptions FROM pg_class WHERE oid = 'n_rewrite'::regclass;
SELECT form, lp_len, count(*) FROM slimheap.page_items('n_rewrite', 0) GROUP BY 1, 2;
SELECT * FROM n_rewrite ORDER BY a;
-- a RESET of the mode in the statement that makes the table wide runs
-- after its ADD COLUMN, as core orders them: truncate, as for two statements
SET slimheap.default_null_bitmap = compress;
CREATE TABLE n_reset1 (a int) USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE n_reset2 (a int) USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE n_reset3 (a int) USING slimheap;
ALTER TABLE n_reset1 ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int, RESET (slimheap.null_bitmap);
ALTER TABLE n_reset2 ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int;
ALTER TABLE n_reset2 RESET (slimheap.null_bitmap);
ALTER TABLE n_reset3 ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int, RESET (slimheap.null_bitmap);
SELECT * FROM show_tables() WHERE relname LIKE 'n\_reset%';
-- with a rewrite in the same statement (volatile defaults of c150 and
-- c200), its rows are written in that mode too: truncate's form, where the
-- setting's compress would store compressed tails
CREATE TABLE n_reset4 (a int) USING slimheap WITH (slimheap.null_bitmap = full);
INSERT INTO n_reset4 SELECT g FROM generate_series(1, 3) g;
SELECT string_agg(format('ADD COLUMN c%s int%s', g,
                         CASE WHEN g IN (150, 200)
                              THEN ' DEFAULT (random() * 0 + 1)::int' END),
                  ', ' ORDER BY g) AS n_columns
  FROM generate_series(2, 200) g \gset
ALTER TABLE n_reset4 :n_columns, RESET (slimheap.null_bitmap);
SELECT reloptions FROM pg_class WHERE oid = 'n_reset4'::regclass;
SELECT form, count(*) FROM slimheap.page_items('n_reset4', 0) GROUP BY 1;
-- and a table made slimheap with a RESET of the mode is truncate
CREATE TABLE n_reset5 (a int, :wide) USING heap;
ALTER TABLE n_reset5 SET ACCESS METHOD slimheap, RESET (slimheap.null_bitmap);
SELECT reloptions FROM pg_class WHERE oid = 'n_reset5'::regclass;
-- only the 9th column stores a mode: a wide table without one (made before
-- the setting existed, simulated here) stays truncate
CREATE TABLE n_legacy (a int, :wide) USING slimheap;
UPDATE pg_class SET reloptions = NULL WHERE oid = 'n_legacy'::regclass;
ALTER TABLE n_legacy ADD COLUMN c10 int;
SELECT reloptions FROM pg_class WHERE oid = 'n_legacy'::regclass;
-- an event trigger that widens the table a statement of ours is changing:
-- the outer statement stores the mode with its final options, after core
-- checked them
CREATE TABLE n_event (a int) USING slimheap;
CREATE FUNCTION n_event_widen() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('n_event.busy', true), '') <> 'on' THEN
    PERFORM set_config('n_event.busy', 'on', true);
    ALTER TABLE n_event ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
      ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int,
      ADD COLUMN c8 int, ADD COLUMN c9 int;
  END IF;
END $$;
CREATE EVENT TRIGGER n_event_widen ON ddl_command_start
  WHEN TAG IN ('ALTER TABLE') EXECUTE FUNCTION n_event_widen();
ALTER TABLE n_event SET (fillfactor = 70);
DROP EVENT TRIGGER n_event_widen;
SELECT reloptions, relnatts FROM pg_class WHERE oid = 'n_event'::regclass;
-- the partitions an ADD COLUMN reaches, and typed tables of ALTER TYPE
SET slimheap.default_null_bitmap = compress;
CREATE TABLE n_parted (a int) PARTITION BY LIST (a);
CREATE TABLE n_part1 PARTITION OF n_parted FOR VALUES IN (1) USING slimheap;
CREATE TABLE n_part2 PARTITION OF n_parted FOR VALUES IN (2) USING heap;
CREATE TYPE n_type AS (a int);
CREATE TABLE n_typed OF n_type USING slimheap;
SET slimheap.default_null_bitmap = full;
ALTER TABLE n_parted ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int;
ALTER TYPE n_type ADD ATTRIBUTE c2 int CASCADE, ADD ATTRIBUTE c3 int CASCADE,
  ADD ATTRIBUTE c4 int CASCADE, ADD ATTRIBUTE c5 int CASCADE,
  ADD ATTRIBUTE c6 int CASCADE, ADD ATTRIBUTE c7 int CASCADE,
  ADD ATTRIBUTE c8 int CASCADE, ADD ATTRIBUTE c9 int CASCADE;
SELECT * FROM show_tables() WHERE relname IN ('n_parted', 'n_part1', 'n_part2', 'n_typed');
-- a failed ADD COLUMN stores nothing
CREATE TABLE n_failed (a int) USING slimheap;
INSERT INTO n_failed VALUES (1);
ALTER TABLE n_failed ADD COLUMN c2 int, ADD COLUMN c3 int, ADD COLUMN c4 int,
  ADD COLUMN c5 int, ADD COLUMN c6 int, ADD COLUMN c7 int, ADD COLUMN c8 int,
  ADD COLUMN c9 int, ADD COLUMN c10 int NOT NULL;
SELECT reloptions, relnatts FROM pg_class WHERE oid = 'n_failed'::regclass;
RESET slimheap.default_null_bitmap;

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
CREATE TABLE db_table (a int, :wide) USING slimheap;
SELECT reloptions FROM pg_class WHERE relname = 'db_table';
GRANT CREATE ON SCHEMA public TO regress_slim_default_role;
\c - regress_slim_default_role
-- the role's setting wins over the database's
SHOW slimheap.default_null_bitmap;
CREATE TABLE role_table (a int, :wide) USING slimheap;
SELECT reloptions FROM pg_class WHERE relname = 'role_table';
-- and the session's over both
SET slimheap.default_null_bitmap = truncate;
CREATE TABLE session_table (a int, :wide) USING slimheap;
SELECT relname, reloptions FROM pg_class
 WHERE relname IN ('db_table', 'role_table', 'session_table') ORDER BY relname;
\c contrib_regression postgres
DROP DATABASE slim_default_db;
DROP ROLE regress_slim_default_role;

SET client_min_messages = warning;
DROP SCHEMA slim_default CASCADE;
