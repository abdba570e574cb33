--
-- Leading NOT NULL columns.  PostgreSQL 19's heap deforming reads the
-- leading NOT NULL, fixed-length attributes of a slot whose creator
-- guarantees them (scans do) at their cached offsets, without looking at
-- the row's NULL bitmap or natts; slimheap's slot passes that guarantee to
-- heap's reader (docs/versions.md).  Here the NOT NULL run (n1..n12) is
-- longer than a compress row's prefix (8 columns: no index, no
-- prefix_columns), so those rows keep n9..n12
-- in their tail; truncate rows store no trailing NULL after them.  Every
-- read must return what heap returns, on every version.
--
CREATE SCHEMA twin_not_null;
SET search_path = twin_not_null, public;

DO $$
DECLARE
	cols text := (SELECT string_agg(format('n%s int8 NOT NULL', i), ', ') FROM generate_series(1, 12) i)
		|| ', ' || (SELECT string_agg(format('c%s int4', i), ', ') FROM generate_series(1, 400) i)
		|| ', note text';
	vals text := 'g'
		|| (SELECT string_agg(format(', g * %s', i), '') FROM generate_series(2, 12) i)
		|| (SELECT string_agg(format(', CASE WHEN (g + %1$s) %% 97 = 0 THEN g - %1$s END', i), '')
			FROM generate_series(1, 400) i)
		|| ', CASE WHEN g % 5 = 0 THEN ''note '' || g END';
BEGIN
	EXECUTE format('CREATE TABLE nn_h (%s) USING heap', cols);
	EXECUTE format('CREATE TABLE nn_t (%s) USING slimheap WITH (slimheap.null_bitmap = truncate)', cols);
	EXECUTE format('CREATE TABLE nn_c (%s) USING slimheap WITH (slimheap.null_bitmap = compress)', cols);
	EXECUTE format('INSERT INTO nn_h SELECT %s FROM generate_series(1, 600) g', vals);
	EXECUTE format('INSERT INTO nn_t SELECT %s FROM generate_series(1, 600) g', vals);
	EXECUTE format('INSERT INTO nn_c SELECT %s FROM generate_series(1, 600) g', vals);
END $$;

-- compress rows with a tail keep 8 columns in their prefix, fewer than the
-- NOT NULL run; truncate rows without a note stop at their last value
SELECT (slimheap.stats('nn_c')).tail_rows > 500 AS compress_has_tails,
       (SELECT max(natts) FROM slimheap.page_items('nn_c', 0)
         WHERE tail_encoding IS NOT NULL) AS tail_row_prefix,
       (SELECT count(*) FILTER (WHERE natts < 413) > 10
          FROM slimheap.page_items('nn_t', 0)) AS truncate_rows_shorter;

SELECT * FROM twin.compare('nn_h', 'nn_t');
SELECT * FROM twin.compare('nn_h', 'nn_c');
-- a guaranteed column alone, one past the prefix, the run's last, a tail
-- column after it, and the row's end
SELECT * FROM twin.query('SELECT sum(n3), sum(n9), sum(n12) FROM %s', 'nn_h', 'nn_t');
SELECT * FROM twin.query('SELECT sum(n3), sum(n9), sum(n12) FROM %s', 'nn_h', 'nn_c');
SELECT * FROM twin.query('SELECT n1, n12, c40, note FROM %s WHERE c40 IS NOT NULL OR n2 %% 97 = 0', 'nn_h', 'nn_t');
SELECT * FROM twin.query('SELECT n1, n12, c40, note FROM %s WHERE c40 IS NOT NULL OR n2 %% 97 = 0', 'nn_h', 'nn_c');
SELECT * FROM twin.query('SELECT n10, c400 FROM %s WHERE n11 %% 7 = 0', 'nn_h', 'nn_c');
-- after an UPDATE of a tail column and one of a NOT NULL column
UPDATE nn_h SET c100 = n1 WHERE n1 % 9 = 0;
UPDATE nn_c SET c100 = n1 WHERE n1 % 9 = 0;
UPDATE nn_h SET n11 = -n11 WHERE n1 % 4 = 0;
UPDATE nn_c SET n11 = -n11 WHERE n1 % 4 = 0;
SELECT * FROM twin.query('SELECT n1, n11, n12, c100 FROM %s', 'nn_h', 'nn_c');
SELECT * FROM twin.compare('nn_h', 'nn_c');

DROP SCHEMA twin_not_null CASCADE;
