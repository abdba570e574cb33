--
-- A table of at most 8 attributes (dropped ones count) uses heap's own
-- slot: its rows are heap's full form in every mode.  A row shorter than
-- the table's descriptor (stored before an ADD COLUMN, or truncated by an
-- earlier release) is replaced in heap's slot by its full form when it is
-- read, so that no copy of it leaves short (invariant E1): a short row
-- copied into a table with fast defaults would read those defaults where
-- the row has NULL.  Here every way a read fills a slot copies such rows
-- into a table whose trailing column has a fast default; each statement runs
-- right after \c, while the table's slots are still heap's (a backend that
-- met short rows gives the table slimheap's slots until its relcache entry
-- is rebuilt).  heap itself copies a short row as it is.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

CREATE TABLE narrow_n (a int, b text) USING slimheap;
INSERT INTO narrow_n VALUES (1, 'one'), (2, NULL);
ALTER TABLE narrow_n ADD COLUMN c int;
INSERT INTO narrow_n VALUES (3, 'three', 3), (4, 'four', NULL);
CREATE INDEX narrow_n_a ON narrow_n (a);
-- rows 1 and 2 store 2 attributes, rows 3 and 4 all three
SELECT lp, t_infomask2 & 2047 AS natts
FROM heap_page_items(get_raw_page('narrow_n', 0)) ORDER BY lp;

-- narrow_same: narrow_n's layout (so that nothing projects the row), c
-- reading a fast default past a row's natts; copied shows what it got
CREATE TABLE narrow_same (a int, b text);
ALTER TABLE narrow_same ADD COLUMN c int DEFAULT 50;
CREATE VIEW narrow_copied AS
  SELECT string_agg(format('%s:%s', a, coalesce(c::text, 'null')), ' '
                    ORDER BY a) AS c_by_a
  FROM narrow_same;

\c
INSERT INTO narrow_same SELECT * FROM narrow_n;
SELECT 'seq scan, slot passed on' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
INSERT INTO narrow_same SELECT * FROM narrow_n ORDER BY a DESC;
SELECT 'sort' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
WITH m AS MATERIALIZED (SELECT * FROM narrow_n)
INSERT INTO narrow_same SELECT * FROM m;
SELECT 'materialized CTE' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
SET enable_seqscan = off;
SET enable_bitmapscan = off;
INSERT INTO narrow_same SELECT * FROM narrow_n WHERE a > 0;
SELECT 'index scan' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
SET enable_seqscan = off;
SET enable_indexscan = off;
INSERT INTO narrow_same SELECT * FROM narrow_n WHERE a > 0;
SELECT 'bitmap scan' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
INSERT INTO narrow_same SELECT * FROM narrow_n
WHERE ctid = ANY (ARRAY['(0,1)', '(0,2)', '(0,3)', '(0,4)']::tid[]);
SELECT 'tid scan' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
INSERT INTO narrow_same SELECT * FROM narrow_n WHERE ctid < '(1,0)';
SELECT 'tid range scan' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
INSERT INTO narrow_same SELECT * FROM narrow_n TABLESAMPLE SYSTEM (100);
SELECT 'sample scan' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
INSERT INTO narrow_same SELECT * FROM narrow_n FOR UPDATE;
SELECT 'row locks' AS path, * FROM narrow_copied;
TRUNCATE narrow_same;
\c
-- rows from parallel workers, stored by CREATE TABLE AS as they come
CREATE TABLE narrow_big (a int, b text) USING slimheap;
INSERT INTO narrow_big SELECT g, 'b' || g FROM generate_series(1, 3000) g;
ALTER TABLE narrow_big ADD COLUMN c int;
INSERT INTO narrow_big VALUES (3001, 'b3001', 3001);
ANALYZE narrow_big;
\c
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) CREATE TABLE narrow_par USING heap AS SELECT * FROM narrow_big;
CREATE TABLE narrow_par USING heap AS SELECT * FROM narrow_big;
SELECT t_infomask2 & 2047 AS natts_stored, count(*)
FROM generate_series(0, pg_relation_size('narrow_par') / 8192 - 1) blk,
     heap_page_items(get_raw_page('narrow_par', blk::int))
GROUP BY 1;
\c
COPY (SELECT * FROM narrow_n) TO STDOUT;

-- a TID scan whose slot holds a full row when the next TID has no visible
-- row: heap's fetch fails and stores nothing, so nothing is checked
CREATE TABLE narrow_tid (a int) USING slimheap;
INSERT INTO narrow_tid VALUES (1), (2);
DELETE FROM narrow_tid WHERE a = 2;
SELECT a FROM narrow_tid WHERE ctid = ANY ('{"(0,1)","(0,2)"}'::tid[]);
SELECT a FROM narrow_tid WHERE ctid IN ('(0,1)', '(0,99)');
UPDATE narrow_tid SET a = a + 10 WHERE ctid = ANY ('{"(0,1)","(0,2)"}'::tid[]);
SELECT a FROM narrow_tid;
DROP TABLE narrow_tid;

-- a short row widened in the slot keeps its system columns
\c
SELECT n.ctid, n.xmin = p.t_xmin AS same_xmin, n.a, n.c
FROM narrow_n n JOIN heap_page_items(get_raw_page('narrow_n', 0)) p
  ON p.t_ctid = n.ctid
ORDER BY n.a;

--
-- writes through heap's slot: UPDATE, DELETE and ON CONFLICT of short rows,
-- against a heap twin, and a row lock's visibility check at REPEATABLE READ
--
CREATE TABLE narrow_h (a int PRIMARY KEY, b text);
CREATE TABLE narrow_s (a int PRIMARY KEY, b text) USING slimheap;
INSERT INTO narrow_h VALUES (1, 'one'), (2, NULL), (3, 'three');
INSERT INTO narrow_s SELECT * FROM narrow_h;
ALTER TABLE narrow_h ADD COLUMN c int DEFAULT 7;
ALTER TABLE narrow_s ADD COLUMN c int DEFAULT 7;
\c
UPDATE narrow_s SET b = b || '!' WHERE a = 1;
UPDATE narrow_h SET b = b || '!' WHERE a = 1;
\c
DELETE FROM narrow_s WHERE a = 3;
DELETE FROM narrow_h WHERE a = 3;
\c
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO narrow_s VALUES (2, 'two') ON CONFLICT (a) DO UPDATE
  SET b = excluded.b, c = narrow_s.c + 1;
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
INSERT INTO narrow_h VALUES (2, 'two') ON CONFLICT (a) DO UPDATE
  SET b = excluded.b, c = narrow_h.c + 1;
COMMIT;
(SELECT 'only heap' AS side, * FROM narrow_h EXCEPT ALL SELECT 'only heap', * FROM narrow_s)
UNION ALL
(SELECT 'only slimheap', * FROM narrow_s EXCEPT ALL SELECT 'only slimheap', * FROM narrow_h);
SELECT * FROM narrow_s ORDER BY a;

-- INSERT ... SELECT from a heap table passes its scan slot on, short rows
-- and all: a narrow table stores them with every attribute (natts 2), as
-- slimheap's slot would, and its foreign key checks them
CREATE TABLE narrow_pk (id int PRIMARY KEY);
INSERT INTO narrow_pk VALUES (1), (2);
CREATE TABLE narrow_src (pk int);
INSERT INTO narrow_src VALUES (1), (2), (3);
ALTER TABLE narrow_src ADD COLUMN a int;
CREATE TABLE narrow_fk (pk int REFERENCES narrow_pk, a int) USING slimheap;
\c
INSERT INTO narrow_fk SELECT * FROM narrow_src WHERE pk < 3;
\c
INSERT INTO narrow_fk SELECT * FROM narrow_src WHERE pk = 3;
SELECT pk, a, (SELECT t_infomask2 & 2047 FROM heap_page_items(get_raw_page('narrow_fk', 0))
               WHERE t_ctid = f.ctid) AS natts
FROM narrow_fk f ORDER BY pk;

-- triggers: OLD rows of short rows, and a transition table copied out
CREATE TABLE narrow_t (a int, b text) USING slimheap;
INSERT INTO narrow_t VALUES (1, 'one'), (2, NULL);
ALTER TABLE narrow_t ADD COLUMN c int;
CREATE TABLE narrow_old (a int, b text);
ALTER TABLE narrow_old ADD COLUMN c int DEFAULT 50;
CREATE FUNCTION narrow_keep_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO narrow_old SELECT * FROM old_rows;
	RETURN NULL;
END $$;
CREATE TRIGGER narrow_t_old AFTER UPDATE ON narrow_t
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION narrow_keep_old();
\c
UPDATE narrow_t SET b = 'x';
SELECT * FROM narrow_old ORDER BY a;
SELECT * FROM narrow_t ORDER BY a;

DROP VIEW narrow_copied;
DROP TABLE narrow_n, narrow_same, narrow_big, narrow_par, narrow_h, narrow_s,
  narrow_fk, narrow_pk, narrow_src, narrow_t, narrow_old;
DROP FUNCTION narrow_keep_old();
