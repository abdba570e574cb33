--
-- Partitioned tables with slimheap partitions (and one heap partition):
-- routed INSERT and COPY, UPDATEs that move rows between partitions of
-- either access method, ON CONFLICT, and a partition whose columns are laid
-- out differently from the parent's (routing converts the rows).  The twin
-- is the same partitioned table with heap partitions only.
--
CREATE SCHEMA twin_partition;
SET search_path = twin_partition, public;

CREATE TABLE part_h (k int, id int, a int, b text, c int, PRIMARY KEY (k, id)) PARTITION BY RANGE (k);
CREATE TABLE part_h1 PARTITION OF part_h FOR VALUES FROM (0) TO (10) USING heap;
CREATE TABLE part_h2 PARTITION OF part_h FOR VALUES FROM (10) TO (20) USING heap;
CREATE TABLE part_h3 PARTITION OF part_h FOR VALUES FROM (20) TO (30) USING heap;
CREATE TABLE part_hd PARTITION OF part_h DEFAULT USING heap;

CREATE TABLE part_s (k int, id int, a int, b text, c int, PRIMARY KEY (k, id)) PARTITION BY RANGE (k);
CREATE TABLE part_s1 PARTITION OF part_s FOR VALUES FROM (0) TO (10) USING slimheap;
CREATE TABLE part_s2 PARTITION OF part_s FOR VALUES FROM (10) TO (20) USING slimheap;
CREATE TABLE part_s3 PARTITION OF part_s FOR VALUES FROM (20) TO (30) USING heap;
-- the default partition: columns in another order and a dropped column, so
-- rows routed to it are converted
CREATE TABLE part_sd (k int NOT NULL, id int NOT NULL, c int, junk int, b text, a int) USING slimheap;
ALTER TABLE part_sd DROP COLUMN junk;
ALTER TABLE part_s ATTACH PARTITION part_sd DEFAULT;
-- ten more trailing columns, mostly NULL
DO $$
BEGIN
	EXECUTE format('ALTER TABLE part_h %s', (SELECT string_agg(format('ADD COLUMN x%s int', i), ', ') FROM generate_series(1, 10) AS i));
	EXECUTE format('ALTER TABLE part_s %s', (SELECT string_agg(format('ADD COLUMN x%s int', i), ', ') FROM generate_series(1, 10) AS i));
END
$$;

-- rows for every partition, trailing NULLs in most
INSERT INTO part_h SELECT g % 40, g, CASE WHEN g % 2 = 0 THEN g END,
  CASE WHEN g % 3 = 0 THEN 'b' || g END, CASE WHEN g % 5 = 0 THEN g END,
  CASE WHEN g % 50 = 0 THEN g END
FROM generate_series(1, 400) AS g;
INSERT INTO part_s SELECT g % 40, g, CASE WHEN g % 2 = 0 THEN g END,
  CASE WHEN g % 3 = 0 THEN 'b' || g END, CASE WHEN g % 5 = 0 THEN g END,
  CASE WHEN g % 50 = 0 THEN g END
FROM generate_series(1, 400) AS g;
COPY part_h (k, id, a, b, c) FROM stdin;
1	1001	\N	\N	\N
11	1002	\N	x	\N
21	1003	\N	\N	3
31	1004	4	\N	\N
41	1005	\N	\N	\N
\.
COPY part_s (k, id, a, b, c) FROM stdin;
1	1001	\N	\N	\N
11	1002	\N	x	\N
21	1003	\N	\N	3
31	1004	4	\N	\N
41	1005	\N	\N	\N
\.
SELECT tableoid::regclass AS part, count(*), count(a) AS a, count(b) AS b, count(c) AS c
FROM part_s GROUP BY 1 ORDER BY 1;
SELECT * FROM twin.compare('part_h', 'part_s');

-- the stored rows of the slimheap partitions are truncated
SELECT 'part_s1' AS part, * FROM twin.natts_rule('part_s1')
UNION ALL SELECT 'part_s2', * FROM twin.natts_rule('part_s2');
SELECT * FROM twin.storage('part_h1', 'part_s1', 'id');
SELECT * FROM twin.storage('part_h2', 'part_s2', 'id');
SELECT * FROM twin.storage('part_h3', 'part_s3', 'id');
-- part_sd stores k, id, c, (dropped), b, a, x1..x10: a row with only c
-- set has natts 3
SELECT t.id, t.c, t.b, t.a, t.x1, s.natts FROM part_sd t JOIN twin.stored('part_sd') s ON s.tid = t.ctid
WHERE t.id IN (1005, 35, 30, 350) ORDER BY t.id;

-- UPDATEs that move rows: slimheap -> slimheap, slimheap -> heap,
-- heap -> slimheap, into and out of the converted default partition, and
-- with the trailing columns changing on the way
UPDATE part_h SET k = k + 10, c = NULL WHERE k BETWEEN 0 AND 9 AND id % 7 = 0;
UPDATE part_s SET k = k + 10, c = NULL WHERE k BETWEEN 0 AND 9 AND id % 7 = 0;
UPDATE part_h SET k = k + 10, c = -id WHERE k BETWEEN 10 AND 19 AND id % 7 = 1;
UPDATE part_s SET k = k + 10, c = -id WHERE k BETWEEN 10 AND 19 AND id % 7 = 1;
UPDATE part_h SET k = k - 20, b = NULL, c = NULL WHERE k BETWEEN 20 AND 29 AND id % 7 = 2;
UPDATE part_s SET k = k - 20, b = NULL, c = NULL WHERE k BETWEEN 20 AND 29 AND id % 7 = 2;
UPDATE part_h SET k = k + 100, a = NULL WHERE k BETWEEN 0 AND 9 AND id % 7 = 3;
UPDATE part_s SET k = k + 100, a = NULL WHERE k BETWEEN 0 AND 9 AND id % 7 = 3;
UPDATE part_h SET k = k % 10, a = 1 WHERE k >= 30 AND id % 7 = 4;
UPDATE part_s SET k = k % 10, a = 1 WHERE k >= 30 AND id % 7 = 4;
-- and rows that stay in their partition
UPDATE part_h SET c = 0 WHERE id % 11 = 0;
UPDATE part_s SET c = 0 WHERE id % 11 = 0;
SELECT tableoid::regclass AS part, count(*), count(a) AS a, count(b) AS b, count(c) AS c
FROM part_s GROUP BY 1 ORDER BY 1;
SELECT * FROM twin.compare('part_h', 'part_s');
SELECT 'part_s1' AS part, * FROM twin.natts_rule('part_s1')
UNION ALL SELECT 'part_s2', * FROM twin.natts_rule('part_s2');
SELECT * FROM twin.storage('part_h1', 'part_s1', 'id');
SELECT * FROM twin.storage('part_h2', 'part_s2', 'id');

-- ON CONFLICT through the parent
INSERT INTO part_h (k, id, a, b, c) VALUES (1, 1001, NULL, NULL, 1), (2, 5000, NULL, NULL, NULL), (45, 1005, NULL, 'x', NULL)
ON CONFLICT (k, id) DO UPDATE SET c = EXCLUDED.c, b = EXCLUDED.b;
INSERT INTO part_s (k, id, a, b, c) VALUES (1, 1001, NULL, NULL, 1), (2, 5000, NULL, NULL, NULL), (45, 1005, NULL, 'x', NULL)
ON CONFLICT (k, id) DO UPDATE SET c = EXCLUDED.c, b = EXCLUDED.b;
INSERT INTO part_h VALUES (41, 1005, 1, NULL, NULL) ON CONFLICT (k, id) DO UPDATE SET a = EXCLUDED.a;
INSERT INTO part_s VALUES (41, 1005, 1, NULL, NULL) ON CONFLICT (k, id) DO UPDATE SET a = EXCLUDED.a;
SELECT tableoid::regclass, k, id, a, b, c FROM part_s WHERE id IN (1001, 1005, 5000) ORDER BY k, id;
SELECT * FROM twin.compare('part_h', 'part_s');

-- RETURNING through the parent
UPDATE part_s SET k = 7, c = NULL WHERE id = 1003
  RETURNING tableoid::regclass, k, id, a, b, c;
UPDATE part_h SET k = 7, c = NULL WHERE id = 1003
  RETURNING tableoid::regclass, k, id, a, b, c;
UPDATE part_s SET k = 27, x10 = 10 WHERE id = 5000
  RETURNING tableoid::regclass, k, id, a, b, c, x10;
UPDATE part_h SET k = 27, x10 = 10 WHERE id = 5000
  RETURNING tableoid::regclass, k, id, a, b, c, x10;
DELETE FROM part_s WHERE id = 1005 RETURNING tableoid::regclass, k, id, a, b, c;
DELETE FROM part_h WHERE id = 1005 RETURNING tableoid::regclass, k, id, a, b, c;

-- partition-wise and pruned reads agree
SELECT * FROM twin.query('SELECT k, count(*), sum(a), count(c) FROM %s GROUP BY k', 'part_h', 'part_s');
SELECT * FROM twin.query('SELECT * FROM %s WHERE k BETWEEN 5 AND 14 AND c IS NULL', 'part_h', 'part_s');
SET enable_seqscan = off;
SELECT * FROM twin.query('SELECT * FROM %s WHERE k = 12 AND id > 100', 'part_h', 'part_s');
RESET enable_seqscan;

-- DETACH a slimheap partition, it keeps its rows; ATTACH it back
ALTER TABLE part_s DETACH PARTITION part_s2;
ALTER TABLE part_h DETACH PARTITION part_h2;
SELECT * FROM twin.compare('part_h2', 'part_s2');
ALTER TABLE part_s ATTACH PARTITION part_s2 FOR VALUES FROM (10) TO (20);
ALTER TABLE part_h ATTACH PARTITION part_h2 FOR VALUES FROM (10) TO (20);
SELECT * FROM twin.compare('part_h', 'part_s');

SET client_min_messages = warning;
DROP SCHEMA twin_partition CASCADE;
RESET client_min_messages;
