-- Helper functions of the slimheap benchmark (bench/run.sh), loaded into the
-- throwaway benchmark database only.  They build the DDL and DML of the
-- workloads of WORKLOADS.md, so that heap and slimheap tables are created
-- and filled by exactly the same statements, and time statements on the
-- server, so that client round trips stay out of the figures.

-- Run one statement, return its elapsed wall-clock time in milliseconds.
CREATE FUNCTION bench_ms(stmt text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
BEGIN
	t0 := clock_timestamp();
	EXECUTE stmt;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;

-- The storage clause of a table variant: heap, slimheap ("truncate", the
-- default), slimheap with the "compress" NULL bitmap, or jsonb (W10: a heap
-- table of (id, doc jsonb), the way sparse records are stored today).
CREATE FUNCTION bench_storage(variant text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE variant
		WHEN 'heap' THEN 'USING heap'
		WHEN 'slimheap' THEN 'USING slimheap'
		WHEN 'compress' THEN
			'USING slimheap WITH ("slimheap.null_bitmap" = compress)'
		WHEN 'jsonb' THEN 'USING heap'
	END
$$;

-- (Re)create table tab of the given variant with the given column list.
CREATE FUNCTION bench_create(tab text, variant text, coldefs text)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF bench_storage(variant) IS NULL THEN
		RAISE EXCEPTION 'unknown table variant "%"', variant;
	END IF;
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I (%s) %s', tab, coldefs,
				   bench_storage(variant));
END $$;

-- format(fmt, i) for i in first..last, joined with ", ".
CREATE FUNCTION bench_list(fmt text, first int, last int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(format(fmt, i), ', ' ORDER BY i)
	FROM generate_series(first, last) i
$$;

-- The column list of an existing table, as a CREATE TABLE column list.
CREATE FUNCTION bench_coldefs_of(rel regclass) RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT string_agg(format('%I %s', attname,
							 format_type(atttypid, atttypmod)),
					  ', ' ORDER BY attnum)
	FROM pg_attribute
	WHERE attrelid = rel AND attnum > 0 AND NOT attisdropped
$$;

-- Tuple bytes as stored on the pages (lp_len, t_hoff), averaged over at
-- most 1000 pages spread evenly over the main fork.
CREATE FUNCTION bench_row_bytes(rel regclass,
								OUT lp_len float8, OUT t_hoff float8)
LANGUAGE sql AS $$
	WITH pages AS (
		SELECT pg_relation_size(rel) / current_setting('block_size')::int
			AS n
	), sample AS (
		SELECT DISTINCT (i * n / least(n, 1000))::int AS blkno
		FROM pages, generate_series(0, least(n, 1000) - 1) i
		WHERE n > 0
	)
	SELECT avg(p.lp_len), avg(p.t_hoff)
	FROM sample,
		 LATERAL heap_page_items(get_raw_page(rel::text, sample.blkno)) p
	WHERE p.lp_flags = 1
$$;

-- The mean length of a live row of rel as stored (lp_len), over every
-- page: what a row takes, without free space or dead rows (the life
-- figures measure it after a VACUUM).
CREATE FUNCTION bench_live_row_bytes(rel regclass) RETURNS float8
LANGUAGE sql AS $$
	SELECT avg(p.lp_len)::float8
	FROM generate_series(0::bigint,
						 pg_relation_size(rel) / current_setting('block_size')::int - 1) b,
		 LATERAL heap_page_items(get_raw_page(rel::text, b::int)) p
	WHERE p.lp_flags = 1 AND (p.t_xmax = '0'::xid OR (p.t_infomask & 2048) <> 0)
$$;

-- W1 and W8: 800 nullable int4 columns c1..c800.
CREATE FUNCTION w1_coldefs() RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT bench_list('c%s int4', 1, 800) $$;

-- W1: each row sets c1..c50 (c<i> = g + i), the other 750 stay NULL.
CREATE FUNCTION w1_insert(tab text, nrows int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT format('INSERT INTO %I (%s) SELECT %s FROM generate_series(1, %s) g',
				  tab, bench_list('c%s', 1, 50),
				  bench_list('g + %s', 1, 50), nrows)
$$;

-- W2: 5 int4 columns, nullable or NOT NULL.
CREATE FUNCTION w2_coldefs(variant text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT bench_list(CASE WHEN variant = 'notnull'
						   THEN 'c%s int4 NOT NULL' ELSE 'c%s int4' END, 1, 5)
$$;

-- W2 rows: all 5 set ("all", "notnull") or only c1 ("first").
CREATE FUNCTION w2_insert(tab text, variant text, nrows int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN variant = 'first' THEN
		format('INSERT INTO %I (c1) SELECT g FROM generate_series(1, %s) g',
			   tab, nrows)
	ELSE
		format('INSERT INTO %I SELECT %s FROM generate_series(1, %s) g',
			   tab, bench_list('g + %s', 0, 4), nrows)
	END
$$;

-- W3: id int4 NOT NULL, then 100 nullable int4 c1..c100.
CREATE FUNCTION w3_coldefs() RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT 'id int4 NOT NULL, ' || bench_list('c%s int4', 1, 100)
$$;

-- W3 rows: only c<pos> set besides id.
CREATE FUNCTION w3_insert(tab text, pos int, nrows int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT format('INSERT INTO %I (id, c%s) SELECT g, g FROM generate_series(1, %s) g',
				  tab, pos, nrows)
$$;

-- Type and value of column c<j> of the wide mixed tables of W4, W5, W9
-- (the same as in bench/formbench/slimheap_formbench.c): the types cycle
-- int4, float8, bool, text from c1 on.
CREATE FUNCTION mixed_value_expr(j int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE j % 4
		WHEN 1 THEN format('(g + %s)::int4', j)
		WHEN 2 THEN format('((g + %s) * 0.5)::float8', j)
		WHEN 3 THEN format('((g + %s) %% 2 = 0)', j)
		ELSE format('(''v'' || g || ''_%s'')::text', j)
	END
$$;

-- Which of c1..c800 a row sets, as a bit(800) mask (bit j-1 for c<j>):
-- W4: 40 columns at random positions; W5: 3 contiguous groups of 10-20
-- columns at random positions, one in each third of the row.
CREATE FUNCTION mixed_masks(nrows int, grouped bool, seed float8)
RETURNS TABLE (g int, mask bit(800))
LANGUAGE plpgsql AS $$
DECLARE
	zero bit(800) := repeat('0', 800)::bit(800);
BEGIN
	PERFORM setseed(seed);
	IF NOT grouped THEN
		-- 60 draws give 40 distinct positions with overwhelming
		-- probability; the caller checks that every row has 40.
		RETURN QUERY
		SELECT s.g, (SELECT bit_or(set_bit(zero, p - 1, 1))
					 FROM (SELECT DISTINCT 1 + floor(random() * 800)::int AS p
						   FROM generate_series(1, 60 + 0 * s.g)
						   LIMIT 40) d)
		FROM generate_series(1, nrows) s(g);
	ELSE
		RETURN QUERY
		SELECT s.g, (SELECT bit_or(set_bit(zero, p - 1, 1))
					 FROM (SELECT k, 10 + floor(random() * 11)::int AS len
						   FROM generate_series(0, 2 + 0 * s.g) k) grp,
						  LATERAL (SELECT 1 + grp.k * 266
										  + floor(random() * (266 - grp.len))::int
										  AS first) f,
						  LATERAL generate_series(f.first,
												  f.first + grp.len - 1) p)
		FROM generate_series(1, nrows) s(g);
	END IF;
END $$;

-- Build the source table of W4/W5/W9 rows: id, then c1..c800 set as the
-- masks say; bigcol > 0 also puts an incompressible 4 kB text into that
-- (text) column of every row (W9).
CREATE FUNCTION mixed_source(tab text, nrows int, grouped bool,
							 bigcol int DEFAULT 0) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	cols text;
	bad bigint;
BEGIN
	SELECT string_agg(
		CASE WHEN j = bigcol THEN
			format('big.v AS c%s', j)
		ELSE
			format('CASE WHEN get_bit(mask, %s) = 1 THEN %s END AS c%s',
				   j - 1, mixed_value_expr(j), j)
		END, ', ' ORDER BY j)
	INTO cols
	FROM generate_series(1, 800) j;

	IF bigcol > 0 AND bigcol % 4 <> 0 THEN
		RAISE EXCEPTION 'column c% is not a text column', bigcol;
	END IF;

	DROP TABLE IF EXISTS pg_temp.masks;
	CREATE TEMP TABLE masks AS
		SELECT * FROM mixed_masks(nrows, grouped, 0.42);
	IF NOT grouped THEN
		SELECT count(*) INTO bad FROM masks WHERE bit_count(mask) <> 40;
		IF bad > 0 THEN
			RAISE EXCEPTION '% rows of % do not set 40 columns', bad, tab;
		END IF;
	END IF;

	-- W9's 4 kB values: 1000 different strings of 128 md5 sums each, which
	-- pglz cannot shrink, so every row stores its value out of line
	DROP TABLE IF EXISTS pg_temp.big;
	IF bigcol > 0 THEN
		CREATE TEMP TABLE big AS
			SELECT i, (SELECT string_agg(md5(i || '_' || k), '')
					   FROM generate_series(1, 128 + 0 * i) k) AS v
			FROM generate_series(0, 999) i;
	END IF;

	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I AS SELECT g::int4 AS id, %s FROM masks%s ORDER BY g',
				   tab, cols,
				   CASE WHEN bigcol > 0
						THEN ' JOIN big ON big.i = masks.g % 1000' ELSE '' END);
	DROP TABLE masks;
	DROP TABLE IF EXISTS pg_temp.big;
END $$;

-- W10: the jsonb twin of a W4/W5 source table: (id, doc) with one key "cN"
-- per non-NULL column c<N> of the source row (its JSON value: number,
-- boolean or string), in id order, as mixed_source() writes its rows.
CREATE FUNCTION mixed_jsonb_source(tab text, src regclass) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I AS
		SELECT s.id, jsonb_strip_nulls(to_jsonb(s) - ''id'') AS doc
		FROM %s s ORDER BY s.id', tab, src);
END $$;

-- W7: form tuples of the workload's shape with both formers, in `slices`
-- slices per former that alternate (heap, slimheap, slimheap, heap, ...),
-- so that both see the same load of the machine; returns each former's
-- mean ns per tuple over its slices.  formbench() is the C function of
-- bench/formbench, declared by bench/run.sh.
CREATE FUNCTION formbench_alternating(workload text, iterations int8,
									  slices int)
RETURNS TABLE (former text, ns_per_tuple float8, bytes_per_tuple float8)
LANGUAGE plpgsql AS $$
DECLARE
	-- the compress former too for the rows it is made for (W4, W5)
	formers text[] := CASE WHEN workload IN ('w4', 'w5')
		THEN ARRAY['heap', 'slimheap', 'compress']
		ELSE ARRAY['heap', 'slimheap'] END;
	nf int := array_length(formers, 1);
	ns float8[] := array_fill(0::float8, ARRAY[nf]);
	bytes float8[] := array_fill(0::float8, ARRAY[nf]);
	k int;
	i int;
	f int;
	r record;
BEGIN
	FOR k IN 1 .. slices LOOP
		-- alternate the order: forwards in odd slices, backwards in even
		FOR i IN 1 .. nf LOOP
			f := CASE WHEN k % 2 = 1 THEN i ELSE nf + 1 - i END;
			SELECT * INTO r
			FROM formbench(workload, greatest(iterations / slices, 1),
						   formers[f]);
			ns[f] := ns[f] + r.ns_per_tuple;
			bytes[f] := r.bytes_per_tuple;
		END LOOP;
	END LOOP;
	FOR f IN 1 .. nf LOOP
		former := formers[f];
		ns_per_tuple := ns[f] / slices;
		bytes_per_tuple := bytes[f];
		RETURN NEXT;
	END LOOP;
END $$;
