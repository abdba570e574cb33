--
-- slimheap.estimate(): the main-fork size a table would have after
-- ALTER TABLE ... SET ACCESS METHOD slimheap (mode "truncate"), after a
-- rewrite in heap's layout (mode "full"), and after a conversion to
-- slimheap.null_bitmap = compress (mode "compress"), from a full scan or a
-- sample.
--
-- Each case converts the table and compares: to slimheap for "truncate",
-- back to heap for "full", to slimheap in compress mode for "compress", and
-- back to heap (every rewrite inserts row by row through heap_insert(),
-- which is what the estimate simulates).  The rows and their
-- order are fixed, so the figures are exact and stable.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

CREATE TEMP TABLE inspect_est (
	mode text,
	full_scan boolean,
	sampled_rows bigint,
	total_rows bigint,
	toasted_rows bigint,
	projected_pages bigint,
	actual_pages bigint,
	saved_percent numeric
);

CREATE FUNCTION inspect_estimate_vs_actual(tab regclass,
										   sample integer DEFAULT NULL)
RETURNS TABLE (mode text, full_scan boolean, sampled_rows bigint,
			   total_rows bigint, toasted_rows bigint, projected_pages bigint,
			   actual_pages bigint, saved_percent numeric, error_percent numeric)
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM inspect_est;
	INSERT INTO inspect_est
		SELECT e.mode, e.full_scan, e.sampled_rows, e.total_rows,
			   e.toasted_rows, e.projected_pages, NULL, e.saved_percent
		  FROM slimheap.estimate(tab, sample) e;
	-- the pages that hold rows: from PostgreSQL 16 on, the rewrite extends
	-- the file in bulk, so it may end in empty pages (docs/versions.md)
	EXECUTE format('ALTER TABLE %s SET ACCESS METHOD slimheap', tab);
	EXECUTE format('UPDATE inspect_est e SET actual_pages = '
				   '(SELECT count(DISTINCT (ctid::text::point)[0]) FROM %s) '
				   'WHERE e.mode = ''truncate''', tab);
	EXECUTE format('ALTER TABLE %s SET ACCESS METHOD heap', tab);
	EXECUTE format('UPDATE inspect_est e SET actual_pages = '
				   '(SELECT count(DISTINCT (ctid::text::point)[0]) FROM %s) '
				   'WHERE e.mode = ''full''', tab);
	EXECUTE format('ALTER TABLE %s SET ACCESS METHOD slimheap, '
				   'SET (slimheap.null_bitmap = compress)', tab);
	EXECUTE format('UPDATE inspect_est e SET actual_pages = '
				   '(SELECT count(DISTINCT (ctid::text::point)[0]) FROM %s) '
				   'WHERE e.mode = ''compress''', tab);
	EXECUTE format('ALTER TABLE %s SET ACCESS METHOD heap, '
				   'RESET (slimheap.null_bitmap)', tab);
	RETURN QUERY
		SELECT e.*,
			   round(100.0 * abs(e.projected_pages - e.actual_pages) / e.actual_pages, 2)
		  FROM inspect_est e ORDER BY e.mode;
END $$;

-- W1 rows (800 nullable int4, the first 50 set), with some rows that set
-- every column and some that set none.
SELECT format('CREATE TABLE e_w1 (%s) USING heap',
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 800) i \gexec
SELECT format('INSERT INTO e_w1 (%s) SELECT %s FROM generate_series(1, 1000) g',
			  string_agg(format('c%s', i), ', ' ORDER BY i),
			  string_agg(format('g + %s', i), ', ' ORDER BY i))
  FROM generate_series(1, 50) i \gexec
SELECT format('INSERT INTO e_w1 (%s) SELECT %s FROM generate_series(1, 20) g',
			  string_agg(format('c%s', i), ', ' ORDER BY i),
			  string_agg(format('g * %s', i), ', ' ORDER BY i))
  FROM generate_series(1, 800) i \gexec
INSERT INTO e_w1 (c1) SELECT NULL FROM generate_series(1, 20);

-- what a user sees first
SELECT mode, sampled_rows, sampled_pages, full_scan, total_rows, toasted_rows,
	   current_bytes, projected_pages, projected_bytes, saved_bytes,
	   saved_percent
  FROM slimheap.estimate('e_w1');

SELECT * FROM inspect_estimate_vs_actual('e_w1');
-- From a sample of about 300 rows, spread over the table: a quarter of
-- the blocks of a small table, a coarse sample (t/020_estimate.pl holds
-- larger samples to 2%).
-- (From PostgreSQL 16 on, the conversions above extend the file in bulk and
-- leave empty pages at its end; VACUUM truncates them, so that the sample
-- below reads the same table on every version: docs/versions.md.)
VACUUM e_w1;
SELECT * FROM inspect_estimate_vs_actual('e_w1', 300);

-- All-NULL rows: slimheap stores 24-byte rows, and a page takes no more than
-- MaxHeapTuplesPerPage (291) of them.
CREATE TABLE e_nulls (c1 int4, c2 int4, c3 int4, c4 int4, c5 int4, c6 int4,
	c7 int4, c8 int4, c9 int4, c10 int4) USING heap;
INSERT INTO e_nulls (c1) SELECT NULL FROM generate_series(1, 1000);
SELECT * FROM inspect_estimate_vs_actual('e_nulls');

-- fillfactor: the rewrite keeps the table's fillfactor, and so does the
-- estimate.
SELECT format('CREATE TABLE e_ff (%s) USING heap WITH (fillfactor = 60)',
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 100) i \gexec
INSERT INTO e_ff (c1, c2, c3, c4, c5, c6, c7, c8, c9, c10)
	SELECT g, g, g, g, g, g, g, g, g, g FROM generate_series(1, 2000) g;
SELECT * FROM inspect_estimate_vs_actual('e_ff');

-- A column added with a non-NULL default: rows written before it read the
-- default, and slimheap keeps storing through that column (invariant T1).
CREATE TABLE e_fd (a int4, b int4) USING heap;
INSERT INTO e_fd (a) SELECT g FROM generate_series(1, 1000) g;
ALTER TABLE e_fd ADD COLUMN c int4 DEFAULT 5;
SELECT format('ALTER TABLE e_fd %s',
			  string_agg(format('ADD COLUMN d%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 20) i \gexec
SELECT * FROM inspect_estimate_vs_actual('e_fd');
-- converted, every row stores a, b and the default of c, with a bitmap
ALTER TABLE e_fd SET ACCESS METHOD slimheap;
SELECT natts, has_bitmap, t_hoff, lp_len, count(*)
  FROM slimheap.page_items('e_fd', 0) GROUP BY 1, 2, 3, 4;
SELECT count(*) AS rows_with_c_5 FROM e_fd WHERE c = 5;

-- A dropped column's data goes away in a rewrite, in both layouts.
CREATE TABLE e_drop (a int4, b text, c1 int4, c2 int4, c3 int4, c4 int4,
	c5 int4, c6 int4, c7 int4, c8 int4, c9 int4) USING heap;
INSERT INTO e_drop (a, b) SELECT g, repeat('y', 100) FROM generate_series(1, 1000) g;
ALTER TABLE e_drop DROP COLUMN b;
SELECT mode, current_bytes, projected_bytes FROM slimheap.estimate('e_drop', NULL);
SELECT * FROM inspect_estimate_vs_actual('e_drop');

-- Rows with out-of-line values go through the toaster, which writes them in
-- heap's layout: counted as stored.
CREATE TABLE e_toast (id int4, big text, c1 int4, c2 int4, c3 int4, c4 int4,
	c5 int4, c6 int4, c7 int4, c8 int4, c9 int4, c10 int4) USING heap;
INSERT INTO e_toast (id, big)
	SELECT g, (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 300) i)
	  FROM generate_series(1, 10) g;
INSERT INTO e_toast (id, big) SELECT g, 'short' FROM generate_series(1, 1000) g;
SELECT * FROM inspect_estimate_vs_actual('e_toast');

-- Sparse rows of mixed types (W4-like: 200 columns cycling int4, float8,
-- bool, text; about one column in ten set, at positions fixed by a hash).
SELECT format('CREATE TABLE e_mixed (%s) USING heap',
			  string_agg(format('c%s %s', i,
								(ARRAY['int4', 'float8', 'bool', 'text'])[(i - 1) % 4 + 1]),
						 ', ' ORDER BY i))
  FROM generate_series(1, 200) i \gexec
SELECT format('INSERT INTO e_mixed SELECT %s FROM generate_series(1, 1500) g',
			  string_agg(format('CASE WHEN abs(hashint4(g * 1000 + %s)) %% 10 = 0 THEN %s END',
								i,
								CASE (i - 1) % 4
									WHEN 0 THEN format('g + %s', i)
									WHEN 1 THEN format('(g + %s) * 0.5', i)
									WHEN 2 THEN format('(g + %s) %% 2 = 0', i)
									ELSE format('''v'' || g || ''_%s''', i)
								END),
						 ', ' ORDER BY i))
  FROM generate_series(1, 200) i \gexec
SELECT * FROM inspect_estimate_vs_actual('e_mixed');
-- (VACUUM: as for e_w1 above)
VACUUM e_mixed;
SELECT * FROM inspect_estimate_vs_actual('e_mixed', 200);

-- Sparse rows whose NULLs are not trailing, where compress saves most
-- (W4-like: 600 int4 columns, about one in thirty set, at positions fixed
-- by a hash).  compress keeps every column an index reads in the standard
-- prefix (C1), so an index on c300 leaves less to the tail; REPLICA IDENTITY
-- FULL gives no row a tail, and compress projects what truncate does.
SELECT format('CREATE TABLE e_sparse (%s) USING heap',
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 600) i \gexec
SELECT format('INSERT INTO e_sparse SELECT %s FROM generate_series(1, 1500) g',
			  string_agg(format('CASE WHEN abs(hashint4(g * 1000 + %s)) %% 30 = 0 THEN g END', i),
						 ', ' ORDER BY i))
  FROM generate_series(1, 600) i \gexec
SELECT * FROM inspect_estimate_vs_actual('e_sparse');
CREATE INDEX e_sparse_c300 ON e_sparse (c300);
SELECT * FROM inspect_estimate_vs_actual('e_sparse');
ALTER TABLE e_sparse REPLICA IDENTITY FULL;
SELECT * FROM inspect_estimate_vs_actual('e_sparse');

-- A slimheap table: its "truncate" projection is its size.
CREATE TABLE e_slim (a int4, b int4, c int4, d int4, e int4, f int4, g int4,
	h int4, i int4) USING slimheap;
INSERT INTO e_slim (a) SELECT g FROM generate_series(1, 3000) g;
SELECT mode, total_rows, current_bytes, projected_bytes, saved_percent
  FROM slimheap.estimate('e_slim');
-- A compress table whose rows have tails (read back through the slot's
-- decoder, formed again by the former): its "compress" projection is its
-- size.
SELECT format('CREATE TABLE e_slim_comp (%s) USING slimheap
				 WITH (slimheap.null_bitmap = compress)',
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 100) i \gexec
INSERT INTO e_slim_comp (c1, c50, c100)
	SELECT g, CASE WHEN g % 2 = 0 THEN g END, g FROM generate_series(1, 3000) g;
SELECT (SELECT tail_rows FROM slimheap.stats('e_slim_comp')) AS tail_rows;
SELECT mode, total_rows, current_bytes, projected_bytes,
	   projected_bytes = current_bytes AS is_current, saved_percent
  FROM slimheap.estimate('e_slim_comp');

-- A materialized view, and an empty table.
CREATE MATERIALIZED VIEW e_mv AS
	SELECT g AS a, NULL::int4 AS b, NULL::int4 AS c, NULL::int4 AS d,
		   NULL::int4 AS e, NULL::int4 AS f, NULL::int4 AS g, NULL::int4 AS h,
		   NULL::int4 AS i
	  FROM generate_series(1, 3000) g;
-- (CREATE MATERIALIZED VIEW extends the file in bulk from 16 on: VACUUM,
-- as for e_w1 above)
VACUUM e_mv;
SELECT mode, total_rows, current_bytes, projected_bytes, saved_percent
  FROM slimheap.estimate('e_mv');
CREATE TABLE e_empty (a int4) USING heap;
SELECT * FROM slimheap.estimate('e_empty');

-- Arguments: a sample must have rows; a NULL table is an error.
SELECT * FROM slimheap.estimate('e_w1', 0);
SELECT * FROM slimheap.estimate('e_w1', -5);
SELECT count(*) FROM slimheap.estimate(NULL);

DROP MATERIALIZED VIEW e_mv;
DROP TABLE e_w1, e_nulls, e_ff, e_fd, e_drop, e_toast, e_mixed, e_sparse, e_slim,
	e_slim_comp, e_empty;
DROP FUNCTION inspect_estimate_vs_actual(regclass, integer);
DROP TABLE inspect_est;
