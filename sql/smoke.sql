--
-- smoke: the extension loads, a slimheap table stores the W1 row of
-- WORKLOADS.md (800 nullable int4 columns, the first 50 set) in its slim
-- form, and returns exactly what a heap twin returns.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

-- two 800-column twins, c1 .. c800, one per access method
DO $$
DECLARE
	am text;
BEGIN
	FOREACH am IN ARRAY ARRAY['heap', 'slimheap'] LOOP
		EXECUTE format('CREATE TABLE smoke_%s (%s) USING %s', am,
					   (SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i)
						  FROM generate_series(1, 800) i), am);
	END LOOP;
END $$;

SELECT c.relname, a.amname
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relname LIKE 'smoke\_%' ORDER BY 1;

-- row 1: W1 (c1..c50 set); row 2: W1 with c10 NULL; row 3: every column NULL;
-- row 4: only c800 set.  Same statements on both tables.
DO $$
DECLARE
	am text;
	w1 text := (SELECT string_agg(format('%s', 1000 + i), ', ' ORDER BY i)
				  FROM generate_series(1, 50) i);
	w1_hole text := (SELECT string_agg(CASE WHEN i = 10 THEN 'NULL'
										ELSE format('%s', 2000 + i) END,
									   ', ' ORDER BY i)
					   FROM generate_series(1, 50) i);
	cols50 text := (SELECT string_agg(format('c%s', i), ', ' ORDER BY i)
					  FROM generate_series(1, 50) i);
BEGIN
	FOREACH am IN ARRAY ARRAY['heap', 'slimheap'] LOOP
		EXECUTE format('INSERT INTO smoke_%s (%s) VALUES (%s)', am, cols50, w1);
		EXECUTE format('INSERT INTO smoke_%s (%s) VALUES (%s)', am, cols50, w1_hole);
		EXECUTE format('INSERT INTO smoke_%s DEFAULT VALUES', am);
		EXECUTE format('INSERT INTO smoke_%s (c800) VALUES (800)', am);
	END LOOP;
END $$;

-- The stored forms.  natts is t_infomask2 & HEAP_NATTS_MASK (0x07FF).
-- heap: 800 attributes, a 100-byte bitmap, t_hoff 128, W1 row 328 bytes.
-- slimheap: the trailing NULLs are not stored; W1 row 224 bytes, no bitmap.
SELECT 'heap' AS am, lp, t_infomask2 & 2047 AS natts, t_hoff, lp_len,
	   (t_infomask & 1) <> 0 AS hasnull
  FROM heap_page_items(get_raw_page('smoke_heap', 0))
UNION ALL
SELECT 'slimheap', lp, t_infomask2 & 2047, t_hoff, lp_len,
	   (t_infomask & 1) <> 0
  FROM heap_page_items(get_raw_page('smoke_slimheap', 0))
 ORDER BY am, lp;

-- Same rows back, value for value: both directions of EXCEPT ALL are empty.
SELECT count(*) AS heap_not_in_slimheap
  FROM (SELECT * FROM smoke_heap EXCEPT ALL SELECT * FROM smoke_slimheap) d;
SELECT count(*) AS slimheap_not_in_heap
  FROM (SELECT * FROM smoke_slimheap EXCEPT ALL SELECT * FROM smoke_heap) d;

-- Columns past the stored ones read as NULL, the set ones as stored.
SELECT count(*) AS nrows, sum(c1) AS sum_c1, sum(c10) AS sum_c10,
	   sum(c50) AS sum_c50, count(c51) AS count_c51, sum(c800) AS sum_c800
  FROM smoke_slimheap;

DROP TABLE smoke_heap, smoke_slimheap;
