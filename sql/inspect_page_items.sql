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

DROP TABLE pi, pi_empty, pi_big;
DROP FUNCTION inspect_disagreements(regclass);
