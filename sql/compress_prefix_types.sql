--
-- The prefix of a tail row, deformed by slimheap's own code when a read
-- goes past it (slim_deform_tail_prefix(), docs/format.md "Reading"):
-- every kind of value a prefix holds, on prefixes of 8, 13 and 20
-- columns, against a heap twin.  By value and sign-extended ("char", int2,
-- int4, int8 with negative values and "char" values of 128 and more), by
-- reference of fixed length (name, uuid, interval, macaddr, tid, timetz),
-- varlenas with 1-byte and 4-byte headers and compressed inline, NULLs
-- anywhere, and a dropped column that old rows still store.  Each query
-- reads a prefix column first (heap's deforming of part of the prefix,
-- then slimheap's going on from where it stopped) or the whole row at
-- once; then where the values go next (a heap table with a fast
-- default, a CTE, a sort, parallel workers, a trigger's NEW row).
-- Self-contained; also passes with jit_above_cost = 0.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

CREATE SCHEMA cz_prefix;
SET search_path = cz_prefix, public;

-- 20 prefix candidates after id, then 60 tail columns of six types
CREATE FUNCTION make_table(name text, am text, opts text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int, a1 "char", a2 int2, a3 int4, a4 name,'
		' a5 int8, a6 text, a7 uuid, a8 interval, a9 int2, a10 text, a11 bool,'
		' a12 int8, a13 "char", a14 macaddr, a15 float8, a16 numeric, a17 tid,'
		' a18 int2, a19 timetz, %s) USING %s %s', name,
		(SELECT string_agg(format('t%s %s', i,
			(ARRAY['int4', 'text', 'int2', '"char"', 'float8', 'uuid'])[i % 6 + 1]),
			', ' ORDER BY i) FROM generate_series(1, 60) i),
		am, opts);
END $$;

-- rows lo..hi: every prefix column NULL in some rows, negative values by
-- value, long and compressible texts; tail columns set sparsely, t60 in
-- every row (a tail to its end)
CREATE FUNCTION fill(name text, lo int, hi int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %I SELECT g,'
		' CASE WHEN g %% 5 <> 1 THEN chr((g * 37) %% 254 + 1)::"char" END,'
		' CASE WHEN g %% 3 <> 0 THEN (-(g * 91) %% 32000)::int2 END,'
		' CASE WHEN g %% 4 <> 2 THEN -(g * 100003) END,'
		' CASE WHEN g %% 7 <> 3 THEN (''nm'' || g)::name END,'
		' CASE WHEN g %% 2 = 0 THEN -g::int8 END,'
		' CASE g %% 6 WHEN 0 THEN NULL WHEN 1 THEN repeat(''x'', 200) || g'
		'  WHEN 2 THEN repeat(''abc'', 2000) ELSE ''s'' || g END,'
		' CASE WHEN g %% 5 <> 4 THEN md5(g::text)::uuid END,'
		' CASE WHEN g %% 3 <> 1 THEN make_interval(days => g, secs => -g) END,'
		' CASE WHEN g %% 2 = 1 THEN (-(g %% 30000))::int2 END,'
		' CASE g %% 4 WHEN 0 THEN NULL WHEN 1 THEN repeat(''y'', 300) ELSE ''v'' || g END,'
		' CASE WHEN g %% 3 <> 2 THEN g %% 2 = 0 END,'
		' CASE WHEN g %% 5 <> 0 THEN -(g::int8 * 1000000007) END,'
		' CASE WHEN g %% 2 = 0 THEN chr(128 + g %% 120)::"char" END,'
		' CASE WHEN g %% 3 = 0 THEN (''08:00:2b:01:02:'' || lpad(to_hex(g %% 256), 2, ''0''))::macaddr END,'
		' CASE WHEN g %% 4 <> 3 THEN -g / 3.0 END,'
		' CASE WHEN g %% 5 <> 2 THEN -g * 1.25 END,'
		' CASE WHEN g %% 2 = 1 THEN format(''(%%s,%%s)'', g, g %% 7)::tid END,'
		' CASE WHEN g %% 7 <> 0 THEN (-g)::int2 END,'
		' CASE WHEN g %% 3 <> 0 THEN ''12:00+02''::timetz + make_interval(secs => g) END,'
		' %s FROM generate_series(%s, %s) g', name,
		(SELECT string_agg(format('CASE WHEN (g + %s) %% (2 + g %% 9) = 0 OR %s = 60 THEN %s END',
			i, i, replace((ARRAY['(-(g * @))::int4', '''tt'' || g || ''_@''',
								 '(-(g + @) % 30000)::int2', 'chr(129 + (g + @) % 100)::"char"',
								 '(-(g + @) / 7.0)::float8', 'md5(g::text || ''@'')::uuid'])[i % 6 + 1],
						  '@', i::text)), ', ' ORDER BY i)
		 FROM generate_series(1, 60) i),
		lo, hi);
END $$;

SELECT make_table('p_h', 'heap', '');
SELECT make_table('p_8', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
SELECT make_table('p_13', 'slimheap',
				  'WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 13)');
SELECT make_table('p_20', 'slimheap',
				  'WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 20)');
SELECT fill(t, 1, 200) FROM unnest(ARRAY['p_h', 'p_8', 'p_13', 'p_20']) t;

-- a5 dropped: the rows above still store its values, later rows a NULL
ALTER TABLE p_h DROP COLUMN a5;
ALTER TABLE p_8 DROP COLUMN a5;
ALTER TABLE p_13 DROP COLUMN a5;
ALTER TABLE p_20 DROP COLUMN a5;
CREATE FUNCTION fill_after_drop(name text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %I (id, a1, a2, a3, a6, a9, a13, a18, t6, t18, t40, t60)'
		' SELECT g, chr(200)::"char", (-g)::int2, -g,'
		' CASE WHEN g %% 2 = 0 THEN repeat(''q'', 150) END, (-g)::int2,'
		' chr(250)::"char", CASE WHEN g %% 3 = 0 THEN (-7)::int2 END, -5, -6,'
		' CASE WHEN g %% 2 = 0 THEN -1.5 END, -g'
		' FROM generate_series(201, 260) g', name);
END $$;
SELECT fill_after_drop(t) FROM unnest(ARRAY['p_h', 'p_8', 'p_13', 'p_20']) t;

-- the rows have tails after prefixes of each length (natts: the prefix)
SELECT t AS tab, p.form, p.natts, count(*)
FROM unnest(ARRAY['p_8', 'p_13', 'p_20']) t,
	 generate_series(0, pg_relation_size(t::regclass) / 8192 - 1) b,
	 LATERAL slimheap.page_items(t::regclass, b) p
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- differ(q): rows q (with @T) returns on one table and not on its heap
-- twin, or the other way, for each slimheap table
CREATE FUNCTION differ(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text := '';
	t text;
	n bigint;
BEGIN
	FOREACH t IN ARRAY ARRAY['p_8', 'p_13', 'p_20'] LOOP
		EXECUTE format('SELECT (SELECT count(*) FROM ((%1$s) EXCEPT ALL (%2$s)) d)'
					   ' + (SELECT count(*) FROM ((%2$s) EXCEPT ALL (%1$s)) d)',
					   replace(q, '@T', 'p_h'), replace(q, '@T', t)) INTO n;
		r := r || format('%s: %s ', t, n);
	END LOOP;
	RETURN rtrim(r);
END $$;

-- the whole row at once
SELECT differ('SELECT x::text FROM @T x') AS whole_row;

-- a qual on prefix column a<q> (heap deforms up to it), then a projection
-- past the prefix: slimheap goes on from where heap stopped
SELECT q AS qual_on, differ(format('SELECT %s FROM @T WHERE a%s IS NULL OR id > 0', cols, q))
FROM (SELECT string_agg(format('(%s)::text', c), ' || ''|'' || ' ORDER BY o) AS cols
	  FROM unnest(ARRAY['id', 'a1', 'a2', 'a3', 'a4', 'a6', 'a7', 'a8', 'a9', 'a10',
						'a11', 'a12', 'a13', 'a14', 'a15', 'a16', 'a17', 'a18', 'a19',
						't1', 't2', 't3', 't4', 't5', 't17', 't40', 't59', 't60'])
		   WITH ORDINALITY AS c(c, o)) s,
	 unnest(ARRAY[1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 14, 16, 18, 19]) q
ORDER BY q;

-- values by value compared, grouped and summed as Datums
SELECT differ('SELECT id, a1, a2, a3, a9, a13, a18, t60, t59 FROM @T'
			  ' WHERE a2 < 0 OR a3 < 0 OR a1 IS NOT NULL') AS by_value;
SELECT differ('SELECT id, t60, a1, a2, a3, a13, a18 FROM @T WHERE t60 IS NOT NULL') AS tail_first;
SELECT differ('SELECT a1, a13, count(*), sum(a2), sum(a3), sum(a18), max(t60::text)'
			  ' FROM @T GROUP BY a1, a13') AS grouped;
SELECT differ('SELECT DISTINCT a1, a13, t4 FROM @T') AS distinct_chars;

-- where the values go next, read through a qual on a prefix column first:
-- a heap table with a fast default, a materialized CTE, a sort, parallel
-- workers, and a trigger's NEW row
CREATE TABLE sink (src text, id int, a1 "char", a6 text, a13 "char",
				   a19 timetz, t40 float8, t60 int4);
ALTER TABLE sink ADD COLUMN z int DEFAULT 7;
INSERT INTO sink (src, id, a1, a6, a13, a19, t40, t60)
SELECT t, id, a1, a6, a13, a19, t40, t60
FROM unnest(ARRAY['p_h', 'p_8', 'p_13', 'p_20']) t,
	 LATERAL (SELECT * FROM p_h WHERE t = 'p_h' AND (a3 IS NULL OR id > 0)
			  UNION ALL SELECT * FROM p_8 WHERE t = 'p_8' AND (a3 IS NULL OR id > 0)
			  UNION ALL SELECT * FROM p_13 WHERE t = 'p_13' AND (a3 IS NULL OR id > 0)
			  UNION ALL SELECT * FROM p_20 WHERE t = 'p_20' AND (a3 IS NULL OR id > 0)) r;
SELECT src, count(*), count(DISTINCT (id, a1, a6, a13, a19, t40, t60, z)) AS distinct_rows
FROM sink GROUP BY src ORDER BY src;
SELECT s.src, (SELECT count(*)
			  FROM ((SELECT id, a1, a6, a13, a19, t40, t60, z FROM sink WHERE src = 'p_h'
					 EXCEPT ALL
					 SELECT id, a1, a6, a13, a19, t40, t60, z FROM sink WHERE src = s.src)
					UNION ALL
					(SELECT id, a1, a6, a13, a19, t40, t60, z FROM sink WHERE src = s.src
					 EXCEPT ALL
					 SELECT id, a1, a6, a13, a19, t40, t60, z FROM sink WHERE src = 'p_h')) d)
	   AS rows_differing_from_heap
FROM (VALUES ('p_8'), ('p_13'), ('p_20')) s(src) ORDER BY 1;

SELECT differ('WITH c AS MATERIALIZED (SELECT id, a2, a13, a16, t5, t60 FROM @T'
			  ' WHERE a9 IS NULL OR id > 0) SELECT * FROM c') AS cte;
SELECT differ('SELECT row_number() OVER (ORDER BY a13, t60, id), id, a4, t59'
			  ' FROM @T WHERE a1 IS NOT NULL OR id > 0') AS sorted;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE FUNCTION plan_has(q text, what text) RETURNS bool
LANGUAGE plpgsql AS $$
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
SELECT plan_has('SELECT id, t60 FROM p_8 WHERE a12 IS NULL OR id > 0',
				'Parallel Seq Scan') AS parallel_plan;
SELECT differ('SELECT id, a2, a7, a13, a19, t3, t60 FROM @T WHERE a12 IS NULL OR id > 0')
	AS parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- a BEFORE UPDATE trigger logs NEW's prefix and tail columns
CREATE TABLE trig_log (tab text, id int, a1 "char", a3 int4, a10 text, t60 int4);
CREATE FUNCTION log_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO trig_log VALUES (TG_TABLE_NAME, NEW.id, NEW.a1, NEW.a3, NEW.a10, NEW.t60);
	RETURN NEW;
END $$;
CREATE TRIGGER log_h BEFORE UPDATE ON p_h FOR EACH ROW EXECUTE FUNCTION log_new();
CREATE TRIGGER log_8 BEFORE UPDATE ON p_8 FOR EACH ROW EXECUTE FUNCTION log_new();
UPDATE p_h SET t59 = t59 WHERE a3 IS NULL OR id % 10 = 0;
UPDATE p_8 SET t59 = t59 WHERE a3 IS NULL OR id % 10 = 0;
SELECT count(*) AS logged,
	   (SELECT count(*) FROM ((SELECT id, a1, a3, a10, t60 FROM trig_log WHERE tab = 'p_h'
							   EXCEPT ALL SELECT id, a1, a3, a10, t60 FROM trig_log WHERE tab = 'p_8')
							  UNION ALL
							  (SELECT id, a1, a3, a10, t60 FROM trig_log WHERE tab = 'p_8'
							   EXCEPT ALL SELECT id, a1, a3, a10, t60 FROM trig_log WHERE tab = 'p_h')) d)
	   AS differing
FROM trig_log;
SELECT differ('SELECT x::text FROM @T x') AS whole_row_after_update;

DROP SCHEMA cz_prefix CASCADE;
