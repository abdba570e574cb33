--
-- The per-row prefix floor (rule R, docs/row-floor.md): a compress row keeps
-- an indexed column in its standard prefix only where it holds a value
-- there; a NULL may stay in the tail, where heap's own readers of stored
-- rows read NULL, which it is.  So an UPDATE that sets an indexed column to
-- NULL, or a NULL one to a value, must look to heap_update() exactly as it
-- does on the heap twin (HOT, the key lock), and every index must find the
-- twin's rows.  Each step below runs on a heap table (rf_h) and its compress
-- twin (rf_c): rows with the indexed columns NULL are shown to keep short
-- prefixes (the feature), then index scans, bitmap scans, amcheck with
-- heapallindexed, a unique constraint and foreign keys both ways must agree.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA row_floor;
SET search_path = row_floor, public;

-- rf_h (heap) and rf_c (compress): id, c1 .. c300 int4; fillfactor 70 so
-- that updated rows may stay on their page (HOT) where the indexed columns
-- allow it
SELECT format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING %s WITH (fillfactor = 70%s)',
			  t, string_agg(format('c%s int4', i), ', ' ORDER BY i), am, opt)
FROM generate_series(1, 300) i,
	 (VALUES ('rf_h', 'heap', ''),
			 ('rf_c', 'slimheap', ', slimheap.null_bitmap = compress')) v(t, am, opt)
GROUP BY t, am, opt \gexec

-- both(stmt): stmt with @T standing for rf_h, then rf_c
CREATE FUNCTION both_(stmt text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE replace(stmt, '@T', 'rf_h');
	EXECUTE replace(stmt, '@T', 'rf_c');
END $$;

-- differ(q): rows one twin returns for query q (@T: the table) and the other not
CREATE FUNCTION differ(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM ((%1$s EXCEPT ALL %2$s) UNION ALL (%2$s EXCEPT ALL %1$s)) d',
				   replace(q, '@T', 'rf_h'), replace(q, '@T', 'rf_c')) INTO n;
	RETURN n;
END $$;

-- stored(): the prefix length (natts) and tail flag of every live row of rf_c
CREATE FUNCTION stored(OUT id int, OUT natts int, OUT tail bool)
RETURNS SETOF record LANGUAGE sql AS $$
	SELECT t.id, p.t_infomask2 & 2047, (p.t_infomask2 & 2048) <> 0
	FROM rf_c t JOIN (SELECT format('(%s,%s)', b, i.lp)::tid AS tid, i.*
					  FROM generate_series(0::bigint, pg_relation_size('rf_c') / 8192 - 1) b,
						   LATERAL heap_page_items(get_raw_page('rf_c', b::int)) i
					  WHERE i.lp_flags = 1) p ON p.tid = t.ctid
$$;

-- indexes: c60 (attribute 61), a unique c90 (91), an expression on c100
-- (101), a partial index whose predicate reads c110 (111)
SELECT both_('CREATE INDEX ON @T (c60)');
SELECT both_('CREATE UNIQUE INDEX @T_c90 ON @T (c90)');
SELECT both_('CREATE INDEX ON @T ((c100 * 2))');
SELECT both_('CREATE INDEX ON @T (id) WHERE c110 IS NOT NULL');

-- 600 rows: c3 and c300 always set; the indexed columns set in every
-- third row (c60), every fifth (c90), every seventh (c100, c110)
SELECT both_($$INSERT INTO @T (id, c3, c60, c90, c100, c110, c300)
	SELECT g, g, CASE WHEN g % 3 = 0 THEN g END, CASE WHEN g % 5 = 0 THEN g END,
		   CASE WHEN g % 7 = 0 THEN g END, CASE WHEN g % 7 = 0 THEN g END, -g
	FROM generate_series(1, 600) g$$);

-- the feature: a tail row's prefix ends at its last indexed column that
-- holds a value, else after the free attributes (8)
SELECT count(*) AS rows, count(*) FILTER (WHERE tail) AS tail_rows,
	   count(*) FILTER (WHERE tail AND natts = 8) AS tail_after_8,
	   count(*) FILTER (WHERE tail AND natts <> CASE
			WHEN id % 7 = 0 THEN 111 WHEN id % 5 = 0 THEN 91
			WHEN id % 3 = 0 THEN 61 ELSE 8 END) AS natts_not_per_row
FROM stored();
SELECT natts, count(*) AS tail_rows FROM stored() WHERE tail GROUP BY 1 ORDER BY 1;
SELECT differ('SELECT * FROM @T') AS rows_differ;

-- UPDATEs of indexed columns in every direction, each on both twins
SELECT both_('UPDATE @T SET c60 = NULL WHERE id % 6 = 0');			-- X -> NULL
SELECT both_('UPDATE @T SET c60 = id + 1000 WHERE id % 10 = 1');	-- NULL -> Y
SELECT both_('UPDATE @T SET c60 = c60 + 1 WHERE id % 9 = 0');		-- X -> Y
SELECT both_('UPDATE @T SET c5 = id WHERE id % 4 = 0');				-- X -> X
SELECT both_('UPDATE @T SET c90 = NULL WHERE id % 10 = 0');			-- unique key -> NULL
SELECT both_('UPDATE @T SET c90 = id + 5000 WHERE id % 11 = 1 AND c90 IS NULL');
SELECT both_('UPDATE @T SET c100 = NULL, c110 = NULL WHERE id % 14 = 0');
SELECT both_('UPDATE @T SET c100 = id, c110 = id WHERE id % 13 = 2');
SELECT both_('DELETE FROM @T WHERE id % 17 = 0');

SELECT differ('SELECT * FROM @T') AS rows_differ;
SELECT count(*) FILTER (WHERE tail) AS tail_rows,
	   count(*) FILTER (WHERE tail AND natts <> CASE
			WHEN c100 IS NOT NULL OR c110 IS NOT NULL THEN 111
			WHEN c90 IS NOT NULL THEN 91
			WHEN c60 IS NOT NULL THEN 61 ELSE 8 END) AS natts_not_per_row
FROM stored() JOIN rf_c USING (id);

-- every index finds the twin's rows: index scans, then bitmap scans
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT differ('SELECT id, c60 FROM @T WHERE c60 BETWEEN 1 AND 100000') AS c60_index;
SELECT differ('SELECT id FROM @T WHERE c60 IS NULL') AS c60_null_index;
SELECT differ('SELECT id, c90 FROM @T WHERE c90 > 0') AS c90_index;
SELECT differ('SELECT id FROM @T WHERE c100 * 2 BETWEEN 0 AND 100000') AS expr_index;
SELECT differ('SELECT id FROM @T WHERE c110 IS NOT NULL AND id > 0') AS partial_index;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
SELECT differ('SELECT id, c60 FROM @T WHERE c60 BETWEEN 1 AND 100000') AS c60_bitmap;
SELECT differ('SELECT id FROM @T WHERE c100 * 2 BETWEEN 0 AND 100000') AS expr_bitmap;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT bt_index_check(indexrelid, true) FROM pg_index
WHERE indrelid = 'rf_c'::regclass ORDER BY indexrelid::regclass::text;

-- the unique key: the same duplicate is refused on both twins
UPDATE rf_h SET c90 = 5 WHERE id = 10;
UPDATE rf_c SET c90 = 5 WHERE id = 10;
INSERT INTO rf_h (id, c90) VALUES (100001, 5);
INSERT INTO rf_c (id, c90) VALUES (100001, 5);
-- a NULL key is no duplicate
SELECT both_('INSERT INTO @T (id, c90, c300) VALUES (100002, NULL, 1)');

-- foreign keys both ways: children reference the twins' unique c90, and
-- the twins' c60 references a parent
SELECT both_('CREATE TABLE @T_child (k int REFERENCES @T (c90) ON UPDATE CASCADE ON DELETE SET NULL)');
SELECT both_('INSERT INTO @T_child SELECT c90 FROM @T WHERE c90 IS NOT NULL');
SELECT both_('UPDATE @T SET c90 = c90 + 100000 WHERE id % 15 = 0 AND c90 IS NOT NULL');
SELECT both_('UPDATE @T SET c90 = NULL WHERE id % 25 = 0');
SELECT differ('SELECT k FROM @T_child') AS child_rows_differ;
CREATE TABLE rf_parent (p int PRIMARY KEY);
INSERT INTO rf_parent SELECT g FROM generate_series(0, 200000) g;
SELECT both_('ALTER TABLE @T ADD FOREIGN KEY (c60) REFERENCES rf_parent (p)');
SELECT both_('UPDATE @T SET c60 = NULL WHERE id % 8 = 0');
SELECT both_('UPDATE @T SET c60 = 7 WHERE id % 8 = 1');
UPDATE rf_c SET c60 = -1 WHERE id = 1;
UPDATE rf_h SET c60 = -1 WHERE id = 1;

-- a BRIN index on a middle column (on 16 and later heap_update() decides
-- whether an UPDATE only summarizes from the old row's prefix): values set,
-- cleared and changed, then the summaries read through bitmap scans
SELECT both_('CREATE INDEX @T_brin ON @T USING brin (c200) WITH (pages_per_range = 2)');
SELECT both_('UPDATE @T SET c200 = id WHERE id % 4 = 3');
SELECT both_('UPDATE @T SET c200 = NULL WHERE id % 8 = 3');
SELECT both_('UPDATE @T SET c200 = c200 + 100000 WHERE id % 12 = 7');
SELECT both_('INSERT INTO @T (id, c200, c300) SELECT g, g, 1 FROM generate_series(200001, 200050) g');
SELECT brin_summarize_new_values('rf_h_brin') >= 0 AS summarized,
	   brin_summarize_new_values('rf_c_brin') >= 0 AS summarized;
SET enable_seqscan = off;
SET enable_indexscan = off;
SELECT differ('SELECT id, c200 FROM @T WHERE c200 BETWEEN 100 AND 150000') AS brin_range;
SELECT differ('SELECT id FROM @T WHERE c200 > 200000') AS brin_new_rows;
SELECT count(*) AS brin_rows FROM rf_c WHERE c200 BETWEEN 100 AND 150000;
RESET enable_seqscan;
RESET enable_indexscan;

-- and after VACUUM FULL (the rewrite forms every row with the rule), also
-- after a column added with a fast default that no index reads: the
-- rewrite keeps the old defaults of indexed columns only (rule R')
SELECT both_('ALTER TABLE @T ADD COLUMN z int DEFAULT 7');
VACUUM FULL rf_h;
VACUUM FULL rf_c;
SELECT differ('SELECT * FROM @T') AS rows_differ;
SELECT count(*) FILTER (WHERE tail) AS tail_rows,
	   count(*) FILTER (WHERE tail AND natts <> CASE
			WHEN c200 IS NOT NULL THEN 201
			WHEN c100 IS NOT NULL OR c110 IS NOT NULL THEN 111
			WHEN c90 IS NOT NULL THEN 91
			WHEN c60 IS NOT NULL THEN 61 ELSE 8 END) AS natts_not_per_row
FROM stored() JOIN rf_c USING (id);
SELECT bt_index_check(indexrelid, true) FROM pg_index
WHERE indrelid = 'rf_c'::regclass
  AND (SELECT amname FROM pg_am JOIN pg_class c ON c.relam = pg_am.oid
	   WHERE c.oid = indexrelid) = 'btree'
ORDER BY indexrelid::regclass::text;

RESET search_path;
DROP SCHEMA row_floor CASCADE;
