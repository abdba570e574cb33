--
-- VACUUM FULL and CLUSTER copy a row as it is stored when it already has
-- the form the table's former gives it (as PostgreSQL 19's heap copies
-- rows), and form it again when not: after a change of mode, when a fast
-- default is not stored in it (the rewrite clears the defaults), and when
-- the table has a dropped column (its values must go).  Every table has a
-- heap twin that goes through the same statements and must read the same.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

CREATE SCHEMA rw_copy;
SET search_path = rw_copy, public;
SET jit = off;

CREATE FUNCTION formed() RETURNS bigint
LANGUAGE sql AS $$ SELECT current_setting('slimheap.rows_formed')::bigint $$;

-- tail_rows(rel): how many stored rows of rel have a compressed tail
CREATE FUNCTION tail_rows(rel regclass) RETURNS bigint
LANGUAGE sql AS $$
	SELECT count(*) FROM generate_series(0::bigint,
			pg_relation_size(rel) / 8192 - 1) b,
		slimheap.page_items(rel, b) p
	WHERE p.tail_encoding IS NOT NULL
$$;

-- differing(a, b): rows of one that the other lacks, both ways
CREATE FUNCTION differing(a regclass, b regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM ((TABLE %s EXCEPT ALL TABLE %s)
		UNION ALL (TABLE %s EXCEPT ALL TABLE %s)) d', a, b, b, a) INTO n;
	RETURN n;
END $$;

-- wide(name, am, opts): id, c2 .. c200 int4, t text (stored out of line)
CREATE FUNCTION wide(name text, am text, opts text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int, %s, t text) USING %s %s', name,
		(SELECT string_agg('c' || i || ' int4', ', ' ORDER BY i)
		 FROM generate_series(2, 200) i), am, opts);
	EXECUTE format('ALTER TABLE %I ALTER COLUMN t SET STORAGE EXTERNAL',
		name);
END $$;

-- fill(name): 600 rows of every shape: NULLs only, a value at the end, a
-- few in the middle, all set, short text, and text stored out of line
CREATE FUNCTION fill(name text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %I (id) SELECT g FROM generate_series(1, 100) g', name);
	EXECUTE format('INSERT INTO %I (id, c200) SELECT g, g FROM generate_series(101, 200) g', name);
	EXECUTE format('INSERT INTO %I (id, c7, c23) SELECT g, g, -g FROM generate_series(201, 300) g', name);
	EXECUTE format('INSERT INTO %I SELECT g, %s, ''all'' FROM generate_series(301, 400) g', name,
		(SELECT string_agg('g + ' || i, ', ' ORDER BY i) FROM generate_series(2, 200) i));
	EXECUTE format('INSERT INTO %I (id, c9, t) SELECT g, g, ''short '' || g FROM generate_series(401, 500) g', name);
	EXECUTE format('INSERT INTO %I (id, c30, t) SELECT g, g, repeat(md5(g::text), 200) FROM generate_series(501, 600) g', name);
END $$;

-- 1. truncate: every row has its form, VACUUM FULL and CLUSTER copy them
SELECT wide('th', 'heap', '');
SELECT wide('tt', 'slimheap', 'WITH (slimheap.null_bitmap = truncate)');
SELECT fill('th'), fill('tt');
CREATE INDEX th_c9 ON th (c9);
CREATE INDEX tt_c9 ON tt (c9);
SELECT pg_relation_size('tt') AS size_before \gset
SELECT formed() AS f0 \gset
VACUUM FULL th;
VACUUM FULL tt;
SELECT formed() - :f0 AS formed_by_vacuum_full,
	   pg_relation_size('tt') = :size_before AS same_size,
	   differing('th', 'tt') AS differing;
SELECT formed() AS f0 \gset
CLUSTER th USING th_c9;
CLUSTER tt USING tt_c9;
SELECT formed() - :f0 AS formed_by_cluster, differing('th', 'tt') AS differing;
-- the out-of-line values moved to the new TOAST table and read back
SELECT count(*) AS long_values, sum(length(t)) AS long_bytes
FROM tt WHERE length(t) > 1000;
SELECT sum(length(t)) = (SELECT sum(length(t)) FROM th) AS toast_same FROM tt;

-- 2. compress: tail rows and rows no tail could shorten are copied
SELECT wide('ch', 'heap', '');
SELECT wide('cc', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
SELECT fill('ch'), fill('cc');
SELECT tail_rows('cc') AS tails_before, pg_relation_size('cc') AS size_before
\gset
SELECT formed() AS f0 \gset
VACUUM FULL ch;
VACUUM FULL cc;
SELECT formed() - :f0 AS formed_by_vacuum_full,
	   :tails_before > 0 AS had_tails,
	   tail_rows('cc') = :tails_before AS same_tails,
	   pg_relation_size('cc') = :size_before AS same_size,
	   differing('ch', 'cc') AS differing;
SELECT count(*), sum(c7), sum(c23), sum(c200), sum(length(t)) FROM cc;

-- 3. a change of mode: VACUUM FULL forms every row that gains a tail
ALTER TABLE tt SET (slimheap.null_bitmap = compress);
SELECT formed() AS f0 \gset
VACUUM FULL th;
VACUUM FULL tt;
SELECT formed() - :f0 > 0 AS formed_some, tail_rows('tt') > 0 AS has_tails,
	   differing('th', 'tt') AS differing;
-- and the next one copies them all but the 100 with a value stored out of
-- line (no tail may hold one, C2, and the copy check does not tell such a
-- row from one a tail would shorten)
SELECT formed() AS f0 \gset
VACUUM FULL tt;
SELECT formed() - :f0 AS formed_by_second;

-- and back to heap's form: every row stores every attribute again
ALTER TABLE tt SET (slimheap.null_bitmap = full);
VACUUM FULL tt;
SELECT tail_rows('tt') AS tails,
	   (SELECT count(*) FROM generate_series(0::bigint,
			pg_relation_size('tt') / 8192 - 1) b,
			heap_page_items(get_raw_page('tt', b::int)) p
		WHERE p.t_data IS NOT NULL
		  AND (p.t_infomask2 & 2047) <> 201) AS short_rows,
	   differing('th', 'tt') AS differing;

-- 4. ADD COLUMN ... DEFAULT: the rows that do not store the default are
-- formed again (the rewrite clears it), then copied
ALTER TABLE ch ADD COLUMN z int DEFAULT 7;
ALTER TABLE cc ADD COLUMN z int DEFAULT 7;
INSERT INTO ch (id, c200, z) VALUES (601, 1, NULL);
INSERT INTO cc (id, c200, z) VALUES (601, 1, NULL);
SELECT formed() AS f0 \gset
VACUUM FULL ch;
VACUUM FULL cc;
SELECT formed() - :f0 AS formed_after_default,
	   differing('ch', 'cc') AS differing;
SELECT z, count(*) FROM cc GROUP BY z ORDER BY z;
SELECT atthasmissing FROM pg_attribute
WHERE attrelid = 'cc'::regclass AND attname = 'z';
SELECT formed() AS f0 \gset
VACUUM FULL cc;
SELECT formed() - :f0 AS formed_by_second, differing('ch', 'cc') AS differing;

-- 5. a dropped column: its values must go, so every row is formed again
ALTER TABLE ch DROP COLUMN c7;
ALTER TABLE cc DROP COLUMN c7;
SELECT formed() AS f0 \gset
VACUUM FULL ch;
VACUUM FULL cc;
SELECT formed() - :f0 AS formed_after_drop, differing('ch', 'cc') AS differing;
-- c7 is attribute 7: no row stores a value there any more, as in heap
SELECT rel, count(*) AS rows_with_dropped_value
FROM unnest(ARRAY['ch', 'cc']) rel,
	generate_series(0::bigint, pg_relation_size(rel) / 8192 - 1) b,
	heap_page_items(get_raw_page(rel, b::int)) p
WHERE p.t_data IS NOT NULL AND (p.t_infomask2 & 2047) >= 7
  AND (p.t_bits IS NULL OR substr(p.t_bits, 7, 1) = '1')
GROUP BY rel ORDER BY rel;

-- 6. rows updated and deleted before the rewrite: the live versions only
UPDATE ch SET c200 = c200 + 1 WHERE id % 3 = 0;
UPDATE cc SET c200 = c200 + 1 WHERE id % 3 = 0;
DELETE FROM ch WHERE id % 5 = 0;
DELETE FROM cc WHERE id % 5 = 0;
VACUUM FULL ch;
VACUUM FULL cc;
SELECT count(*), differing('ch', 'cc') AS differing FROM cc;

-- 7. ADD COLUMN lengthens heap's form (a bitmap for every column): a
-- truncated row that is now over the toaster's threshold in it, and a
-- tail row that now is too (C2), are formed again, and stored as heap
-- stores them
CREATE TABLE bh (id int, t text, c3 int);
CREATE TABLE bs (LIKE bh) USING slimheap WITH (slimheap.null_bitmap = truncate);
CREATE TABLE kh (id int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int,
	c8 int, c9 int, c10 int, t text);
CREATE TABLE ks (LIKE kh) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO bh (id, t) VALUES (1, repeat('x', 1990));
INSERT INTO bs (id, t) VALUES (1, repeat('x', 1990));
INSERT INTO kh (id, c5, t) VALUES (1, 1, repeat('x', 1960));
INSERT INTO ks (id, c5, t) VALUES (1, 1, repeat('x', 1960));
SELECT tail_rows('ks') AS tail_rows_before;
DO $$
BEGIN
	FOR i IN 1..100 LOOP
		EXECUTE format('ALTER TABLE bh ADD COLUMN x%s int', i);
		EXECUTE format('ALTER TABLE bs ADD COLUMN x%s int', i);
	END LOOP;
	FOR i IN 1..300 LOOP
		EXECUTE format('ALTER TABLE kh ADD COLUMN x%s int', i);
		EXECUTE format('ALTER TABLE ks ADD COLUMN x%s int', i);
	END LOOP;
END $$;
SELECT formed() AS f0 \gset
VACUUM FULL bh;
VACUUM FULL bs;
VACUUM FULL kh;
VACUUM FULL ks;
SELECT formed() - :f0 AS formed, tail_rows('ks') AS tail_rows_after;
SELECT rel, (SELECT lp_len FROM heap_page_items(get_raw_page(rel, 0))
			 WHERE lp = 1) AS lp_len
FROM unnest(ARRAY['bh', 'bs', 'kh', 'ks']) rel ORDER BY rel;
SELECT differing('bh', 'bs') AS differing_b, differing('kh', 'ks') AS differing_k;

RESET search_path;
DROP SCHEMA rw_copy CASCADE;
