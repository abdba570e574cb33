--
-- Indexes on slimheap tables: btree, hash, GIN, BRIN, expression, partial
-- and covering indexes, built before and after the rows were loaded, read by
-- index, index-only and bitmap scans; the results must be the heap twin's.
-- amcheck's heapallindexed check re-reads every row and looks for its index
-- entry, so an index entry that disagrees with the stored row fails it.
--
CREATE SCHEMA twin_index;
SET search_path = twin_index, public;

-- p8 and p9 are never set: they make the table wider than 8 attributes, so
-- that its rows are stored truncated (a narrower table stores heap's full
-- form in every mode, docs/narrow-slot.md)
CREATE TABLE idx_h (id int NOT NULL, seq int, txt text, tags int[],
                    doc jsonb, n numeric, pad int, p8 int, p9 int) USING heap;
CREATE TABLE idx_s (id int NOT NULL, seq int, txt text, tags int[],
                    doc jsonb, n numeric, pad int, p8 int, p9 int) USING slimheap;
-- indexes that exist while the rows are inserted
CREATE UNIQUE INDEX idx_h_id ON idx_h (id);
CREATE UNIQUE INDEX idx_s_id ON idx_s (id);
CREATE INDEX idx_h_tags ON idx_h USING gin (tags);
CREATE INDEX idx_s_tags ON idx_s USING gin (tags);
CREATE INDEX idx_h_pad ON idx_h (pad);
CREATE INDEX idx_s_pad ON idx_s (pad);

-- 2000 rows; the later columns are mostly NULL
INSERT INTO idx_h
SELECT g, g / 10,
       CASE WHEN g % 3 = 0 THEN 'Txt' || (g % 50) END,
       CASE WHEN g % 4 = 0 THEN ARRAY[g % 7, g % 11, g % 13] END,
       CASE WHEN g % 6 = 0 THEN jsonb_build_object('k', g % 5, 'g', g) END,
       CASE WHEN g % 8 = 0 THEN g / 3.0 END,
       CASE WHEN g % 100 = 0 THEN g END
FROM generate_series(1, 2000) AS g;
INSERT INTO idx_s
SELECT g, g / 10,
       CASE WHEN g % 3 = 0 THEN 'Txt' || (g % 50) END,
       CASE WHEN g % 4 = 0 THEN ARRAY[g % 7, g % 11, g % 13] END,
       CASE WHEN g % 6 = 0 THEN jsonb_build_object('k', g % 5, 'g', g) END,
       CASE WHEN g % 8 = 0 THEN g / 3.0 END,
       CASE WHEN g % 100 = 0 THEN g END
FROM generate_series(1, 2000) AS g;

-- indexes built from the stored rows
CREATE INDEX idx_h_txt ON idx_h (txt);
CREATE INDEX idx_s_txt ON idx_s (txt);
CREATE INDEX idx_h_txt_hash ON idx_h USING hash (txt);
CREATE INDEX idx_s_txt_hash ON idx_s USING hash (txt);
CREATE INDEX idx_h_doc ON idx_h USING gin (doc);
CREATE INDEX idx_s_doc ON idx_s USING gin (doc jsonb_ops);
CREATE INDEX idx_h_seq_brin ON idx_h USING brin (seq) WITH (pages_per_range = 1);
CREATE INDEX idx_s_seq_brin ON idx_s USING brin (seq) WITH (pages_per_range = 1);
CREATE INDEX idx_h_n_brin ON idx_h USING brin (n) WITH (pages_per_range = 1);
CREATE INDEX idx_s_n_brin ON idx_s USING brin (n) WITH (pages_per_range = 1);
CREATE INDEX idx_h_lower ON idx_h (lower(txt));
CREATE INDEX idx_s_lower ON idx_s (lower(txt));
CREATE INDEX idx_h_coalesce ON idx_h ((coalesce(n, -1)));
CREATE INDEX idx_s_coalesce ON idx_s ((coalesce(n, -1)));
CREATE INDEX idx_h_part_null ON idx_h (id) WHERE n IS NULL;
CREATE INDEX idx_s_part_null ON idx_s (id) WHERE n IS NULL;
CREATE INDEX idx_h_part_pad ON idx_h (seq) WHERE pad IS NOT NULL;
CREATE INDEX idx_s_part_pad ON idx_s (seq) WHERE pad IS NOT NULL;
CREATE INDEX idx_h_cover ON idx_h (seq, n) INCLUDE (pad);
CREATE INDEX idx_s_cover ON idx_s (seq, n) INCLUDE (pad);
-- the index validation scan of CREATE INDEX CONCURRENTLY
CREATE INDEX CONCURRENTLY idx_h_conc ON idx_h (n, txt);
CREATE INDEX CONCURRENTLY idx_s_conc ON idx_s (n, txt);

-- changes after the indexes exist: HOT and non-HOT, trailing NULLs set and
-- cleared, deletions
UPDATE idx_h SET pad = -id WHERE id % 250 = 0;
UPDATE idx_s SET pad = -id WHERE id % 250 = 0;
UPDATE idx_h SET n = NULL, doc = NULL, pad = NULL WHERE id % 16 = 0;
UPDATE idx_s SET n = NULL, doc = NULL, pad = NULL WHERE id % 16 = 0;
UPDATE idx_h SET tags = tags || 99 WHERE id % 20 = 0;
UPDATE idx_s SET tags = tags || 99 WHERE id % 20 = 0;
UPDATE idx_h SET txt = 'NEW' || id WHERE id % 333 = 0;
UPDATE idx_s SET txt = 'NEW' || id WHERE id % 333 = 0;
DELETE FROM idx_h WHERE id % 97 = 0;
DELETE FROM idx_s WHERE id % 97 = 0;
VACUUM (ANALYZE) idx_h;
VACUUM (ANALYZE) idx_s;
SELECT * FROM twin.compare('idx_h', 'idx_s');
SELECT * FROM twin.storage('idx_h', 'idx_s', 'id');
SELECT * FROM twin.natts_rule('idx_s');

-- every btree index holds exactly the entries its rows call for
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'idx_s'::regclass AND a.amname = 'btree'
ORDER BY c.relname;

--
-- Index scans only
--
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT id, pad FROM idx_s WHERE pad IS NULL AND id < 30;
SELECT * FROM twin.query('SELECT id, txt FROM %s WHERE id BETWEEN 90 AND 1100', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, pad FROM %s WHERE pad IS NULL', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, pad FROM %s WHERE pad < 0 OR pad > 1500', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, txt FROM %s WHERE txt = ''Txt3''', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id FROM %s WHERE txt IS NULL', 'idx_h', 'idx_s');
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE lower(txt) = 'txt9';
SELECT * FROM twin.query('SELECT id, txt FROM %s WHERE lower(txt) = ''txt9''', 'idx_h', 'idx_s');
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE coalesce(n, -1) = -1;
SELECT * FROM twin.query('SELECT id, n FROM %s WHERE coalesce(n, -1) = -1', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, n FROM %s WHERE coalesce(n, -1) > 600', 'idx_h', 'idx_s');
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE n IS NULL AND id < 100;
SELECT * FROM twin.query('SELECT id, n FROM %s WHERE n IS NULL AND id < 1000', 'idx_h', 'idx_s');
EXPLAIN (COSTS OFF) SELECT seq, pad FROM idx_s WHERE pad IS NOT NULL AND seq > 10;
SELECT * FROM twin.query('SELECT id, seq, pad FROM %s WHERE pad IS NOT NULL AND seq > 10', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, n, txt FROM %s WHERE n > 100 AND n < 200', 'idx_h', 'idx_s');
-- hash
SET enable_indexscan = on;
DROP INDEX idx_h_txt, idx_s_txt;
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE txt = 'Txt30';
SELECT * FROM twin.query('SELECT id, txt FROM %s WHERE txt = ''Txt30''', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, txt FROM %s WHERE txt = ''NEW999''', 'idx_h', 'idx_s');

--
-- Index-only scans (the visibility map was set by VACUUM)
--
-- (enable_indexscan stays on: from PostgreSQL 18 on, turning it off
-- disables index-only scans too)
SET enable_indexonlyscan = on;
EXPLAIN (COSTS OFF) SELECT seq, n, pad FROM idx_s WHERE seq BETWEEN 50 AND 60;
SELECT * FROM twin.query('SELECT seq, n, pad FROM %s WHERE seq BETWEEN 50 AND 60', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT seq, n, pad FROM %s WHERE seq > 150', 'idx_h', 'idx_s');
RESET enable_indexscan;

--
-- Bitmap scans: GIN, BRIN, and btree bitmaps
--
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE tags @> '{3}';
SELECT * FROM twin.query('SELECT id, tags FROM %s WHERE tags @> ''{3}''', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, tags FROM %s WHERE tags && ''{99, 12}''', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, tags FROM %s WHERE tags <@ ''{0, 1, 2, 3, 4}''', 'idx_h', 'idx_s');
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE doc @> '{"k": 2}';
SELECT * FROM twin.query('SELECT id, doc FROM %s WHERE doc @> ''{"k": 2}''', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, doc FROM %s WHERE doc ? ''g'' AND id > 1900', 'idx_h', 'idx_s');
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE seq BETWEEN 40 AND 45;
SELECT * FROM twin.query('SELECT id, seq FROM %s WHERE seq BETWEEN 40 AND 45', 'idx_h', 'idx_s');
EXPLAIN (COSTS OFF) SELECT id FROM idx_s WHERE n > 600;
SELECT * FROM twin.query('SELECT id, n FROM %s WHERE n > 600', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id FROM %s WHERE n IS NULL', 'idx_h', 'idx_s');
-- a BitmapOr of two of idx_s's indexes (which one serves "pad IS NOT NULL",
-- idx_s_pad or the partial idx_s_part_pad, is the planner's choice: 19
-- takes the partial one)
CREATE FUNCTION pg_temp.plan_lines(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    RETURN NEXT l;
  END LOOP;
END
$$;
SELECT bool_or(l ~ 'BitmapOr') AS bitmap_or,
       count(*) FILTER (WHERE l ~ 'Bitmap Index Scan on idx_s_') AS index_scans
  FROM pg_temp.plan_lines('SELECT id FROM idx_s WHERE pad IS NOT NULL OR id < 10') l;
SELECT * FROM twin.query('SELECT id, pad FROM %s WHERE pad IS NOT NULL OR id < 10', 'idx_h', 'idx_s');
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;

-- REINDEX rebuilds from the stored rows (and CONCURRENTLY validates)
REINDEX TABLE idx_s;
REINDEX TABLE CONCURRENTLY idx_s;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'idx_s'::regclass AND a.amname = 'btree'
ORDER BY c.relname;
SET enable_seqscan = off;
SELECT * FROM twin.query('SELECT id, tags FROM %s WHERE tags @> ''{99}''', 'idx_h', 'idx_s');
SELECT * FROM twin.query('SELECT id, pad FROM %s WHERE pad IS NULL', 'idx_h', 'idx_s');
RESET enable_seqscan;

-- a unique index on a column that is often NULL: NULLs do not conflict,
-- duplicates do
CREATE UNIQUE INDEX idx_s_pad_uniq ON idx_s (pad);
INSERT INTO idx_s (id) VALUES (5001), (5002);
SELECT id, pad FROM idx_s WHERE pad = 1100;
INSERT INTO idx_s (id, pad) VALUES (5003, 1100);

SET client_min_messages = warning;
DROP SCHEMA twin_index CASCADE;
RESET client_min_messages;
