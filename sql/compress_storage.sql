--
-- The stored form of compress rows (docs/format.md), read with
-- pageinspect.  Each table has three twins: _h (heap), _t (slimheap,
-- truncate) and _c (slimheap, compress), loaded with the same rows.
--
-- For tables of int4 columns the file computes, from the rules of
-- docs/format.md alone, which rows must get a tail (C4: the tail form is
-- shorter than the truncate form once both are MAXALIGNed), how long each
-- row is, and which encoding of the NULL map is the smallest; the stored
-- rows must match exactly.  Independently of that model: a compress row
-- without the tail marker is byte for byte its truncate twin, one with the
-- marker is shorter, and its natts is the prefix floor (C1).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA cz_store;
SET search_path = cz_store, public;
-- The stored forms do not depend on JIT, and compiling the expressions
-- over hundreds of columns here takes minutes; compress_twin reads tail
-- rows with JIT (deform and expressions) in both regression runs.
SET jit = off;

-- items(rel): the stored form of every visible row of rel, by id
CREATE FUNCTION items(rel regclass)
RETURNS TABLE (id int, lp_len int, hoff int, natts int, tail bool, bits text,
			   data bytea)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT t.id, p.lp_len::int, p.t_hoff::int, p.t_infomask2 & 2047,'
		' (p.t_infomask2 & 2048) <> 0, p.t_bits, p.t_data'
		' FROM %1$s t JOIN (SELECT format(''(%%s,%%s)'', b, i.lp)::tid AS tid, i.*'
		'   FROM generate_series(0::bigint, pg_relation_size(%2$L) / 8192 - 1) b,'
		'   LATERAL heap_page_items(get_raw_page(%2$L, b)) i WHERE i.lp_flags = 1) p'
		' ON p.tid = t.ctid', rel, rel::text);
END
$$;

-- header_off(natts, bits): where the tail header of a row of int4
-- attributes starts, past the non-NULL values of its prefix
CREATE FUNCTION header_off(natts int, bits text) RETURNS int IMMUTABLE LANGUAGE sql AS $$
	SELECT 4 * coalesce(length(replace(left(bits, natts), '0', '')), natts)
$$;

-- diff(a, b): rows of tables a and b that are not in the other
CREATE FUNCTION diff(a regclass, b regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM ((TABLE %1$s EXCEPT ALL TABLE %2$s)'
				   ' UNION ALL (TABLE %2$s EXCEPT ALL TABLE %1$s)) d', a, b)
	INTO n;
	RETURN n;
END
$$;

-- triplet(base, ncols, extra): base_h, base_t, base_c with id int primary
-- key and c1 .. c<ncols> int4; extra is added to the WITH of base_c
CREATE FUNCTION triplet(base text, ncols int, extra text DEFAULT '') RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	cols text := (SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i)
				  FROM generate_series(1, ncols) i);
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING heap', base || '_h', cols);
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING slimheap'
				   ' WITH (slimheap.null_bitmap = truncate)', base || '_t', cols);
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING slimheap'
				   ' WITH (slimheap.null_bitmap = compress%s)', base || '_c', cols, extra);
END
$$;

-- all3(stmt, base): stmt with @T standing for each of the three twins
CREATE FUNCTION all3(stmt text, base text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	s text;
BEGIN
	FOREACH s IN ARRAY ARRAY['_h', '_t', '_c'] LOOP
		EXECUTE replace(stmt, '@T', base || s);
	END LOOP;
END
$$;

--
-- The model of docs/format.md for rows of int4 attributes (one alignment
-- group, so the tail values are stored in attribute order): nn[i] says
-- attribute i is not NULL, k is the prefix floor.  Lengths are t_len
-- (lp_len): t_hoff plus the data, not MAXALIGNed.
--
CREATE FUNCTION varint_len(v int) RETURNS int IMMUTABLE LANGUAGE sql AS $$
	SELECT CASE WHEN v < 128 THEN 1 WHEN v < 16384 THEN 2 ELSE 3 END
$$;
CREATE FUNCTION maxalign(v int) RETURNS int IMMUTABLE LANGUAGE sql AS $$
	SELECT (v + 7) / 8 * 8
$$;
CREATE FUNCTION model(nn bool[], k int, OUT trunc_len int, OUT tail_len int,
					  OUT tail bool, OUT encoding int, OUT prefix_bytes int)
IMMUTABLE LANGUAGE plpgsql AS $$
DECLARE
	n int := array_length(nn, 1);
	t int := 0;				-- the last non-NULL attribute
	cnt int := 0;
	hasnull bool := false;
	pcnt int := 0;			-- non-NULL attributes of the prefix 1..k
	phasnull bool := false;
	tcnt int := 0;			-- non-NULL attributes of the tail
	m int;
	runs int := 0;
	gaps int := 0;
	bitmap int;
	run_null bool := true;
	run_len int := 0;
	gap int := 0;
	off int;
BEGIN
	FOR i IN 1 .. n LOOP
		IF nn[i] THEN t := i; END IF;
	END LOOP;
	FOR i IN 1 .. t LOOP
		IF nn[i] THEN cnt := cnt + 1; ELSE hasnull := true; END IF;
	END LOOP;
	-- truncate: natts t, a t-bit bitmap when one of 1..t is NULL
	trunc_len := maxalign(23 + CASE WHEN hasnull THEN (t + 7) / 8 ELSE 0 END) + 4 * cnt;
	tail := false;
	IF t <= k THEN
		RETURN;
	END IF;
	FOR i IN 1 .. k LOOP
		IF nn[i] THEN pcnt := pcnt + 1; ELSE phasnull := true; END IF;
	END LOOP;
	m := t - k;
	prefix_bytes := 4 * pcnt;	-- where the tail header starts
	FOR i IN k + 1 .. t LOOP
		-- RUNS: a NULL run (maybe empty), a non-NULL run, ...
		IF (NOT nn[i]) = run_null THEN
			run_len := run_len + 1;
		ELSE
			runs := runs + varint_len(run_len);
			run_null := NOT run_null;
			run_len := 1;
		END IF;
		-- GAPS: the NULLs before each non-NULL attribute
		IF nn[i] THEN
			gaps := gaps + varint_len(gap);
			gap := 0;
			tcnt := tcnt + 1;
		ELSE
			gap := gap + 1;
		END IF;
	END LOOP;
	runs := runs + varint_len(run_len);
	bitmap := (m + 7) / 8;
	encoding := CASE WHEN runs <= gaps AND runs <= bitmap THEN 1
					 WHEN gaps <= bitmap THEN 2 ELSE 3 END;
	-- prefix data, the header varint (M << 2 | encoding), the map, the
	-- int4-aligned values
	off := 4 * pcnt + varint_len(m * 4 + encoding) + least(runs, gaps, bitmap);
	off := (off + 3) / 4 * 4 + 4 * tcnt;
	tail_len := maxalign(23 + CASE WHEN phasnull THEN (k + 7) / 8 ELSE 0 END) + off;
	tail := maxalign(tail_len) < maxalign(trunc_len);
END
$$;

-- check_rows(base, k, need): every visible row of base_c against the model
-- with its prefix floor (rule R, docs/row-floor.md: k, or the last
-- attribute of need, those the indexes read, in which the row holds a
-- value), and against its truncate twin base_t: how many rows, how many
-- with a tail, and the rows that break a rule (all 0)
CREATE FUNCTION check_rows(base text, k int, need int[] DEFAULT '{}',
						   OUT rows bigint, OUT tail_rows bigint,
						   OUT marker_wrong bigint, OUT len_wrong bigint,
						   OUT natts_wrong bigint, OUT encoding_wrong bigint,
						   OUT not_as_truncate bigint, OUT not_shorter bigint,
						   OUT longer_than_heap bigint)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($q$
		WITH m AS MATERIALIZED (
			SELECT t.id, rk.k, (model(nn.a, rk.k)).*
			FROM %1$I t,
			LATERAL (SELECT array_agg(json_typeof(e.v) <> 'null' ORDER BY e.n) AS a
					 FROM json_each(row_to_json(t)) WITH ORDINALITY AS e(k, v, n)) nn,
			LATERAL (SELECT greatest(%2$s, max(x)) AS k
					 FROM unnest(%5$L::int[]) x WHERE nn.a[x]) rk),
		c AS MATERIALIZED (SELECT * FROM items(%1$L)),
		tr AS MATERIALIZED (SELECT * FROM items(%3$L)),
		h AS MATERIALIZED (SELECT * FROM items(%4$L))
		SELECT count(*), count(*) FILTER (WHERE c.tail),
			   count(*) FILTER (WHERE c.tail <> m.tail),
			   count(*) FILTER (WHERE c.lp_len <> CASE WHEN m.tail THEN m.tail_len ELSE m.trunc_len END),
			   count(*) FILTER (WHERE c.tail AND c.natts <> m.k),
			   count(*) FILTER (WHERE c.tail AND m.tail AND
					get_byte(c.data, m.prefix_bytes) & 3 <> m.encoding),
			   count(*) FILTER (WHERE NOT c.tail AND
					(c.lp_len, c.hoff, c.natts, c.bits, c.data) IS DISTINCT FROM
					(tr.lp_len, tr.hoff, tr.natts, tr.bits, tr.data)),
			   count(*) FILTER (WHERE c.tail AND maxalign(c.lp_len) >= maxalign(tr.lp_len)),
			   count(*) FILTER (WHERE maxalign(c.lp_len) > maxalign(h.lp_len))
		FROM m JOIN c USING (id) JOIN tr USING (id) JOIN h USING (id)$q$,
		base || '_c', k, base || '_t', base || '_h', need)
	INTO rows, tail_rows, marker_wrong, len_wrong, natts_wrong, encoding_wrong,
		 not_as_truncate, not_shorter, longer_than_heap;
END
$$;

-- m_select(ncols, lo, hi): rows of int4 values in ten shapes, by g % 10:
-- dense; all NULL; leading values only; one value; scattered values;
-- one contiguous group; every other column; five leading values and one
-- far one; c1 and one far value; two groups
CREATE FUNCTION m_select(ncols int, lo int, hi int) RETURNS text LANGUAGE sql AS $$
	SELECT 'SELECT g, ' || string_agg(format(
		'CASE WHEN CASE g %% 10'
		' WHEN 0 THEN true WHEN 1 THEN false'
		' WHEN 2 THEN %1$s <= g %% 50'
		' WHEN 3 THEN %1$s = g %% %2$s + 1'
		' WHEN 4 THEN (g * 7 + %1$s * 13) %% 37 = 0'
		' WHEN 5 THEN %1$s BETWEEN g %% (%2$s - 30) + 1 AND g %% (%2$s - 30) + 10 + g %% 11'
		' WHEN 6 THEN %1$s %% 2 = g %% 2 AND %1$s <= %2$s / 3 + g %% (%2$s / 2)'
		' WHEN 7 THEN %1$s <= 5 OR %1$s = %2$s - 5 - g %% 50'
		' WHEN 8 THEN %1$s = 1 OR %1$s = %2$s / 2 + g %% 7'
		' ELSE %1$s BETWEEN 20 AND 30 OR %1$s BETWEEN %2$s - 40 AND %2$s - 30 + g %% 30 END'
		' THEN g * 1000 + %1$s END', i, ncols), ', ' ORDER BY i)
		|| format(' FROM generate_series(%s, %s) g', lo, hi)
	FROM generate_series(1, ncols) i
$$;

--
-- A few rows by hand (100 columns, the prefix is id and c1..c7,
-- whose NULL bitmap fits in the header's padding): which get a
-- tail and why.
--
SELECT triplet('hp', 100);
SELECT all3($$INSERT INTO @T (id) VALUES (1)$$, 'hp');	-- all NULL
SELECT all3('INSERT INTO @T SELECT 2, ' ||
	(SELECT string_agg(i::text, ', ') FROM generate_series(1, 100) i), 'hp');	-- dense
SELECT all3('INSERT INTO @T (id, ' ||
	(SELECT string_agg('c' || i, ', ') FROM generate_series(1, 50) i) || ') SELECT 3, ' ||
	(SELECT string_agg(i::text, ', ') FROM generate_series(1, 50) i), 'hp');	-- leading
SELECT all3('INSERT INTO @T (id, c100) VALUES (4, 100)', 'hp');
SELECT all3('INSERT INTO @T (id, c3, c97) VALUES (5, 3, 97)', 'hp');
SELECT all3('INSERT INTO @T SELECT 6, ' ||
	(SELECT string_agg(CASE WHEN i = 99 THEN 'NULL' ELSE i::text END, ', ')
	 FROM generate_series(1, 100) i), 'hp');	-- dense but for c99
SELECT all3('INSERT INTO @T (id, c1, c3) VALUES (7, 1, 3)', 'hp');
SELECT all3('INSERT INTO @T (id, c1, c2, c60) VALUES (8, 1, 2, 60)', 'hp');
SELECT c.id, CASE c.id WHEN 1 THEN 'all NULL' WHEN 2 THEN 'dense'
		WHEN 3 THEN 'c1..c50, trailing NULLs' WHEN 4 THEN 'only c100'
		WHEN 5 THEN 'c3 and c97' WHEN 6 THEN 'dense but for c99'
		WHEN 7 THEN 'c1 and c3 (short)' WHEN 8 THEN 'c1, c2, c60' END AS shape,
	   c.tail, c.natts, c.lp_len, t.lp_len AS truncate_lp_len, h.lp_len AS heap_lp_len,
	   CASE WHEN c.tail THEN get_byte(c.data, header_off(c.natts, c.bits)) & 3 END AS encoding
FROM items('hp_c') c JOIN items('hp_t') t USING (id) JOIN items('hp_h') h USING (id)
ORDER BY c.id;
SELECT * FROM check_rows('hp', 8);
SELECT diff('hp_h', 'hp_c') AS heap_vs_compress, diff('hp_t', 'hp_c') AS truncate_vs_compress;

--
-- Generated rows, 300 columns (tails of 32 attributes or more take a
-- two-byte header, runs and gaps beyond 127 two-byte varints), and the
-- prefix floors of C1: an index key, an expression index, a partial
-- index's predicate, an INCLUDE column, slimheap.prefix_columns.
--
SELECT triplet('m', 299);
SELECT all3('INSERT INTO @T ' || m_select(299, 1, 400), 'm');
SELECT * FROM check_rows('m', 8);
SELECT diff('m_h', 'm_c') AS heap_vs_compress;
-- every encoding is used
SELECT get_byte(data, header_off(natts, bits)) & 3 AS encoding, count(*) > 0 AS used
FROM items('m_c') WHERE tail GROUP BY 1 ORDER BY 1;

SELECT triplet('ix', 299);
CREATE INDEX ON ix_c (c60);		-- attribute 61
SELECT all3('INSERT INTO @T ' || m_select(299, 1, 200), 'ix');
SELECT * FROM check_rows('ix', 8, '{61}');

SELECT triplet('ex', 299);
CREATE INDEX ON ex_c ((c70 + 1));	-- attribute 71
SELECT all3('INSERT INTO @T ' || m_select(299, 1, 200), 'ex');
SELECT * FROM check_rows('ex', 8, '{71}');

SELECT triplet('pa', 299);
CREATE INDEX ON pa_c (id) WHERE c80 IS NOT NULL;	-- attribute 81
SELECT all3('INSERT INTO @T ' || m_select(299, 1, 200), 'pa');
SELECT * FROM check_rows('pa', 8, '{1,81}');

SELECT triplet('inc', 299);
CREATE UNIQUE INDEX ON inc_c (id) INCLUDE (c90);	-- attribute 91
SELECT all3('INSERT INTO @T ' || m_select(299, 1, 200), 'inc');
SELECT * FROM check_rows('inc', 8, '{1,91}');

SELECT triplet('pc', 299, ', slimheap.prefix_columns = 40');
SELECT all3('INSERT INTO @T ' || m_select(299, 1, 200), 'pc');
SELECT * FROM check_rows('pc', 40);
-- a prefix_columns below an index's column: rows that hold a value there
-- keep it in their prefix
SELECT triplet('pcx', 299, ', slimheap.prefix_columns = 10');
CREATE INDEX ON pcx_c (c30);
SELECT all3('INSERT INTO @T ' || m_select(299, 1, 200), 'pcx');
SELECT * FROM check_rows('pcx', 10, '{31}');

-- rewrites keep the floors: the new table has no index yet when its rows
-- are formed, so the old table's indexes count (C1, rule R per row)
VACUUM FULL ix_c;
SELECT * FROM check_rows('ix', 8, '{61}');
CLUSTER ex_c USING ex_c_expr_idx;
SELECT * FROM check_rows('ex', 8, '{71}');
VACUUM FULL pa_c;
SELECT * FROM check_rows('pa', 8, '{1,81}');
VACUUM FULL inc_c;
SELECT * FROM check_rows('inc', 8, '{1,91}');

-- REPLICA IDENTITY FULL: no row gets a tail
SELECT triplet('ri', 120);
ALTER TABLE ri_c REPLICA IDENTITY FULL;
SELECT all3('INSERT INTO @T ' || m_select(120, 1, 200), 'ri');
SELECT count(*) AS rows, count(*) FILTER (WHERE tail) AS tail_rows FROM items('ri_c');
SELECT * FROM check_rows('ri', 121);
-- back to the default identity: rows updated after it get tails again
ALTER TABLE ri_c REPLICA IDENTITY DEFAULT;
SELECT all3('UPDATE @T SET c3 = NULL', 'ri');
SELECT * FROM check_rows('ri', 8);
-- REPLICA IDENTITY FULL again: the ALTER re-lays the rows with a tail
-- without one, in place (slim_identity.c), and a rewrite keeps them so:
-- the table a rewrite fills has the default identity, the old table's
-- must count.
SELECT count(*) FILTER (WHERE tail) > 0 AS tails_before FROM items('ri_c');
ALTER TABLE ri_c REPLICA IDENTITY FULL;
SELECT count(*) FILTER (WHERE tail) AS tails_left FROM items('ri_c');
SELECT * FROM check_rows('ri', 121);
VACUUM FULL ri_c;
SELECT * FROM check_rows('ri', 121);
SELECT all3('UPDATE @T SET c3 = 3 WHERE id % 2 = 0', 'ri');
CLUSTER ri_c USING ri_c_pkey;
SELECT * FROM check_rows('ri', 121);
ALTER TABLE ri_c REPLICA IDENTITY DEFAULT;

--
-- Fast defaults: rows stored before ADD COLUMN ... DEFAULT keep their
-- tails (and read the default); rows after it store the column (T1), in
-- their tail when no index reads it: its value, or its NULL, inside the
-- tail's map or as stored NULLs at the tail's end (docs/fast-defaults.md),
-- so their prefix stays at the free attributes.
--
SELECT triplet('fd', 120);
SELECT all3('INSERT INTO @T ' || m_select(120, 1, 100), 'fd');
SELECT count(*) FILTER (WHERE tail) > 0 AS old_rows_have_tails FROM items('fd_c');
SELECT all3('ALTER TABLE @T ADD COLUMN f int DEFAULT 5', 'fd');	-- attribute 122
SELECT all3('ALTER TABLE @T ' ||
	(SELECT string_agg(format('ADD COLUMN g%s int', i), ', ') FROM generate_series(1, 60) i), 'fd');
SELECT all3('INSERT INTO @T (id, c5, g10, g50) SELECT g, g, g, g FROM generate_series(1001, 1020) g', 'fd');
SELECT all3('INSERT INTO @T (id, c5, f, g60) SELECT g, g, NULL, g FROM generate_series(1021, 1030) g', 'fd');
SELECT all3('INSERT INTO @T (id, c100, f) SELECT g, g, NULL FROM generate_series(1031, 1040) g', 'fd');
SELECT all3('INSERT INTO @T (id, c5, f) SELECT g, g, NULL FROM generate_series(1041, 1050) g', 'fd');
SELECT id BETWEEN 1021 AND 1050 AS f_null, tail, natts, count(*)
FROM items('fd_c') WHERE id > 1000 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SELECT count(*) FILTER (WHERE f IS NULL) AS f_null, count(*) FILTER (WHERE f = 5) AS f_default
FROM fd_c;
SELECT count(*) FILTER (WHERE id > 1000 AND natts < 122) AS new_rows_with_a_short_prefix,
	   count(*) FILTER (WHERE id <= 100 AND tail) > 0 AS old_rows_keep_tails,
	   count(*) FILTER (WHERE id > 1000 AND tail) > 0 AS new_rows_have_tails
FROM items('fd_c');
SELECT diff('fd_h', 'fd_c') AS heap_vs_compress;
SELECT count(*) FILTER (WHERE f = 5) AS reads_default, count(*) FILTER (WHERE f IS NULL) AS reads_null
FROM fd_c;

--
-- TOAST (C2): a 101-attribute row of id, c5 and a text of l incompressible
-- bytes is, in heap's full form, 40 + 12 + l bytes: over
-- TOAST_TUPLE_THRESHOLD (2032) from l = 1981.  Up to 1980 the tail form is
-- shorter and used; from 1981 the row is stored as heap would store it.
--
DO $$
DECLARE
	cols text := (SELECT string_agg(format('c%s int', i), ', ' ORDER BY i)
				  FROM generate_series(1, 98) i);
BEGIN
	EXECUTE format('CREATE TABLE tb_h (id int PRIMARY KEY, %s, t text, c99 int) USING heap', cols);
	EXECUTE format('CREATE TABLE tb_c (id int PRIMARY KEY, %s, t text, c99 int) USING slimheap'
				   ' WITH (slimheap.null_bitmap = compress)', cols);
END
$$;
CREATE FUNCTION tb_select() RETURNS TABLE (id int, c5 int, t text) LANGUAGE sql AS $$
	SELECT l, l, left((SELECT string_agg(md5(l::text || '/' || i), '')
					   FROM generate_series(1, 70) i), l)
	FROM generate_series(1970, 1992) l
$$;
INSERT INTO tb_h (id, c5, t) SELECT * FROM tb_select();
INSERT INTO tb_c (id, c5, t) SELECT * FROM tb_select();
SELECT count(*) AS rows,
	   count(*) FILTER (WHERE c.tail <> (c.id <= 1980)) AS tail_not_as_c2_says,
	   min(c.id) FILTER (WHERE NOT c.tail) AS first_without_tail,
	   max(c.id) FILTER (WHERE c.tail) AS last_with_tail
FROM items('tb_c') c;
SELECT diff('tb_h', 'tb_c') AS heap_vs_compress;
-- an UPDATE that sets c7: heap's full form is now 56 + l bytes, over the
-- threshold from l = 1977.  Rows whose old version has an external value
-- (l >= 1981) are stored without a tail (the toaster deforms the new
-- row), rows now over the threshold (1977 to 1980) are toasted as heap's,
-- the others keep a tail.
UPDATE tb_h SET c7 = 7;
UPDATE tb_c SET c7 = 7;
SELECT count(*) AS rows,
	   count(*) FILTER (WHERE c.tail <> (c.id <= 1976)) AS tail_not_as_c2_says,
	   max(c.id) FILTER (WHERE c.tail) AS last_with_tail,
	   count(*) FILTER (WHERE c.lp_len <> h.lp_len AND c.id > 1976) AS toasted_not_as_heap
FROM items('tb_c') c JOIN items('tb_h') h USING (id);
SELECT diff('tb_h', 'tb_c') AS heap_vs_compress;

--
-- The guards that keep tail rows away from heap's toaster (C2).  The
-- toaster deforms a row as a heap row (its K prefix attributes; the tail
-- reads as NULLs) and, when it changes a value, forms the row anew with
-- heap's code, which keeps the header's tail marker: the tail is lost and
-- the row damaged.  Each block below makes rows that would get a tail but
-- for one guard and that the toaster then works on, in a heap table (_h)
-- and a compress twin (_c) of columns id (primary key), p text, c1 .. c100
-- int4, t text, with slimheap.prefix_columns = 2 (p in the prefix, the
-- tail from c1 on).  guard_check() shows the twins equal, the compress
-- rows the toaster re-formed stored as heap stores them and verify()
-- clean; toast_values() that the compress twin holds its external values
-- in its own TOAST table, as many as heap.  docs/regress.md says which
-- line fails when a guard is turned off.
--
CREATE FUNCTION guard_pair(base text, opts text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	cols text := (SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i)
				  FROM generate_series(1, 100) i);
BEGIN
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, p text, %s, t text) USING heap%s',
				   base || '_h', cols, ' WITH (' || opts || ')');
	EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, p text, %s, t text) USING slimheap'
				   ' WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 2%s)',
				   base || '_c', cols, ', ' || opts);
END
$$;
CREATE FUNCTION both2(stmt text, base text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE replace(stmt, '@T', base || '_h');
	EXECUTE replace(stmt, '@T', base || '_c');
END
$$;
-- md5text(seed, len): len bytes of md5 digits (pglz cannot compress them)
CREATE FUNCTION md5text(seed text, len int) RETURNS text LANGUAGE sql AS $$
	SELECT left(string_agg(md5(seed || '/' || i), '' ORDER BY i), len)
	FROM generate_series(1, len / 32 + 1) i
$$;
-- guard_check(base): rows of base_c; rows only one twin has; rows of
-- base_c with a tail; rows stored as their heap twin (lp_len and natts);
-- problems verify() finds in base_c
CREATE FUNCTION guard_check(base text, OUT rows bigint, OUT rows_differ bigint,
							OUT tail_rows bigint, OUT as_heap bigint,
							OUT problems bigint)
LANGUAGE plpgsql AS $$
BEGIN
	SELECT count(*), count(*) FILTER (WHERE c.tail),
		   count(*) FILTER (WHERE (c.lp_len, c.natts) = (h.lp_len, h.natts))
	INTO rows, tail_rows, as_heap
	FROM items((base || '_c')::regclass) c JOIN items((base || '_h')::regclass) h USING (id);
	rows_differ := diff((base || '_h')::regclass, (base || '_c')::regclass);
	SELECT count(*) INTO problems FROM slimheap.verify((base || '_c')::regclass);
END
$$;
-- toast_values(rel): how many values rel holds in its TOAST table (not after
-- a rewrite, which may have kept dead rows and their values)
CREATE FUNCTION toast_values(rel regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(DISTINCT chunk_id) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = rel))
	INTO n;
	RETURN n;
END
$$;

-- UPDATE whose old row has an external value.  heap_update()
-- runs the toaster on the new row, which with toast_tuple_target = 128
-- moves p out of line and so forms the row anew (with the default target
-- it would leave a row that small alone): the new row must not have a
-- tail.  Rows 6 to 10, whose old t is inline, keep theirs.
SELECT guard_pair('gu', 'toast_tuple_target = 128');
SELECT both2($$INSERT INTO @T (id, c50, t)
	SELECT g, g, md5text('t' || g, 3000) FROM generate_series(1, 5) g$$, 'gu');
SELECT both2($$INSERT INTO @T (id, c50, t)
	SELECT g, g, md5text('t' || g, 100) FROM generate_series(6, 10) g$$, 'gu');
SELECT * FROM guard_check('gu');
SELECT toast_values('gu_c') AS compress_toasted, toast_values('gu_h') AS heap_toasted;
SELECT both2($$UPDATE @T SET t = NULL, p = md5text('p' || id, 200)$$, 'gu');
SELECT * FROM guard_check('gu');
SELECT toast_values('gu_c') AS compress_toasted, toast_values('gu_h') AS heap_toasted;
SELECT string_agg(c50::text, ',' ORDER BY id) AS c50,
	   string_agg(id::text, ',' ORDER BY id) FILTER (WHERE i.tail) AS tail_rows
FROM gu_c JOIN items('gu_c') i USING (id);
-- VACUUM FULL forms the rows from their values again, p out of line
VACUUM FULL gu_c;
SELECT * FROM guard_check('gu');

-- INSERT of values stored out of line in another table, in the prefix (p)
-- or in what would be the tail (t).  heap_insert() runs the toaster on a
-- row with external values, which copies them into the table's own TOAST
-- table; a value the tail held would be left pointing into the other one.
-- The values come as values (gv: a column list makes the executor project
-- the row) or as a stored row of the same columns (gs: copied from its
-- bytes); VACUUM FULL then forms the rows again, their values external.
CREATE TABLE gx_src (LIKE gu_h);
INSERT INTO gx_src (id, p, c50) SELECT g, md5text('p' || g, 3000), g FROM generate_series(1, 4) g;
INSERT INTO gx_src (id, c50, t) SELECT g, g, md5text('t' || g, 3000) FROM generate_series(5, 8) g;
SELECT toast_values('gx_src');
SELECT guard_pair('gv');
SELECT guard_pair('gs');
SELECT both2('INSERT INTO @T (id, p, c50, t) SELECT id, p, c50, t FROM gx_src', 'gv');
SELECT both2('INSERT INTO @T SELECT * FROM gx_src', 'gs');
SELECT * FROM guard_check('gv');
SELECT * FROM guard_check('gs');
SELECT toast_values('gv_c') AS gv_compress, toast_values('gv_h') AS gv_heap,
	   toast_values('gs_c') AS gs_compress, toast_values('gs_h') AS gs_heap;
-- the values read back from the copies' own TOAST tables
TRUNCATE gx_src;
SELECT * FROM guard_check('gv');
SELECT * FROM guard_check('gs');
VACUUM FULL gv_c;
VACUUM FULL gs_c;
SELECT * FROM guard_check('gv');
SELECT * FROM guard_check('gs');

-- Rows over TOAST_TUPLE_THRESHOLD in heap's full form: heap_insert() runs
-- the toaster, which compresses p (repeated characters) or moves it out of
-- line (md5 digits).  A tail would make the row shorter, and still too
-- long for the toaster to leave alone.  Through INSERT (gt), COPY (gc: the
-- multi-insert path) and INSERT ... SELECT * from a table that holds the
-- rows inline (gr: its toast_tuple_target lets them be; copied from their
-- bytes).  c100 is the only tail value.
SELECT guard_pair('gt');
SELECT guard_pair('gc');
SELECT guard_pair('gr');
CREATE FUNCTION big_rows() RETURNS TABLE (id int, p text, c100 int) LANGUAGE sql AS $$
	SELECT g, CASE WHEN g % 2 = 0 THEN md5text('b' || g, 2100) ELSE repeat('x', 2100) END, g
	FROM generate_series(1, 6) g
$$;
SELECT both2('INSERT INTO @T (id, p, c100) SELECT * FROM big_rows()', 'gt');
DO $$
DECLARE
	f text := current_setting('data_directory') || '/slimheap_compress_storage.copy';
BEGIN
	EXECUTE format('COPY (SELECT * FROM big_rows()) TO %L', f);
	EXECUTE format('COPY gc_h (id, p, c100) FROM %L', f);
	EXECUTE format('COPY gc_c (id, p, c100) FROM %L', f);
END
$$;
CREATE TABLE gr_src (LIKE gr_h) WITH (toast_tuple_target = 8160);
INSERT INTO gr_src (id, p, c100) SELECT * FROM big_rows();
SELECT toast_values('gr_src'), min(lp_len) > 2032 AS all_over_the_threshold FROM items('gr_src');
SELECT both2('INSERT INTO @T SELECT * FROM gr_src', 'gr');
SELECT * FROM guard_check('gt');
SELECT * FROM guard_check('gc');
SELECT * FROM guard_check('gr');
SELECT (SELECT string_agg(c100::text, ',' ORDER BY id) FROM gt_c) AS insert_c100,
	   (SELECT string_agg(c100::text, ',' ORDER BY id) FROM gc_c) AS copy_c100,
	   (SELECT string_agg(c100::text, ',' ORDER BY id) FROM gr_c) AS select_c100;

--
-- An index on a column that stored rows keep in their tails is built, and
-- those rows are stored again with the column in their prefix (invariant
-- C1, docs/format.md "Index builds"): every index finds the heap twin's
-- rows, and no live row hides an indexed value behind its prefix.
--
SELECT triplet('gi', 120);
SELECT all3('INSERT INTO @T ' || m_select(120, 1, 300), 'gi');
-- hidden(rel, col): live rows whose prefix ends before col while col is set
CREATE FUNCTION hidden(rel text, col int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM items(%L) i JOIN %I g USING (id)'
				   ' WHERE i.tail AND i.natts < %s AND g.c%s IS NOT NULL',
				   rel, rel, col, col) INTO n;
	RETURN n;
END $$;
SELECT hidden('gi_c', 50) AS c50_hidden, hidden('gi_c', 77) AS c77_hidden,
	   hidden('gi_c', 90) AS c90_hidden,
	   (SELECT count(*) FROM items('gi_c') WHERE tail AND natts = 8) AS tails_at_8;
CREATE INDEX gi_c50 ON gi_c (c50);
CREATE INDEX gi_h50 ON gi_h (c50);
CREATE INDEX gi_c50_expr ON gi_c ((c50 * 2));
CREATE INDEX gi_h50_expr ON gi_h ((c50 * 2));
CREATE INDEX gi_id_pred ON gi_c (id) WHERE c77 IS NOT NULL;
CREATE INDEX gi_hd_pred ON gi_h (id) WHERE c77 IS NOT NULL;
ALTER TABLE gi_c ADD CONSTRAINT gi_c50_key UNIQUE (c50);
ALTER TABLE gi_h ADD CONSTRAINT gi_h50_key UNIQUE (c50);
CREATE INDEX CONCURRENTLY gi_c90_cic ON gi_c (c90);
CREATE INDEX CONCURRENTLY gi_h90_cic ON gi_h (c90);
REINDEX INDEX CONCURRENTLY gi_c90_cic;
SELECT indexrelid::regclass AS index, indisvalid, indisready
FROM pg_index WHERE indrelid = 'gi_c'::regclass
ORDER BY indexrelid::regclass::text COLLATE "C";
SELECT hidden('gi_c', 50) AS c50_hidden, hidden('gi_c', 77) AS c77_hidden,
	   hidden('gi_c', 90) AS c90_hidden;
-- rows whose indexed columns are NULL keep their tails after c7; the
-- others were stored again, in the shorter form their new floor allows
SELECT tail, natts, count(*) FROM items('gi_c') GROUP BY 1, 2 ORDER BY 1, 2;
SELECT diff('gi_h', 'gi_c') AS heap_vs_compress;
SELECT bt_index_check(i, true) FROM unnest(ARRAY['gi_c50', 'gi_c50_expr',
	'gi_id_pred', 'gi_c50_key', 'gi_c90_cic']::regclass[]) i;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM gi_c WHERE c50 BETWEEN 100000 AND 200000;
-- twin_rows(where): rows one twin returns for the condition and not the other
CREATE FUNCTION twin_rows(cond text, OUT rows bigint, OUT rows_differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT count(*) FROM gi_c WHERE %s', cond) INTO rows;
	EXECUTE format('SELECT count(*) FROM ((SELECT * FROM gi_c WHERE %1$s'
				   ' EXCEPT ALL SELECT * FROM gi_h WHERE %1$s) UNION ALL'
				   ' (SELECT * FROM gi_h WHERE %1$s'
				   ' EXCEPT ALL SELECT * FROM gi_c WHERE %1$s)) d', cond)
		INTO rows_differ;
END $$;
SELECT * FROM twin_rows('c50 BETWEEN 1000 AND 300000');
SELECT * FROM twin_rows('c50 * 2 BETWEEN 2000 AND 600000');
SELECT * FROM twin_rows('id > 0 AND c77 IS NOT NULL');
SELECT * FROM twin_rows('c90 BETWEEN 1000 AND 300000');
SELECT * FROM twin_rows('c50 IS NULL');
RESET enable_seqscan;
RESET enable_bitmapscan;
-- new rows keep each indexed column they hold a value in (c50: attribute
-- 51) in their prefix; a row whose indexed columns are all NULL starts its
-- tail after the free attributes
INSERT INTO gi_c (id, c50, c110) VALUES (5001, 50, 110), (5002, NULL, 110);
INSERT INTO gi_h (id, c50, c110) VALUES (5001, 50, 110), (5002, NULL, 110);
SELECT id, tail, natts FROM items('gi_c') WHERE id > 5000 ORDER BY id;

--
-- Mode changes never lose data: compress -> truncate -> full -> compress
-- with ALTER TABLE SET, and a rewrite after each (VACUUM FULL, CLUSTER,
-- ALTER COLUMN TYPE); after every step the rows are the heap twin's and
-- stored in the form of the current mode.
--
SELECT triplet('mc', 120);
SELECT all3('INSERT INTO @T ' || m_select(120, 1, 300), 'mc');
SELECT all3('UPDATE @T SET c77 = id WHERE id % 3 = 0', 'mc');
SELECT all3('DELETE FROM @T WHERE id % 7 = 0', 'mc');
CREATE FUNCTION mode_state(OUT mode text, OUT rows_differ bigint, OUT tail_rows bigint,
						   OUT full_form_rows bigint, OUT rows bigint)
LANGUAGE sql AS $$
	SELECT (SELECT option_value FROM pg_options_to_table(
				(SELECT reloptions FROM pg_class WHERE oid = 'mc_c'::regclass))
			WHERE option_name = 'slimheap.null_bitmap'),
		   diff('mc_h', 'mc_c'),
		   count(*) FILTER (WHERE tail),
		   count(*) FILTER (WHERE natts = 121),
		   count(*)
	FROM items('mc_c')
$$;
SELECT * FROM mode_state();
ALTER TABLE mc_c SET (slimheap.null_bitmap = truncate);
SELECT * FROM mode_state();
VACUUM FULL mc_c;
SELECT * FROM mode_state();
-- after the rewrite the rows are exactly the truncate twin's
SELECT count(*) AS not_as_truncate
FROM items('mc_c') c JOIN items('mc_t') t USING (id)
WHERE (c.lp_len, c.hoff, c.natts, c.bits, c.data) IS DISTINCT FROM
	  (t.lp_len, t.hoff, t.natts, t.bits, t.data);
ALTER TABLE mc_c SET (slimheap.null_bitmap = full);
CLUSTER mc_c USING mc_c_pkey;
SELECT * FROM mode_state();
ALTER TABLE mc_c SET (slimheap.null_bitmap = compress);
ALTER TABLE mc_c ALTER COLUMN c100 TYPE int8;
ALTER TABLE mc_h ALTER COLUMN c100 TYPE int8;
SELECT * FROM mode_state();
ALTER TABLE mc_c ALTER COLUMN c100 TYPE int4;
ALTER TABLE mc_h ALTER COLUMN c100 TYPE int4;
SELECT * FROM check_rows('mc', 8);
CLUSTER mc_c USING mc_c_pkey;
SELECT * FROM check_rows('mc', 8);
-- compress with a larger prefix, re-formed by VACUUM FULL
ALTER TABLE mc_c SET (slimheap.prefix_columns = 60);
VACUUM FULL mc_c;
SELECT * FROM check_rows('mc', 60);
ALTER TABLE mc_c RESET (slimheap.prefix_columns);
VACUUM FULL mc_c;
SELECT * FROM check_rows('mc', 8);

RESET search_path;
RESET jit;
SET client_min_messages = warning;
DROP SCHEMA cz_store CASCADE;
RESET client_min_messages;
