--
-- Rows re-laid out in place by an index build on a compress table
-- (docs/format.md "Index builds"):
--   1. they keep their line pointer and take the form a row written with
--      the index in place takes: the same tail past the new prefix, the
--      same length;
--   2. the dead rows of an aborted ADD COLUMN (laid out for more columns
--      than the table has) are left alone, and the build goes on;
--   3. a row re-laid after ADD COLUMN ... DEFAULT keeps the attributes it
--      stored, so that its UPDATE chain and its values stay as they were;
-- against heap twins, with verify() and bt_index_check(heapallindexed).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

-- 1. 400 columns: rows set c1, c10 and c400; w_ix had the index first
DO $$
BEGIN
  EXECUTE (SELECT format('CREATE TABLE rl_w (%s) USING slimheap WITH (slimheap.null_bitmap = compress)',
                         string_agg(format('c%s int4', i), ', ' ORDER BY i))
             FROM generate_series(1, 400) i);
END
$$;
CREATE TABLE rl_w_ix (LIKE rl_w) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE INDEX ON rl_w_ix (c10);
INSERT INTO rl_w (c1, c10, c400) SELECT g, g, g FROM generate_series(1, 100) g;
INSERT INTO rl_w_ix SELECT * FROM rl_w;
CREATE TABLE rl_w_before AS SELECT c1, ctid AS t FROM rl_w;
SELECT form, natts, count(*) FROM slimheap.page_items('rl_w', 0) GROUP BY 1, 2;
CREATE INDEX rl_w_c10 ON rl_w (c10);
SELECT count(*) AS moved FROM rl_w JOIN rl_w_before b USING (c1) WHERE rl_w.ctid <> b.t;
SELECT 'in place' AS rows, form, natts, stored_natts, lp_len, count(*)
  FROM slimheap.page_items('rl_w', 0) GROUP BY 1, 2, 3, 4, 5
UNION ALL
SELECT 'index first', form, natts, stored_natts, lp_len, count(*)
  FROM slimheap.page_items('rl_w_ix', 0) GROUP BY 1, 2, 3, 4, 5
ORDER BY 1;
SET enable_seqscan = off;
SELECT c1, c10, c400 FROM rl_w WHERE c10 BETWEEN 41 AND 43 ORDER BY c10;
RESET enable_seqscan;
SELECT bt_index_check('rl_w_c10', true);
SELECT * FROM slimheap.verify('rl_w');

-- 2. an aborted ADD COLUMN leaves a dead row of 21 attributes; the table
-- is given another 21st column (text where it was int8) before the build
CREATE TABLE rl_a (c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int,
  c8 int, c9 int, c10 int, c11 int, c12 text, c13 int, c14 int, c15 int,
  c16 int, c17 int, c18 int, c19 int, c20 int)
  USING slimheap WITH (slimheap.null_bitmap = compress, fillfactor = 50);
CREATE TABLE rl_a_h (LIKE rl_a) USING heap;
INSERT INTO rl_a (c1, c12) SELECT g, 'v' || g FROM generate_series(1, 20) g;
INSERT INTO rl_a_h SELECT * FROM rl_a;
BEGIN;
ALTER TABLE rl_a ADD COLUMN z int8;
INSERT INTO rl_a (c1, c12, z) VALUES (1000, 'hello', 2000000000);
ROLLBACK;
ALTER TABLE rl_a ADD COLUMN z text;
ALTER TABLE rl_a_h ADD COLUMN z text;
CREATE INDEX rl_a_c12 ON rl_a (c12);
SELECT bt_index_check('rl_a_c12', true);
SELECT count(*) AS differ FROM (TABLE rl_a EXCEPT ALL TABLE rl_a_h) d;
SET enable_seqscan = off;
SELECT c1, c12 FROM rl_a WHERE c12 IN ('v3', 'hello');
RESET enable_seqscan;

-- 3. rows from before two ADD COLUMN ... DEFAULT, one of them updated in
-- between, then an index on k (the tenth column, in their tails)
CREATE TABLE rl_d (c1 int4 DEFAULT -1, c2 timetz, c3 timestamp, c4 numeric,
  c5 float8, c6 uuid, c7 date NOT NULL, c8 numeric, c9 int2, k int8 NOT NULL,
  c10 char(5), c11 timestamp)
  USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TABLE rl_d_h (LIKE rl_d INCLUDING DEFAULTS) USING heap;
INSERT INTO rl_d (c7, c9, k) VALUES ('1962-01-01', NULL, 1), ('1988-09-09', NULL, 2);
INSERT INTO rl_d (c1, c4, c7, k) VALUES (11, 260315619.86354, '1930-10-09', 3);
INSERT INTO rl_d (c7, c9, k, c10) VALUES ('1979-06-16', 19301, 4, '5');
INSERT INTO rl_d_h SELECT * FROM rl_d;
ALTER TABLE rl_d ADD COLUMN c12 int8 DEFAULT 405979003661867897;
ALTER TABLE rl_d_h ADD COLUMN c12 int8 DEFAULT 405979003661867897;
UPDATE rl_d SET c9 = NULL WHERE c4 IS NOT NULL;
UPDATE rl_d_h SET c9 = NULL WHERE c4 IS NOT NULL;
ALTER TABLE rl_d ADD COLUMN c13 int8 DEFAULT 499082882018650488;
ALTER TABLE rl_d_h ADD COLUMN c13 int8 DEFAULT 499082882018650488;
CREATE UNIQUE INDEX rl_d_k ON rl_d (k);
SELECT bt_index_check('rl_d_k', true);
SELECT * FROM slimheap.verify('rl_d');
SELECT count(*) AS differ FROM (TABLE rl_d EXCEPT ALL TABLE rl_d_h) d;
SELECT count(*) AS differ FROM (TABLE rl_d_h EXCEPT ALL TABLE rl_d) d;
SELECT k, c12, c13 FROM rl_d ORDER BY k;

DROP TABLE rl_w, rl_w_ix, rl_w_before, rl_a, rl_a_h, rl_d, rl_d_h;
