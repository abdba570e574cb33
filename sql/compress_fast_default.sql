--
-- Fast defaults and compressed tails (docs/fast-defaults.md): rows written
-- after ALTER TABLE ... ADD COLUMN ... DEFAULT store the column (invariant
-- T1) in their tail when no index reads it, its NULL included (at the
-- tail's end, as stored NULLs), so their prefix stays short.  Rows stored
-- before the column was added read its default.  Every step runs on a heap
-- table (fd_h) and its compress twin (fd_c) and must read the same: scans
-- with rows of both ages alternating, copies into another table, an index
-- created later on the column (which must index the stored NULLs as NULL,
-- not as the default), UPDATEs through every transition of it, VACUUM FULL
-- and CLUSTER.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA fast_default;
SET search_path = fast_default, public;

-- fd_h (heap) and fd_c (compress): id, c1 .. c200 int4, fillfactor 70 so
-- that UPDATEs may stay on their page (HOT) where the indexes allow it
SELECT format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING %s WITH (fillfactor = 70%s)',
			  t, string_agg(format('c%s int4', i), ', ' ORDER BY i), am, opt)
FROM generate_series(1, 200) i,
	 (VALUES ('fd_h', 'heap', ''),
			 ('fd_c', 'slimheap', ', slimheap.null_bitmap = compress')) v(t, am, opt)
GROUP BY t, am, opt \gexec

CREATE FUNCTION both_(stmt text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE replace(stmt, '@T', 'fd_h');
	EXECUTE replace(stmt, '@T', 'fd_c');
END $$;

-- rows one twin returns for query q (@T: the table) and the other not
CREATE FUNCTION differ(q text DEFAULT 'TABLE @T') RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM ((%1$s EXCEPT ALL %2$s) UNION ALL (%2$s EXCEPT ALL %1$s)) d',
				   replace(q, '@T', 'fd_h'), replace(q, '@T', 'fd_c')) INTO n;
	RETURN n;
END $$;

-- the prefix length (natts) and tail flag of every live row of fd_c
CREATE FUNCTION stored(OUT id int, OUT natts int, OUT tail bool)
RETURNS SETOF record LANGUAGE sql AS $$
	SELECT t.id, p.t_infomask2 & 2047, (p.t_infomask2 & 2048) <> 0
	FROM fd_c t JOIN (SELECT format('(%s,%s)', b, i.lp)::tid AS tid, i.*
					  FROM generate_series(0::bigint, pg_relation_size('fd_c') / 8192 - 1) b,
						   LATERAL heap_page_items(get_raw_page('fd_c', b::int)) i
					  WHERE i.lp_flags = 1) p ON p.tid = t.ctid
$$;

-- old rows (ids 1 .. 400), then the column; the even ones are deleted
-- and their room given back, so that the new rows (even ids) fill it and a
-- scan meets rows of both ages in turn
SELECT both_('INSERT INTO @T (id, c20, c150) SELECT g, g, CASE WHEN g % 3 = 0 THEN g END
			  FROM generate_series(1, 400) g');
SELECT both_('ALTER TABLE @T ADD COLUMN d int DEFAULT 42');
SELECT both_('ALTER TABLE @T ADD COLUMN e text DEFAULT ''e''');
SELECT both_('DELETE FROM @T WHERE id % 2 = 0');
VACUUM fd_h;
VACUUM fd_c;
SELECT both_('INSERT INTO @T (id, c20, c150, d, e) SELECT g, g,
				  CASE WHEN g % 3 = 0 THEN g END,
				  CASE g % 4 WHEN 0 THEN NULL WHEN 2 THEN g END,
				  CASE WHEN g % 8 = 0 THEN NULL ELSE ''x'' || g END
			  FROM generate_series(2, 400, 2) g');
SELECT count(DISTINCT (ctid::text::point)[0]) = count(DISTINCT (ctid::text::point)[0]) FILTER (WHERE id % 2 = 0)
	AS new_rows_on_every_page FROM fd_c;
-- a row with nothing past the free prefix but NULLs of d and e
SELECT both_('INSERT INTO @T (id, c1, d, e) VALUES (1000, 1, NULL, NULL)');

-- the feature: new rows keep the free prefix (c1 .. c7 and id), with d and
-- e in their tails; old rows read the defaults, new ones what they store
SELECT id % 2 = 0 AS new_row, natts, tail, count(*) FROM stored() GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SELECT differ() AS rows_differ;
SELECT count(*) FILTER (WHERE d = 42) AS d_default, count(*) FILTER (WHERE d IS NULL) AS d_null,
	   count(*) FILTER (WHERE e = 'e') AS e_default, count(*) FILTER (WHERE e IS NULL) AS e_null
FROM fd_c;
SELECT count(*) AS problems FROM slimheap.verify('fd_c');

-- where rows go: a sort, a CTE, a table with fast defaults of its own, a
-- whole-row value, COPY out
CREATE TABLE sink (id int, d int, e text);
ALTER TABLE sink ADD COLUMN f int DEFAULT 9;
WITH s AS (SELECT id, d, e FROM fd_c ORDER BY d NULLS FIRST, e, id)
INSERT INTO sink (id, d, e) SELECT * FROM s;
SELECT count(*) AS sink_differ FROM ((SELECT id, d, e FROM sink EXCEPT ALL SELECT id, d, e FROM fd_h)
	UNION ALL (SELECT id, d, e FROM fd_h EXCEPT ALL SELECT id, d, e FROM sink)) x;
SELECT count(*) FILTER (WHERE f = 9) = count(*) AS sink_reads_its_own_default FROM sink;
SELECT differ('SELECT t::text FROM @T t') AS whole_rows_differ;
COPY (SELECT * FROM fd_c ORDER BY id) TO STDOUT WITH (FORMAT csv) \g /dev/null
SELECT md5(string_agg(t::text, ',' ORDER BY id)) = (SELECT md5(string_agg(h::text, ',' ORDER BY id)) FROM fd_h h)
	AS copies_equal FROM fd_c t;

-- an index created now on d: the rows whose tail stores d NULL read the
-- default to heap's readers, so the build re-lays (or moves) them with d
-- in their prefix; amcheck's heapallindexed checks every entry
SELECT both_('CREATE INDEX @T_d ON @T (d)');
SELECT bt_index_check('fd_c_d', true);
SELECT count(*) AS new_rows_hiding_d FROM stored() s JOIN fd_c t USING (id)
WHERE s.tail AND s.natts < 202 AND t.id % 2 = 0;
SET enable_seqscan = off;
SELECT differ('SELECT id FROM @T WHERE d IS NULL') AS null_d_by_index,
	   differ('SELECT id FROM @T WHERE d = 42') AS default_d_by_index;
RESET enable_seqscan;

-- every transition of the indexed d: NULL -> 42 (the default's value),
-- 42 -> NULL, a value -> another; HOT where the page has room
SELECT both_('UPDATE @T SET d = 42 WHERE d IS NULL AND id % 3 = 0');
SELECT both_('UPDATE @T SET d = NULL WHERE d = 42 AND id % 5 = 0');
SELECT both_('UPDATE @T SET d = d + 1 WHERE d <> 42 AND id % 7 = 0');
SELECT both_('UPDATE @T SET c150 = -id WHERE id % 11 = 0');
SELECT bt_index_check('fd_c_d', true);
SET enable_seqscan = off;
SELECT differ('SELECT id, d FROM @T WHERE d IS NULL') AS null_d_by_index,
	   differ('SELECT id, d FROM @T WHERE d = 42') AS default_d_by_index,
	   differ('SELECT id, d FROM @T WHERE d > 42') AS other_d_by_index;
RESET enable_seqscan;
SELECT differ() AS rows_differ;

-- an expression index on e built CONCURRENTLY, then a unique index on e,
-- created after rows store e NULL in their tails
CREATE INDEX CONCURRENTLY fd_h_le ON fd_h (lower(e));
CREATE INDEX CONCURRENTLY fd_c_le ON fd_c (lower(e));
SELECT bt_index_check('fd_c_le', true);
SET enable_seqscan = off;
SELECT differ('SELECT id FROM @T WHERE lower(e) IS NULL') AS null_e_by_index,
	   differ('SELECT id FROM @T WHERE lower(e) = ''e''') AS default_e_by_index;
RESET enable_seqscan;
SELECT both_('UPDATE @T SET e = ''u'' || id WHERE e IS NOT NULL');
SELECT both_('CREATE UNIQUE INDEX @T_e ON @T (e)');
SELECT bt_index_check('fd_c_e', true);
SET enable_seqscan = off;
SELECT differ('SELECT id FROM @T WHERE e IS NULL') AS null_e_by_index;
RESET enable_seqscan;

-- rewrites: VACUUM FULL clears the defaults after rebuilding the indexes;
-- CLUSTER sorts by heap's reading of d
VACUUM FULL fd_h;
VACUUM FULL fd_c;
SELECT bt_index_check('fd_c_d', true), bt_index_check('fd_c_e', true);
SELECT differ() AS rows_differ;
SELECT both_('CLUSTER @T USING @T_d');
SELECT bt_index_check('fd_c_d', true);
SELECT differ() AS rows_differ,
	   (SELECT count(*) FROM slimheap.verify('fd_c')) AS problems;

-- size: rows inserted after ADD COLUMN ... DEFAULT take no more than a
-- fresh load of the same rows into a table made with its final columns
DO $$
BEGIN
	EXECUTE format('CREATE TABLE sz_late (id int, %s) USING slimheap WITH (slimheap.null_bitmap = compress)',
				   (SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i) FROM generate_series(1, 300) i));
	EXECUTE 'CREATE TABLE sz_fresh (LIKE sz_late) USING slimheap WITH (slimheap.null_bitmap = compress)';
END $$;
ALTER TABLE sz_late ADD COLUMN d int DEFAULT 42;
ALTER TABLE sz_fresh ADD COLUMN d int;
ALTER TABLE sz_fresh ALTER COLUMN d SET DEFAULT 42;
INSERT INTO sz_late (id, c10, c50, c100, c200, c290, d)
SELECT g, g, g, g, g, g, CASE WHEN g % 10 = 0 THEN NULL ELSE 42 END FROM generate_series(1, 5000) g;
INSERT INTO sz_fresh SELECT * FROM sz_late;
SELECT round((SELECT live_bytes::numeric / live_rows FROM slimheap.stats('sz_late')) /
			 (SELECT live_bytes::numeric / live_rows FROM slimheap.stats('sz_fresh')), 3) AS late_vs_fresh;

-- VACUUM FULL of those rows (10% of d NULL, the rest 42): the rewrite
-- clears the default; rows that store d keep it, the others now read
-- NULL without storing it; live bytes never grow, and a row still takes
-- what a fresh load takes (rows stored before the column was added grow by
-- the default they now store, as heap's do: not measured here)
UPDATE sz_late SET c20 = id WHERE id % 10 = 5;
VACUUM sz_late;
SELECT live_bytes AS before_bytes FROM slimheap.stats('sz_late') \gset
VACUUM FULL sz_late;
TRUNCATE sz_fresh;
INSERT INTO sz_fresh SELECT * FROM sz_late;
SELECT live_bytes <= :before_bytes AS never_grows,
	   round((live_bytes::numeric / live_rows) /
			 (SELECT live_bytes::numeric / live_rows FROM slimheap.stats('sz_fresh')), 3) AS vf_vs_fresh
FROM slimheap.stats('sz_late');
SELECT count(*) FILTER (WHERE d = 42) AS d_default, count(*) FILTER (WHERE d IS NULL) AS d_null FROM sz_late;

-- more places rows with stored NULLs of fast-default columns go: rows read
-- by parallel workers and sent to the leader, and the rows triggers get
-- (NEW, OLD, transition tables), each written to a table with a fast
-- default of its own, against a heap twin.  pw_h and pw_c keep their
-- defaults (no rewrite follows), so their new rows keep the tail form.
SELECT format('CREATE TABLE %I (id int PRIMARY KEY, %s) USING %s%s',
			  t, string_agg(format('c%s int4', i), ', ' ORDER BY i), am, opt)
FROM generate_series(1, 100) i,
	 (VALUES ('pw_h', 'heap', ''),
			 ('pw_c', 'slimheap', ' WITH (slimheap.null_bitmap = compress)')) v(t, am, opt)
GROUP BY t, am, opt ORDER BY t \gexec
CREATE FUNCTION pw_both(stmt text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE replace(stmt, '@T', 'pw_h');
	EXECUTE replace(stmt, '@T', 'pw_c');
END $$;
SELECT pw_both('INSERT INTO @T (id, c20, c90) SELECT g, g, g FROM generate_series(1, 300) g');
SELECT pw_both('ALTER TABLE @T ADD COLUMN d int DEFAULT 42');
SELECT pw_both('ALTER TABLE @T ADD COLUMN e text DEFAULT ''e''');
SELECT pw_both('INSERT INTO @T (id, c20, d, e) SELECT g, g,
				   CASE WHEN g % 3 = 0 THEN NULL ELSE g END,
				   CASE WHEN g % 4 = 0 THEN NULL ELSE ''x'' END
				FROM generate_series(301, 3000) g');
SELECT count(*) FILTER (WHERE (p.t_infomask2 & 2048) <> 0) > 2000 AS new_rows_have_tails
FROM generate_series(0::bigint, pg_relation_size('pw_c') / 8192 - 1) b,
	 LATERAL heap_page_items(get_raw_page('pw_c', b::int)) p
WHERE p.lp_flags = 1;

-- parallel workers: a CREATE TABLE AS whose scan runs under a Gather
CREATE FUNCTION plan_has(q text, node text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE p text;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO p;
	RETURN p LIKE '%"Node Type": "' || node || '"%';
END $$;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT plan_has('CREATE TABLE pws_c AS SELECT id, c20, d, e FROM pw_c WHERE c20 > 0', 'Gather')
	AS parallel_plan;
CREATE TABLE pws_h AS SELECT id, c20, d, e FROM pw_h WHERE c20 > 0;
CREATE TABLE pws_c AS SELECT id, c20, d, e FROM pw_c WHERE c20 > 0;
SELECT count(*) FILTER (WHERE d IS NULL) AS d_null, count(*) FILTER (WHERE e IS NULL) AS e_null,
	   sum(d) AS d_sum FROM pw_c;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
ALTER TABLE pws_h ADD COLUMN f int DEFAULT 5;
ALTER TABLE pws_c ADD COLUMN f int DEFAULT 5;
SELECT count(*) AS gathered_rows_differ
FROM ((TABLE pws_h EXCEPT ALL TABLE pws_c) UNION ALL (TABLE pws_c EXCEPT ALL TABLE pws_h)) x;
SELECT count(*) FILTER (WHERE d IS NULL) AS gathered_d_null, count(*) AS gathered FROM pws_c;

-- triggers: NEW and OLD of row triggers, and transition tables, logged
-- into a table with a fast default of its own; an UPDATE that changes no
-- value, then a DELETE
CREATE TABLE pw_log (tab text, kind text, id int, d int, e text);
ALTER TABLE pw_log ADD COLUMN g int DEFAULT 7;
CREATE FUNCTION pw_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		INSERT INTO pw_log (tab, kind, id, d, e) VALUES (TG_TABLE_NAME, 'old', OLD.id, OLD.d, OLD.e);
	END IF;
	IF TG_OP = 'UPDATE' THEN
		INSERT INTO pw_log (tab, kind, id, d, e) VALUES (TG_TABLE_NAME, 'new', NEW.id, NEW.d, NEW.e);
		RETURN NEW;
	END IF;
	RETURN OLD;
END $$;
CREATE FUNCTION pw_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO pw_log (tab, kind, id, d, e) SELECT TG_TABLE_NAME, 'old table', id, d, e FROM o;
	IF TG_OP = 'UPDATE' THEN
		INSERT INTO pw_log (tab, kind, id, d, e) SELECT TG_TABLE_NAME, 'new table', id, d, e FROM n;
	END IF;
	RETURN NULL;
END $$;
SELECT pw_both('CREATE TRIGGER @T_row BEFORE UPDATE OR DELETE ON @T FOR EACH ROW EXECUTE FUNCTION pw_row()');
SELECT pw_both('CREATE TRIGGER @T_upd AFTER UPDATE ON @T REFERENCING OLD TABLE AS o NEW TABLE AS n
				FOR EACH STATEMENT EXECUTE FUNCTION pw_stmt()');
SELECT pw_both('CREATE TRIGGER @T_del AFTER DELETE ON @T REFERENCING OLD TABLE AS o
				FOR EACH STATEMENT EXECUTE FUNCTION pw_stmt()');
SELECT pw_both('UPDATE @T SET c20 = c20 WHERE id % 7 = 0');
SELECT pw_both('DELETE FROM @T WHERE id % 11 = 0');
SELECT kind, count(*) AS logged,
	   count(*) FILTER (WHERE d IS NULL) AS d_null, count(*) FILTER (WHERE e IS NULL) AS e_null
FROM pw_log WHERE tab = 'pw_c' GROUP BY kind ORDER BY kind;
SELECT count(*) AS logs_differ
FROM ((SELECT kind, id, d, e, g FROM pw_log WHERE tab = 'pw_h'
	   EXCEPT ALL SELECT kind, id, d, e, g FROM pw_log WHERE tab = 'pw_c')
	  UNION ALL
	  (SELECT kind, id, d, e, g FROM pw_log WHERE tab = 'pw_c'
	   EXCEPT ALL SELECT kind, id, d, e, g FROM pw_log WHERE tab = 'pw_h')) x;
SELECT count(*) AS rows_differ
FROM ((TABLE pw_h EXCEPT ALL TABLE pw_c) UNION ALL (TABLE pw_c EXCEPT ALL TABLE pw_h)) x;
