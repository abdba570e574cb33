--
-- Bad slimheap options: each statement fails with a clear error and leaves
-- pg_class as it was (a relation it would create does not exist, the
-- reloptions of one it would alter are unchanged).
--
-- other tests may have created the extensions already
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;
CREATE SCHEMA slim_opts_err;
SET search_path = slim_opts_err, public;

CREATE FUNCTION relopts(rel regclass) RETURNS text[]
LANGUAGE sql AS $$ SELECT reloptions FROM pg_class WHERE oid = rel $$;

CREATE TABLE t (a int, b int) USING slimheap
  WITH (slimheap.null_bitmap = full, fillfactor = 80);
CREATE TABLE h (a int, b int) USING heap WITH (fillfactor = 80);
CREATE TABLE p (a int, b int) PARTITION BY LIST (a);
CREATE VIEW v AS SELECT * FROM t;
CREATE INDEX t_a ON t (a);
CREATE SEQUENCE s;
CREATE MATERIALIZED VIEW mv_heap USING heap AS SELECT * FROM t;
SELECT relopts('t'), relopts('h');

--
-- CREATE: unknown option, bad values
--
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.null_bits = full);
CREATE TABLE bad (a int) USING slimheap WITH ("slimheap.nullbitmap" = full);
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.null_bitmap = 'zip');
-- prefix_columns takes an integer from 0 to 1600
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.prefix_columns = -1);
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.prefix_columns = 1601);
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.prefix_columns = 'two');
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.prefix_columns = 1.5);
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.null_bitmap);
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.null_bitmap = 1);
CREATE TABLE bad (a int) USING slimheap WITH (slimheap.null_bitmap = '');
CREATE TABLE bad (a int) USING slimheap
  WITH (slimheap.null_bitmap = full, "slimheap.null_bitmap" = truncate);
-- core still checks its own options
CREATE TABLE bad (a int) USING slimheap
  WITH (slimheap.null_bitmap = full, fillfactor = 5);
SELECT to_regclass('bad');

--
-- CREATE: a table or materialized view of another access method is created
-- without our options, with a WARNING (a dump of a table that left slimheap
-- without the hook carries them: the restore must not lose the table)
--
CREATE TABLE bad (a int) USING heap
  WITH (slimheap.null_bitmap = full, fillfactor = 70);
SELECT relopts('bad');
DROP TABLE bad;
CREATE TABLE bad (a int) WITH (slimheap.null_bitmap = full);
SELECT relopts('bad');
DROP TABLE bad;
CREATE TABLE bad PARTITION OF p FOR VALUES IN (1)
  WITH (slimheap.null_bitmap = full);
SELECT relopts('bad');
DROP TABLE bad;
CREATE TABLE bad USING heap WITH (slimheap.null_bitmap = full) AS SELECT 1 AS a;
SELECT relopts('bad'), count(*) FROM bad;
DROP TABLE bad;
CREATE MATERIALIZED VIEW bad USING heap WITH (slimheap.null_bitmap = full)
  AS SELECT 1 AS a;
SELECT relopts('bad'), count(*) FROM bad;
DROP MATERIALIZED VIEW bad;
-- an invalid option is an error whatever the access method
CREATE TABLE bad (a int) USING heap WITH (slimheap.null_bitmap = zip);
CREATE TABLE bad (a int) USING heap WITH (slimheap.null_bits = full);

--
-- CREATE: a relation our options cannot apply to
--
CREATE TABLE bad (a int) PARTITION BY LIST (a) WITH (slimheap.null_bitmap = full);
CREATE TABLE bad USING slimheap WITH (slimheap.null_bitmap = zip) AS SELECT 1 AS a;
CREATE VIEW bad WITH (slimheap.null_bitmap = full) AS SELECT 1 AS a;
CREATE VIEW bad WITH ("slimheap.null_bitmap" = full) AS SELECT 1 AS a;
CREATE INDEX bad ON t (b) WITH (slimheap.null_bitmap = full);
CREATE INDEX ON t (b) WITH (slimheap.null_bitmap = full);
SELECT to_regclass('bad'), count(*) AS t_indexes FROM pg_index
WHERE indrelid = 't'::regclass;

--
-- ALTER: unknown option, bad values, RESET with a value
--
ALTER TABLE t SET (slimheap.null_bits = truncate);
ALTER TABLE t SET (slimheap.null_bitmap = 'zip');
ALTER TABLE t SET (slimheap.prefix_columns = -5);
ALTER TABLE t SET ("slimheap.null_bitmap" = 'zip');
ALTER TABLE t SET (slimheap.null_bitmap = truncate, slimheap.null_bitmap = full);
ALTER TABLE t RESET (slimheap.null_bitmap = full);
ALTER TABLE t RESET (slimheap.null_bits);
SELECT relopts('t');
-- nothing of a failing statement stays, core's part neither
ALTER TABLE t SET (fillfactor = 50, slimheap.null_bitmap = 'zip');
ALTER TABLE t SET (slimheap.null_bitmap = truncate, fillfactor = 5);
ALTER TABLE t SET (slimheap.null_bitmap = truncate), ADD COLUMN a int;
ALTER TABLE t SET (fillfactor = 50), SET (slimheap.null_bitmap = 'zip');
SELECT relopts('t');

--
-- ALTER: a relation our options cannot apply to.  On a table that does not
-- use slimheap (or leaves it) they are ignored with a WARNING, as CREATE
-- TABLE ... USING heap ignores them: tools such as pg_partman copy a
-- table's options onto tables whose access method they do not choose
-- (docs/tools.md); nothing of slimheap's is stored
--
ALTER TABLE h SET (slimheap.null_bitmap = full);
SELECT relopts('h');
BEGIN;
ALTER TABLE t SET ACCESS METHOD heap, SET (slimheap.null_bitmap = full);
SELECT a.amname, relopts('t') FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.oid = 't'::regclass;
ROLLBACK;
ALTER TABLE t SET ACCESS METHOD no_such_am, SET (slimheap.null_bitmap = full);
ALTER TABLE p SET (slimheap.null_bitmap = full);
ALTER TABLE p RESET (slimheap.null_bitmap);
ALTER VIEW v SET (slimheap.null_bitmap = full);
ALTER TABLE v SET (slimheap.null_bitmap = full);
ALTER INDEX t_a SET (slimheap.null_bitmap = full);
ALTER TABLE s SET (slimheap.null_bitmap = full);
ALTER MATERIALIZED VIEW mv_heap SET (slimheap.null_bitmap = full);
ALTER MATERIALIZED VIEW t SET (slimheap.null_bitmap = full);
ALTER TABLE pg_catalog.pg_class SET (slimheap.null_bitmap = full);
ALTER TABLE no_such_table SET (slimheap.null_bitmap = full);
SELECT c.relname, a.amname, c.reloptions
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relnamespace = 'slim_opts_err'::regnamespace
ORDER BY c.relname;
-- RESET of an option a table does not have is fine, as in core
ALTER TABLE h RESET (slimheap.null_bitmap);
SELECT relopts('h');

--
-- a role that does not own the table gets core's error
--
CREATE ROLE regress_slim_opts_other;
GRANT USAGE ON SCHEMA slim_opts_err TO regress_slim_opts_other;
SET ROLE regress_slim_opts_other;
ALTER TABLE t SET (slimheap.null_bitmap = truncate);
ALTER TABLE t RESET (slimheap.null_bitmap);
ALTER TABLE t SET (fillfactor = 50);
ALTER TABLE h SET (slimheap.null_bitmap = full);
RESET ROLE;
SELECT relopts('t'), relopts('h');

--
-- a failed statement inside a transaction block
--
BEGIN;
ALTER TABLE t SET (slimheap.null_bitmap = truncate);
ALTER TABLE t SET (slimheap.null_bitmap = zip);
ROLLBACK;
SELECT relopts('t');

SET client_min_messages = warning;
DROP SCHEMA slim_opts_err CASCADE;
DROP ROLE regress_slim_opts_other;
