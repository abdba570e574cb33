--
-- A unique CREATE INDEX CONCURRENTLY on a compress table whose duplicates
-- hide in compressed tails fails as heap's does: in its build, with
-- "could not create unique index", leaving an index neither
-- valid nor ready for inserts (so it enforces nothing), and no row stored
-- again: the moves of the failed build go with its transaction.  A unique
-- build without duplicates succeeds and leaves no row hiding its column.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

DO $$
BEGIN
  EXECUTE (SELECT format('CREATE TABLE uc_h (id int, %s) USING heap',
                         string_agg(format('c%s int', i), ', ' ORDER BY i))
             FROM generate_series(2, 100) i);
END
$$;
CREATE TABLE uc_s (LIKE uc_h) USING slimheap WITH (slimheap.null_bitmap = compress);
-- c50 in every row's tail; 5 twice
INSERT INTO uc_h (id, c2, c50, c100)
  SELECT g, g, CASE WHEN g = 20 THEN 5 ELSE g END, g FROM generate_series(1, 20) g;
INSERT INTO uc_s SELECT * FROM uc_h;
SELECT count(*) FILTER (WHERE tail_encoding IS NOT NULL AND natts < 50) AS hiding
  FROM slimheap.page_items('uc_s', 0);
CREATE TEMP TABLE uc_before AS SELECT ctid AS tid, xmin::text AS xid, id FROM uc_s;

\set VERBOSITY terse
CREATE UNIQUE INDEX CONCURRENTLY uc_h_c50 ON uc_h (c50);
CREATE UNIQUE INDEX CONCURRENTLY uc_s_c50 ON uc_s (c50);
\set VERBOSITY default
SELECT c.relname, i.indisvalid, i.indisready
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE c.relname IN ('uc_h_c50', 'uc_s_c50') ORDER BY 1;
-- the invalid index enforces nothing: a value present once goes in twice
INSERT INTO uc_h (id, c50) VALUES (21, 7);
INSERT INTO uc_s (id, c50) VALUES (21, 7);
-- and the failed build stored no row again
SELECT count(*) AS rows_changed
  FROM uc_before b FULL JOIN (SELECT ctid AS tid, xmin::text AS xid, id FROM uc_s WHERE id <= 20) a
       USING (tid, xid, id)
 WHERE a.id IS NULL OR b.id IS NULL;

-- without duplicates the build succeeds, and the rows keep c50 in front
DROP INDEX uc_h_c50;
DROP INDEX uc_s_c50;
DELETE FROM uc_h WHERE id IN (20, 21);
DELETE FROM uc_s WHERE id IN (20, 21);
CREATE UNIQUE INDEX CONCURRENTLY uc_h_c50 ON uc_h (c50);
CREATE UNIQUE INDEX CONCURRENTLY uc_s_c50 ON uc_s (c50);
SELECT c.relname, i.indisvalid, i.indisready
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE c.relname IN ('uc_h_c50', 'uc_s_c50') ORDER BY 1;
SELECT count(*) AS hiding
  FROM slimheap.page_items('uc_s', 0) i JOIN uc_s q ON q.ctid = format('(0,%s)', i.lp)::tid
 WHERE i.tail_encoding IS NOT NULL AND i.natts < 50 AND q.c50 IS NOT NULL;
SET enable_seqscan = off;
SELECT 'heap' AS t, count(*) FROM uc_h WHERE c50 BETWEEN 1 AND 100
UNION ALL
SELECT 'slim', count(*) FROM uc_s WHERE c50 BETWEEN 1 AND 100;
RESET enable_seqscan;
\set VERBOSITY terse
INSERT INTO uc_s (id, c50) VALUES (22, 7);
INSERT INTO uc_h (id, c50) VALUES (22, 7);
\set VERBOSITY default

DROP TABLE uc_h, uc_s, uc_before;
