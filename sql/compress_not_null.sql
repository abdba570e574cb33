--
-- NOT NULL columns and compressed tails.  PostgreSQL 19's deforming reads
-- the leading attributes that a slot's creator guarantees (NOT NULL, by
-- value, no missing value: tts_first_nonguaranteed) at cached offsets
-- without looking at the row's natts or NULL bitmap (docs/row-floor.md,
-- reader K).  A compress row may keep such columns past the free prefix
-- in its tail; slimheap's slot must then read them itself.  Leading NOT
-- NULL columns past the 8th, NOT NULL columns in the middle and a NOT
-- NULL timestamp last, against a heap twin: each column alone, tail
-- columns before leading ones, whole rows, and the values carried into a
-- sort, a CTE and a table of their own.  On every version; the point is 19.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

CREATE SCHEMA cz_not_null;
SET search_path = cz_not_null, public;

-- id and l1 .. l14 NOT NULL (15 leading by-value columns), then m1 .. m40
-- nullable but for m20 (int8) and m21 (int2), then ts NOT NULL
SELECT format('CREATE TABLE %I (id int NOT NULL, %s, %s, ts timestamptz NOT NULL) USING %s%s',
			  t,
			  (SELECT string_agg(format('l%s int4 NOT NULL', i), ', ' ORDER BY i)
				 FROM generate_series(1, 14) i),
			  (SELECT string_agg(format('m%s %s', i,
						CASE i WHEN 20 THEN 'int8 NOT NULL' WHEN 21 THEN 'int2 NOT NULL'
							 ELSE 'int4' END), ', ' ORDER BY i)
				 FROM generate_series(1, 40) i),
			  am, opt)
FROM (VALUES ('nn_h', 'heap', ''),
			 ('nn_c', 'slimheap', ' WITH (slimheap.null_bitmap = compress)')) v(t, am, opt)
ORDER BY t \gexec

INSERT INTO nn_h
SELECT g, g + 1, -g, g * 3, g % 7, g + 5, g * 11, -g * 13, g + 8, g * 17, g % 3,
	   g + 11, -g, g * 19, g + 14,
	   CASE WHEN g % 5 = 0 THEN g END, NULL, NULL, CASE WHEN g % 3 = 0 THEN -g END,
	   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	   g::int8 * 1000003, (g % 30000)::int2,
	   NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	   NULL, NULL, CASE WHEN g % 4 = 1 THEN g END, NULL,
	   timestamptz '2026-01-01 00:00+00' + g * interval '1 minute'
FROM generate_series(1, 3000) g;
INSERT INTO nn_c SELECT * FROM nn_h;

-- rows whose tails hold NOT NULL columns (a prefix of fewer than the 56
-- attributes, so m20, m21 and ts at least are in the tail)
SELECT count(*) FILTER (WHERE (p.t_infomask2 & 2048) <> 0) AS tail_rows,
	   count(*) FILTER (WHERE (p.t_infomask2 & 2048) <> 0 AND (p.t_infomask2 & 2047) < 15)
		 AS tails_before_l14,
	   count(*) AS rows
FROM generate_series(0::bigint, pg_relation_size('nn_c') / 8192 - 1) b,
	 LATERAL heap_page_items(get_raw_page('nn_c', b::int)) p
WHERE p.lp_flags = 1;

-- rows one twin returns for query q (@T: the table) and the other not
CREATE FUNCTION differ(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM ((%1$s EXCEPT ALL %2$s) UNION ALL (%2$s EXCEPT ALL %1$s)) d',
				   replace(q, '@T', 'nn_h'), replace(q, '@T', 'nn_c')) INTO n;
	RETURN n;
END $$;

SELECT differ('SELECT l14 FROM @T') AS l14, differ('SELECT l9, l12 FROM @T') AS l9_l12,
	   differ('SELECT m20, m21 FROM @T') AS m20_m21, differ('SELECT ts FROM @T') AS ts,
	   differ('SELECT ts, m21, l14, l1, id FROM @T') AS tail_first,
	   differ('SELECT x::text FROM @T x') AS whole_rows;
SELECT differ('SELECT id, l14, m20, ts FROM @T WHERE m38 IS NOT NULL OR l13 % 2 = 0') AS filtered,
	   differ('SELECT sum(l14), sum(m20), max(ts) FROM @T') AS sums;

-- where the values go: a sort, a CTE, a table with a default of its own
SELECT differ('SELECT * FROM (SELECT id, l14, m21, ts FROM @T ORDER BY ts DESC, id LIMIT 500) s')
	AS sorted,
	   differ('SELECT * FROM (WITH c AS MATERIALIZED (SELECT id, l10, m20, ts FROM @T) SELECT * FROM c) s') AS cte;
CREATE TABLE sink (id int, l14 int, m20 int8, ts timestamptz);
ALTER TABLE sink ADD COLUMN z int DEFAULT 1;
INSERT INTO sink (id, l14, m20, ts) SELECT id, l14, m20, ts FROM nn_c;
SELECT count(*) AS sink_differ
FROM ((SELECT id, l14, m20, ts FROM sink EXCEPT ALL SELECT id, l14, m20, ts FROM nn_h)
	  UNION ALL (SELECT id, l14, m20, ts FROM nn_h EXCEPT ALL SELECT id, l14, m20, ts FROM sink)) d;

-- an UPDATE of a tail column keeps the NOT NULL ones
UPDATE nn_h SET m39 = id WHERE id % 6 = 0;
UPDATE nn_c SET m39 = id WHERE id % 6 = 0;
SELECT differ('SELECT x::text FROM @T x') AS after_update;

DROP SCHEMA cz_not_null CASCADE;
