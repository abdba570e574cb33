--
-- Stored form of slimheap rows, read back with pageinspect, next to the heap
-- twin's.  Rules of the "truncate" form (the default): natts stops at the
-- last non-NULL attribute (or at the last column with a fast default), the
-- bitmap covers only the stored attributes and is left out when none of them
-- is NULL; t_hoff = MAXALIGN(23 + bitmap bytes).
--
CREATE SCHEMA twin_storage;
SET search_path = twin_storage, public;

--
-- W1 of WORKLOADS.md: 800 nullable int4 columns, the first 50 set.
--
DO $$
DECLARE
	am text;
BEGIN
	FOREACH am IN ARRAY ARRAY['heap', 'slimheap'] LOOP
		EXECUTE format('CREATE TABLE w1_%s (%s) USING %s', left(am, 1),
					   (SELECT string_agg(format('c%s int4', i), ', ')
						FROM generate_series(1, 800) AS i), am);
		EXECUTE format('INSERT INTO w1_%s (%s) SELECT %s FROM generate_series(1, 100) AS g',
					   left(am, 1),
					   (SELECT string_agg(format('c%s', i), ', ')
						FROM generate_series(1, 50) AS i),
					   (SELECT string_agg(format('g * 1000 + %s', i), ', ')
						FROM generate_series(1, 50) AS i));
	END LOOP;
END
$$;
-- every W1 row: slimheap natts 50, t_hoff 24, 224 bytes; heap 800, 128, 328
SELECT 'heap' AS am, natts, hoff, len, bits IS NULL AS no_bitmap, count(*)
FROM w1_h t JOIN twin.stored('w1_h') s ON s.tid = t.ctid
GROUP BY 1, 2, 3, 4, 5
UNION ALL
SELECT 'slimheap', natts, hoff, len, bits IS NULL, count(*)
FROM w1_s t JOIN twin.stored('w1_s') s ON s.tid = t.ctid
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1;
SELECT * FROM twin.compare('w1_h', 'w1_s');
SELECT * FROM twin.storage('w1_h', 'w1_s', 'c1');
SELECT * FROM twin.same_data('w1_h', 'w1_s', 'c1');
SELECT * FROM twin.natts_rule('w1_s');
SELECT sum(c50) AS sum_c50, count(c51) AS count_c51, count(c800) AS count_c800,
       count(*) FILTER (WHERE c1 = c50 - 49) AS c1_to_c50_ok
FROM w1_s;
-- 24 heap rows fit in a page, 35 slimheap rows
SELECT pg_relation_size('w1_h') / 8192 AS heap_pages, pg_relation_size('w1_s') / 8192 AS slim_pages;

--
-- One row per shape, 100 int4 columns (k is the first).  Expected slimheap
-- form: see the comment of each row.
--
DO $$
DECLARE
	t text;
BEGIN
	CREATE TABLE shape_h (k int4) USING heap;
	CREATE TABLE shape_s (k int4) USING slimheap;
	FOREACH t IN ARRAY ARRAY['shape_h', 'shape_s'] LOOP
		EXECUTE format('ALTER TABLE %s %s', t,
					   (SELECT string_agg(format('ADD COLUMN c%s int4', i), ', ')
						FROM generate_series(2, 100) AS i));
		EXECUTE format($i$
INSERT INTO %1$s (k) VALUES (1);                -- natts 1, no bitmap
INSERT INTO %1$s (k, c70) VALUES (2, 70);       -- natts 70, 9 bitmap bytes: t_hoff 32
INSERT INTO %1$s SELECT 3, %2$s;                -- all 100 set: like heap
INSERT INTO %1$s (k, c100) VALUES (4, 100);     -- last set: like heap
INSERT INTO %1$s (k, c2, c3, c4, c5, c6, c7, c8)
  VALUES (5, 2, 3, 4, 5, 6, 7, 8);              -- natts 8, no bitmap
INSERT INTO %1$s (k, c3) VALUES (6, 3);         -- natts 3, bitmap 101
INSERT INTO %1$s (k, c8) VALUES (7, 8);         -- natts 8, 1 bitmap byte: t_hoff 24
INSERT INTO %1$s (k, c9) VALUES (8, 9);         -- natts 9, 2 bitmap bytes: t_hoff 32
INSERT INTO %1$s (k, c72) VALUES (9, 72);       -- natts 72, 9 bitmap bytes: t_hoff 32
INSERT INTO %1$s (k, c73) VALUES (10, 73);      -- natts 73, 10 bitmap bytes: t_hoff 40
INSERT INTO %1$s (k, c2) VALUES (11, NULL);     -- explicit NULL, trailing: natts 1
$i$, t, (SELECT string_agg(i::text, ', ') FROM generate_series(2, 100) AS i));
	END LOOP;
END
$$;
SELECT st.k, ss.natts, ss.hoff, ss.len, ss.bits,
       hs.natts AS heap_natts, hs.hoff AS heap_hoff, hs.len AS heap_len
FROM shape_s st JOIN twin.stored('shape_s') ss ON ss.tid = st.ctid
JOIN shape_h ht ON ht.k = st.k JOIN twin.stored('shape_h') hs ON hs.tid = ht.ctid
ORDER BY st.k;
SELECT * FROM twin.compare('shape_h', 'shape_s');
SELECT * FROM twin.storage('shape_h', 'shape_s', 'k');
SELECT * FROM twin.same_data('shape_h', 'shape_s', 'k');
SELECT * FROM twin.natts_rule('shape_s');

--
-- A row of NULLs only: natts 0, no bitmap, nothing but the header.  p4 .. p9
-- only make the table wider than 8 attributes: a narrower one stores heap's
-- full form in every mode (docs/narrow-slot.md).
--
CREATE TABLE nulls_h (a int, b text, c int8, p4 int, p5 int, p6 int, p7 int,
                      p8 int, p9 int) USING heap;
CREATE TABLE nulls_s (a int, b text, c int8, p4 int, p5 int, p6 int, p7 int,
                      p8 int, p9 int) USING slimheap;
INSERT INTO nulls_h VALUES (NULL, NULL, NULL);
INSERT INTO nulls_s VALUES (NULL, NULL, NULL);
SELECT 'heap' AS am, natts, hoff, len, bits, data
FROM nulls_h t JOIN twin.stored('nulls_h') s ON s.tid = t.ctid
UNION ALL
SELECT 'slimheap', natts, hoff, len, bits, data
FROM nulls_s t JOIN twin.stored('nulls_s') s ON s.tid = t.ctid
ORDER BY 1;
SELECT a, b, c, t IS NULL AS all_null FROM nulls_s t;

--
-- Fast defaults (invariant T1): a NULL stored in a column that has a
-- non-NULL missing value must be kept, or readers would return the default.
-- p3 .. p9, always NULL, make the table wider than 8 attributes before its
-- first rows (a narrower one stores heap's full form in every mode,
-- docs/narrow-slot.md): d is attribute 10, e 11.
--
CREATE TABLE fd_h (k int, a int, p3 int, p4 int, p5 int, p6 int, p7 int,
                   p8 int, p9 int) USING heap;
CREATE TABLE fd_s (k int, a int, p3 int, p4 int, p5 int, p6 int, p7 int,
                   p8 int, p9 int) USING slimheap;
INSERT INTO fd_h VALUES (1, NULL), (2, 2);
INSERT INTO fd_s VALUES (1, NULL), (2, 2);
ALTER TABLE fd_h ADD COLUMN d int DEFAULT 7;
ALTER TABLE fd_s ADD COLUMN d int DEFAULT 7;
ALTER TABLE fd_h ADD COLUMN e int;
ALTER TABLE fd_s ADD COLUMN e int;
INSERT INTO fd_h (k, a, d, e) VALUES (3, NULL, NULL, NULL), (4, 4, NULL, NULL), (5, NULL, DEFAULT, NULL), (6, 6, 6, 6);
INSERT INTO fd_s (k, a, d, e) VALUES (3, NULL, NULL, NULL), (4, 4, NULL, NULL), (5, NULL, DEFAULT, NULL), (6, 6, 6, 6);
INSERT INTO fd_h (k) VALUES (7);
INSERT INTO fd_s (k) VALUES (7);
-- rows 1, 2 predate d: natts 1 and 2, d reads 7.  Later rows store d
-- (natts >= 10) even when NULL; e, which has no default, is left out when NULL

SELECT st.k, st.a, st.d, st.e, ss.natts, ss.hoff, ss.len, ss.bits
FROM fd_s st JOIN twin.stored('fd_s') ss ON ss.tid = st.ctid
ORDER BY st.k;
SELECT * FROM twin.compare('fd_h', 'fd_s');
SELECT * FROM twin.storage('fd_h', 'fd_s', 'k');
SELECT * FROM twin.same_data('fd_h', 'fd_s', 'k');

--
-- Fast defaults followed by 8 or more trailing NULL columns: the former
-- skips trailing NULLs eight at a time, and must not skip below the last
-- fast-default column.  Tables fdN_h, fdN_s (N = 8 .. 16): k, a, then f1,
-- f2, f3 with fast defaults 1, 2, 3, then n1 .. nN without default.  Rows:
-- every combination of a, f1, f2, f3 NULL or set, with every n NULL or with
-- nN set.  They are inserted, then updated (a new version of every row),
-- then rewritten by VACUUM FULL or CLUSTER; after each step
-- the twins must return the same rows (a NULL f read back as its default
-- would differ), and no slimheap row may be longer than heap's; after the
-- rewrite the index on (f1, f2, f3) must hold every row as it reads.
--
DO $$
DECLARE
	n int;
	am text;
BEGIN
	FOR n IN 8 .. 16 LOOP
		FOREACH am IN ARRAY ARRAY['heap', 'slimheap'] LOOP
			EXECUTE format('CREATE TABLE fd%s_%s (k int PRIMARY KEY, a int) USING %s',
						   n, left(am, 1), am);
			EXECUTE format('INSERT INTO fd%s_%s VALUES (1, 1), (2, NULL)', n, left(am, 1));
			EXECUTE format('ALTER TABLE fd%s_%s ADD COLUMN f1 int DEFAULT 1,'
						   ' ADD COLUMN f2 int DEFAULT 2, ADD COLUMN f3 int DEFAULT 3, %s',
						   n, left(am, 1),
						   (SELECT string_agg(format('ADD COLUMN n%s int', i), ', ')
							FROM generate_series(1, n) AS i));
			EXECUTE format('CREATE INDEX fd%1$s_%2$s_f ON fd%1$s_%2$s (f1, f2, f3)', n, left(am, 1));
			EXECUTE format('INSERT INTO fd%1$s_%2$s (k, a, f1, f2, f3, n%1$s)'
						   ' SELECT 100 + p + 16 * last,'
						   '   CASE WHEN p & 1 = 0 THEN NULL ELSE p END,'
						   '   CASE WHEN p & 2 = 0 THEN NULL ELSE p END,'
						   '   CASE WHEN p & 4 = 0 THEN NULL ELSE p END,'
						   '   CASE WHEN p & 8 = 0 THEN NULL ELSE p END,'
						   '   CASE WHEN last = 1 THEN p END'
						   ' FROM generate_series(0, 15) AS p, generate_series(0, 1) AS last',
						   n, left(am, 1));
		END LOOP;
	END LOOP;
END
$$;
-- f1, f2, f3 are fast defaults (the tables had rows when they were added)
SELECT count(*) AS fast_default_columns FROM pg_attribute
WHERE attrelid = 'fd12_s'::regclass AND atthasmissing;
CREATE FUNCTION fd_check(step text) RETURNS TABLE (step text, tables text, result text)
LANGUAGE sql AS $$
	SELECT step, string_agg(format('fd%s', n), ' ' ORDER BY n), r
	FROM generate_series(8, 16) AS n,
		 LATERAL (SELECT string_agg(c, '; ') AS r
				  FROM (SELECT * FROM twin.compare(format('fd%s_h', n)::regclass,
												   format('fd%s_s', n)::regclass)
						UNION ALL
						SELECT format('%s longer', longer)
						FROM twin.storage(format('fd%s_h', n)::regclass,
										  format('fd%s_s', n)::regclass, 'k')) AS x(c)) AS x
	GROUP BY r ORDER BY 2
$$;
SELECT * FROM fd_check('insert');
DO $$
DECLARE
	n int;
	t text;
BEGIN
	FOR n IN 8 .. 16 LOOP
		FOREACH t IN ARRAY ARRAY['h', 's'] LOOP
			EXECUTE format('UPDATE fd%s_%s SET k = k + 1000', n, t);
		END LOOP;
	END LOOP;
END
$$;
SELECT * FROM fd_check('update');
-- A rewrite forms every row anew while the fast defaults are still in the
-- catalog (they are cleared after it, when the indexes have been rebuilt):
-- a NULL f left out there would be indexed as its default.  amcheck then
-- finds rows that lack their index entry.  Even N: VACUUM FULL, odd N:
-- CLUSTER (VACUUM cannot run in a function).
SELECT CASE WHEN n % 2 = 0 THEN format('VACUUM FULL fd%s_%s', n, t)
			ELSE format('CLUSTER fd%1$s_%2$s USING fd%1$s_%2$s_pkey', n, t) END
FROM generate_series(8, 16) AS n, unnest(ARRAY['h', 's']) AS t ORDER BY n, t \gexec
SELECT count(*) AS indexes_checked
FROM generate_series(8, 16) AS n, unnest(ARRAY['h', 's']) AS t,
	 LATERAL bt_index_check(format('fd%s_%s_f', n, t)::regclass, true);
SELECT * FROM fd_check('vacuum full, cluster');

SET client_min_messages = warning;
DROP SCHEMA twin_storage CASCADE;
RESET client_min_messages;
