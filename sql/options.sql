--
-- slimheap.null_bitmap through reloptions: every statement that sets,
-- changes or drops it, what pg_class.reloptions holds afterwards, and the
-- form of the rows written under each setting.
--
-- other tests may have created the extensions already
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
CREATE SCHEMA slim_opts;
SET search_path = slim_opts, public;

-- pg_class.reloptions of a relation
CREATE FUNCTION relopts(rel regclass) RETURNS text[]
LANGUAGE sql AS $$ SELECT reloptions FROM pg_class WHERE oid = rel $$;

-- access method of a relation
CREATE FUNCTION am(rel regclass) RETURNS name
LANGUAGE sql AS $$
  SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = rel
$$;

-- natts of every row on the relation's first page, in line pointer order:
-- a 'full' row stores all attributes, a 'truncate' row stops at its last
-- non-NULL one
CREATE FUNCTION row_forms(rel regclass) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg((t_infomask2 & 2047)::text, ',' ORDER BY lp)
  FROM heap_page_items(get_raw_page(rel::text, 0))
  WHERE lp_flags = 1
$$;

-- the same rows in heap, the baseline: heap stores all 9 attributes.  The
-- tables whose forms are shown have 9 columns or more: a table of at most 8
-- stores heap's full form in every mode (its NULL bitmap fits the header's
-- padding, docs/narrow-slot.md), which t_narrow shows at the end
CREATE TABLE h_twin (a int, b int, c int, d int, e int, f int,
                     x int, y int, z int);
INSERT INTO h_twin VALUES (1, NULL, NULL, NULL, NULL, NULL),
                          (2, 2, NULL, 4, NULL, NULL),
                          (3, 3, 3, 3, 3, 3);
SELECT row_forms('h_twin');

--
-- CREATE TABLE ... WITH: our option next to a core one
--
CREATE TABLE t (a int, b int, c int, d int, e int, f int, x int, y int, z int)
  USING slimheap WITH (slimheap.null_bitmap = 'truncate', fillfactor = 80);
SELECT relopts('t');
\d+ t
INSERT INTO t SELECT * FROM h_twin;
SELECT row_forms('t');

-- ALTER TABLE SET: rows written afterwards take the new form, the old ones
-- stay as they are and read back the same as heap's
ALTER TABLE t SET (slimheap.null_bitmap = 'full');
SELECT relopts('t');
INSERT INTO t SELECT * FROM h_twin;
SELECT row_forms('t');
(SELECT * FROM t) EXCEPT ALL (SELECT * FROM h_twin UNION ALL SELECT * FROM h_twin);
(SELECT * FROM h_twin UNION ALL SELECT * FROM h_twin) EXCEPT ALL (SELECT * FROM t);

-- core options keep working on a table that carries ours
ALTER TABLE t SET (fillfactor = 70);
SELECT relopts('t');
CREATE TABLE t_toast (a int, b text) USING slimheap
  WITH (slimheap.null_bitmap = full);
ALTER TABLE t_toast SET (autovacuum_enabled = false, toast.autovacuum_enabled = false);
SELECT relopts('t_toast'), relopts(reltoastrelid) AS toast_relopts
FROM pg_class WHERE oid = 't_toast'::regclass;
ALTER TABLE t_toast RESET (autovacuum_enabled, toast.autovacuum_enabled);
SELECT relopts('t_toast'), relopts(reltoastrelid) AS toast_relopts
FROM pg_class WHERE oid = 't_toast'::regclass;

-- ALTER TABLE RESET: back to the default (truncate), stored explicitly
ALTER TABLE t RESET (slimheap.null_bitmap);
SELECT relopts('t');
TRUNCATE t;
INSERT INTO t SELECT * FROM h_twin;
SELECT row_forms('t');
-- resetting what is not set changes nothing, like core
ALTER TABLE t RESET (slimheap.null_bitmap);
SELECT relopts('t');

-- several subcommands and both kinds of options in one statement, applied
-- in order like core's
ALTER TABLE t SET (slimheap.null_bitmap = full, fillfactor = 60),
              ADD COLUMN g int,
              RESET (fillfactor);
SELECT relopts('t');
ALTER TABLE t SET (slimheap.null_bitmap = full), RESET (slimheap.null_bitmap),
              SET (slimheap.null_bitmap = truncate, fillfactor = 90);
SELECT relopts('t');
-- values are matched like core's enum options and stored in one spelling
ALTER TABLE t SET (slimheap.null_bitmap = 'FULL');
SELECT relopts('t');

-- pg_dump's spelling: one quoted name
CREATE TABLE t_dump (a int, b int, c int)
  USING slimheap WITH ("slimheap.null_bitmap"=full, fillfactor='90');
SELECT relopts('t_dump');
INSERT INTO t_dump VALUES (1, NULL, NULL);
SELECT row_forms('t_dump');
ALTER TABLE t_dump SET ("slimheap.null_bitmap"=truncate);
SELECT relopts('t_dump');
-- RESET leaves a narrow table (3 attributes) without a mode, as CREATE
-- does (a wide one stores truncate: options_default)
ALTER TABLE t_dump RESET ("slimheap.null_bitmap", fillfactor);
SELECT relopts('t_dump');

-- CREATE TABLE IF NOT EXISTS on an existing table leaves its options alone
CREATE TABLE IF NOT EXISTS t_dump (a int)
  USING slimheap WITH (slimheap.null_bitmap = full);
SELECT relopts('t_dump');
-- and stores them when it creates the table
CREATE TABLE IF NOT EXISTS t_new (a int, b int, c int, d int, e int, f int,
                                 x int, y int, z int)
  USING slimheap WITH (slimheap.null_bitmap = full);
SELECT relopts('t_new');
-- As core does with its own options, the options of a statement that
-- creates nothing are not checked: a script run twice gets core's NOTICE,
-- also with a value this version does not know.  Creating checks them.
CREATE TABLE IF NOT EXISTS t_new (a int, b int)
  USING slimheap WITH (slimheap.null_bitmap = zstd, fillfactor = 5000);
CREATE TABLE IF NOT EXISTS t_new (a int, b int)
  USING slimheap WITH (slimheap.no_such_option = 1);
SELECT relopts('t_new');
CREATE TABLE IF NOT EXISTS t_new2 (a int)
  USING slimheap WITH (slimheap.null_bitmap = zstd);
CREATE TABLE IF NOT EXISTS t_new2 (a int)
  USING slimheap WITH (slimheap.null_bitmap = full, slimheap.null_bitmap = full);
CREATE TABLE IF NOT EXISTS t_new2 USING slimheap
  WITH (slimheap.null_bitmap = zstd) AS SELECT 1 AS a;
SELECT count(*) FROM pg_class WHERE relname = 't_new2';

-- a serial column creates a sequence first, a primary key an index after
CREATE TABLE t_serial (id serial PRIMARY KEY, b int, c int)
  USING slimheap WITH (slimheap.null_bitmap = full);
SELECT relopts('t_serial'), relopts('t_serial_id_seq'), relopts('t_serial_pkey');
INSERT INTO t_serial (b) VALUES (NULL);
SELECT row_forms('t_serial');

-- temporary and unlogged tables
CREATE TEMP TABLE t_temp (a int, b int, c int)
  USING slimheap WITH (slimheap.null_bitmap = full);
SELECT relopts('t_temp');
INSERT INTO t_temp VALUES (1, NULL, NULL);
SELECT row_forms('t_temp');
-- the options go to the table created, not to another one of that name
CREATE TEMP TABLE t_shadow (a int) USING slimheap
  WITH (slimheap.null_bitmap = truncate);
CREATE TABLE t_shadow (a int) USING slimheap WITH (slimheap.null_bitmap = full);
SELECT relnamespace = pg_my_temp_schema() AS is_temp, reloptions
FROM pg_class WHERE relname = 't_shadow'
  AND relnamespace IN (pg_my_temp_schema(), 'slim_opts'::regnamespace)
ORDER BY 1;
CREATE UNLOGGED TABLE t_unlogged (a int, b int, c int)
  USING slimheap WITH (slimheap.null_bitmap = full);
SELECT relopts('t_unlogged');

-- the default access method counts as USING
SET default_table_access_method = slimheap;
CREATE TABLE t_default_am (a int, b int, c int)
  WITH (slimheap.null_bitmap = full);
SELECT relopts('t_default_am');
RESET default_table_access_method;

--
-- CREATE TABLE AS, SELECT INTO, materialized views: the options are stored
-- before the first row is written
--
CREATE TABLE t_ctas USING slimheap WITH (slimheap.null_bitmap = 'full')
  AS SELECT * FROM h_twin ORDER BY a;
SELECT relopts('t_ctas');
SELECT row_forms('t_ctas');
CREATE TABLE t_ctas_trunc USING slimheap WITH (slimheap.null_bitmap = truncate)
  AS SELECT * FROM h_twin ORDER BY a;
SELECT relopts('t_ctas_trunc');
SELECT row_forms('t_ctas_trunc');
CREATE TABLE t_ctas_nodata USING slimheap WITH (slimheap.null_bitmap = full)
  AS SELECT * FROM h_twin WITH NO DATA;
SELECT relopts('t_ctas_nodata');
CREATE TABLE IF NOT EXISTS t_ctas USING slimheap
  WITH (slimheap.null_bitmap = truncate) AS SELECT 1 AS a;
SELECT relopts('t_ctas');
CREATE TABLE IF NOT EXISTS t_ctas USING slimheap
  WITH (slimheap.null_bitmap = zstd) AS SELECT 1 AS a;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  CREATE TABLE IF NOT EXISTS t_ctas USING slimheap
  WITH (slimheap.null_bitmap = zstd) AS SELECT 1 AS a;
SELECT relopts('t_ctas');
PREPARE twin_rows AS SELECT * FROM h_twin ORDER BY a;
CREATE TABLE t_ctas_exec USING slimheap WITH (slimheap.null_bitmap = full)
  AS EXECUTE twin_rows;
SELECT relopts('t_ctas_exec');
SELECT row_forms('t_ctas_exec');
DEALLOCATE twin_rows;
-- EXPLAIN ANALYZE runs the statement; its plan output is left out (its
-- format differs between PostgreSQL versions)
DO $$
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	  CREATE TABLE t_ctas_explain USING slimheap
	  WITH (slimheap.null_bitmap = full) AS SELECT * FROM h_twin ORDER BY a';
END $$;
SELECT relopts('t_ctas_explain');
SELECT row_forms('t_ctas_explain');
-- EXPLAIN without ANALYZE creates nothing
EXPLAIN (COSTS OFF)
  CREATE TABLE t_ctas_plain USING slimheap
  WITH (slimheap.null_bitmap = full) AS SELECT * FROM h_twin;
SELECT to_regclass('t_ctas_plain');
-- SELECT INTO takes no options: the default form
SET default_table_access_method = slimheap;
SELECT * INTO t_select_into FROM h_twin ORDER BY a;
RESET default_table_access_method;
SELECT relopts('t_select_into'), row_forms('t_select_into');

CREATE MATERIALIZED VIEW mv USING slimheap WITH (slimheap.null_bitmap = full)
  AS SELECT * FROM h_twin ORDER BY a;
SELECT relopts('mv');
SELECT row_forms('mv');
ALTER MATERIALIZED VIEW mv SET (slimheap.null_bitmap = truncate);
SELECT relopts('mv');
REFRESH MATERIALIZED VIEW mv;
SELECT row_forms('mv');
CREATE MATERIALIZED VIEW mv_nodata USING slimheap
  WITH (slimheap.null_bitmap = full) AS SELECT * FROM h_twin ORDER BY a
  WITH NO DATA;
SELECT relopts('mv_nodata');
REFRESH MATERIALIZED VIEW mv_nodata;
SELECT row_forms('mv_nodata');
ALTER MATERIALIZED VIEW mv SET ACCESS METHOD heap;
SELECT am('mv'), relopts('mv'), row_forms('mv');
ALTER MATERIALIZED VIEW mv SET ACCESS METHOD slimheap,
  SET (slimheap.null_bitmap = truncate);
SELECT am('mv'), relopts('mv'), row_forms('mv');

--
-- SET ACCESS METHOD: into slimheap with options (the rewrite already writes
-- the chosen form), and out of it (our options go, core's stay)
--
CREATE TABLE h (a int, b int, c int, d int, e int, f int, x int, y int, z int)
  WITH (fillfactor = 50);
INSERT INTO h SELECT * FROM h_twin;
ALTER TABLE h SET ACCESS METHOD slimheap, SET (slimheap.null_bitmap = 'truncate');
SELECT am('h'), relopts('h');
SELECT row_forms('h');
ALTER TABLE h SET ACCESS METHOD heap;
SELECT am('h'), relopts('h');
SELECT row_forms('h');
ALTER TABLE h SET ACCESS METHOD slimheap,
              SET (slimheap.null_bitmap = 'full', fillfactor = 40);
SELECT am('h'), relopts('h');
SELECT row_forms('h');
ALTER TABLE h SET ACCESS METHOD heap, SET (fillfactor = 30);
SELECT am('h'), relopts('h');
ALTER TABLE h SET (fillfactor = 20);
SELECT relopts('h');
-- without options: the default form
ALTER TABLE h SET ACCESS METHOD slimheap;
SELECT am('h'), relopts('h');
SELECT row_forms('h');
SELECT * FROM h EXCEPT SELECT * FROM h_twin;

--
-- rewrites keep the form the table's options say
--
CREATE TABLE t_rw (a int, b int, c int, d int, e int, f int,
                   x int, y int, z int)
  USING slimheap WITH (slimheap.null_bitmap = full);
INSERT INTO t_rw SELECT * FROM h_twin;
ALTER TABLE t_rw ALTER COLUMN f TYPE bigint;
SELECT relopts('t_rw'), row_forms('t_rw');
-- SET of core options and a rewrite in one statement
ALTER TABLE t_rw SET (fillfactor = 75), ALTER COLUMN f TYPE int;
SELECT relopts('t_rw'), row_forms('t_rw');
-- SET of ours and a rewrite in one statement: the rewrite writes the new form
ALTER TABLE t_rw SET (slimheap.null_bitmap = truncate), ALTER COLUMN f TYPE bigint;
SELECT relopts('t_rw'), row_forms('t_rw');
ALTER TABLE t_rw SET (slimheap.null_bitmap = full), ALTER COLUMN f TYPE int;
SELECT relopts('t_rw'), row_forms('t_rw');
VACUUM FULL t_rw;
SELECT relopts('t_rw'), row_forms('t_rw');
SELECT * FROM t_rw EXCEPT SELECT * FROM h_twin;

--
-- partitions and inheritance: options belong to each table with storage;
-- like core's SET (fillfactor), SET on a parent does not recurse
--
CREATE TABLE p (a int, b int, c int, d int, e int, f int, x int, y int, z int)
  PARTITION BY LIST (a);
CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)
  USING slimheap WITH (slimheap.null_bitmap = 'truncate');
CREATE TABLE p2 PARTITION OF p FOR VALUES IN (2)
  USING slimheap WITH (slimheap.null_bitmap = 'full');
SELECT relopts('p'), relopts('p1'), relopts('p2');
INSERT INTO p VALUES (1, NULL, NULL), (2, NULL, NULL);
SELECT row_forms('p1'), row_forms('p2');
ALTER TABLE p1 SET (slimheap.null_bitmap = 'full');
SELECT relopts('p1');

CREATE TABLE inh_parent (a int, b int, c int)
  USING slimheap WITH (slimheap.null_bitmap = full);
CREATE TABLE inh_child () INHERITS (inh_parent)
  USING slimheap WITH (slimheap.null_bitmap = full);
ALTER TABLE inh_parent SET (slimheap.null_bitmap = truncate);
SELECT relopts('inh_parent'), relopts('inh_child');
-- (narrow: no mode after RESET)
ALTER TABLE ONLY inh_parent RESET (slimheap.null_bitmap);
SELECT relopts('inh_parent'), relopts('inh_child');

--
-- transactions: a change is transactional like core's own
--
BEGIN;
ALTER TABLE t_new SET (slimheap.null_bitmap = truncate, fillfactor = 50);
SELECT relopts('t_new');
-- applies at once inside the transaction
INSERT INTO t_new VALUES (1, NULL);
SELECT row_forms('t_new');
ROLLBACK;
SELECT relopts('t_new');
-- the rolled back row (1 attribute) is still on the page, the new one has 9
INSERT INTO t_new VALUES (1, NULL);
SELECT row_forms('t_new');
BEGIN;
SAVEPOINT s;
ALTER TABLE t_new RESET (slimheap.null_bitmap);
SELECT relopts('t_new');
ROLLBACK TO SAVEPOINT s;
SELECT relopts('t_new');
ALTER TABLE t_new SET (slimheap.null_bitmap = truncate);
COMMIT;
SELECT relopts('t_new');

--
-- statements run by functions (plans cached between calls), DO blocks and
-- CREATE SCHEMA, as in an extension script
--
CREATE FUNCTION make_table(mode text) RETURNS text[] LANGUAGE plpgsql AS $$
BEGIN
  DROP TABLE IF EXISTS t_fn;
  CREATE TABLE t_fn (a int, b int) USING slimheap
    WITH (slimheap.null_bitmap = full, fillfactor = 85);
  EXECUTE format('ALTER TABLE t_fn SET (slimheap.null_bitmap = %I)', mode);
  RETURN relopts('t_fn');
END $$;
SELECT make_table('truncate');
SELECT make_table('full');
SELECT make_table('truncate');
DO $$ BEGIN
  CREATE TABLE t_do (a int) USING slimheap WITH (slimheap.null_bitmap = full);
END $$;
SELECT relopts('t_do');
-- errors caught inside a function leave nothing behind for the next statement
DO $$
BEGIN
  BEGIN
    ALTER TABLE t_do SET (slimheap.null_bitmap = zip);
  EXCEPTION WHEN invalid_parameter_value THEN RAISE NOTICE 'caught: %', SQLERRM;
  END;
  BEGIN
    CREATE TABLE t_caught (a int) USING slimheap
      WITH (slimheap.null_bitmap = truncate, fillfactor = 5);
  EXCEPTION WHEN invalid_parameter_value THEN RAISE NOTICE 'caught: %', SQLERRM;
  END;
  ALTER TABLE t_do SET (slimheap.null_bitmap = truncate);
  CREATE TABLE t_after (a int) USING slimheap WITH (slimheap.null_bitmap = full);
END $$;
SELECT relopts('t_do'), to_regclass('t_caught'), relopts('t_after');
CREATE SCHEMA slim_opts_elems
  CREATE TABLE t_elem (a int) USING slimheap WITH (slimheap.null_bitmap = full);
SELECT relopts('slim_opts_elems.t_elem');
DROP SCHEMA slim_opts_elems CASCADE;

--
-- core's reloptions of other relations are not affected
--
CREATE INDEX t_a ON t (a) WITH (fillfactor = 70);
ALTER INDEX t_a SET (fillfactor = 80);
SELECT relopts('t_a');
CREATE VIEW v WITH (security_barrier = true) AS SELECT * FROM t;
ALTER VIEW v SET (security_barrier = false);
SELECT relopts('v');
CREATE TABLE h_plain (a int) WITH (fillfactor = 60);
ALTER TABLE h_plain SET (fillfactor = 65), RESET (fillfactor);
SELECT relopts('h_plain');
ALTER TABLE IF EXISTS no_such_table SET (slimheap.null_bitmap = full);

--
-- a table of at most 8 attributes (dropped ones count) stores heap's full
-- form whatever its mode: its bitmap costs no byte there
--
CREATE TABLE t_narrow (a int, b int, c int, d int, e int, f int, g int, h int)
  USING slimheap WITH (slimheap.null_bitmap = truncate);
INSERT INTO t_narrow (a) VALUES (1);
ALTER TABLE t_narrow SET (slimheap.null_bitmap = compress);
INSERT INTO t_narrow (a) VALUES (2);
-- the ninth attribute makes it wide: later rows are truncated again
ALTER TABLE t_narrow ADD COLUMN i int, SET (slimheap.null_bitmap = truncate);
INSERT INTO t_narrow (a) VALUES (3);
SELECT row_forms('t_narrow');
SELECT * FROM t_narrow ORDER BY a;
CREATE TABLE t_narrow_dropped (a int, b int, c int, d int, e int, f int,
                               g int, h int, i int)
  USING slimheap WITH (slimheap.null_bitmap = truncate);
ALTER TABLE t_narrow_dropped DROP COLUMN i;
INSERT INTO t_narrow_dropped (a) VALUES (1);
SELECT row_forms('t_narrow_dropped');

SET client_min_messages = warning;
DROP SCHEMA slim_opts CASCADE;
