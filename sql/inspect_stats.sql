--
-- slimheap.stats(): what a slimheap table holds, per row form, against the
-- bytes heap's layout takes for the same rows.
--
-- Differential: every slimheap table has a heap twin loaded by the same
-- statements, and heap's own tools measure the twin (pgstattuple) and the
-- slimheap pages (pageinspect, which reads raw pages of any table).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pgstattuple;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

-- Sum of lp_len of the normal line pointers of a table, per row form as
-- pageinspect sees it (stored natts against the table's).
CREATE FUNCTION inspect_raw_bytes(rel regclass,
								  OUT full_rows bigint, OUT full_bytes bigint,
								  OUT truncated_rows bigint,
								  OUT truncated_bytes bigint)
LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE (t_infomask2 & 2047) = natts),
		   coalesce(sum(lp_len) FILTER (WHERE (t_infomask2 & 2047) = natts), 0),
		   count(*) FILTER (WHERE (t_infomask2 & 2047) < natts),
		   coalesce(sum(lp_len) FILTER (WHERE (t_infomask2 & 2047) < natts), 0)
	  FROM generate_series(0, pg_relation_size(rel) / 8192 - 1) b,
		   heap_page_items(get_raw_page(rel::text, b::int)),
		   (SELECT relnatts AS natts FROM pg_class WHERE oid = rel) c
	 WHERE lp_flags = 1
$$;

-- Free space as PageGetHeapFreeSpace() counts it, summed over the pages.
CREATE FUNCTION inspect_raw_free(rel regclass) RETURNS bigint
LANGUAGE sql AS $$
	SELECT coalesce(sum(greatest(upper - lower - 4, 0)), 0)
	  FROM generate_series(0, pg_relation_size(rel) / 8192 - 1) b,
		   page_header(get_raw_page(rel::text, b::int))
$$;

-- W1 rows (800 nullable int4, the first 50 set), plus rows that keep the
-- full form (all 800 set), rows with a NULL among the stored attributes
-- (c10 NULL: truncated, with a bitmap), and all-NULL rows (natts 0).
DO $$
DECLARE
	am text;
	cols text := (SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i)
					FROM generate_series(1, 800) i);
	w1 text := (SELECT string_agg(format('c%s', i), ', ' ORDER BY i)
				  FROM generate_series(1, 50) i);
	w1v text := (SELECT string_agg(format('g + %s', i), ', ' ORDER BY i)
				   FROM generate_series(1, 50) i);
	allc text := (SELECT string_agg(format('c%s', i), ', ' ORDER BY i)
					FROM generate_series(1, 800) i);
	allv text := (SELECT string_agg(format('g * %s', i), ', ' ORDER BY i)
					FROM generate_series(1, 800) i);
BEGIN
	FOREACH am IN ARRAY ARRAY['heap', 'slimheap'] LOOP
		EXECUTE format('CREATE TABLE st_w1_%s (%s) USING %s', am, cols, am);
		EXECUTE format('INSERT INTO st_w1_%s (%s) SELECT %s FROM generate_series(1, 300) g',
					   am, w1, w1v);
		EXECUTE format('INSERT INTO st_w1_%s (%s) SELECT %s FROM generate_series(1, 7) g',
					   am, allc, allv);
		EXECUTE format('INSERT INTO st_w1_%s (%s) SELECT %s FROM generate_series(1, 11) g',
					   am, w1, replace(w1v, 'g + 10,', 'NULL,'));
		EXECUTE format('INSERT INTO st_w1_%s (c1) SELECT NULL FROM generate_series(1, 13) g',
					   am);
	END LOOP;
END $$;

\x on
SELECT * FROM slimheap.stats('st_w1_slimheap');
\x off

-- the same figures from the raw pages and from pgstattuple on the heap twin
SELECT s.table_bytes = pg_relation_size('st_w1_slimheap') AS table_bytes_ok,
	   s.pages = pg_relation_size('st_w1_slimheap') / 8192 AS pages_ok,
	   s.live_rows = (SELECT count(*) FROM st_w1_slimheap) AS live_rows_ok,
	   s.live_bytes = r.full_bytes + r.truncated_bytes AS live_bytes_ok,
	   (s.full_rows, s.full_bytes, s.truncated_rows, s.truncated_bytes) =
	   (r.full_rows, r.full_bytes, r.truncated_rows, r.truncated_bytes) AS forms_ok,
	   s.free_bytes = inspect_raw_free('st_w1_slimheap') AS free_bytes_ok,
	   s.heap_layout_bytes = h.tuple_len AS heap_layout_is_heap_twin,
	   s.live_rows = h.tuple_count AS rows_match_heap_twin,
	   s.saved_bytes = h.tuple_len - s.live_bytes AS saved_bytes_ok
  FROM slimheap.stats('st_w1_slimheap') s,
	   inspect_raw_bytes('st_w1_slimheap') r,
	   pgstattuple('st_w1_heap') h;

-- Rows written before ADD COLUMN ... DEFAULT store fewer attributes; heap's
-- layout of them stores the default as data, which is what the heap twin
-- holds after VACUUM FULL re-formed its rows.
CREATE TABLE st_fd_heap (a int4, b int4, c int4) USING heap;
CREATE TABLE st_fd_slimheap (a int4, b int4, c int4) USING slimheap;
INSERT INTO st_fd_heap SELECT g, NULL, NULL FROM generate_series(1, 100) g;
INSERT INTO st_fd_slimheap SELECT g, NULL, NULL FROM generate_series(1, 100) g;
ALTER TABLE st_fd_heap ADD COLUMN d int8 DEFAULT 42;
ALTER TABLE st_fd_slimheap ADD COLUMN d int8 DEFAULT 42;
INSERT INTO st_fd_heap SELECT g, g, NULL, NULL FROM generate_series(1, 50) g;
INSERT INTO st_fd_slimheap SELECT g, g, NULL, NULL FROM generate_series(1, 50) g;
VACUUM FULL st_fd_heap;

SELECT live_rows, live_bytes, full_rows, truncated_rows, heap_layout_bytes,
	   saved_bytes, saved_percent
  FROM slimheap.stats('st_fd_slimheap');
SELECT s.heap_layout_bytes = h.tuple_len AS heap_layout_is_heap_twin
  FROM slimheap.stats('st_fd_slimheap') s, pgstattuple('st_fd_heap') h;

-- A dropped column keeps its data in the rows until a rewrite, in heap's
-- layout too: the twin is not rewritten here.  Nine trailing NULLs make
-- heap's bitmap two bytes, and its header 32 bytes instead of 24.
CREATE TABLE st_drop_heap (a int4, b text, c1 int4, c2 int4, c3 int4,
	c4 int4, c5 int4, c6 int4, c7 int4, c8 int4, c9 int4) USING heap;
CREATE TABLE st_drop_slimheap (a int4, b text, c1 int4, c2 int4, c3 int4,
	c4 int4, c5 int4, c6 int4, c7 int4, c8 int4, c9 int4) USING slimheap;
INSERT INTO st_drop_heap SELECT g, repeat('x', g % 40) FROM generate_series(1, 200) g;
INSERT INTO st_drop_slimheap SELECT g, repeat('x', g % 40) FROM generate_series(1, 200) g;
ALTER TABLE st_drop_heap DROP COLUMN b;
ALTER TABLE st_drop_slimheap DROP COLUMN b;

SELECT live_rows, live_bytes, full_rows, truncated_rows, heap_layout_bytes,
	   saved_bytes, saved_percent
  FROM slimheap.stats('st_drop_slimheap');
SELECT s.heap_layout_bytes = h.tuple_len AS heap_layout_is_heap_twin
  FROM slimheap.stats('st_drop_slimheap') s, pgstattuple('st_drop_heap') h;

-- Toasted rows: the toaster writes them in heap's full layout, so only the
-- short rows are truncated (ten trailing NULLs: heap's header is 32 bytes).
CREATE TABLE st_toast_heap (id int4, big text, c3 int4, c4 int4, c5 int4,
	c6 int4, c7 int4, c8 int4, c9 int4, c10 int4, c11 int4, c12 int4) USING heap;
CREATE TABLE st_toast_slimheap (id int4, big text, c3 int4, c4 int4, c5 int4,
	c6 int4, c7 int4, c8 int4, c9 int4, c10 int4, c11 int4, c12 int4) USING slimheap;
INSERT INTO st_toast_heap
	SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i)
	  FROM generate_series(1, 5) g;
INSERT INTO st_toast_slimheap
	SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i)
	  FROM generate_series(1, 5) g;
INSERT INTO st_toast_heap SELECT g, 'short' FROM generate_series(1, 20) g;
INSERT INTO st_toast_slimheap SELECT g, 'short' FROM generate_series(1, 20) g;

SELECT live_rows, live_bytes, full_rows, full_bytes, truncated_rows,
	   truncated_bytes, heap_layout_bytes, saved_bytes
  FROM slimheap.stats('st_toast_slimheap');
SELECT s.heap_layout_bytes = h.tuple_len AS heap_layout_is_heap_twin,
	   (s.full_rows, s.full_bytes, s.truncated_rows, s.truncated_bytes) =
	   (r.full_rows, r.full_bytes, r.truncated_rows, r.truncated_bytes) AS forms_ok
  FROM slimheap.stats('st_toast_slimheap') s, pgstattuple('st_toast_heap') h,
	   inspect_raw_bytes('st_toast_slimheap') r;

-- compress rows (docs/format.md): tail rows are counted apart, their heap
-- layout is the heap twin's (so they read back whole), and what the tails
-- save beyond truncation is what a truncate twin of the same rows takes
-- more.  W5-like rows: 120 int4 columns, c1 indexed, three groups of set
-- columns; rows whose only set column is c1 keep the truncate form.
DO $$
DECLARE
	t text;
	cols text := (SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i)
					FROM generate_series(1, 120) i);
	grp text := (SELECT string_agg(format('CASE WHEN (g + %s) %% 40 < 12 THEN g + %s END', i, i),
								   ', ' ORDER BY i)
				   FROM generate_series(2, 120) i);
BEGIN
	FOREACH t IN ARRAY ARRAY['st_c_heap', 'st_c_truncate', 'st_c_compress'] LOOP
		EXECUTE format('CREATE TABLE %s (%s) USING %s %s', t, cols,
					   CASE t WHEN 'st_c_heap' THEN 'heap' ELSE 'slimheap' END,
					   CASE t WHEN 'st_c_compress'
							  THEN 'WITH (slimheap.null_bitmap = compress)' ELSE '' END);
		EXECUTE format('CREATE INDEX ON %s (c1)', t);
		EXECUTE format('INSERT INTO %s SELECT g, %s FROM generate_series(1, 200) g',
					   t, grp);
		EXECUTE format('INSERT INTO %s (c1) SELECT g FROM generate_series(1, 30) g', t);
	END LOOP;
END $$;

\x on
SELECT * FROM slimheap.stats('st_c_compress');
\x off

SELECT s.tail_rows = r.tail_rows AND s.tail_bytes = r.tail_bytes AS tails_ok,
	   s.full_rows + s.truncated_rows + s.tail_rows = s.live_rows AS forms_add_up,
	   s.heap_layout_bytes = h.tuple_len AS heap_layout_is_heap_twin,
	   s.tail_saved_bytes = t.live_bytes - s.live_bytes AS tail_saved_is_truncate_twin,
	   s.tail_saved_bytes > 0 AS tails_save
  FROM slimheap.stats('st_c_compress') s,
	   slimheap.stats('st_c_truncate') t,
	   pgstattuple('st_c_heap') h,
	   (SELECT count(*) AS tail_rows, coalesce(sum(lp_len), 0) AS tail_bytes
		  FROM generate_series(0, pg_relation_size('st_c_compress') / 8192 - 1) b,
			   heap_page_items(get_raw_page('st_c_compress', b::int))
		 WHERE lp_flags = 1 AND (t_infomask2 & 2048) <> 0) r;
-- a standard table has no tail rows
SELECT tail_rows, tail_bytes, tail_saved_bytes
  FROM slimheap.stats('st_c_truncate');
DROP TABLE st_c_heap, st_c_truncate, st_c_compress;

-- Rows this query cannot see are counted apart: here rows the transaction
-- itself deleted (nothing can prune them meanwhile).
BEGIN;
DELETE FROM st_w1_slimheap WHERE c1 % 3 = 0;
SELECT s.live_rows, s.dead_rows, s.dead_bytes,
	   s.live_rows = (SELECT count(*) FROM st_w1_slimheap) AS live_rows_ok,
	   s.live_rows + s.dead_rows = h.tuple_count AS all_rows_counted
  FROM slimheap.stats('st_w1_slimheap') s, pgstattuple('st_w1_heap') h;
ROLLBACK;

-- A materialized view stored by slimheap.
CREATE MATERIALIZED VIEW st_mv USING slimheap AS
	SELECT g AS a, NULL::int4 AS b, NULL::int4 AS c, NULL::int4 AS d,
		   NULL::int4 AS e, NULL::int4 AS f, NULL::int4 AS g, NULL::int4 AS h,
		   NULL::int4 AS i
	  FROM generate_series(1, 100) g;
SELECT live_rows, live_bytes, full_rows, truncated_rows, heap_layout_bytes,
	   saved_bytes, saved_percent
  FROM slimheap.stats('st_mv');

-- An empty table: no pages, nothing saved, no percentage of nothing.
CREATE TABLE st_empty (a int4) USING slimheap;
SELECT * FROM slimheap.stats('st_empty');

-- The rows compact would store shorter: every row of a heap table adopted
-- in compress mode (heap's form), none once compact re-laid them, and the
-- bytes it saved what stats() said it would.
SELECT format('CREATE TABLE st_adopt (id int, %s) USING heap',
              string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 300) i \gexec
INSERT INTO st_adopt (id, c3, c150, c300) SELECT g, g, g, g FROM generate_series(1, 200) g;
CALL slimheap.adopt('st_adopt', 'compress');
SELECT live_rows, relayable_rows, relayable_saved_bytes > 0 AS saves
  FROM slimheap.stats('st_adopt');
CREATE TABLE st_adopt_before AS
  SELECT live_bytes, relayable_saved_bytes FROM slimheap.stats('st_adopt');
CALL slimheap.compact('st_adopt');
SELECT relayable_rows, relayable_saved_bytes,
       (SELECT live_bytes - relayable_saved_bytes FROM st_adopt_before) =
       live_bytes AS saved_as_said
  FROM slimheap.stats('st_adopt');

DROP MATERIALIZED VIEW st_mv;
DROP TABLE st_w1_heap, st_w1_slimheap, st_fd_heap, st_fd_slimheap,
	st_drop_heap, st_drop_slimheap, st_toast_heap, st_toast_slimheap, st_empty,
	st_adopt, st_adopt_before;
DROP FUNCTION inspect_raw_bytes(regclass);
DROP FUNCTION inspect_raw_free(regclass);
