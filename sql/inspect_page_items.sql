--
-- slimheap.page_items(): the line pointers of one page of a slimheap table
-- and the form of each row.  Differential: pageinspect's heap_page_items()
-- reads the same raw page, and both must agree on every header field.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

-- Rows on which page_items() and heap_page_items() differ, in either
-- direction, over every page of a table.
CREATE FUNCTION inspect_disagreements(rel regclass) RETURNS bigint
LANGUAGE sql AS $$
	WITH ours AS (
		SELECT b, lp, lp_off, lp_flags, lp_len, natts, t_hoff, has_bitmap
		  FROM generate_series(0, pg_relation_size(rel) / 8192 - 1) b,
			   slimheap.page_items(rel, b)),
	theirs AS (
		SELECT b, lp, lp_off,
			   (ARRAY['unused', 'normal', 'redirect', 'dead'])[lp_flags + 1],
			   lp_len, t_infomask2 & 2047, t_hoff, t_bits IS NOT NULL
		  FROM generate_series(0, pg_relation_size(rel) / 8192 - 1) b,
			   heap_page_items(get_raw_page(rel::text, b::int)))
	SELECT (SELECT count(*) FROM (TABLE ours EXCEPT ALL TABLE theirs) d) +
		   (SELECT count(*) FROM (TABLE theirs EXCEPT ALL TABLE ours) d)
$$;

-- 12 columns: a W1-like row (first 3 set), a full row, a row with a NULL
-- among the stored attributes, an all-NULL row, a row whose last column is
-- set.
CREATE TABLE pi (c1 int4, c2 int4, c3 int4, c4 int4, c5 int4, c6 int4,
	c7 int4, c8 int4, c9 int4, c10 int4, c11 int4, c12 int4) USING slimheap;
INSERT INTO pi (c1, c2, c3) VALUES (1, 2, 3);
INSERT INTO pi VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
INSERT INTO pi (c1, c2, c3) VALUES (1, NULL, 3);
INSERT INTO pi (c1) VALUES (NULL);
INSERT INTO pi (c12) VALUES (12);

SELECT * FROM slimheap.page_items('pi', 0);

-- the same fields as pageinspect reads them
SELECT inspect_disagreements('pi');

-- Updated rows: HOT chains, then VACUUM leaves redirects and frees the old
-- versions; line pointers without storage have no row form.
UPDATE pi SET c5 = 5 WHERE c12 = 12;
SELECT lp, lp_flags, lp_len, form, natts, t_hoff, has_bitmap
  FROM slimheap.page_items('pi', 0);
VACUUM pi;
SELECT lp, lp_flags, lp_len, form, natts, t_hoff, has_bitmap
  FROM slimheap.page_items('pi', 0);

-- Block numbers are checked against the table's size.
SELECT * FROM slimheap.page_items('pi', 1);
SELECT * FROM slimheap.page_items('pi', -1);
SELECT * FROM slimheap.page_items('pi', 4294967296);
CREATE TABLE pi_empty (a int4) USING slimheap;
SELECT * FROM slimheap.page_items('pi_empty', 0);

-- every page of a bigger table, against pageinspect
CREATE TABLE pi_big (c1 int4, c2 text, c3 int4, c4 int4, c5 int4, c6 int4,
	c7 int4, c8 int4, c9 int4) USING slimheap;
INSERT INTO pi_big
	SELECT g, CASE WHEN g % 3 = 0 THEN repeat('z', g % 50) END,
		   CASE WHEN g % 5 = 0 THEN g END, NULL, NULL, NULL, NULL, NULL,
		   CASE WHEN g % 7 = 0 THEN g END
	  FROM generate_series(1, 2000) g;
SELECT form, natts, has_bitmap, t_hoff, count(*)
  FROM generate_series(0, pg_relation_size('pi_big') / 8192 - 1) b,
	   slimheap.page_items('pi_big', b)
 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4;
SELECT inspect_disagreements('pi_big');

-- compress rows (docs/format.md): the header still reads as heap's (natts
-- is the prefix, as pageinspect sees it), the encoding of each tail is
-- shown, and stored_natts is the last non-NULL column.  80 int4 columns, c1
-- indexed (the prefix floor); rows chosen so that each encoding is the
-- shortest for one of them, and the tail form shorter than truncate's:
--   c21..c40, a run of 20 values:  runs (2 varints; gaps 20, bitmap 5 bytes)
--   c20 and c50:                   gaps (2 varints; runs 4, bitmap 7)
--   every 4th column, c5..c73:     bitmap (9 bytes; gaps 18, runs 36)
--   c1 only:                       no tail (truncate)
SELECT format('CREATE TABLE pi_comp (%s) USING slimheap
				 WITH (slimheap.null_bitmap = compress)',
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 80) i \gexec
CREATE INDEX pi_comp_c1 ON pi_comp (c1);
SELECT format('INSERT INTO pi_comp (c1, %s) VALUES (%s, %s)',
			  string_agg(format('c%s', i), ', ' ORDER BY i), r,
			  string_agg(i::text, ', ' ORDER BY i))
  FROM (VALUES (1, 21, 40, 1), (2, 20, 50, 30), (3, 5, 73, 4)) v(r, lo, hi, step),
	   generate_series(lo, hi, step) i
 GROUP BY r ORDER BY r \gexec
INSERT INTO pi_comp (c1) VALUES (4);
SELECT lp, lp_len, form, natts, t_hoff, has_bitmap, problem, tail_encoding,
	   stored_natts
  FROM slimheap.page_items('pi_comp', 0);
SELECT inspect_disagreements('pi_comp');
-- the marker bit exactly on the rows shown as tail rows
SELECT count(*) AS marker_disagreements
  FROM slimheap.page_items('pi_comp', 0) p
  JOIN heap_page_items(get_raw_page('pi_comp', 0)) h USING (lp)
 WHERE (p.form = 'tail') <> ((h.t_infomask2 & 2048) <> 0);
-- stored_natts is the last non-NULL column of the row
SELECT count(*) AS stored_natts_disagreements
  FROM slimheap.page_items('pi_comp', 0) p
  JOIN pi_comp t ON t.ctid = format('(0,%s)', p.lp)::tid
 WHERE p.stored_natts <>
	   (SELECT max(i) FROM jsonb_each(to_jsonb(t)) e,
			   LATERAL (SELECT substr(e.key, 2)::int AS i) k
		 WHERE e.value <> 'null'::jsonb);
DROP TABLE pi_comp;

DROP TABLE pi, pi_empty, pi_big;
DROP FUNCTION inspect_disagreements(regclass);
