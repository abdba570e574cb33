--
-- INSERT, COPY, UPDATE, DELETE, ON CONFLICT and RETURNING on a heap table
-- and its slimheap twin.  Columns after id are nullable, so most rows end in
-- NULLs and are stored truncated.  p8 and p9 are never set: they make the
-- table wider than 8 attributes, as a narrower one stores heap's full form
-- in every mode (docs/narrow-slot.md).
--
CREATE SCHEMA twin_dml;
SET search_path = twin_dml, public;

CREATE TABLE dml_h (id int PRIMARY KEY, a int, b text, c numeric, d int,
                    e int[], f jsonb, p8 int, p9 int) USING heap WITH (fillfactor = 50);
CREATE TABLE dml_s (id int PRIMARY KEY, a int, b text, c numeric, d int,
                    e int[], f jsonb, p8 int, p9 int) USING slimheap WITH (fillfactor = 50);
CREATE INDEX ON dml_h (c);
CREATE INDEX ON dml_s (c);

-- single-row and multi-row VALUES
INSERT INTO dml_h VALUES (1, 1, 'one');
INSERT INTO dml_s VALUES (1, 1, 'one');
INSERT INTO dml_h VALUES
  (2, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, 3, NULL, 3.5, NULL, NULL, NULL),
  (4, NULL, 'four', NULL, 4, NULL, NULL),
  (5, 5, 'five', 5.5, 5, '{5,NULL,5}', '{"k": 5}'),
  (6, NULL, NULL, NULL, NULL, NULL, '{"k": null}'),
  (7, 7, '', 0, 0, '{}', '{}');
INSERT INTO dml_s VALUES
  (2, NULL, NULL, NULL, NULL, NULL, NULL),
  (3, 3, NULL, 3.5, NULL, NULL, NULL),
  (4, NULL, 'four', NULL, 4, NULL, NULL),
  (5, 5, 'five', 5.5, 5, '{5,NULL,5}', '{"k": 5}'),
  (6, NULL, NULL, NULL, NULL, NULL, '{"k": null}'),
  (7, 7, '', 0, 0, '{}', '{}');

-- INSERT ... SELECT: every pattern of NULLs over a, b, c, d (16 combinations)
INSERT INTO dml_h
SELECT g, CASE WHEN g & 1 = 0 THEN g END, CASE WHEN g & 2 = 0 THEN 'b' || g END,
       CASE WHEN g & 4 = 0 THEN g / 7.0 END, CASE WHEN g & 8 = 0 THEN -g END,
       CASE WHEN g % 5 = 0 THEN ARRAY[g, g + 1] END,
       CASE WHEN g % 7 = 0 THEN jsonb_build_object('g', g) END
FROM generate_series(100, 299) AS g;
INSERT INTO dml_s
SELECT g, CASE WHEN g & 1 = 0 THEN g END, CASE WHEN g & 2 = 0 THEN 'b' || g END,
       CASE WHEN g & 4 = 0 THEN g / 7.0 END, CASE WHEN g & 8 = 0 THEN -g END,
       CASE WHEN g % 5 = 0 THEN ARRAY[g, g + 1] END,
       CASE WHEN g % 7 = 0 THEN jsonb_build_object('g', g) END
FROM generate_series(100, 299) AS g;

-- COPY FROM stdin (the multi-insert path), NULLs in every position
COPY dml_h FROM stdin;
1000	\N	\N	\N	\N	\N	\N	\N	\N
1001	1	\N	\N	\N	\N	\N	\N	\N
1002	\N	b	\N	\N	\N	\N	\N	\N
1003	\N	\N	3.25	\N	\N	\N	\N	\N
1004	\N	\N	\N	4	\N	\N	\N	\N
1005	\N	\N	\N	\N	{5}	\N	\N	\N
1006	\N	\N	\N	\N	\N	{"x": 6}	\N	\N
1007	7	b7	7.5	7	{7,7}	{"x": 7}	\N	\N
1008	8	\N	8.5	\N	{8}	\N	\N	\N
1009	\N	b9	\N	9	\N	[9]	\N	\N
1010	10	b10	10	10	\N	\N	\N	\N
\.
COPY dml_s FROM stdin;
1000	\N	\N	\N	\N	\N	\N	\N	\N
1001	1	\N	\N	\N	\N	\N	\N	\N
1002	\N	b	\N	\N	\N	\N	\N	\N
1003	\N	\N	3.25	\N	\N	\N	\N	\N
1004	\N	\N	\N	4	\N	\N	\N	\N
1005	\N	\N	\N	\N	{5}	\N	\N	\N
1006	\N	\N	\N	\N	\N	{"x": 6}	\N	\N
1007	7	b7	7.5	7	{7,7}	{"x": 7}	\N	\N
1008	8	\N	8.5	\N	{8}	\N	\N	\N
1009	\N	b9	\N	9	\N	[9]	\N	\N
1010	10	b10	10	10	\N	\N	\N	\N
\.
-- COPY with a column list: the columns left out are NULL
COPY dml_h (id, b) FROM stdin WITH (FORMAT csv);
1100,x
1101,
1102,"y"
\.
COPY dml_s (id, b) FROM stdin WITH (FORMAT csv);
1100,x
1101,
1102,"y"
\.

SELECT * FROM dml_s WHERE id < 100 OR id >= 1000 ORDER BY id;
SELECT * FROM twin.compare('dml_h', 'dml_s');
SELECT * FROM twin.natts_rule('dml_s');
SELECT * FROM twin.same_data('dml_h', 'dml_s', 'id');

-- the COPY rows, stored: natts stops at the last non-NULL column
SELECT t.id, s.natts, s.hoff, s.bits
FROM dml_s t JOIN twin.stored('dml_s') s ON s.tid = t.ctid
WHERE t.id >= 1000 ORDER BY t.id;

--
-- UPDATE.  Inside a transaction, pg_stat_get_xact_tuples_hot_updated counts
-- this transaction's HOT updates: they must be the same for the twins
-- (fillfactor 50 leaves room on every page).
--
BEGIN;
-- trailing NULL becomes non-NULL (HOT: f is not indexed)
UPDATE dml_h SET f = '{"u": 1}' WHERE id % 10 = 1;
UPDATE dml_s SET f = '{"u": 1}' WHERE id % 10 = 1;
-- non-NULL becomes NULL, making the row end earlier (HOT)
UPDATE dml_h SET e = NULL, f = NULL, d = NULL WHERE id % 10 = 2;
UPDATE dml_s SET e = NULL, f = NULL, d = NULL WHERE id % 10 = 2;
-- the indexed column changes: not HOT
UPDATE dml_h SET c = coalesce(c, 0) + 1000 WHERE id % 10 = 3;
UPDATE dml_s SET c = coalesce(c, 0) + 1000 WHERE id % 10 = 3;
-- the indexed column becomes NULL (not HOT), the row ends at a or b
UPDATE dml_h SET c = NULL, d = NULL, e = NULL, f = NULL WHERE id % 10 = 4;
UPDATE dml_s SET c = NULL, d = NULL, e = NULL, f = NULL WHERE id % 10 = 4;
-- the key changes (not HOT)
UPDATE dml_h SET id = id + 10000 WHERE id % 10 = 5;
UPDATE dml_s SET id = id + 10000 WHERE id % 10 = 5;
-- everything NULL but the key
UPDATE dml_h SET a = NULL, b = NULL, c = NULL, d = NULL, e = NULL, f = NULL WHERE id % 10 = 6;
UPDATE dml_s SET a = NULL, b = NULL, c = NULL, d = NULL, e = NULL, f = NULL WHERE id % 10 = 6;
-- updates of a row updated before in this transaction (chain)
UPDATE dml_h SET d = 1 WHERE id % 10 = 1;
UPDATE dml_s SET d = 1 WHERE id % 10 = 1;
UPDATE dml_h SET d = d + 1, b = NULL WHERE id % 10 = 1;
UPDATE dml_s SET d = d + 1, b = NULL WHERE id % 10 = 1;
SELECT pg_stat_get_xact_tuples_updated('dml_h'::regclass) AS heap_updated,
       pg_stat_get_xact_tuples_updated('dml_s'::regclass) AS slim_updated,
       pg_stat_get_xact_tuples_hot_updated('dml_h'::regclass) AS heap_hot,
       pg_stat_get_xact_tuples_hot_updated('dml_s'::regclass) AS slim_hot;
COMMIT;
SELECT * FROM dml_s WHERE id < 100 OR id >= 1000 ORDER BY id;
SELECT * FROM twin.compare('dml_h', 'dml_s');
SELECT * FROM twin.natts_rule('dml_s');

-- DELETE by a predicate on trailing columns
DELETE FROM dml_h WHERE f IS NULL AND e IS NOT NULL;
DELETE FROM dml_s WHERE f IS NULL AND e IS NOT NULL;
DELETE FROM dml_h WHERE id BETWEEN 200 AND 219;
DELETE FROM dml_s WHERE id BETWEEN 200 AND 219;
SELECT * FROM twin.compare('dml_h', 'dml_s');

--
-- INSERT ... ON CONFLICT
--
INSERT INTO dml_h VALUES (1, -1), (2000, 1) ON CONFLICT DO NOTHING;
INSERT INTO dml_s VALUES (1, -1), (2000, 1) ON CONFLICT DO NOTHING;
-- DO UPDATE that sets a trailing NULL column and clears an inner one
INSERT INTO dml_h VALUES (2, 2, NULL, NULL, NULL, NULL, '{"upsert": 2}'),
                         (3, 3, NULL, NULL, NULL, NULL, NULL),
                         (2001, 1, NULL, NULL, NULL, NULL, NULL)
ON CONFLICT (id) DO UPDATE SET f = EXCLUDED.f, c = NULL;
INSERT INTO dml_s VALUES (2, 2, NULL, NULL, NULL, NULL, '{"upsert": 2}'),
                         (3, 3, NULL, NULL, NULL, NULL, NULL),
                         (2001, 1, NULL, NULL, NULL, NULL, NULL)
ON CONFLICT (id) DO UPDATE SET f = EXCLUDED.f, c = NULL;
-- a conditional DO UPDATE on a trailing column: fires for 4 (d is NULL),
-- not for 7 (d is 0)
INSERT INTO dml_h VALUES (4, 4), (7, 7) ON CONFLICT (id) DO UPDATE SET a = 0
  WHERE dml_h.d IS NULL;
INSERT INTO dml_s VALUES (4, 4), (7, 7) ON CONFLICT (id) DO UPDATE SET a = 0
  WHERE dml_s.d IS NULL;
SELECT * FROM dml_s WHERE id < 10 OR id >= 2000 ORDER BY id;
SELECT * FROM twin.compare('dml_h', 'dml_s');

--
-- RETURNING: columns, and the system columns of the stored row.  xmin is
-- this transaction, cmin the command, ctid where the row really is.
--
CREATE TEMP TABLE ret (cmd text, tab regclass, id int, a int, f jsonb,
                       xmin_ok bool, xmax_zero bool, cmin_ cid, ctid_ tid);
BEGIN;
WITH r AS (
  INSERT INTO dml_h VALUES (3000, 1, NULL, NULL, NULL, NULL, NULL),
                           (3001, NULL, NULL, NULL, NULL, NULL, '{}'),
                           (3002, 2, NULL, NULL, NULL, NULL, NULL)
  RETURNING tableoid::regclass, id, a, f, xmin = pg_current_xact_id()::xid,
            xmax = '0'::xid, cmin, ctid)
INSERT INTO ret SELECT 'insert', * FROM r;
WITH r AS (
  INSERT INTO dml_s VALUES (3000, 1, NULL, NULL, NULL, NULL, NULL),
                           (3001, NULL, NULL, NULL, NULL, NULL, '{}'),
                           (3002, 2, NULL, NULL, NULL, NULL, NULL)
  RETURNING tableoid::regclass, id, a, f, xmin = pg_current_xact_id()::xid,
            xmax = '0'::xid, cmin, ctid)
INSERT INTO ret SELECT 'insert', * FROM r;
-- the ctids returned are where the rows are
SELECT cmd, tab, id, ctid_ = (SELECT ctid FROM dml_h WHERE id = ret.id) AS ctid_ok
FROM ret WHERE tab = 'dml_h'::regclass
UNION ALL
SELECT cmd, tab, id, ctid_ = (SELECT ctid FROM dml_s WHERE id = ret.id)
FROM ret WHERE tab = 'dml_s'::regclass
ORDER BY cmd, tab, id;
TRUNCATE ret;
WITH r AS (
  UPDATE dml_h SET a = NULL, f = '[1]' WHERE id IN (3000, 1)
  RETURNING tableoid::regclass, id, a, f, xmin = pg_current_xact_id()::xid,
            xmax = '0'::xid, cmin, ctid)
INSERT INTO ret SELECT 'update', * FROM r;
WITH r AS (
  UPDATE dml_s SET a = NULL, f = '[1]' WHERE id IN (3000, 1)
  RETURNING tableoid::regclass, id, a, f, xmin = pg_current_xact_id()::xid,
            xmax = '0'::xid, cmin, ctid)
INSERT INTO ret SELECT 'update', * FROM r;
-- the upsert: xmax of a row updated by ON CONFLICT is not 0, as on heap
WITH r AS (
  INSERT INTO dml_h VALUES (3001, 5), (3003, 3) ON CONFLICT (id) DO UPDATE SET a = 6
  RETURNING tableoid::regclass, id, a, f, xmin = pg_current_xact_id()::xid,
            xmax = '0'::xid, cmin, ctid)
INSERT INTO ret SELECT 'upsert', * FROM r;
WITH r AS (
  INSERT INTO dml_s VALUES (3001, 5), (3003, 3) ON CONFLICT (id) DO UPDATE SET a = 6
  RETURNING tableoid::regclass, id, a, f, xmin = pg_current_xact_id()::xid,
            xmax = '0'::xid, cmin, ctid)
INSERT INTO ret SELECT 'upsert', * FROM r;
SELECT cmd, tab, id, a, f, xmin_ok, xmax_zero, cmin_,
       ctid_ = (SELECT ctid FROM dml_h WHERE id = ret.id) AS ctid_ok
FROM ret WHERE tab = 'dml_h'::regclass
UNION ALL
SELECT cmd, tab, id, a, f, xmin_ok, xmax_zero, cmin_,
       ctid_ = (SELECT ctid FROM dml_s WHERE id = ret.id)
FROM ret WHERE tab = 'dml_s'::regclass
ORDER BY cmd, id, tab;
COMMIT;
-- DELETE RETURNING shows the deleted rows, trailing NULLs included
DELETE FROM dml_h WHERE id IN (3000, 3001, 1000, 1005)
  RETURNING id, a, b, c, d, e, f, xmin <> '0'::xid AS has_xmin, tableoid::regclass;
DELETE FROM dml_s WHERE id IN (3000, 3001, 1000, 1005)
  RETURNING id, a, b, c, d, e, f, xmin <> '0'::xid AS has_xmin, tableoid::regclass;
-- the same RETURNING as the heap twin
INSERT INTO dml_h VALUES (4000, 40, NULL, 4.5) RETURNING *, ctid IS NOT NULL AS has_ctid;
INSERT INTO dml_s VALUES (4000, 40, NULL, 4.5) RETURNING *, ctid IS NOT NULL AS has_ctid;
UPDATE dml_h SET e = '{1}' WHERE id = 4000 RETURNING *;
UPDATE dml_s SET e = '{1}' WHERE id = 4000 RETURNING *;

--
-- MERGE: delete, update (setting and clearing trailing columns), insert
--
CREATE TABLE merge_src (id int, b text, e int[], f jsonb);
INSERT INTO merge_src VALUES (1, NULL, NULL, NULL), (2, 'merged', NULL, NULL),
  (3, NULL, '{3}', NULL), (4, NULL, NULL, '{"m": 4}'), (5000, NULL, NULL, NULL),
  (5001, 'new', NULL, '{}');
MERGE INTO dml_h t USING merge_src s ON t.id = s.id
  WHEN MATCHED AND s.b IS NULL AND s.e IS NULL AND s.f IS NULL THEN DELETE
  WHEN MATCHED THEN UPDATE SET b = s.b, e = s.e, f = s.f, a = NULL
  WHEN NOT MATCHED THEN INSERT (id, b, e, f) VALUES (s.id, s.b, s.e, s.f);
MERGE INTO dml_s t USING merge_src s ON t.id = s.id
  WHEN MATCHED AND s.b IS NULL AND s.e IS NULL AND s.f IS NULL THEN DELETE
  WHEN MATCHED THEN UPDATE SET b = s.b, e = s.e, f = s.f, a = NULL
  WHEN NOT MATCHED THEN INSERT (id, b, e, f) VALUES (s.id, s.b, s.e, s.f);
SELECT * FROM dml_s WHERE id < 10 OR id >= 5000 ORDER BY id;

SELECT * FROM twin.compare('dml_h', 'dml_s');
SELECT * FROM twin.storage('dml_h', 'dml_s', 'id');
SELECT * FROM twin.natts_rule('dml_s');
-- the index on c returns the same rows
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM twin.query('SELECT id, c FROM %s WHERE c > 100', 'dml_h', 'dml_s');
SELECT * FROM twin.query('SELECT id, c FROM %s WHERE c IS NULL', 'dml_h', 'dml_s');
RESET enable_seqscan;
RESET enable_bitmapscan;

SET client_min_messages = warning;
DROP SCHEMA twin_dml CASCADE;
RESET client_min_messages;
