--
-- Partial decoding of compressed tails (docs/slot.md): the
-- slot's getsomeattrs(n) decodes a tail only as far as attribute n, and a
-- later call for more attributes of the same row continues from there.
-- Each query asks for a column in the middle of the tail first (a qual, a
-- hash key, a nested loop's parameter) and for later ones after it (the
-- projection, a parent node, RETURNING, a trigger, the whole row), on rows
-- of every NULL map encoding (runs, gaps, bitmap), with varlenas (short
-- and 4-byte headers, inline-compressed values) and without, on a prefix
-- of id and c1..c7 (the least there is) and of 20 columns.  Every query
-- runs on a heap twin too and must return the same rows.  Self-contained; also passes with
-- jit_above_cost = 0 (run-tests.sh reruns every sql/ file so).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

CREATE SCHEMA cz_partial;
SET search_path = cz_partial, public;

-- the column types: v tables mix every group of a tail's values (8-, 4-,
-- 2- and 1-byte aligned fixed-length values, by value and by reference,
-- and varlenas); f tables have fixed-length columns only; in u tables
-- groups have one type (their values a stride apart, by reference:
-- timetz's 12 bytes padded to 16, tid, uuid), in w tables groups mix
-- lengths and the varlenas two alignments (the decoder's general paths;
-- arrays of 20 float8 have 4-byte headers, aligned to 8); in b tables each
-- fixed group holds values passed by value of one length (8, 4, 2 and 1
-- bytes: the decoder's loop for each length; a wrong length or offset
-- shows in the rows' text, an extension of a value's sign would not, the
-- output functions reading only the type's own bytes)
CREATE FUNCTION coltype(kind text, i int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT CASE kind
		WHEN 'v' THEN (ARRAY['text', 'int4', 'float8', 'bool', 'int2', 'uuid',
							 'interval', 'numeric'])[i % 8 + 1]
		WHEN 'u' THEN (ARRAY['text', 'timetz', 'macaddr', 'tid', 'uuid'])[i % 5 + 1]
		WHEN 'w' THEN (ARRAY['text', 'int4', 'macaddr', 'float8', 'int8', 'name',
							 'bool', 'float8[]', 'numeric'])[i % 9 + 1]
		WHEN 'b' THEN (ARRAY['int8', 'int4', 'int2', '"char"', 'float8', 'bool',
							 'text'])[i % 7 + 1]
		ELSE (ARRAY['int8', 'int4', 'float8', 'bool', 'int2', 'interval'])[i % 6 + 1]
	END
$$;

-- the value of column i in row g (an SQL expression over g; numbers of
-- both signs, as values by value are sign-extended Datums); in v tables
-- some texts are longer than 126 bytes (4-byte headers), and c40 of every
-- 11th row compresses well (3000 bytes: heap stores it compressed inline)
CREATE FUNCTION val(kind text, i int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT CASE coltype(kind, i)
		WHEN 'text' THEN CASE WHEN i = 40 THEN
			'CASE WHEN g % 11 = 0 THEN repeat(''abc'', 1000) ELSE ''t'' || g END'
			ELSE format('CASE WHEN g %% 7 = 0 THEN repeat(''L'', 130 + g %% 50) || g'
						' ELSE ''t'' || g || ''_%s'' END', i) END
		WHEN 'int4' THEN format('((g * 1000 + %s) * (1 - 2 * (g %% 2)))', i)
		WHEN 'int8' THEN format('((g * 100000 + %s) * (1 - 2 * (g %% 3 %% 2)))::int8', i)
		WHEN 'float8' THEN format('((g - 200 + %s / 8.0)::float8)', i)
		WHEN 'bool' THEN format('((g + %s) %% 3 = 0)', i)
		WHEN 'int2' THEN format('((g + %s) %% 30000 - 15000)::int2', i)
		WHEN 'uuid' THEN format('md5(g || ''_%s'')::uuid', i)
		WHEN 'interval' THEN format('make_interval(days => g, secs => %s)', i)
		WHEN 'macaddr' THEN format('(''08:00:2b:01:'' || lpad(to_hex(g %% 256), 2, ''0'')'
								   ' || '':'' || lpad(to_hex(%s), 2, ''0''))::macaddr', i)
		WHEN 'name' THEN format('(''n'' || g || ''_%s'')::name', i)
		WHEN 'timetz' THEN format('(''12:00+02''::timetz + make_interval(secs => g * 7 + %s))', i)
		WHEN 'tid' THEN format('format(''(%%s,%%s)'', g, %s)::tid', i)
		WHEN '"char"' THEN format('(((g * 3 + %s) %% 256) - 128)::"char"', i)
		WHEN 'float8[]' THEN format('CASE WHEN g %% 5 = 0 THEN array_fill((g + %1$s)::float8, ARRAY[20])'
									' ELSE ARRAY[g, %1$s, g / 4.0]::float8[] END', i)
		ELSE format('(g * 1.5 + %s)::numeric', i)
	END
$$;

-- which columns row g sets, by g % 6: 0 one run of 10-34 columns (its map
-- is smallest as runs), 1 about four scattered columns (gaps), 2 every
-- other column up to a point (bitmap), 3 every column up to a point (no
-- NULL to leave out: a standard row), 4 the last column and one early,
-- 5 none
CREATE FUNCTION is_set(i int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT format('CASE g %% 6'
		' WHEN 0 THEN %1$s BETWEEN 1 + (g * 7) %% 120 AND 10 + (g * 7) %% 120 + g %% 25'
		' WHEN 1 THEN (g * 13 + %1$s * 7) %% 41 = 0'
		' WHEN 2 THEN %1$s %% 2 = g %% 2 AND %1$s <= 60 + g %% 90'
		' WHEN 3 THEN %1$s <= 80 + g %% 80'
		' WHEN 4 THEN %1$s = 160 OR %1$s = 1 + g %% 10'
		' ELSE false END', i)
$$;

CREATE FUNCTION gen_select(kind text, lo int, hi int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT 'SELECT g AS id, ' || string_agg(format('CASE WHEN %s THEN %s END AS c%s',
												   is_set(i), val(kind, i), i), ', ' ORDER BY i)
		|| format(' FROM generate_series(%s, %s) g', lo, hi)
	FROM generate_series(1, 160) i
$$;

-- twins of kind v and f: <kind>_h USING heap; <kind>_s compress with id
-- and c1..c7 as the prefix; <kind>_k compress with the first 20 columns in
-- the prefix.
-- Rows 1-300 are formed from values, 301-400 come from the heap twin
-- (their tails are made from heap's bytes; the compressed c40 values stay
-- compressed).  Generating them is not what is tested: no JIT for it.
CREATE FUNCTION make_twins(kind text) RETURNS void
LANGUAGE plpgsql SET jit = off AS $$
DECLARE
	cols text := (SELECT string_agg(format('c%s %s', i, coltype(kind, i)), ', ' ORDER BY i)
				  FROM generate_series(1, 160) i);
	t text;
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING heap', kind || '_h', cols);
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING slimheap'
				   ' WITH (slimheap.null_bitmap = compress)', kind || '_s', cols);
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING slimheap'
				   ' WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 20)',
				   kind || '_k', cols);
	EXECUTE format('INSERT INTO %I %s', kind || '_h', gen_select(kind, 1, 400));
	FOREACH t IN ARRAY ARRAY[kind || '_s', kind || '_k'] LOOP
		EXECUTE format('INSERT INTO %I %s', t, gen_select(kind, 1, 300));
		EXECUTE format('INSERT INTO %I SELECT * FROM %I WHERE id > 300', t, kind || '_h');
	END LOOP;
END
$$;

-- same(q, tab): q (with @T) returns the same multiset of rows on the heap
-- twin of tab and on tab: "n rows, identical", or the rows only one side
-- returned
CREATE FUNCTION same(q text, tab text) RETURNS SETOF text
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
		' SELECT 2, ''only in '' || %3$L || '': '' || r FROM (TABLE b EXCEPT ALL TABLE a) d'
		' UNION ALL'
		' SELECT 3, (SELECT count(*) FROM b) || '' rows, identical'''
		' ORDER BY o, line',
		replace(q, '@T', left(tab, 1) || '_h'), replace(q, '@T', tab), tab)
	LOOP
		IF r.o < 3 THEN
			ndiff := ndiff + 1;
			IF ndiff <= 5 THEN
				RETURN NEXT left(r.line, 200);
			END IF;
		ELSIF ndiff > 5 THEN
			RETURN NEXT format('... and %s more rows that differ', ndiff - 5);
		ELSIF ndiff = 0 THEN
			RETURN NEXT r.line;
		END IF;
	END LOOP;
END
$$;

-- pairs(tab): for every pair of positions a < b below, a qual on c<a>
-- (getsomeattrs(a)) and then a projection of columns up to c<b>
-- (getsomeattrs(b) on the same row), compared with the heap twin; the
-- pairs whose rows differ, or how many pairs and rows agreed
CREATE FUNCTION pairs(tab text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	pos int[] := ARRAY[1, 2, 8, 17, 21, 40, 41, 97, 133, 159, 160];
	a int;
	b int;
	q text;
	n bigint;
	ndiff bigint;
	nrows bigint := 0;
	npairs int := 0;
	bad text := '';
BEGIN
	FOREACH a IN ARRAY pos LOOP
		FOREACH b IN ARRAY pos LOOP
			CONTINUE WHEN b <= a;
			q := format('SELECT id, c%s, c%s, c%s, c%s FROM %%s WHERE c%s IS NULL OR id > 0',
						a, a + 1, (a + b) / 2, b, a);
			EXECUTE format('SELECT (SELECT count(*) FROM (%1$s EXCEPT ALL %2$s) d)'
						   ' + (SELECT count(*) FROM (%2$s EXCEPT ALL %1$s) d),'
						   ' (SELECT count(*) FROM (%2$s) d)',
						   format(q, left(tab, 1) || '_h'), format(q, tab))
				INTO ndiff, n;
			IF ndiff > 0 THEN
				bad := bad || format(' (c%s, c%s): %s', a, b, ndiff);
			END IF;
			nrows := nrows + n;
			npairs := npairs + 1;
		END LOOP;
	END LOOP;
	IF bad <> '' THEN
		RETURN 'rows differ for' || bad;
	END IF;
	RETURN format('%s pairs, %s rows, identical', npairs, nrows);
END
$$;

SELECT make_twins('v');
SELECT make_twins('f');

-- the rows of each table by form and map encoding (slimheap.page_items),
-- by the pattern of set columns: every encoding is there, with and
-- without varlenas, and rows with 4-byte varlena headers and compressed
-- values have tails too
CREATE FUNCTION forms(tab text)
RETURNS TABLE (pattern int, form text, tail_encoding text, n bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT (t.id %% 6)::int, p.form, p.tail_encoding, count(*)'
		' FROM generate_series(0::bigint, pg_relation_size(%1$L) / 8192 - 1) b,'
		' LATERAL slimheap.page_items(%1$L::regclass, b) p, %1$I t'
		' WHERE p.lp_flags = ''normal'' AND t.ctid = format(''(%%s,%%s)'', b, p.lp)::tid'
		' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3', tab);
END
$$;
SELECT * FROM forms('v_s');
SELECT * FROM forms('f_s');
SELECT * FROM forms('v_k');
SELECT * FROM forms('f_k');

-- tail rows holding varlenas with 4-byte headers (id % 7 = 0) and
-- compressed values (c40 of id % 11 = 0, rows from the heap twin), by
-- encoding
CREATE FUNCTION varlena_tails(tab text)
RETURNS TABLE (tail_encoding text, long_texts bigint, compressed bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT p.tail_encoding,'
		' count(*) FILTER (WHERE t.id %% 7 = 0 AND num_nonnulls(t.c8, t.c16, t.c24, t.c32, t.c48, t.c56, t.c64) > 0),'
		' count(*) FILTER (WHERE pg_column_compression(t.c40) IS NOT NULL)'
		' FROM generate_series(0::bigint, pg_relation_size(%1$L) / 8192 - 1) b,'
		' LATERAL slimheap.page_items(%1$L::regclass, b) p, %1$I t'
		' WHERE p.lp_flags = ''normal'' AND p.tail_encoding IS NOT NULL'
		' AND t.ctid = format(''(%%s,%%s)'', b, p.lp)::tid'
		' GROUP BY 1 ORDER BY 1', tab);
END
$$;
SELECT * FROM varlena_tails('v_s');
SELECT * FROM varlena_tails('v_k');

-- the rows themselves
SELECT same('SELECT * FROM @T', 'v_s');
SELECT same('SELECT * FROM @T', 'v_k');
SELECT same('SELECT * FROM @T', 'f_s');
SELECT same('SELECT * FROM @T', 'f_k');

--
-- A qual on a middle column, then the projection of later ones, for
-- pairs of positions: in the prefix and in the tail, at the first tail
-- column (c8 of _s, c21 of _k), at varlenas and fixed-length values, at
-- and past the last column.
--
SELECT pairs('v_s');
SELECT pairs('v_k');
SELECT pairs('f_s');
SELECT pairs('f_k');
-- the same over groups of one type and groups of mixed lengths
SELECT make_twins('u');
SELECT make_twins('w');
SELECT same('SELECT * FROM @T', 'u_s');
SELECT same('SELECT * FROM @T', 'u_k');
SELECT same('SELECT * FROM @T', 'w_s');
SELECT same('SELECT * FROM @T', 'w_k');
SELECT pairs('u_s');
SELECT pairs('u_k');
SELECT pairs('w_s');
SELECT pairs('w_k');
-- and over groups of values passed by value, one length each
SELECT make_twins('b');
SELECT * FROM forms('b_s');
SELECT same('SELECT * FROM @T', 'b_s');
SELECT same('SELECT * FROM @T', 'b_k');
SELECT pairs('b_s');
SELECT pairs('b_k');
SELECT same('SELECT id, c160, c157, c155, c153 FROM @T WHERE c2 IS NULL', 'b_s');
-- their values leaving the slot: into heap tables with a fast default
-- (the same projection of each twin), through a materialized CTE, a sort
-- and parallel workers
CREATE TABLE b_out_h (id int, a int8, b int2, c "char", d float8, e int4);
CREATE TABLE b_out_s (LIKE b_out_h);
ALTER TABLE b_out_h ADD COLUMN f int DEFAULT 7;
ALTER TABLE b_out_s ADD COLUMN f int DEFAULT 7;
INSERT INTO b_out_h SELECT id, c154, c149, c157, c158, c155 FROM b_h WHERE c2 IS NULL;
INSERT INTO b_out_s SELECT id, c154, c149, c157, c158, c155 FROM b_s WHERE c2 IS NULL;
SELECT count(*) AS rows_out,
	   (SELECT count(*) FROM (TABLE b_out_h EXCEPT ALL TABLE b_out_s) d) AS only_heap,
	   (SELECT count(*) FROM (TABLE b_out_s EXCEPT ALL TABLE b_out_h) d) AS only_compress
FROM b_out_s;
SELECT same('WITH m AS MATERIALIZED (SELECT id, c160, c156, c153 FROM @T WHERE c9 IS NULL)
	SELECT * FROM m ORDER BY c156, c153, id', 'b_s');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE FUNCTION b_plan_has(q text, what text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%' || what || '%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;
SELECT b_plan_has('SELECT sum(c154), sum(c149), sum(c155), sum(c158), sum(c157::int)
	FROM b_k WHERE c2 IS NULL', 'Parallel Seq Scan on b_k') AS parallel_plan;
SELECT (SELECT ROW(sum(c154), sum(c149), sum(c155), sum(c158), sum(c157::int))::text
		FROM b_k WHERE c2 IS NULL) =
	   (SELECT ROW(sum(c154), sum(c149), sum(c155), sum(c158), sum(c157::int))::text
		FROM b_h WHERE c2 IS NULL) AS parallel_same;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

--
-- Later columns asked for from other places than the projection.
--
-- nested loop parameters (slot_getattr one at a time) after the scan's
-- qual: a LATERAL subquery that is not pulled up
SELECT same('SELECT s.id, l.* FROM @T s, LATERAL (SELECT s.c120 AS a, s.c97 AS b, s.c159 AS c OFFSET 0) l
	WHERE s.c80 IS NOT NULL OR s.c41 IS NULL', 'v_s');
SELECT same('SELECT s.id, l.* FROM @T s, LATERAL (SELECT s.c120 AS a, s.c97 AS b, s.c159 AS c OFFSET 0) l
	WHERE s.c80 IS NOT NULL OR s.c41 IS NULL', 'f_k');
-- a CASE in the qual, a CASE over later columns in the projection
SELECT same('SELECT id, CASE WHEN c133 IS NULL THEN c150::text ELSE c160::text END, c141
	FROM @T WHERE CASE WHEN c17 IS NULL THEN c40 IS NULL ELSE c9 IS NOT NULL END', 'v_s');
-- a parent node reads further than the scan did: join clauses and the
-- join's projection over the scan's own slot
SELECT same('SELECT a.id, a.c150, b.c160 FROM @T a JOIN @T b ON a.id = b.id + 1
	AND a.c97 IS NOT DISTINCT FROM b.c97 WHERE a.c40 IS NULL', 'v_s');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT same('SELECT a.id, a.c150, b.c160 FROM @T a JOIN @T b ON a.id = b.id + 1
	AND a.c97 IS NOT DISTINCT FROM b.c97 WHERE a.c40 IS NULL', 'v_k');
RESET enable_hashjoin;
RESET enable_mergejoin;
-- hash aggregation: its keys (one expression) before the aggregates'
-- arguments (another), over the same slot
SET enable_sort = off;
SELECT same('SELECT c41 IS NULL, c2 IS NULL, count(c120), max(c159), count(c160), sum(c129)
	FROM @T GROUP BY 1, 2', 'v_s');
SELECT same('SELECT c41 IS NULL, count(c120), max(c158), count(c160), sum(c127)
	FROM @T GROUP BY 1', 'f_s');
RESET enable_sort;
-- the whole row after a qual on a middle column
SELECT same('SELECT t::text FROM @T t WHERE c80 IS NULL', 'v_s');
SELECT same('SELECT row_to_json(t)::text FROM @T t WHERE c97 IS NOT NULL', 'f_k');
-- index scans: the qual and then the projection, and a sort over it
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT same('SELECT id, c133, c160 FROM @T WHERE id BETWEEN 50 AND 350 AND c21 IS NULL', 'v_k');
SELECT same('SELECT id, c159 FROM @T WHERE id > 100 AND c2 IS NULL ORDER BY c120, id', 'v_s');
RESET enable_seqscan;
RESET enable_bitmapscan;

--
-- RETURNING and triggers read rows of the table after a qual on a middle
-- column.  A BEFORE UPDATE trigger logs OLD and NEW columns past the
-- qual's; both twins are updated in one statement and RETURN the same.
--
CREATE TABLE trig_log (tab text, id int, old_c120 text, new_c159 text, new_c160 text);
CREATE FUNCTION log_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO trig_log VALUES (TG_TABLE_NAME, NEW.id, OLD.c120::text,
								 NEW.c159::text, NEW.c160::text);
	RETURN NEW;
END
$$;
CREATE TRIGGER v_h_log BEFORE UPDATE ON v_h FOR EACH ROW EXECUTE FUNCTION log_row();
CREATE TRIGGER v_s_log BEFORE UPDATE ON v_s FOR EACH ROW EXECUTE FUNCTION log_row();

WITH h AS (UPDATE v_h SET c3 = NOT coalesce(c3, false) WHERE c80 IS NOT NULL OR id % 9 = 0
		   RETURNING id, c97, c133::text, c160),
	 s AS (UPDATE v_s SET c3 = NOT coalesce(c3, false) WHERE c80 IS NOT NULL OR id % 9 = 0
		   RETURNING id, c97, c133::text, c160)
SELECT (SELECT count(*) FROM s) AS updated,
	   (SELECT count(*) FROM (TABLE h EXCEPT ALL TABLE s) d) AS only_heap,
	   (SELECT count(*) FROM (TABLE s EXCEPT ALL TABLE h) d) AS only_compress;
SELECT count(*) FILTER (WHERE tab = 'v_s') AS logged,
	   (SELECT count(*) FROM (SELECT id, old_c120, new_c159, new_c160 FROM trig_log WHERE tab = 'v_h'
			EXCEPT ALL SELECT id, old_c120, new_c159, new_c160 FROM trig_log WHERE tab = 'v_s') d) AS only_heap,
	   (SELECT count(*) FROM (SELECT id, old_c120, new_c159, new_c160 FROM trig_log WHERE tab = 'v_s'
			EXCEPT ALL SELECT id, old_c120, new_c159, new_c160 FROM trig_log WHERE tab = 'v_h') d) AS only_compress
FROM trig_log;
SELECT same('SELECT * FROM @T', 'v_s');

-- DELETE ... RETURNING columns past its qual's
WITH h AS (DELETE FROM f_h WHERE id % 10 = 3 AND c41 IS NULL RETURNING id, c97, c150, c160),
	 s AS (DELETE FROM f_k WHERE id % 10 = 3 AND c41 IS NULL RETURNING id, c97, c150, c160)
SELECT (SELECT count(*) FROM s) AS deleted,
	   (SELECT count(*) FROM (TABLE h EXCEPT ALL TABLE s) d) AS only_heap,
	   (SELECT count(*) FROM (TABLE s EXCEPT ALL TABLE h) d) AS only_compress;
SELECT same('SELECT * FROM @T', 'f_k');

--
-- One slot reading rows of different forms in turn: the decoder keeps,
-- from row to row, which entries of the slot's arrays read NULL already
-- (SlimTailReader) and resets only those the rows before set.  Rows of
-- prefixes 8, 21, 12 and 61 come interleaved with standard rows and rows
-- without values, in one table, and are read by partial decodes; then a
-- fast default is added past the last column (the tail's attributes past
-- its end then read as missing, filled in by the caller) and more rows
-- of every prefix follow.
--
CREATE TABLE m_h (LIKE v_h) USING heap;
CREATE TABLE m_s (LIKE v_h) USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE FUNCTION load_mixed(lo int, hi int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	k int[] := ARRAY[0, 21, 12, 61];
BEGIN
	FOR g IN lo..hi LOOP
		EXECUTE format('ALTER TABLE m_s SET (slimheap.prefix_columns = %s)', k[g % 4 + 1]);
		INSERT INTO m_s SELECT * FROM v_h WHERE id = g;
		INSERT INTO m_h SELECT * FROM v_h WHERE id = g;
	END LOOP;
END
$$;
SELECT load_mixed(1, 120);
-- rows of each prefix (natts), with and without a tail, in one table
SELECT p.natts, p.tail_encoding IS NOT NULL AS tail, count(*)
FROM generate_series(0::bigint, pg_relation_size('m_s') / 8192 - 1) b,
	 LATERAL slimheap.page_items('m_s'::regclass, b) p
WHERE p.lp_flags = 'normal' GROUP BY 1, 2 ORDER BY 1, 2;
SELECT same('SELECT * FROM @T', 'm_s');
SELECT pairs('m_s');
SELECT same('SELECT id, c150 FROM @T WHERE c97 IS NULL', 'm_s');
ALTER TABLE m_h ADD COLUMN c161 int DEFAULT 7;
ALTER TABLE m_s ADD COLUMN c161 int DEFAULT 7;
SELECT load_mixed(121, 200);
SELECT same('SELECT * FROM @T', 'm_s');
SELECT same('SELECT id, c159, c161 FROM @T WHERE c40 IS NULL', 'm_s');
SELECT same('SELECT id, c161, c160 FROM @T WHERE c2 IS NULL OR c161 > 0', 'm_s');
SELECT pairs('m_s');
-- rows that store c161 as NULL, placed by VACUUM between rows that do not
-- store it (which read its default, 7): the default filled in must not
-- be taken for a NULL the next row need not write
DELETE FROM m_h WHERE id <= 120 AND id % 2 = 0;
DELETE FROM m_s WHERE id <= 120 AND id % 2 = 0;
VACUUM m_h, m_s;
ALTER TABLE m_h ADD COLUMN c162 int;
ALTER TABLE m_s ADD COLUMN c162 int;
INSERT INTO m_h SELECT *, NULL, id FROM v_h WHERE id BETWEEN 201 AND 290;
INSERT INTO m_s SELECT *, NULL, id FROM v_h WHERE id BETWEEN 201 AND 290;
SELECT count(*) AS c161_null FROM m_s WHERE c161 IS NULL;
SELECT same('SELECT * FROM @T', 'm_s');
SELECT same('SELECT id, c161, c162 FROM @T WHERE c97 IS NULL OR id > 0', 'm_s');

--
-- Whole rows that leave the slot (invariant E1) are in heap's full form; a
-- tail row's is made from its bytes (src/format/slim_tail_expand.c), a row
-- that reads a fast default past its tail from its values.  A sort and a
-- materialized CTE of whole rows take minimal tuples of the scan's own
-- slot, a hash join's inner side too, and an insert into a heap table
-- copies heap tuples.  Every type group, every map encoding, both
-- prefixes, and m_s's rows of four prefixes with c161 and c162 added
-- (v_k's heap twin was updated with v_s above).
--
SELECT same('SELECT * FROM @T ORDER BY c3 NULLS FIRST, id', 'v_s');
SELECT same('SELECT * FROM @T ORDER BY c3 NULLS FIRST, id', 'f_k');
-- m_s has fast defaults, so its scans project (tlist_matches_tupdesc())
-- and copy virtual rows; ANALYZE copies its own slot's rows, and the rows
-- stored before c161 was added must read its default there too
SELECT same('SELECT * FROM @T ORDER BY c97 NULLS FIRST, id', 'm_s');
SELECT same('WITH w AS MATERIALIZED (SELECT * FROM @T) SELECT * FROM w', 'v_s');
SELECT same('WITH w AS MATERIALIZED (SELECT * FROM @T) SELECT * FROM w', 'f_k');
SELECT same('WITH w AS MATERIALIZED (SELECT * FROM @T) SELECT * FROM w', 'm_s');
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT same('SELECT b.* FROM generate_series(1, 400) g(id) JOIN @T b ON b.id = g.id', 'v_s');
SELECT same('SELECT b.* FROM generate_series(1, 400) g(id) JOIN @T b ON b.id = g.id', 'f_k');
RESET enable_mergejoin;
RESET enable_nestloop;
CREATE TABLE v_copy (LIKE v_h) USING heap;
INSERT INTO v_copy SELECT * FROM v_s;
-- through a sort: minimal tuples of the slot, then heap tuples of them
CREATE TABLE v_sorted (LIKE v_h) USING heap;
INSERT INTO v_sorted SELECT * FROM v_s ORDER BY c3 NULLS FIRST, id;
CREATE TABLE m_copy (LIKE m_h) USING heap;
INSERT INTO m_copy SELECT * FROM m_s;
SELECT (SELECT count(*) FROM v_copy) AS v_rows,
	   (SELECT count(*) FROM (TABLE v_copy EXCEPT ALL TABLE v_h) d) AS v_differ,
	   (SELECT count(*) FROM m_copy) AS m_rows,
	   (SELECT count(*) FROM (TABLE m_copy EXCEPT ALL TABLE m_h) d) AS m_differ;
ANALYZE m_h, m_s;
SELECT attname, count(DISTINCT (null_frac, n_distinct, most_common_vals::text,
								most_common_freqs::text, avg_width)) AS variants
FROM pg_stats WHERE schemaname = 'cz_partial' AND tablename IN ('m_h', 'm_s')
	AND attname IN ('c2', 'c97', 'c160', 'c161', 'c162')
GROUP BY attname ORDER BY attname;
-- the copies store every attribute (161 and 163), none a tail
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect SCHEMA public;
RESET client_min_messages;
SELECT t, count(*) AS rows, min(i.t_infomask2 & 2047) AS min_natts,
	   bool_or((i.t_infomask2 & 2048) <> 0) AS tails
FROM unnest(ARRAY['v_copy', 'm_copy']) t,
	 LATERAL generate_series(0::bigint, pg_relation_size(t) / 8192 - 1) b,
	 LATERAL heap_page_items(get_raw_page(t, b)) i
WHERE i.lp_flags = 1 GROUP BY t ORDER BY t;
-- and byte for byte what heap forms: each copy of a row of v_s (by
-- copy_heap_tuple, and by copy_minimal_tuple through the sort) against
-- the row of its heap twin, bitmap and data
CREATE FUNCTION raw_rows(rel regclass)
RETURNS TABLE (id int, bits text, data bytea, infomask2 int)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT t.id, p.t_bits, p.t_data, p.t_infomask2 FROM %1$s t JOIN'
		' (SELECT format(''(%%s,%%s)'', b, i.lp)::tid AS tid, i.t_bits, i.t_data,'
		'  i.t_infomask2'
		'  FROM generate_series(0::bigint, pg_relation_size(%2$L) / 8192 - 1) b,'
		'  LATERAL heap_page_items(get_raw_page(%2$L, b)) i WHERE i.lp_flags = 1) p'
		' ON p.tid = t.ctid', rel, rel::text);
END
$$;
SELECT t, count(*) AS rows,
	   count(*) FILTER (WHERE c.bits IS DISTINCT FROM h.bits) AS bitmaps_differ,
	   count(*) FILTER (WHERE c.data <> h.data) AS data_differ
FROM unnest(ARRAY['v_copy', 'v_sorted']) t,
	 LATERAL raw_rows(t::regclass) c JOIN raw_rows('v_h') h USING (id)
GROUP BY t ORDER BY t;
-- the transcoder (a heap row's bytes laid out as a tail row, INSERT ...
-- SELECT *) writes what the former writes from the same values (a
-- projection: a virtual slot), byte for byte, over both kinds' types:
-- fixed groups of 8, 4, 2 and 1-byte alignment, short and 4-byte varlena
-- headers, values compressed inline
DO $$
DECLARE
	kind text;
BEGIN
	FOREACH kind IN ARRAY ARRAY['v', 'f'] LOOP
		EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING INDEXES) USING slimheap'
					   ' WITH (slimheap.null_bitmap = compress)', kind || '_tx', kind || '_s');
		EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING INDEXES) USING slimheap'
					   ' WITH (slimheap.null_bitmap = compress)', kind || '_fx', kind || '_s');
		EXECUTE format('INSERT INTO %I SELECT * FROM %I', kind || '_tx', kind || '_h');
		EXECUTE format('INSERT INTO %I SELECT id + 0, %s FROM %I', kind || '_fx',
					   (SELECT string_agg('c' || i, ', ' ORDER BY i)
						FROM generate_series(1, 160) i), kind || '_h');
	END LOOP;
END
$$;
SELECT t, count(*) AS rows,
	   count(*) FILTER (WHERE (x.infomask2 & 2048) <> 0) AS tails,
	   count(*) FILTER (WHERE x.infomask2 <> f.infomask2) AS headers_differ,
	   count(*) FILTER (WHERE x.bits IS DISTINCT FROM f.bits) AS bitmaps_differ,
	   count(*) FILTER (WHERE x.data <> f.data) AS data_differ
FROM unnest(ARRAY['v', 'f']) t,
	 LATERAL raw_rows((t || '_tx')::regclass) x
	 JOIN raw_rows((t || '_fx')::regclass) f USING (id)
GROUP BY t ORDER BY t;
-- and with padding inside the groups: lengths that are not a multiple of
-- the alignment (timetz 12 of 8, macaddr 6 of 4, tid 6 of 2)
CREATE FUNCTION pad_type(i int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT (ARRAY['timetz', 'int2', 'macaddr', '"char"', 'tid', 'int8', 'text',
				  'point', 'bool', 'int4'])[i % 10 + 1]
$$;
CREATE FUNCTION pad_val(i int) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT format(CASE pad_type(i)
		WHEN 'timetz' THEN '(''12:00+02''::timetz + make_interval(secs => g + %s))'
		WHEN 'int2' THEN '((g * 7 + %s) %% 30000)::int2'
		WHEN 'macaddr' THEN '(''08:00:2b:01:02:'' || lpad(to_hex((g + %s) %% 256), 2, ''0''))::macaddr'
		WHEN '"char"' THEN 'chr(65 + (g + %s) %% 26)::"char"'
		WHEN 'tid' THEN 'format(''(%%s,%%s)'', g, %s)::tid'
		WHEN 'int8' THEN '(g * 100000 + %s)::int8'
		WHEN 'text' THEN '''p'' || g || ''_'' || %s'
		WHEN 'point' THEN 'point(g, %s)'
		WHEN 'bool' THEN '((g + %s) %% 3 = 0)'
		ELSE '(g * 1000 + %s)' END, i)
$$;
DO $$
DECLARE
	cols text := (SELECT string_agg(format('c%s %s', i, pad_type(i)), ', ' ORDER BY i)
				  FROM generate_series(1, 60) i);
	-- NULL maps of many kinds; rows with g % 4 = 0 leave the int2 / tid
	-- group empty, rows with g % 10 = 5 set c1-c30 only (no NULL before
	-- the last value: the truncate form on both paths)
	vals text := (SELECT string_agg(format('CASE WHEN CASE WHEN g %% 10 = 5 THEN %1$s <= 30'
										   ' ELSE (g * 7 + %1$s * 3) %% (2 + g %% 5) <> 0'
										   ' AND %1$s > g %% 12'
										   ' AND NOT (g %% 4 = 0 AND %1$s %% 10 IN (1, 4)) END'
										   ' THEN %2$s END', i, pad_val(i)), ', ' ORDER BY i)
				  FROM generate_series(1, 60) i);
	t text;
BEGIN
	EXECUTE format('CREATE TABLE pad_h (id int PRIMARY KEY, %s) USING heap', cols);
	FOREACH t IN ARRAY ARRAY['pad_tx', 'pad_fx'] LOOP
		EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING slimheap'
					   ' WITH (slimheap.null_bitmap = compress)', t, cols);
	END LOOP;
	EXECUTE format('INSERT INTO pad_h SELECT g, %s FROM generate_series(1, 200) g', vals);
	INSERT INTO pad_tx SELECT * FROM pad_h;
	EXECUTE format('INSERT INTO pad_fx SELECT id + 0, %s FROM pad_h',
				   (SELECT string_agg('c' || i, ', ' ORDER BY i) FROM generate_series(1, 60) i));
END
$$;
SELECT count(*) AS rows,
	   count(*) FILTER (WHERE (x.infomask2 & 2048) <> 0) AS tails,
	   count(*) FILTER (WHERE x.infomask2 <> f.infomask2) AS headers_differ,
	   count(*) FILTER (WHERE x.bits IS DISTINCT FROM f.bits) AS bitmaps_differ,
	   count(*) FILTER (WHERE x.data <> f.data) AS data_differ
FROM raw_rows('pad_tx') x JOIN raw_rows('pad_fx') f USING (id);
-- (point has no equality: rows compared as text)
SELECT (SELECT count(*) FROM (SELECT t::text FROM pad_tx t
							  EXCEPT ALL SELECT h::text FROM pad_h h) d) AS tx_differ,
	   (SELECT count(*) FROM (SELECT t::text FROM pad_fx t
							  EXCEPT ALL SELECT h::text FROM pad_h h) d) AS fx_differ;

--
-- The same reads with JIT compiled expressions: slimheap's slot is not a
-- type llvmjit deforms, so the compiled expressions call its getsomeattrs.
--
SET jit = on;
SET jit_above_cost = 0;
SET jit_optimize_above_cost = -1;
SELECT same('SELECT id, c41, c97, c160 FROM @T WHERE c80 IS NULL OR id > 0', 'v_s');
SELECT same('SELECT s.id, l.* FROM @T s, LATERAL (SELECT s.c120 AS a, s.c159 AS c OFFSET 0) l
	WHERE s.c40 IS NOT NULL', 'v_k');
RESET jit;
RESET jit_above_cost;
RESET jit_optimize_above_cost;

SET client_min_messages = warning;
DROP SCHEMA cz_partial CASCADE;
RESET client_min_messages;
