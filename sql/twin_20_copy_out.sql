--
-- Rows leave a slimheap table with every attribute (invariant E1,
-- docs/slot.md): a table they are copied into reads the NULLs that were
-- copied, not its own fast defaults.  Every path runs once from a heap
-- source and once from its slimheap twin into identical targets; the
-- targets must end up with the same rows.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

-- the sources: rows ending in NULLs, which slimheap leaves out.  p6 .. p9
-- are never set: they make the tables wider than 8 attributes, as a narrower
-- one stores heap's full form in every mode (docs/narrow-slot.md); every
-- table below that rows are copied into or out of has them too
CREATE TABLE co_h (id int, a int, b text, d int, e int,
	p6 int, p7 int, p8 int, p9 int);
CREATE TABLE co_s (LIKE co_h) USING slimheap;
INSERT INTO co_h VALUES (1, 1, 'one', NULL, NULL), (2, NULL, NULL, NULL, 2),
	(3, 3, NULL, NULL, NULL), (4, NULL, 'four', NULL, NULL),
	(5, 5, 'five', 5, 5), (6, NULL, NULL, NULL, NULL), (7, 7, NULL, 7, NULL);
INSERT INTO co_s SELECT * FROM co_h;
-- slimheap stores them short: that is what must not escape
SELECT s.id, p.t_infomask2 & 2047 AS natts
FROM co_s s JOIN heap_page_items(get_raw_page('co_s', 0)) p ON p.t_ctid = s.ctid
ORDER BY s.id;

-- sources whose early rows were stored before ADD COLUMN ... DEFAULT and
-- read that default (in both twins)
CREATE TABLE cod_h (id int, a int);
CREATE TABLE cod_s (id int, a int) USING slimheap;
INSERT INTO cod_h VALUES (1, 1), (2, NULL);
INSERT INTO cod_s VALUES (1, 1), (2, NULL);
ALTER TABLE cod_h ADD COLUMN b text DEFAULT 'bee', ADD COLUMN d int, ADD COLUMN e int,
	ADD COLUMN p6 int, ADD COLUMN p7 int, ADD COLUMN p8 int, ADD COLUMN p9 int;
ALTER TABLE cod_s ADD COLUMN b text DEFAULT 'bee', ADD COLUMN d int, ADD COLUMN e int,
	ADD COLUMN p6 int, ADD COLUMN p7 int, ADD COLUMN p8 int, ADD COLUMN p9 int;
INSERT INTO cod_h SELECT * FROM co_h WHERE id > 2;
INSERT INTO cod_s SELECT * FROM co_h WHERE id > 2;
SELECT * FROM cod_s ORDER BY id;

--
-- twin.copy_out(stmt, target_am[, h, s]): stmt, with %1$I for the target
-- and %2$I for the source, run from the heap source h (co_h) into into_h
-- and from its slimheap twin s (co_s) into into_s.  The targets have the
-- sources' columns, but b, d and e were added with fast defaults (and
-- p6 .. p9 after them), so that a row copied with fewer attributes than it
-- has reads 'target', 50 or 60 there.  The targets must hold the same rows.
--
CREATE FUNCTION twin.copy_out(stmt text, target_am text,
							  h text DEFAULT 'co_h', s text DEFAULT 'co_s')
RETURNS text LANGUAGE plpgsql SET client_min_messages = warning AS $$
DECLARE
	pair text[];
	ndiff bigint;
	n bigint;
BEGIN
	FOREACH pair SLICE 1 IN ARRAY ARRAY[ARRAY[h, 'into_h'], ARRAY[s, 'into_s']] LOOP
		EXECUTE format('DROP TABLE IF EXISTS %I', pair[2]);
		EXECUTE format('CREATE TABLE %I (id int, a int) USING %s',
					   pair[2], target_am);
		EXECUTE format('INSERT INTO %I VALUES (0, 0)', pair[2]);
		EXECUTE format('ALTER TABLE %I ADD COLUMN b text DEFAULT ''target'','
					   ' ADD COLUMN d int DEFAULT 50, ADD COLUMN e int DEFAULT 60,'
					   ' ADD COLUMN p6 int, ADD COLUMN p7 int, ADD COLUMN p8 int,'
					   ' ADD COLUMN p9 int',
					   pair[2]);
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

-- into heap targets
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I', 'heap');
-- what the slimheap-sourced target holds: NULLs where they were copied
SELECT * FROM into_s ORDER BY id;
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I ORDER BY id DESC', 'heap');
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I LIMIT 100', 'heap');
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I UNION ALL SELECT * FROM %2$I', 'heap');
SELECT twin.copy_out('INSERT INTO %1$I SELECT DISTINCT * FROM %2$I', 'heap');
SELECT twin.copy_out('WITH m AS MATERIALIZED (SELECT * FROM %2$I) INSERT INTO %1$I SELECT * FROM m', 'heap');
SELECT twin.copy_out('INSERT INTO %1$I SELECT s.* FROM %2$I s JOIN generate_series(1, 7) g ON g = s.id', 'heap');
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I WHERE id IN (SELECT id FROM %2$I)', 'heap');
-- into slimheap targets (the source's own slot is handed over as it is)
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I', 'slimheap');
SELECT * FROM into_s ORDER BY id;
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I ORDER BY id DESC', 'slimheap');
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I UNION ALL SELECT * FROM %2$I', 'slimheap');
SELECT twin.copy_out('WITH m AS MATERIALIZED (SELECT * FROM %2$I) INSERT INTO %1$I SELECT * FROM m', 'slimheap');
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I RETURNING *', 'slimheap');
-- from the sources with a fast default of their own: it is copied
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I', 'heap', 'cod_h', 'cod_s');
SELECT * FROM into_s ORDER BY id;
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I ORDER BY id', 'slimheap', 'cod_h', 'cod_s');
SELECT twin.copy_out('INSERT INTO %1$I SELECT * FROM %2$I UNION ALL SELECT * FROM %2$I', 'slimheap', 'cod_h', 'cod_s');

-- RETURNING reads the inserted row through the source's slot: the values
-- copied, not the target's defaults
CREATE TABLE co_ret (id int, a int) USING slimheap;
ALTER TABLE co_ret ADD COLUMN b text DEFAULT 'target', ADD COLUMN d int DEFAULT 50,
	ADD COLUMN e int DEFAULT 60, ADD COLUMN p6 int, ADD COLUMN p7 int,
	ADD COLUMN p8 int, ADD COLUMN p9 int;
INSERT INTO co_ret SELECT * FROM co_s ORDER BY id RETURNING *;
SELECT * FROM co_ret ORDER BY id;
-- and the stored rows keep the target's fast-default columns
SELECT s.id, p.t_infomask2 & 2047 AS natts
FROM co_ret s JOIN heap_page_items(get_raw_page('co_ret', 0)) p ON p.t_ctid = s.ctid
ORDER BY s.id;

-- CREATE TABLE AS and a parallel plan: workers send rows to the leader as
-- minimal tuples; the heap table made from them stores every attribute
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT * FROM co_s;
CREATE TABLE co_ctas_par AS SELECT * FROM co_s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;
CREATE TABLE co_ctas AS SELECT * FROM co_s;
SELECT 'co_ctas_par' AS t, min(t_infomask2 & 2047), max(t_infomask2 & 2047)
FROM heap_page_items(get_raw_page('co_ctas_par', 0))
UNION ALL
SELECT 'co_ctas', min(t_infomask2 & 2047), max(t_infomask2 & 2047)
FROM heap_page_items(get_raw_page('co_ctas', 0));
SELECT count(*) AS differ FROM ((TABLE co_ctas_par EXCEPT ALL TABLE co_h)
	UNION ALL (TABLE co_h EXCEPT ALL TABLE co_ctas_par)) x;

-- COPY TO, from the table and from a query
COPY co_s TO STDOUT;
COPY (SELECT * FROM co_s ORDER BY id DESC) TO STDOUT;

-- transition tables and OLD/NEW reach other tables in full
CREATE TABLE co_log (op text, id int, a int);
ALTER TABLE co_log ADD COLUMN b text DEFAULT 'log', ADD COLUMN d int DEFAULT 50,
	ADD COLUMN e int DEFAULT 60, ADD COLUMN p6 int, ADD COLUMN p7 int,
	ADD COLUMN p8 int, ADD COLUMN p9 int;
CREATE FUNCTION co_log_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		INSERT INTO co_log SELECT TG_OP || ' new', * FROM newrows;
	END IF;
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		INSERT INTO co_log SELECT TG_OP || ' old', * FROM oldrows;
	END IF;
	RETURN NULL;
END
$$;
CREATE FUNCTION co_log_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO co_log SELECT 'row old', (OLD).*;
	INSERT INTO co_log SELECT 'row new', (NEW).*;
	RETURN NEW;
END
$$;
CREATE TABLE co_trig (LIKE co_s) USING slimheap;
INSERT INTO co_trig SELECT * FROM co_s;
CREATE TRIGGER co_ins AFTER INSERT ON co_trig REFERENCING NEW TABLE AS newrows
	FOR EACH STATEMENT EXECUTE FUNCTION co_log_rows();
CREATE TRIGGER co_upd AFTER UPDATE ON co_trig
	REFERENCING OLD TABLE AS oldrows NEW TABLE AS newrows
	FOR EACH STATEMENT EXECUTE FUNCTION co_log_rows();
CREATE TRIGGER co_del AFTER DELETE ON co_trig REFERENCING OLD TABLE AS oldrows
	FOR EACH STATEMENT EXECUTE FUNCTION co_log_rows();
CREATE TRIGGER co_row BEFORE UPDATE ON co_trig
	FOR EACH ROW EXECUTE FUNCTION co_log_row();
INSERT INTO co_trig VALUES (8, 8, NULL, NULL, NULL);
UPDATE co_trig SET a = a WHERE id IN (3, 6, 8);
DELETE FROM co_trig WHERE id IN (4, 8);
SELECT * FROM co_log ORDER BY op, id;

-- suppress_redundant_updates_trigger() compares the stored row with the new
-- one byte for byte: an UPDATE that changes nothing writes nothing, as on heap
-- (p4 .. p9 are never set, like co_h's p6 .. p9)
CREATE TABLE sup_h (f1 text, f2 int, f3 int,
	p4 int, p5 int, p6 int, p7 int, p8 int, p9 int);
CREATE TABLE sup_s (f1 text, f2 int, f3 int,
	p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO sup_h VALUES ('a', 1, NULL), ('b', 2, NULL), ('c', NULL, NULL);
INSERT INTO sup_s SELECT * FROM sup_h;
CREATE TRIGGER sup BEFORE UPDATE ON sup_h FOR EACH ROW
	EXECUTE FUNCTION suppress_redundant_updates_trigger();
CREATE TRIGGER sup BEFORE UPDATE ON sup_s FOR EACH ROW
	EXECUTE FUNCTION suppress_redundant_updates_trigger();
WITH u AS (UPDATE sup_h SET f1 = f1 RETURNING 1) SELECT count(*) AS heap_updated FROM u;
WITH u AS (UPDATE sup_s SET f1 = f1 RETURNING 1) SELECT count(*) AS slim_updated FROM u;
WITH u AS (UPDATE sup_h SET f2 = 7 WHERE f1 = 'c' RETURNING 1) SELECT count(*) AS heap_updated FROM u;
WITH u AS (UPDATE sup_s SET f2 = 7 WHERE f1 = 'c' RETURNING 1) SELECT count(*) AS slim_updated FROM u;
-- the same in the full mode
ALTER TABLE sup_s SET (slimheap.null_bitmap = full);
UPDATE sup_s SET f3 = NULL;
WITH u AS (UPDATE sup_s SET f1 = f1 RETURNING 1) SELECT count(*) AS slim_full_updated FROM u;
SELECT * FROM sup_s ORDER BY f1;
