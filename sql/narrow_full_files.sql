--
-- The record of full files (docs/narrow-slot.md): slimheap.full_row_files
-- names, for each narrow table, the file it made that holds no short row,
-- and a seq scan of that file takes heap's rows with no check.  Shown here:
-- which statements write, move and drop the record; that the rows of such
-- a file all have every attribute; that scans read it (a forged record
-- lets a short row out, which shows the check is gone) only while it names
-- the table's file and natts, and only from a table of a superuser.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

-- does rel's record name its file and natts as they are now?
CREATE FUNCTION full_record(rel regclass) RETURNS text LANGUAGE sql AS $$
  SELECT coalesce((SELECT CASE
      WHEN f.relfilenode <> pg_relation_filenode(rel) THEN 'another file'
      WHEN f.natts <> c.relnatts THEN format('natts %s of %s', f.natts, c.relnatts)
      WHEN f.spcoid <> coalesce(nullif(c.reltablespace, 0),
                                (SELECT dattablespace FROM pg_database
                                 WHERE datname = current_database()))
        THEN 'another tablespace'
      ELSE 'current' END
    FROM slimheap.full_row_files f JOIN pg_class c ON c.oid = f.relid
    WHERE f.relid = rel), 'none')
$$;
-- the natts of the rows of rel's first page, and how many of each
CREATE FUNCTION row_natts(rel regclass) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(format('%s x%s', natts, n), ', ' ORDER BY natts)
  FROM (SELECT t_infomask2 & 2047 AS natts, count(*) AS n
        FROM heap_page_items(get_raw_page(rel::text, 0))
        WHERE t_infomask2 IS NOT NULL GROUP BY 1) s
$$;

-- written by every statement that makes a narrow table's file
CREATE TABLE ff_n (a int, b text) USING slimheap;
INSERT INTO ff_n VALUES (1, 'one'), (2, NULL);
CREATE TABLE ff_ctas USING slimheap AS SELECT * FROM ff_n;
CREATE MATERIALIZED VIEW ff_mv USING slimheap AS SELECT a FROM ff_ctas;
SELECT 'create' AS step, full_record('ff_n') AS n, full_record('ff_ctas') AS ctas,
       full_record('ff_mv') AS mv;
REFRESH MATERIALIZED VIEW ff_mv;
SELECT 'refresh' AS step, full_record('ff_mv') AS mv;
-- TRUNCATE, and its rollback, which brings back the record of the old file
BEGIN;
TRUNCATE ff_ctas;
SELECT 'truncate' AS step, full_record('ff_ctas') AS ctas;
ROLLBACK;
SELECT 'rolled back' AS step, full_record('ff_ctas') AS ctas, count(*) FROM ff_ctas;

-- not for heap, wide, temporary or partitioned tables
CREATE TABLE ff_heap (a int) USING heap;
CREATE TABLE ff_wide (c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int,
                      c8 int, c9 int) USING slimheap;
CREATE TEMP TABLE ff_temp (a int) USING slimheap;
CREATE TABLE ff_parted (a int) PARTITION BY LIST (a);
CREATE TABLE ff_part1 PARTITION OF ff_parted FOR VALUES IN (1) USING slimheap;
SELECT full_record('ff_heap') AS heap, full_record('ff_wide') AS wide,
       full_record('ff_temp') AS temp, full_record('ff_parted') AS parted,
       full_record('ff_part1') AS partition;

-- ADD COLUMN leaves short rows: the record no longer counts
ALTER TABLE ff_n ADD COLUMN c int;
INSERT INTO ff_n VALUES (3, 'three', 3);
SELECT 'add column' AS step, full_record('ff_n') AS n, row_natts('ff_n') AS rows;
-- each rewrite stores every row in full, and records the new file
VACUUM FULL ff_n;
SELECT 'vacuum full' AS step, full_record('ff_n') AS n, row_natts('ff_n') AS rows;
ALTER TABLE ff_n ADD COLUMN d int;
CREATE INDEX ff_n_a ON ff_n (a);
CLUSTER ff_n USING ff_n_a;
SELECT 'cluster' AS step, full_record('ff_n') AS n, row_natts('ff_n') AS rows;
ALTER TABLE ff_n ADD COLUMN e int;
ALTER TABLE ff_n ALTER COLUMN a TYPE bigint;
SELECT 'alter type' AS step, full_record('ff_n') AS n, row_natts('ff_n') AS rows;
-- a rewrite that fails keeps the record of the file the table keeps
ALTER TABLE ff_n ADD COLUMN f int;
VACUUM FULL ff_n;
ALTER TABLE ff_n ALTER COLUMN b TYPE int USING b::int;
SELECT 'failed rewrite' AS step, full_record('ff_n') AS n;
-- a rewrite that adds columns: the new natts
ALTER TABLE ff_n ADD COLUMN g int DEFAULT random();
SELECT 'add volatile default' AS step, full_record('ff_n') AS n, row_natts('ff_n') AS rows;

-- a heap table made slimheap by a rewrite gets one; by adopt() none, and
-- release() takes it away (heap may store short rows into the same file)
INSERT INTO ff_heap VALUES (1);
ALTER TABLE ff_heap ADD COLUMN b int;
ALTER TABLE ff_heap SET ACCESS METHOD slimheap;
SELECT 'set access method' AS step, full_record('ff_heap') AS heap, row_natts('ff_heap') AS rows;
SET client_min_messages = warning;
CALL slimheap.release('ff_heap');
SELECT 'release' AS step, full_record('ff_heap') AS heap;
CALL slimheap.adopt('ff_heap', 'truncate');
RESET client_min_messages;
SELECT 'adopt' AS step, full_record('ff_heap') AS heap;

-- SET TABLESPACE copies the file, and the record with it
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE ff_space LOCATION '';
RESET allow_in_place_tablespaces;
ALTER TABLE ff_ctas SET TABLESPACE ff_space;
SELECT 'set tablespace' AS step, full_record('ff_ctas') AS ctas, count(*) FROM ff_ctas;
ALTER TABLE ff_ctas SET TABLESPACE pg_default;
SELECT 'and back' AS step, full_record('ff_ctas') AS ctas;
DROP TABLESPACE ff_space;

-- The scan reads the record.  ff_s holds rows of 2 attributes and one of 3;
-- ff_fd reads c past a row's natts as its fast default 50.  A record forged
-- to name ff_s's file at 3 attributes passes its short rows on as they are
-- (the check is gone: a forged record gives wrong values, which is why
-- only a superuser's table counts); the true one, at 2, does not count.
CREATE TABLE ff_s (a int, b int) USING slimheap;
INSERT INTO ff_s VALUES (1, 1), (2, NULL);
ALTER TABLE ff_s ADD COLUMN c int;
INSERT INTO ff_s VALUES (3, 3, 3);
CREATE TABLE ff_fd (a int, b int);
ALTER TABLE ff_fd ADD COLUMN c int DEFAULT 50;
CREATE VIEW ff_copied AS
  SELECT string_agg(format('%s:%s', a, coalesce(c::text, 'null')), ' ' ORDER BY a)
  FROM ff_fd;
\c
INSERT INTO ff_fd SELECT * FROM ff_s;
SELECT 'true record' AS record, * FROM ff_copied;
TRUNCATE ff_fd;
UPDATE slimheap.full_row_files SET natts = 3 WHERE relid = 'ff_s'::regclass;
\c
INSERT INTO ff_fd SELECT * FROM ff_s;
SELECT 'forged record' AS record, * FROM ff_copied;
TRUNCATE ff_fd;
-- a table of another owner is not read
CREATE ROLE regress_ff_owner;
ALTER TABLE slimheap.full_row_files OWNER TO regress_ff_owner;
\c
INSERT INTO ff_fd SELECT * FROM ff_s;
SELECT 'forged, not a superuser''s' AS record, * FROM ff_copied;
TRUNCATE ff_fd;
ALTER TABLE slimheap.full_row_files OWNER TO CURRENT_USER;
DROP ROLE regress_ff_owner;
DELETE FROM slimheap.full_row_files WHERE relid = 'ff_s'::regclass;
-- heap's slot still carries short rows out of ff_s when the record is gone
\c
INSERT INTO ff_fd SELECT * FROM ff_s;
SELECT 'no record' AS record, * FROM ff_copied;

-- record_full_rows(): a file made without a record (by an older catalog
-- or library, pg_upgrade, or a crash that emptied the record) is read row
-- by row, dead rows too (an older snapshot may still see them)
CREATE TABLE ff_old (a int, b int) USING slimheap;
INSERT INTO ff_old VALUES (1, 1), (2, NULL);
ALTER TABLE ff_old ADD COLUMN c int;
SELECT slimheap.record_full_rows('ff_old') AS recorded, full_record('ff_old');
DELETE FROM ff_old;
INSERT INTO ff_old VALUES (3, 3, 3);
SELECT slimheap.record_full_rows('ff_old') AS recorded_with_dead_rows;
VACUUM ff_old;
SELECT slimheap.record_full_rows('ff_old') AS recorded, full_record('ff_old');
-- the lost record of a file of full rows comes back (twice in a statement)
DELETE FROM slimheap.full_row_files WHERE relid = 'ff_ctas'::regclass;
SELECT full_record('ff_ctas') AS before,
       slimheap.record_full_rows('ff_ctas') AS recorded, full_record('ff_ctas');
SELECT slimheap.record_full_rows(c) AS again
FROM (VALUES ('ff_ctas'::regclass), ('ff_ctas'::regclass)) v(c);
-- not for wide, heap, temporary tables, or another owner's
SELECT slimheap.record_full_rows('ff_wide') AS wide;
CREATE TABLE ff_heap_kept (a int) USING heap;
SELECT slimheap.record_full_rows('ff_heap_kept');
CREATE TEMP TABLE ff_temp2 (a int) USING slimheap;
SELECT slimheap.record_full_rows('ff_temp2');
-- nor in a read-only transaction, nor from a statement that reads the table
BEGIN TRANSACTION READ ONLY;
SELECT slimheap.record_full_rows('ff_old');
ROLLBACK;
SELECT slimheap.record_full_rows('ff_old') FROM ff_old;
CREATE ROLE regress_ff_other;
SET ROLE regress_ff_other;
SELECT slimheap.record_full_rows('ff_old');
RESET ROLE;
DROP ROLE regress_ff_other;
DROP TABLE ff_old, ff_heap_kept, ff_temp2;

-- a record table with another index is not trusted (its writes form index
-- entries without an executor): no record is written, none is read
CREATE INDEX ff_expr ON slimheap.full_row_files ((relid::text));
CREATE TABLE ff_idx (a int) USING slimheap;
SELECT full_record('ff_idx') AS with_another_index;
DROP INDEX slimheap.ff_expr;
TRUNCATE ff_idx;
SELECT full_record('ff_idx') AS without;
DROP TABLE ff_idx;

-- DROP takes the record away
CREATE TABLE ff_drop (a int) USING slimheap;
SELECT 'ff_drop'::regclass::oid AS ff_drop_oid \gset
SELECT count(*) AS records FROM slimheap.full_row_files WHERE relid = :ff_drop_oid;
DROP TABLE ff_drop;
SELECT count(*) AS records FROM slimheap.full_row_files WHERE relid = :ff_drop_oid;

-- neither published nor readable by PUBLIC
SET client_min_messages = error;
CREATE PUBLICATION ff_pub FOR ALL TABLES;
RESET client_min_messages;
SELECT count(*) AS published FROM pg_publication_tables
WHERE pubname = 'ff_pub' AND tablename = 'full_row_files';
DROP PUBLICATION ff_pub;
SELECT has_table_privilege('public', 'slimheap.full_row_files', 'SELECT') AS public_reads;

DROP VIEW ff_copied;
DROP MATERIALIZED VIEW ff_mv;
DROP TABLE ff_n, ff_ctas, ff_heap, ff_wide, ff_parted, ff_s, ff_fd;
DROP FUNCTION full_record(regclass), row_natts(regclass);
-- no record outlives its table (rewrites' transient tables included)
SELECT count(*) AS orphans FROM slimheap.full_row_files f
WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = f.relid);
