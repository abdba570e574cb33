--
-- slimheap.null_bitmap = compress (docs/format.md): rows whose NULLs are
-- not trailing are stored as a standard prefix and a compressed tail.
-- Every statement runs on a heap table (*_h) and on its compress twin
-- (*_s), and every query compares the two: the same multiset of rows, or
-- the same rows in the same order.  The twins are W4-shaped (200 nullable
-- columns of mixed int4 / float8 / bool / text, a few set at scattered
-- positions) and W5-shaped (three contiguous groups of set columns).
--
-- "has_tails" lines show that the compress twin really stores tail rows
-- (t_infomask2 & 0x0800); without them the comparisons would prove
-- nothing about the tail.  The file uses none of 00_setup's helpers, and
-- also passes with jit_above_cost = 0 (run-tests.sh reruns every sql/
-- file so; the last section forces JIT here as well).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

CREATE SCHEMA cz_twin;
SET search_path = cz_twin, public;

-- both(stmt, base): run stmt with @T standing for base_h, then for base_s
CREATE FUNCTION both_(stmt text, base text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE replace(stmt, '@T', base || '_h');
	EXECUTE replace(stmt, '@T', base || '_s');
END
$$;

-- gen_both(stmt, base): both_ for the statements that generate rows from
-- expressions over hundreds of columns: compiling those for JIT would
-- take most of this file's time in the JIT run, and what is checked here
-- (the rows' forms, and every read) does not depend on how the values
-- were computed
CREATE FUNCTION gen_both(stmt text, base text) RETURNS void
LANGUAGE sql SET jit = off AS $$
	SELECT both_(stmt, base)
$$;

-- same(q, base): q (with @T) returns the same multiset of rows on both
-- twins: "n rows, identical", or the rows only one side returned
CREATE FUNCTION same(q text, base text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	ndiff bigint := 0;
BEGIN
	FOR r IN EXECUTE format(
		'WITH a AS MATERIALIZED (SELECT x::text AS r FROM (%1$s) x),'
		' b AS MATERIALIZED (SELECT x::text AS r FROM (%2$s) x)'
		' SELECT 1 AS o, ''only in heap: '' || r AS line FROM (TABLE a EXCEPT ALL TABLE b) d'
		' UNION ALL'
		' SELECT 2, ''only in compress: '' || r FROM (TABLE b EXCEPT ALL TABLE a) d'
		' UNION ALL'
		' SELECT 3, (SELECT count(*) FROM b) || '' rows, identical'''
		' ORDER BY o, line',
		replace(q, '@T', base || '_h'), replace(q, '@T', base || '_s'))
	LOOP
		IF r.o < 3 THEN
			ndiff := ndiff + 1;
			IF ndiff <= 10 THEN
				RETURN NEXT left(r.line, 300);
			END IF;
		ELSIF ndiff > 10 THEN
			RETURN NEXT format('... and %s more rows that differ', ndiff - 10);
		ELSIF ndiff = 0 THEN
			RETURN NEXT r.line;
		END IF;
	END LOOP;
END
$$;

-- ordered(q, base): q returns the same rows in the same order on both
CREATE FUNCTION ordered(q text, base text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	ndiff bigint;
BEGIN
	EXECUTE format(
		'WITH a AS MATERIALIZED (SELECT row_number() OVER () AS n, x::text AS r FROM (%1$s) x),'
		' b AS MATERIALIZED (SELECT row_number() OVER () AS n, x::text AS r FROM (%2$s) x)'
		' SELECT (SELECT count(*) FROM b),'
		' count(*) FILTER (WHERE a.r IS DISTINCT FROM b.r)'
		' FROM a FULL JOIN b ON a.n = b.n',
		replace(q, '@T', base || '_h'), replace(q, '@T', base || '_s'))
	INTO n, ndiff;
	RETURN n || ' rows, ' ||
		CASE WHEN ndiff = 0 THEN 'same order' ELSE ndiff || ' rows differ' END;
END
$$;

-- tails(rel): the visible rows of rel, and whether any of them is stored
-- with a compressed tail (pageinspect: t_infomask2 & 0x0800)
CREATE FUNCTION tails(rel regclass, OUT rows bigint, OUT has_tails bool)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format(
		'SELECT count(*), coalesce(bool_or((p.t_infomask2 & 2048) <> 0), false)'
		' FROM %1$s t JOIN (SELECT format(''(%%s,%%s)'', b, i.lp)::tid AS tid, i.t_infomask2'
		'   FROM generate_series(0::bigint, pg_relation_size(%2$L) / 8192 - 1) b,'
		'   LATERAL heap_page_items(get_raw_page(%2$L, b)) i WHERE i.lp_flags = 1) p'
		' ON p.tid = t.ctid', rel, rel::text)
	INTO rows, has_tails;
END
$$;

-- encodings(rel): the encodings of the NULL maps of rel's tail rows (the
-- low two bits of the tail header, as slimheap.page_items() reads them):
-- 1 RUNS, 2 GAPS, 3 BITMAP
CREATE FUNCTION encodings(rel regclass) RETURNS int[] LANGUAGE sql AS $$
	SELECT array_agg(DISTINCT e ORDER BY e)
	FROM generate_series(0::bigint, pg_relation_size(rel) / 8192 - 1) b,
		 LATERAL slimheap.page_items(rel, b) i,
		 LATERAL (SELECT CASE i.tail_encoding WHEN 'runs' THEN 1
					 WHEN 'gaps' THEN 2 WHEN 'bitmap' THEN 3 END) x(e)
	WHERE i.lp_flags = 'normal' AND i.tail_encoding IS NOT NULL
$$;

-- The columns: c<i> is int4, float8, bool or text by i % 4, and the value
-- row g gets in column i (an SQL expression over g).
CREATE FUNCTION coltype(i int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT (ARRAY['int4', 'float8', 'bool', 'text'])[i % 4 + 1]
$$;
CREATE FUNCTION val(i int, g text) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT CASE i % 4
		WHEN 0 THEN format('(%s * 1000 + %s)', g, i)
		WHEN 1 THEN format('((%s + %s / 8.0)::float8)', g, i)
		WHEN 2 THEN format('((%s + %s) %% 3 = 0)', g, i)
		ELSE format('(''t'' || %s || ''_%s'')', g, i) END
$$;
CREATE FUNCTION coldefs(ncols int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT string_agg(format('c%s %s', i, coltype(i)), ', ' ORDER BY i)
	FROM generate_series(1, ncols) i
$$;

-- twins(base, ncols, extra): base_h USING heap and base_s USING slimheap
-- in compress mode (plus the storage options in extra), id the primary key
CREATE FUNCTION twins(base text, ncols int, extra text DEFAULT '') RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING heap WITH (fillfactor = 60)',
				   base || '_h', coldefs(ncols));
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING slimheap'
				   ' WITH (fillfactor = 60, slimheap.null_bitmap = compress%s)',
				   base || '_s', coldefs(ncols), extra);
END
$$;

-- W4: 200 columns; by g % 25 a dense row, an all-NULL row, a row of 30
-- leading values (trailing NULLs only), a row with only c200, a row of
-- every other column up to a point (its NULL map is smallest as a bitmap),
-- and otherwise about five values at positions scattered by g
CREATE FUNCTION w4_select(lo int, hi int) RETURNS text LANGUAGE sql AS $$
	SELECT 'SELECT g AS id, ' || string_agg(format(
		'CASE WHEN g %% 25 = 0 OR (g %% 25 = 2 AND %1$s <= 30)'
		' OR (g %% 25 = 3 AND %1$s = 200)'
		' OR (g %% 25 = 4 AND %1$s %% 2 = g %% 2 AND %1$s <= 66 + g %% 100)'
		' OR (g %% 25 > 4 AND (g * 7 + %1$s * 13) %% 37 = 0) THEN %2$s END AS c%1$s',
		i, val(i, 'g')), ', ' ORDER BY i)
		|| format(' FROM generate_series(%s, %s) g', lo, hi)
	FROM generate_series(1, 200) i
$$;

-- W5: 200 columns, three runs of 10 to 20 set columns placed by g
CREATE FUNCTION w5_select(lo int, hi int) RETURNS text LANGUAGE sql AS $$
	SELECT 'SELECT g AS id, ' || string_agg(format(
		'CASE WHEN %1$s BETWEEN (g * 17) %% 40 + 1 AND (g * 17) %% 40 + 10 + g %% 11'
		' OR %1$s BETWEEN 60 + (g * 29) %% 40 AND 69 + (g * 29) %% 40 + (g * 3) %% 11'
		' OR %1$s BETWEEN 130 + (g * 11) %% 50 AND 139 + (g * 11) %% 50 + (g * 7) %% 11'
		' THEN %2$s END AS c%1$s',
		i, val(i, 'g')), ', ' ORDER BY i)
		|| format(' FROM generate_series(%s, %s) g', lo, hi)
	FROM generate_series(1, 200) i
$$;

--
-- Loading: INSERT ... SELECT of generated rows, single-row INSERTs, and
-- INSERT ... SELECT from the heap twin (rows already formed by heap).
--
SELECT twins('w4', 200);
SELECT twins('w5', 200);
SELECT gen_both('INSERT INTO @T ' || w4_select(1, 400), 'w4');
SELECT gen_both('INSERT INTO @T ' || w5_select(1, 300), 'w5');
-- more rows of both shapes, in heap tables, for the statements below
SELECT gen_both('CREATE TABLE @T AS ' || w4_select(1, 460) || ' UNION ALL ' || w4_select(2001, 2050), 'src4');
SELECT gen_both('CREATE TABLE @T AS ' || w5_select(1, 340), 'src5');
SELECT both_('INSERT INTO @T (id, c7, c101, c199) VALUES (1001, 1.5, 101, ''single'')', 'w4');
SELECT both_('INSERT INTO @T (id, c150) VALUES (1002, true), (1003, NULL)', 'w4');
SELECT twins('w4copy', 200);
INSERT INTO w4copy_h SELECT * FROM w4_h;
INSERT INTO w4copy_s SELECT * FROM w4_h;
SELECT * FROM tails('w4_s');
SELECT * FROM tails('w5_s');
SELECT * FROM tails('w4copy_s');
SELECT encodings('w4_s') AS w4_encodings, encodings('w5_s') AS w5_encodings;
SELECT * FROM tails('w4_h');
SELECT same('SELECT * FROM @T', 'w4');
SELECT same('SELECT * FROM @T', 'w5');
SELECT same('SELECT * FROM @T', 'w4copy');

--
-- Reads: partial deforms (leading columns only, which must not need the
-- tail), single tail columns, aggregates over every column, index scans.
--
SELECT same('SELECT id, c1, c2, c3 FROM @T', 'w4');
SELECT same('SELECT id, c200 FROM @T', 'w4');
SELECT same('SELECT c199, c1, c100 FROM @T WHERE c150 IS NOT NULL', 'w4');
SELECT same('SELECT count(c200), count(c101), sum(c100), max(c199), bool_or(c198), sum(c197) FROM @T', 'w4');
SELECT same('SELECT count(c200), count(c139), sum(c140), max(c143), sum(c141) FROM @T', 'w5');
SELECT same('SELECT id, num_nulls(VARIADIC ARRAY[c3, c7, c11, c15, c19, c103, c199]) FROM @T', 'w4');
SELECT same('SELECT id, row_to_json(t)::text FROM @T t', 'w5');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT ordered('SELECT * FROM @T WHERE id BETWEEN 100 AND 160 ORDER BY id', 'w4');
SELECT ordered('SELECT id, c150, c200 FROM @T WHERE id > 250 ORDER BY id DESC', 'w5');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT same('SELECT * FROM @T WHERE ctid = ANY (ARRAY(SELECT ctid FROM @T WHERE id % 17 = 0))', 'w4');

--
-- COPY FROM and COPY TO on a 40-column compress twin: every line must be
-- the same (insertion order, no updates: both scan in that order).
--
SELECT twins('nw', 40);
COPY nw_h FROM stdin;
1	1.125	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	2020	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	t2_35	\N	\N	\N	\N	\N
3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	3040
4	\N	\N	t4_3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	t	\N	\N
5	5.125	f	t5_3	5004	5.625	f	t5_7	5008	6.125	t	t5_11	5012	6.625	f	t5_15	5016	7.125	f	t5_19	5020	7.625	t	t5_23	5024	8.125	f	t5_27	5028	8.625	f	t5_31	5032	9.125	t	t5_35	5036	9.625	f	t5_39	5040
6	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
7	\N	\N	\N	7004	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	7040
8	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
\.
COPY nw_s FROM stdin;
1	1.125	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	2020	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	t2_35	\N	\N	\N	\N	\N
3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	3040
4	\N	\N	t4_3	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	t	\N	\N
5	5.125	f	t5_3	5004	5.625	f	t5_7	5008	6.125	t	t5_11	5012	6.625	f	t5_15	5016	7.125	f	t5_19	5020	7.625	t	t5_23	5024	8.125	f	t5_27	5028	8.625	f	t5_31	5032	9.125	t	t5_35	5036	9.625	f	t5_39	5040
6	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
7	\N	\N	\N	7004	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	7040
8	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N
\.
-- and rows from generated W4-shaped values over 40 columns
SELECT both_('INSERT INTO @T SELECT g, ' ||
	(SELECT string_agg(format('CASE WHEN (g * 5 + %s * 3) %% 23 = 0 THEN %s END', i, val(i, 'g')),
					   ', ' ORDER BY i) FROM generate_series(1, 40) i) ||
	' FROM generate_series(10, 24) g', 'nw');
SELECT * FROM tails('nw_s');
SELECT same('SELECT * FROM @T', 'nw');
COPY nw_h TO stdout;
COPY nw_s TO stdout;
COPY nw_h (c40, id, c20, c35) TO stdout WITH (FORMAT csv);
COPY nw_s (c40, id, c20, c35) TO stdout WITH (FORMAT csv);
COPY (SELECT * FROM nw_s WHERE id IN (2, 4, 7) ORDER BY id) TO stdout;

--
-- UPDATE.  In one transaction the twins must count the same HOT updates
-- (fillfactor 60, only id is indexed: every update below is HOT).
--
BEGIN;
-- a NULL tail column gets a value, of each type
SELECT both_('UPDATE @T SET c148 = -id WHERE id % 20 = 4', 'w4');
SELECT both_('UPDATE @T SET c149 = id / 3.0, c151 = ''upd'' || id WHERE id % 20 = 5', 'w4');
-- a tail value becomes NULL; a tail value changes
SELECT both_('UPDATE @T SET c200 = NULL, c199 = NULL WHERE id % 20 IN (3, 6)', 'w4');
SELECT both_('UPDATE @T SET c98 = NOT coalesce(c98, false) WHERE id % 20 = 7', 'w4');
-- the same rows again (update chains)
SELECT both_('UPDATE @T SET c148 = c148 * 2, c2 = NULL WHERE id % 20 = 4', 'w4');
SELECT both_('UPDATE @T SET c145 = NULL, c146 = c146 WHERE id % 4 = 0', 'w5');
SELECT pg_stat_get_xact_tuples_updated('w4_h'::regclass) AS heap_updated,
	   pg_stat_get_xact_tuples_updated('w4_s'::regclass) AS compress_updated,
	   pg_stat_get_xact_tuples_hot_updated('w4_h'::regclass) AS heap_hot,
	   pg_stat_get_xact_tuples_hot_updated('w4_s'::regclass) AS compress_hot,
	   pg_stat_get_xact_tuples_hot_updated('w5_h'::regclass) AS w5_heap_hot,
	   pg_stat_get_xact_tuples_hot_updated('w5_s'::regclass) AS w5_compress_hot;
COMMIT;
SELECT same('SELECT * FROM @T', 'w4');
SELECT same('SELECT * FROM @T', 'w5');

-- rows move out of the tail form: a dense row (every column set), a row
-- of leading values only, an all-NULL row; and into it: a dense row
-- keeps two scattered values only
SELECT both_('UPDATE @T t SET ' ||
	(SELECT string_agg(format('c%s = d.c%s', i, i), ', ') FROM generate_series(1, 200) i) ||
	' FROM @T d WHERE d.id = 25 AND t.id % 25 = 13', 'w4');
SELECT both_('UPDATE @T SET ' ||
	(SELECT string_agg(format('c%s = NULL', i), ', ') FROM generate_series(31, 200) i) ||
	', c1 = 1, c27 = ''x'' WHERE id % 25 = 14', 'w4');
SELECT both_('UPDATE @T SET ' ||
	(SELECT string_agg(format('c%s = NULL', i), ', ') FROM generate_series(1, 200) i) ||
	' WHERE id % 25 = 15', 'w4');
SELECT both_('UPDATE @T SET ' ||
	(SELECT string_agg(format('c%s = NULL', i), ', ') FROM generate_series(1, 200) i
	 WHERE i NOT IN (66, 177)) ||
	' WHERE id % 25 = 0', 'w4');
-- a key update (not HOT), and a row that becomes one value at the end
SELECT both_('UPDATE @T SET id = id + 5000, c3 = NULL WHERE id % 25 = 16', 'w4');
SELECT both_('UPDATE @T SET c131 = NULL, c200 = 200 WHERE id % 50 = 17', 'w5');
SELECT same('SELECT * FROM @T', 'w4');
SELECT same('SELECT * FROM @T', 'w5');
SELECT * FROM tails('w4_s');
SELECT same('SELECT id, (c66, c177)::text FROM @T WHERE id % 25 = 0', 'w4');

-- DELETE by predicates on tail columns
SELECT both_('DELETE FROM @T WHERE c103 IS NOT NULL AND id % 2 = 0', 'w4');
SELECT both_('DELETE FROM @T WHERE c188 > 0', 'w5');
SELECT same('SELECT * FROM @T', 'w4');
SELECT same('SELECT * FROM @T', 'w5');

--
-- A table whose first 50 columns stay in the prefix
-- (slimheap.prefix_columns): updates move values between the prefix and
-- the tail.
--
SELECT twins('wp', 200, ', slimheap.prefix_columns = 50');
SELECT both_('INSERT INTO @T SELECT * FROM src4_h WHERE id <= 200', 'wp');
SELECT both_('UPDATE @T SET c10 = NULL, c20 = NULL, c120 = id WHERE id % 3 = 0', 'wp');
SELECT both_('UPDATE @T SET c120 = NULL, c160 = NULL, c12 = -id WHERE id % 3 = 1', 'wp');
SELECT same('SELECT * FROM @T', 'wp');
SELECT * FROM tails('wp_s');

--
-- Rows at the TOAST threshold: one text value of 1900 to 2060 bytes in a
-- sparse row of 100 columns, compressible and not (heap's full form
-- crosses TOAST_TUPLE_THRESHOLD in this band); then updates of other
-- columns and of the value.
--
SELECT twins('tt', 100);
SELECT both_('INSERT INTO @T (id, c8, c39, c64, c98)
	SELECT l, l, repeat(''x'', l), l * 1000, l % 2 = 0 FROM generate_series(1900, 2060, 3) l', 'tt');
SELECT both_('INSERT INTO @T (id, c4, c39, c98)
	SELECT 10000 + l, l, left((SELECT string_agg(md5(l::text || ''/'' || i), '''')
							   FROM generate_series(1, 70) i), l), true
	FROM generate_series(1900, 2060, 3) l', 'tt');
SELECT * FROM tails('tt_s');
SELECT same('SELECT id, length(c39), md5(c39), c8, c4, c64, c98 FROM @T', 'tt');
SELECT same('SELECT * FROM @T', 'tt');
SELECT both_('UPDATE @T SET c80 = id WHERE id % 2 = 0', 'tt');
SELECT both_('UPDATE @T SET c39 = c39 || ''yz'' WHERE id % 3 = 0', 'tt');
SELECT both_('UPDATE @T SET c39 = left(c39, 1000) WHERE id % 5 = 0', 'tt');
SELECT same('SELECT * FROM @T', 'tt');
SELECT same('SELECT id, pg_column_size(c39) FROM @T', 'tt');

--
-- Fast defaults: columns added with a DEFAULT after tail rows exist (the
-- old rows must read the default past their tail), then more rows; a
-- column added without one; a dropped tail column.
--
SELECT both_('ALTER TABLE @T ADD COLUMN f1 int DEFAULT 7, ADD COLUMN f2 text', 'w5');
SELECT both_('INSERT INTO @T SELECT * FROM src5_h WHERE id > 300 ORDER BY id', 'w5');
SELECT both_('ALTER TABLE @T ADD COLUMN f3 text DEFAULT ''three''', 'w5');
SELECT both_('INSERT INTO @T (id, c3, c171, f2) VALUES (9001, ''3'', ''a'', ''b''), (9002, NULL, NULL, NULL)', 'w5');
SELECT both_('INSERT INTO @T (id, c3, c171, f1, f3) VALUES (9003, ''3'', ''a'', NULL, NULL)', 'w5');
SELECT both_('UPDATE @T SET c160 = NULL, f1 = f1 + 1 WHERE id % 7 = 0', 'w5');
SELECT same('SELECT * FROM @T', 'w5');
SELECT same('SELECT id, f1, f2, f3 FROM @T', 'w5');
SELECT same('SELECT f1, f3, count(*) FROM @T GROUP BY 1, 2', 'w5');
-- rows stored before the fast defaults, copied into compress tables of the
-- same columns (no defaults there): a standard row is transcoded from its
-- bytes, and must take the source's defaults along, not NULLs
CREATE TABLE w5x_h (LIKE w5_h) USING heap;
CREATE TABLE w5x_s (LIKE w5_h) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO w5x_h SELECT * FROM w5_h;
INSERT INTO w5x_s SELECT * FROM w5_h;
SELECT same('SELECT * FROM @T', 'w5x');
TRUNCATE w5x_s;
INSERT INTO w5x_s SELECT * FROM w5_s;
SELECT same('SELECT * FROM @T', 'w5x');
SELECT * FROM tails('w5x_s');
SELECT f1, f3, count(*) FROM w5x_s GROUP BY 1, 2 ORDER BY 1, 2;
DROP TABLE w5x_h, w5x_s;
SELECT both_('ALTER TABLE @T DROP COLUMN c150, DROP COLUMN c12', 'w4');
SELECT both_('ALTER TABLE @T DROP COLUMN c150, DROP COLUMN c12', 'src4');
SELECT both_('INSERT INTO @T SELECT * FROM src4_h WHERE id > 2000', 'w4');
SELECT same('SELECT * FROM @T', 'w4');

--
-- Unlogged and temporary compress tables (temporary ones live in local
-- buffers), loaded with INSERT ... SELECT and updated
--
CREATE UNLOGGED TABLE ul_h (LIKE w4_h) USING heap;
CREATE UNLOGGED TABLE ul_s (LIKE w4_h) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE TEMP TABLE tp_h (LIKE w4_h) USING heap;
CREATE TEMP TABLE tp_s (LIKE w4_h) USING slimheap WITH (slimheap.null_bitmap = compress);
SELECT both_('INSERT INTO @T SELECT * FROM w4_h', 'ul');
SELECT both_('INSERT INTO @T SELECT * FROM w4_s', 'tp');
SELECT both_('UPDATE @T SET c103 = NULL, c199 = ''u'' WHERE id % 5 = 1', 'ul');
SELECT both_('UPDATE @T SET c103 = NULL, c199 = ''u'' WHERE id % 5 = 1', 'tp');
SELECT same('SELECT * FROM @T', 'ul');
SELECT same('SELECT * FROM @T', 'tp');
SELECT (SELECT has_tails FROM tails('ul_s')) AS unlogged_tails,
	   (SELECT has_tails FROM tails('tp_s')) AS temp_tails;
DROP TABLE ul_h, ul_s, tp_h, tp_s;

--
-- Partitions: compress partitions under a partitioned table (one of them
-- with its columns in reverse order, so rows are converted on the way in
-- and out), routed INSERTs, UPDATEs that move rows between partitions,
-- DELETE.
--
CREATE FUNCTION pt_cols(reverse bool) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(format('c%s %s', i, coltype(i)), ', '
					  ORDER BY CASE WHEN reverse THEN -i ELSE i END)
	FROM generate_series(1, 100) i
$$;
DO $$
BEGIN
	EXECUTE format('CREATE TABLE pt_h (id int, k int, %s) PARTITION BY RANGE (k)', pt_cols(false));
	EXECUTE format('CREATE TABLE pt_s (id int, k int, %s) PARTITION BY RANGE (k)', pt_cols(false));
	EXECUTE 'CREATE TABLE pt_h1 PARTITION OF pt_h FOR VALUES FROM (0) TO (50) USING heap';
	EXECUTE 'CREATE TABLE pt_s1 PARTITION OF pt_s FOR VALUES FROM (0) TO (50)'
		' USING slimheap WITH (slimheap.null_bitmap = compress)';
	EXECUTE format('CREATE TABLE pt_h2 (%s, k int, id int) USING heap', pt_cols(true));
	EXECUTE format('CREATE TABLE pt_s2 (%s, k int, id int) USING slimheap'
				   ' WITH (slimheap.null_bitmap = compress)', pt_cols(true));
	EXECUTE 'ALTER TABLE pt_h ATTACH PARTITION pt_h2 FOR VALUES FROM (50) TO (100)';
	EXECUTE 'ALTER TABLE pt_s ATTACH PARTITION pt_s2 FOR VALUES FROM (50) TO (100)';
END
$$;
SELECT gen_both('INSERT INTO @T SELECT g, g % 100, ' ||
	(SELECT string_agg(format('CASE WHEN (g * 7 + %s * 13) %% 29 = 0 OR %1$s = 100 THEN %s END', i, val(i, 'g')),
					   ', ' ORDER BY i) FROM generate_series(1, 100) i) ||
	' FROM generate_series(1, 300) g', 'pt');
SELECT * FROM tails('pt_s1');
SELECT * FROM tails('pt_s2');
SELECT both_('UPDATE @T SET k = k + 50, c39 = ''moved'' WHERE k < 50 AND id % 3 = 0', 'pt');
SELECT both_('UPDATE @T SET k = k - 50, c100 = NULL, c2 = true WHERE k >= 50 AND id % 4 = 0', 'pt');
SELECT both_('DELETE FROM @T WHERE c41 IS NOT NULL', 'pt');
SELECT same('SELECT tableoid::regclass::text LIKE ''%1'', * FROM @T', 'pt');
SELECT same('SELECT * FROM @T WHERE k BETWEEN 40 AND 60', 'pt');
SELECT * FROM tails('pt_s2');

--
-- Triggers: BEFORE ROW (reads OLD and NEW, sets a tail column), AFTER ROW
-- (logs OLD and NEW), statement triggers with transition tables.  The log
-- is a heap table; the heap twin's entries must equal the compress twin's.
--
SELECT twins('tg', 200);
CREATE TABLE trig_log (side text, tg text, op text, old_row text, new_row text);
CREATE FUNCTION log_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO trig_log VALUES (right(TG_TABLE_NAME, 1), TG_NAME, TG_OP,
		CASE WHEN TG_OP <> 'INSERT' THEN OLD::text END,
		CASE WHEN TG_OP <> 'DELETE' THEN NEW::text END);
	IF TG_WHEN = 'BEFORE' AND TG_OP <> 'DELETE' THEN
		IF NEW.id % 3 = 0 THEN
			NEW.c187 := 'set by ' || TG_OP || ' ' || coalesce(OLD.c199, '-');
		END IF;
		IF NEW.id % 5 = 0 THEN
			NEW.c6 := NULL;
		END IF;
		RETURN NEW;
	END IF;
	RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END
$$;
CREATE FUNCTION log_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		INSERT INTO trig_log SELECT right(TG_TABLE_NAME, 1), TG_NAME, TG_OP, o::text, NULL FROM old_rows o;
	END IF;
	IF TG_OP IN ('UPDATE', 'INSERT') THEN
		INSERT INTO trig_log SELECT right(TG_TABLE_NAME, 1), TG_NAME, TG_OP, NULL, n::text FROM new_rows n;
	END IF;
	RETURN NULL;
END
$$;
SELECT both_('CREATE TRIGGER b_row BEFORE INSERT OR UPDATE OR DELETE ON @T FOR EACH ROW EXECUTE FUNCTION log_row()', 'tg');
SELECT both_('CREATE TRIGGER a_row AFTER INSERT OR UPDATE OR DELETE ON @T FOR EACH ROW EXECUTE FUNCTION log_row()', 'tg');
SELECT both_('CREATE TRIGGER a_ins AFTER INSERT ON @T REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION log_transition()', 'tg');
SELECT both_('CREATE TRIGGER a_upd AFTER UPDATE ON @T REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION log_transition()', 'tg');
SELECT both_('CREATE TRIGGER a_del AFTER DELETE ON @T REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION log_transition()', 'tg');
SELECT gen_both('INSERT INTO @T ' || w4_select(1, 100), 'tg');
SELECT both_('UPDATE @T SET c199 = ''u'' || id, c44 = NULL WHERE id % 4 = 1', 'tg');
SELECT both_('UPDATE @T SET c187 = NULL WHERE id % 6 = 0', 'tg');
SELECT both_('DELETE FROM @T WHERE id % 7 = 0', 'tg');
SELECT both_('INSERT INTO @T (id, c99, c199) VALUES (15, ''1.25'', ''x'') ON CONFLICT (id) DO UPDATE SET c100 = 100, c199 = EXCLUDED.c199', 'tg');
SELECT * FROM tails('tg_s');
SELECT tg, op, count(*) FILTER (WHERE side = 'h') AS heap_entries,
	   count(*) FILTER (WHERE side = 's') AS compress_entries
FROM trig_log GROUP BY tg, op ORDER BY tg, op;
SELECT count(*) AS log_entries_that_differ
FROM ((SELECT tg, op, old_row, new_row FROM trig_log WHERE side = 'h'
	   EXCEPT ALL SELECT tg, op, old_row, new_row FROM trig_log WHERE side = 's')
	  UNION ALL
	  (SELECT tg, op, old_row, new_row FROM trig_log WHERE side = 's'
	   EXCEPT ALL SELECT tg, op, old_row, new_row FROM trig_log WHERE side = 'h')) d;
SELECT same('SELECT * FROM @T', 'tg');

--
-- ON CONFLICT and MERGE: existing tail rows are read by the conflict
-- check, the DO UPDATE's WHERE and SET, and MERGE's conditions.
--
SELECT both_('INSERT INTO @T SELECT * FROM src4_h WHERE id BETWEEN 380 AND 420' ||
	' ON CONFLICT (id) DO UPDATE SET c3 = EXCLUDED.c3, c177 = EXCLUDED.c177,'
	' c77 = coalesce(@T.c77, EXCLUDED.c77) WHERE @T.c199 IS NULL OR EXCLUDED.c198 IS NOT NULL', 'w4');
SELECT both_('INSERT INTO @T SELECT * FROM src4_h WHERE id BETWEEN 330 AND 440 ON CONFLICT DO NOTHING', 'w4');
SELECT both_('MERGE INTO @T t USING (SELECT id FROM src4_h WHERE id BETWEEN 300 AND 460) AS s ON t.id = s.id
	WHEN MATCHED AND t.c111 IS NOT NULL THEN UPDATE SET c111 = NULL, c112 = 0
	WHEN MATCHED AND t.id % 2 = 0 THEN DELETE
	WHEN NOT MATCHED THEN INSERT (id, c192) VALUES (s.id, s.id)', 'w4');
SELECT same('SELECT * FROM @T', 'w4');

--
-- Where rows go (invariant E1): every copy the executor makes of a
-- compress row is in heap's full form.  copy_out(stmt, am, defaults)
-- runs stmt (%1$I the target, %2$I the source) from w4_h into into_h and
-- from w4_s into into_s; with defaults, every column after c1 of the
-- targets was added with a fast default, so a copied row that kept fewer
-- attributes than it has would read the target's defaults.
--
CREATE FUNCTION copy_out(stmt text, am text, defaults bool DEFAULT true) RETURNS text
LANGUAGE plpgsql SET client_min_messages = warning AS $$
DECLARE
	pair text[];
	ndiff bigint;
	n bigint;
	cols text;
BEGIN
	-- w4's columns (c12 and c150 were dropped above)
	SELECT string_agg(format('%I %s', attname, format_type(atttypid, atttypmod)), ', ' ORDER BY attnum)
	INTO cols FROM pg_attribute
	WHERE attrelid = 'w4_h'::regclass AND attnum > 2 AND NOT attisdropped;
	FOREACH pair SLICE 1 IN ARRAY ARRAY[ARRAY['w4_h', 'into_h'], ARRAY['w4_s', 'into_s']] LOOP
		EXECUTE format('DROP TABLE IF EXISTS %I', pair[2]);
		IF defaults THEN
			EXECUTE format('CREATE TABLE %I (id int, c1 float8) USING %s', pair[2], am);
			EXECUTE format('INSERT INTO %I VALUES (0, 0)', pair[2]);
			EXECUTE format('ALTER TABLE %I %s', pair[2],
				(SELECT string_agg(format('ADD COLUMN %I %s DEFAULT %s', attname,
										  format_type(atttypid, atttypmod),
										  CASE atttypid WHEN 'int4'::regtype THEN '-1'
										  WHEN 'float8'::regtype THEN '-0.5'
										  WHEN 'bool'::regtype THEN 'true'
										  ELSE '''dflt''' END), ', ' ORDER BY attnum)
				 FROM pg_attribute WHERE attrelid = 'w4_h'::regclass AND attnum > 2
				 AND NOT attisdropped));
		ELSE
			EXECUTE format('CREATE TABLE %I (id int, c1 float8, %s) USING %s', pair[2], cols, am);
		END IF;
		EXECUTE format(stmt, pair[2], pair[1]);
	END LOOP;
	SELECT count(*) INTO ndiff
	FROM ((SELECT * FROM into_h EXCEPT ALL SELECT * FROM into_s)
		  UNION ALL
		  (SELECT * FROM into_s EXCEPT ALL SELECT * FROM into_h)) x;
	SELECT count(*) INTO n FROM into_s;
	RETURN n || ' rows, ' ||
		CASE WHEN ndiff = 0 THEN 'identical' ELSE ndiff || ' rows differ' END;
END
$$;

SELECT am, copy_out('INSERT INTO %1$I SELECT * FROM %2$I', am) AS plain,
	   copy_out('INSERT INTO %1$I SELECT * FROM %2$I ORDER BY c3 DESC NULLS FIRST, id', am) AS sort,
	   copy_out('INSERT INTO %1$I WITH c AS MATERIALIZED (SELECT * FROM %2$I) SELECT * FROM c', am) AS cte,
	   copy_out('INSERT INTO %1$I SELECT (w.r).* FROM (SELECT s AS r, row_number() OVER (PARTITION BY s.c4 ORDER BY s.id) AS n FROM %2$I s) w', am) AS window_,
	   copy_out('INSERT INTO %1$I SELECT * FROM %2$I UNION SELECT * FROM %2$I', am) AS union_,
	   copy_out('INSERT INTO %1$I SELECT * FROM %2$I LIMIT 1000', am) AS limit_
FROM unnest(ARRAY['heap', 'slimheap WITH (slimheap.null_bitmap = compress)']) am;
-- hash aggregation and hash join
SET enable_sort = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT am, copy_out('INSERT INTO %1$I SELECT DISTINCT * FROM %2$I', am) AS hash_agg,
	   copy_out('INSERT INTO %1$I SELECT s.* FROM %2$I s JOIN generate_series(1, 6000) g ON g = s.id', am) AS hash_join
FROM unnest(ARRAY['heap', 'slimheap WITH (slimheap.null_bitmap = compress)']) am;
SELECT same('SELECT * FROM @T', 'into');
RESET enable_sort;
RESET enable_mergejoin;
RESET enable_nestloop;
-- RETURNING (the source is updated with no change, and deleted from)
SELECT am, copy_out('WITH d AS (UPDATE %2$I SET c7 = c7 WHERE id %% 3 = 0 RETURNING *) INSERT INTO %1$I SELECT * FROM d', am) AS update_returning,
	   copy_out('WITH d AS (DELETE FROM %2$I WHERE id %% 31 = 0 RETURNING *) INSERT INTO %1$I SELECT * FROM d', am) AS delete_returning
FROM unnest(ARRAY['heap', 'slimheap WITH (slimheap.null_bitmap = compress)']) am;
-- compress into compress without fast defaults: the rows keep tails
SELECT copy_out('INSERT INTO %1$I SELECT * FROM %2$I', 'slimheap WITH (slimheap.null_bitmap = compress)', false);
SELECT * FROM tails('into_s');
SELECT copy_out('INSERT INTO %1$I SELECT * FROM %2$I', 'slimheap WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 120)', false);
SELECT copy_out('INSERT INTO %1$I SELECT * FROM %2$I', 'heap', false);
SELECT same('SELECT * FROM @T', 'w4');

-- CREATE TABLE AS (serial, and with a parallel plan)
CREATE TABLE ctas_h USING heap AS SELECT * FROM w4_h;
CREATE TABLE ctas_s USING heap AS SELECT * FROM w4_s;
SELECT same('SELECT * FROM @T', 'ctas');
DROP TABLE ctas_h, ctas_s;
CREATE TABLE ctas_h USING slimheap AS SELECT * FROM w4_h;
CREATE TABLE ctas_s USING slimheap AS SELECT * FROM w4_s;
SELECT same('SELECT * FROM @T', 'ctas');
DROP TABLE ctas_h, ctas_s;
-- into compress: from heap's rows (transcoded) and from tail rows
CREATE TABLE ctas_h USING slimheap WITH (slimheap.null_bitmap = compress) AS SELECT * FROM w4_h;
CREATE TABLE ctas_s USING slimheap WITH (slimheap.null_bitmap = compress) AS SELECT * FROM w4_s;
SELECT same('SELECT * FROM @T', 'ctas');
SELECT * FROM tails('ctas_h');
SELECT same('SELECT * FROM w4_h EXCEPT ALL SELECT * FROM @T', 'ctas');
DROP TABLE ctas_h, ctas_s;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
CREATE TABLE ctas_h USING heap AS SELECT * FROM w4_h WHERE c5 IS NULL;
CREATE TABLE ctas_s USING heap AS SELECT * FROM w4_s WHERE c5 IS NULL;
SELECT same('SELECT * FROM @T', 'ctas');
SELECT same('SELECT c200, count(*), sum(c100) FROM @T GROUP BY c200', 'w4');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- reads that copy rows: sorts, hash aggregates, CTEs, windows, whole rows
SELECT ordered('SELECT * FROM @T ORDER BY c199 NULLS FIRST, c3, id', 'w4');
SELECT ordered('SELECT * FROM @T ORDER BY c150 DESC, id', 'w5');
SELECT same('WITH c AS MATERIALIZED (SELECT * FROM @T) SELECT * FROM c WHERE c200 IS NULL', 'w4');
SELECT same('SELECT c104, count(*), max(c199), sum(c200) FROM @T GROUP BY c104', 'w4');
SELECT same('SELECT t FROM @T t', 'w5');
SELECT ordered('SELECT id, lag(c195) OVER w, first_value(t.*) OVER w FROM @T t WINDOW w AS (PARTITION BY c4 IS NULL ORDER BY id) ORDER BY id', 'w4');

--
-- The same comparisons with every expression and deform JIT-compiled.
--
SET jit = on;
SET jit_above_cost = 0;
SET jit_inline_above_cost = 0;
SELECT same('SELECT * FROM @T', 'w4');
SELECT same('SELECT * FROM @T', 'w5');
SELECT same('SELECT id, c200, c1, c3 FROM @T WHERE c199 IS NOT NULL OR c101 IS NULL', 'w4');
SELECT same('SELECT count(c200), count(c139), sum(c140) FROM @T', 'w5');
SELECT same('SELECT * FROM @T', 'tt');
RESET jit;
RESET jit_above_cost;
RESET jit_inline_above_cost;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA cz_twin CASCADE;
RESET client_min_messages;
