--
-- CALL slimheap.release() (src/am/slim_release.c, docs/release.md): a
-- slimheap table becomes heap again.  The file stays; rows with a
-- compressed tail are re-laid in place without it (or stored again where
-- their page has no room); then pg_class.relam, its pg_depend entry and
-- the options change.  A heap twin goes through the same statements and
-- must read the same; heap's own checks (verify_heapam, bt_index_check
-- with heapallindexed) must find nothing.  Then every refusal.
-- (t/074_release.pl: other sessions writing and holding snapshots
-- meanwhile, a standby and logical decoding.)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA release_t;
SET search_path = release_t, public;

-- rl (to release) and tw (its twin, heap for good): id, c1 .. c300, t
SELECT format('CREATE TABLE %I (id int PRIMARY KEY, %s, t text) USING %s', n,
			  string_agg(format('c%s int4', i), ', ' ORDER BY i),
			  CASE n WHEN 'rl' THEN 'slimheap WITH (slimheap.null_bitmap = compress)' ELSE 'heap' END)
FROM generate_series(1, 300) i, unnest(ARRAY['rl', 'tw']) n GROUP BY n \gexec
-- rows of every age and form: a load with tails, short rows from before
-- ADD COLUMN, a dropped column, TOASTed text, indexes on a middle column,
-- an expression and a partial one, updated and deleted rows
SELECT format('INSERT INTO %I (id, c3, c150, c299, t) SELECT g, g, '
			  'CASE WHEN g %% 3 = 0 THEN g END, CASE WHEN g %% 5 = 0 THEN -g END, '
			  'CASE WHEN g %% 50 = 0 THEN repeat(md5(g::text), 300) ELSE ''t'' || g END '
			  'FROM generate_series(1, 3000) g', n)
FROM unnest(ARRAY['rl', 'tw']) n \gexec
SELECT format('CREATE INDEX ON %I (c150)', n) FROM unnest(ARRAY['rl', 'tw']) n \gexec
SELECT format('CREATE INDEX ON %I ((c299 + c3)) WHERE c299 IS NOT NULL', n)
FROM unnest(ARRAY['rl', 'tw']) n \gexec
SELECT format('ALTER TABLE %I ADD COLUMN late int DEFAULT 7', n) FROM unnest(ARRAY['rl', 'tw']) n \gexec
SELECT format('ALTER TABLE %I DROP COLUMN c7', n) FROM unnest(ARRAY['rl', 'tw']) n \gexec
SELECT format('UPDATE %I SET c299 = NULL, late = NULL WHERE id %% 7 = 0', n)
FROM unnest(ARRAY['rl', 'tw']) n \gexec
SELECT format('DELETE FROM %I WHERE id %% 11 = 0', n) FROM unnest(ARRAY['rl', 'tw']) n \gexec

CREATE FUNCTION differ() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM ((TABLE rl EXCEPT ALL TABLE tw) UNION ALL (TABLE tw EXCEPT ALL TABLE rl)) d
$$;
SELECT differ() AS rows_differ, tail_rows > 1000 AS has_tails FROM slimheap.stats('rl');

SELECT pg_relation_filenode('rl') AS node \gset
-- (how many rows are re-laid and how many stored again depends on when
-- pruning may remove the old versions: not shown where rows move)
SET client_min_messages = warning;
CALL slimheap.release('rl');
RESET client_min_messages;
SELECT a.amname, c.relfilenode = :node AS same_file, c.reloptions
FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'rl'::regclass;
-- none, as for the twin: core records no dependency on heap (pinned)
SELECT d.objid::regclass, a.amname AS depends_on
FROM pg_depend d JOIN pg_am a ON a.oid = d.refobjid
WHERE d.classid = 'pg_class'::regclass AND d.objid IN ('rl'::regclass, 'tw'::regclass)
  AND d.refclassid = 'pg_am'::regclass;
SELECT differ() AS rows_differ;
-- heap's own readers: no row version with a tail is left to misread
SELECT count(*) AS heap_problems FROM verify_heapam('rl');
SELECT bt_index_check(indexrelid, true) FROM pg_index WHERE indrelid = 'rl'::regclass
ORDER BY indexrelid::regclass::text;
SET enable_seqscan = off;
SELECT count(*) AS differ_by_index FROM ((SELECT id FROM rl WHERE c150 > 100 EXCEPT ALL
	SELECT id FROM tw WHERE c150 > 100) UNION ALL (SELECT id FROM tw WHERE c150 > 100
	EXCEPT ALL SELECT id FROM rl WHERE c150 > 100)) d;
RESET enable_seqscan;
-- rows flowing out of the released table, read by heap: ANALYZE, a sort
-- into a CTE, a table with a fast default
ANALYZE rl;
SELECT count(*) > 0 AS analyzed FROM pg_stats WHERE schemaname = 'release_t' AND tablename = 'rl';
CREATE TABLE sink (src text, id int, c150 int, c299 int, late int, t text);
ALTER TABLE sink ADD COLUMN extra int DEFAULT 5;
WITH s AS (SELECT id, c150, c299, late, t FROM rl ORDER BY c150 NULLS FIRST, late, id)
INSERT INTO sink (src, id, c150, c299, late, t) SELECT 'rl', * FROM s;
WITH s AS (SELECT id, c150, c299, late, t FROM tw ORDER BY c150 NULLS FIRST, late, id)
INSERT INTO sink (src, id, c150, c299, late, t) SELECT 'tw', * FROM s;
SELECT count(*) AS sink_differ FROM (
	(SELECT id, c150, c299, late, t, extra FROM sink WHERE src = 'rl'
	 EXCEPT ALL SELECT id, c150, c299, late, t, extra FROM sink WHERE src = 'tw')
	UNION ALL
	(SELECT id, c150, c299, late, t, extra FROM sink WHERE src = 'tw'
	 EXCEPT ALL SELECT id, c150, c299, late, t, extra FROM sink WHERE src = 'rl')) d;
SELECT count(*) FILTER (WHERE extra = 5) = count(*) AS extra_is_default FROM sink;
DROP TABLE sink;
-- heap from here on: writes, VACUUM FULL, and a round trip back
SELECT format('UPDATE %I SET c150 = -id WHERE id %% 13 = 0', n) FROM unnest(ARRAY['rl', 'tw']) n \gexec
VACUUM FULL rl;
SELECT differ() AS rows_differ;
CALL slimheap.adopt('rl', 'compress');
CALL slimheap.compact('rl');
SELECT differ() AS rows_differ, tail_rows > 1000 AS tails_again FROM slimheap.stats('rl');
CALL slimheap.release('rl', '10 s');
SELECT a.amname, differ() AS rows_differ FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 'rl'::regclass;
SELECT count(*) AS heap_problems FROM verify_heapam('rl');

-- full pages (fillfactor 100): rows that do not fit are stored again
CREATE TABLE ff (id int PRIMARY KEY, a int, b int, c int, d int, e int, f int, g int,
	h int, i int, j int, k int, l int, m int, n int, o int, p int, q int, r int, s int,
	u int, v int, w int, x int, y int, z int) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO ff (id, i, z) SELECT g, g, g FROM generate_series(1, 5000) g;
CREATE TABLE ff_twin AS SELECT * FROM ff;
SELECT tail_rows FROM slimheap.stats('ff');
SET client_min_messages = warning;
CALL slimheap.release('ff');
RESET client_min_messages;
SELECT count(*) AS rows_differ FROM ((TABLE ff EXCEPT ALL TABLE ff_twin)
	UNION ALL (TABLE ff_twin EXCEPT ALL TABLE ff)) d;
SELECT count(*) AS heap_problems FROM verify_heapam('ff');
SELECT bt_index_check('ff_pkey', true);

-- truncate and full modes; a table whose mode changed after tails were
-- written keeps them until released
CREATE FUNCTION wide(name text, am text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE %s TABLE %I (id int, %s) %s',
				   CASE WHEN name = 'ul' THEN 'UNLOGGED' WHEN name = 'tt' THEN 'TEMP' ELSE '' END,
				   name, (SELECT string_agg(format('c%s int', i), ', ') FROM generate_series(1, 60) i),
				   am);
END $$;
SELECT wide('tr', 'USING slimheap WITH (slimheap.null_bitmap = truncate)'),
	   wide('fu', 'USING slimheap WITH (slimheap.null_bitmap = full, fillfactor = 70)'),
	   wide('mc', 'USING slimheap WITH (slimheap.null_bitmap = compress)'),
	   wide('ul', 'USING slimheap WITH (slimheap.null_bitmap = compress)'),
	   wide('tt', 'USING slimheap WITH (slimheap.null_bitmap = compress)');
INSERT INTO tr (id, c2, c60) SELECT g, g, NULLIF(g % 2, 0) FROM generate_series(1, 500) g;
INSERT INTO fu (id, c2, c60) SELECT g, g, NULLIF(g % 2, 0) FROM generate_series(1, 500) g;
INSERT INTO mc (id, c2, c60) SELECT g, g, NULLIF(g % 2, 0) FROM generate_series(1, 500) g;
ALTER TABLE mc SET (slimheap.null_bitmap = truncate);
SELECT tail_rows FROM slimheap.stats('mc');
CALL slimheap.release('tr');
CALL slimheap.release('fu');
SET client_min_messages = warning;
CALL slimheap.release('mc');
RESET client_min_messages;
SELECT c.relname, a.amname, c.reloptions FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname IN ('tr', 'fu', 'mc') ORDER BY 1;
SELECT count(*), sum(c2), sum(c60) FROM tr;
SELECT count(*), sum(c2), sum(c60) FROM fu;
SELECT count(*), sum(c2), sum(c60) FROM mc;
SELECT count(*) AS heap_problems FROM verify_heapam('mc');

-- unlogged and temporary tables
INSERT INTO ul (id, c2, c60) SELECT g, g, g FROM generate_series(1, 500) g;
SELECT tail_rows FROM slimheap.stats('ul');
SET client_min_messages = warning;
CALL slimheap.release('ul');
RESET client_min_messages;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'ul'::regclass;
SELECT count(*), sum(c60) FROM ul;
SELECT count(*) AS heap_problems FROM verify_heapam('ul');
INSERT INTO tt (id, c2, c60) SELECT g, g, g FROM generate_series(1, 500) g;
SELECT tail_rows FROM slimheap.stats('tt');
SET client_min_messages = warning;
CALL slimheap.release('tt');
RESET client_min_messages;
SELECT count(*), sum(c60) FROM tt;
SELECT count(*) AS heap_problems FROM verify_heapam('tt');

-- a partitioned table: its slimheap partitions (a default one, a
-- sub-partitioned one) are released, a heap one is left as it is; the
-- parent's access method, slimheap from PostgreSQL 17 on, becomes heap
SELECT format('CREATE TABLE parted (id int, %s) PARTITION BY RANGE (id)',
			  string_agg(format('c%s int', i), ', ')) FROM generate_series(1, 60) i \gexec
DO $$
BEGIN
	IF current_setting('server_version_num')::int >= 170000 THEN
		EXECUTE 'ALTER TABLE parted SET ACCESS METHOD slimheap';
	END IF;
END $$;
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100) USING slimheap;
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (100) TO (200)
	PARTITION BY RANGE (id);
CREATE TABLE parted_2a PARTITION OF parted_2 FOR VALUES FROM (100) TO (200) USING slimheap;
CREATE TABLE parted_def PARTITION OF parted DEFAULT USING slimheap;
CREATE TABLE parted_3 PARTITION OF parted FOR VALUES FROM (200) TO (300) USING heap;
ALTER TABLE parted_1 SET (slimheap.null_bitmap = compress);
ALTER TABLE parted_def SET (slimheap.null_bitmap = compress);
INSERT INTO parted (id, c2, c60) SELECT g, g, g FROM generate_series(1, 400) g;
SELECT sum(tail_rows) AS tails FROM unnest(ARRAY['parted_1', 'parted_def']) p,
	slimheap.stats(p::regclass);
CALL slimheap.release('parted');
SELECT c.relname, a.amname, c.reloptions
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relname LIKE 'parted%' AND c.relkind = 'r' ORDER BY 1;
-- (on 17 and later parted_2 took slimheap from parted when it was made)
SELECT c.relname, a.amname IS NOT DISTINCT FROM
	   CASE WHEN current_setting('server_version_num')::int >= 170000
	   THEN 'heap' END AS am_as_the_version_allows
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relname LIKE 'parted%' AND c.relkind = 'p' ORDER BY 1;
SELECT count(*), sum(c2), sum(c60) FROM parted;
SELECT count(*) AS heap_problems FROM verify_heapam('parted_def');
SELECT count(*) AS heap_problems FROM verify_heapam('parted_1');

-- a TOAST table with slimheap's access method (as slimheap before 1.2
-- made them, here by hand) becomes heap's too: VACUUM FULL of the heap
-- table then swaps it with a new heap one
CREATE TABLE toasty (id int, t text) USING slimheap;
INSERT INTO toasty SELECT g, repeat(md5(g::text), 400) FROM generate_series(1, 20) g;
UPDATE pg_class SET relam = (SELECT oid FROM pg_am WHERE amname = 'slimheap')
WHERE oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'toasty'::regclass);
CALL slimheap.release('toasty');
SELECT a.amname AS toast_am FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'toasty'::regclass);
VACUUM FULL toasty;
SELECT count(*), sum(length(t)) FROM toasty;

-- refusals, each leaving the table as it was
CREATE TABLE keep (id int, a int) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE FUNCTION release_in_function() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	CALL slimheap.release('keep');
	RETURN 1;
END $$;
SELECT release_in_function();
BEGIN;
CALL slimheap.release('keep');
ROLLBACK;
CALL slimheap.release('tw');
CALL slimheap.release('keep', '-1 s');
CALL slimheap.release(NULL);
CALL slimheap.release('keep', NULL);
CALL slimheap.release('tw_pkey');
CREATE VIEW keep_view AS SELECT id FROM keep;
CALL slimheap.release('keep_view');
CREATE MATERIALIZED VIEW keep_mv USING slimheap AS SELECT id FROM keep;
CALL slimheap.release('keep_mv');
CREATE ROLE release_other;
GRANT USAGE ON SCHEMA release_t TO release_other;
SET ROLE release_other;
CALL slimheap.release('keep');
RESET ROLE;
CALL slimheap.release(0);
SELECT a.amname, c.reloptions FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 'keep'::regclass;

RESET search_path;
DROP SCHEMA release_t CASCADE;
DROP ROLE release_other;
