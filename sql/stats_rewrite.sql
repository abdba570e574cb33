--
-- ANALYZE, rewrites and slot set-up on slimheap tables, and whole-row
-- index expressions on compress tables:
--  1. copies of rows formed from values keep the row's address, so ANALYZE
--     sorts its sample and pg_stats.correlation is heap's;
--  2. VACUUM FULL after ADD COLUMN ... DEFAULT keeps compress tails (the
--     old fast defaults bind rows only as far as an index reads);
--  3. a rewrite into a compress table forms each row once;
--  4. a whole-row index expression counts as every column.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA st_rw;
SET search_path = st_rw, public;
SET jit = off;

-- wide(name, am, opts): id int, c2 .. c100 int4
CREATE FUNCTION wide(name text, am text, opts text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int, %s) USING %s %s', name,
		(SELECT string_agg('c' || i || ' int4', ', ' ORDER BY i)
		 FROM generate_series(2, 100) i), am, opts);
END $$;

-- tail_rows(rel): how many stored rows of rel have a compressed tail
CREATE FUNCTION tail_rows(rel regclass) RETURNS bigint
LANGUAGE sql AS $$
	SELECT count(*) FROM generate_series(0::bigint,
			pg_relation_size(rel) / 8192 - 1) b,
		slimheap.page_items(rel, b) p
	WHERE p.tail_encoding IS NOT NULL
$$;

-- 1. ANALYZE's sample, in the order of the rows' addresses.  300 sampled
-- rows of 20,000 make ANALYZE replace rows in its reservoir, which it then
-- sorts by address: id, stored in order, correlates perfectly.
SET default_statistics_target = 1;
CREATE TABLE ah (id int, v int);
CREATE TABLE at (id int, v int) USING slimheap;
INSERT INTO ah SELECT g, g FROM generate_series(1, 20000) g;
INSERT INTO at SELECT g, g FROM generate_series(1, 20000) g;
-- the rows stored before this are below the new floor: copies form them
ALTER TABLE ah ADD COLUMN z int DEFAULT 0;
ALTER TABLE at ADD COLUMN z int DEFAULT 0;
SELECT wide('ch', 'heap', '');
SELECT wide('cc', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
INSERT INTO ch (id, c100) SELECT g, g FROM generate_series(1, 20000) g;
INSERT INTO cc (id, c100) SELECT g, g FROM generate_series(1, 20000) g;
SELECT tail_rows('cc') AS cc_tail_rows;
ANALYZE ah, at, ch, cc;
SELECT tablename, attname, round(correlation::numeric, 3) AS correlation
FROM pg_stats WHERE schemaname = 'st_rw' AND attname IN ('id', 'c100')
ORDER BY 1, 2;
RESET default_statistics_target;

-- 2. VACUUM FULL after ADD COLUMN ... DEFAULT on the last column: the old
-- rows store z = 0 at the end of their tails, and keep them.
SELECT wide('vh', 'heap', '');
SELECT wide('vc', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
CREATE INDEX ON vh (id);
CREATE INDEX vc_id ON vc (id);
INSERT INTO vh (id, c30, c60, c90)
	SELECT g, g, g, g FROM generate_series(1, 5000) g;
INSERT INTO vc SELECT * FROM vh;
ALTER TABLE vh ADD COLUMN z int DEFAULT 0;
ALTER TABLE vc ADD COLUMN z int DEFAULT 0;
INSERT INTO vh (id, c30, z) VALUES (5001, 1, NULL);
INSERT INTO vc (id, c30, z) VALUES (5001, 1, NULL);
SELECT tail_rows('vc') AS tails_before \gset
VACUUM FULL vh;
VACUUM FULL vc;
SELECT tail_rows('vc') AS tails_one, pg_relation_size('vc') AS size_one \gset
VACUUM FULL vc;
SELECT :tails_before AS tails_before, :tails_one AS tails_after_one,
	   tail_rows('vc') AS tails_after_two,
	   pg_relation_size('vc') = :size_one AS two_same_size,
	   :size_one < pg_relation_size('vh') AS smaller_than_heap;
-- the rows read as heap's (z = 0 from the old fast default, NULL for 5001)
SELECT count(*) AS differing FROM
	((TABLE vh EXCEPT ALL TABLE vc) UNION ALL (TABLE vc EXCEPT ALL TABLE vh)) d;
SELECT z, count(*) FROM vc GROUP BY z ORDER BY z;
SET enable_seqscan = off;
SELECT id, c30, z FROM vc WHERE id IN (1, 5001) ORDER BY id;
RESET enable_seqscan;
SELECT bt_index_check('vc_id', true);

-- 3. a rewrite into a compress table forms each row once
SELECT wide('rh', 'heap', '');
INSERT INTO rh (id, c100) SELECT g, g FROM generate_series(1, 1000) g;
SELECT current_setting('slimheap.rows_formed')::bigint AS formed_before \gset
ALTER TABLE rh SET ACCESS METHOD slimheap,
	SET (slimheap.null_bitmap = compress);
SELECT current_setting('slimheap.rows_formed')::bigint - :formed_before
	AS formed_by_set_access_method, tail_rows('rh') AS tail_rows;
SELECT current_setting('slimheap.rows_formed')::bigint AS formed_before \gset
ALTER TABLE rh ALTER COLUMN c100 TYPE int8;
SELECT current_setting('slimheap.rows_formed')::bigint - :formed_before
	AS formed_by_alter_type, tail_rows('rh') AS tail_rows;
SELECT current_setting('slimheap.rows_formed')::bigint AS formed_before \gset
INSERT INTO rh (id, c100) SELECT g, g FROM generate_series(1001, 2000) g;
SELECT current_setting('slimheap.rows_formed')::bigint - :formed_before
	AS formed_by_insert_select;
SELECT count(*), sum(c100) FROM rh;

-- 4. a whole-row index expression reads every column: built on a table
-- with tails, it moves every tail row into a standard form first
SELECT wide('wh', 'heap', '');
SELECT wide('wc', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
INSERT INTO wh (id, c100) SELECT g, g FROM generate_series(1, 1000) g;
INSERT INTO wc SELECT * FROM wh;
SELECT tail_rows('wc') AS tail_rows_before;
CREATE INDEX wh_row ON wh (hash_record(wh));
CREATE INDEX wc_row ON wc (hash_record(wc));
VACUUM wc;	-- the versions the build replaced
SELECT tail_rows('wc') AS tail_rows_after;
-- new rows keep every column in the prefix while the index exists
INSERT INTO wh (id, c100) VALUES (1001, 1001);
INSERT INTO wc (id, c100) VALUES (1001, 1001);
SELECT tail_rows('wc') AS tail_rows_new;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM wc a
WHERE hash_record(a) IN (SELECT hash_record(b) FROM wh b
						 WHERE b.id IN (7, 8, 9, 1001));
RESET enable_seqscan;
RESET enable_bitmapscan;

RESET search_path;
DROP SCHEMA st_rw CASCADE;
