--
-- ALTER TABLE and table rewrites on slimheap tables that hold truncated rows.
--
-- Invariant T1 (docs/reliability.md): a column added with ADD COLUMN ... DEFAULT has
-- a "missing" value that readers return for rows stored before it existed,
-- i.e. for every attribute past a row's stored natts.  A row that stores an
-- explicit NULL in such a column must keep it, or it would read back as the
-- default.  That must hold in the table and in its indexes, through every
-- rewrite: the indexes of VACUUM FULL, CLUSTER and ALTER TABLE rewrites are
-- rebuilt while the old missing values are still in the catalog.
-- bt_index_check(..., heapallindexed => true) re-forms each row's index
-- entry from the table and must find it in the index.
--
-- Columns p<n> (n their attribute number) are never set: they make the
-- tables wider than 8 attributes from the start, so that rows ending in
-- NULLs are stored truncated (a narrower table stores heap's full form in
-- every mode, docs/narrow-slot.md).
--
CREATE SCHEMA twin_alter;
SET search_path = twin_alter, public;

-- a volatile function (plpgsql, so not inlined): a default that uses it
-- makes ADD COLUMN rewrite the table
CREATE FUNCTION vol(i int) RETURNS int VOLATILE LANGUAGE plpgsql AS 'BEGIN RETURN i; END';

-- all btree indexes of a table pass amcheck's heapallindexed check
CREATE FUNCTION indexes_ok(rel regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	idx regclass;
	n int := 0;
BEGIN
	FOR idx IN SELECT i.indexrelid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			   WHERE i.indrelid = rel AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'btree')
			   ORDER BY c.relname
	LOOP
		PERFORM bt_index_check(idx, true);
		n := n + 1;
	END LOOP;
	RETURN format('%s btree indexes checked', n);
END
$$;

-- T1 check: the twins agree on the table and, through the indexes, on
-- which rows hold NULL and which hold the default in column col
CREATE FUNCTION t1_check(col text, dflt int) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY SELECT 'table: ' || x FROM twin.compare('alt_h', 'alt_s') AS x;
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	RETURN QUERY SELECT format('%s IS NULL: ', col) || x FROM twin.query(
			format('SELECT id FROM %%s WHERE %I IS NULL', col), 'alt_h', 'alt_s') AS x;
	RETURN QUERY SELECT format('%s = %s: ', col, dflt) || x FROM twin.query(
			format('SELECT id FROM %%s WHERE %I = %s', col, dflt), 'alt_h', 'alt_s') AS x;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'on', true);
	RETURN NEXT 'alt_s: ' || indexes_ok('alt_s');
END
$$;

CREATE TABLE alt_h (id int PRIMARY KEY, a int, b text,
                    p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE alt_s (id int PRIMARY KEY, a int, b text,
                    p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO alt_h VALUES (1, NULL, NULL), (2, 2, NULL), (3, NULL, 'three'), (4, 4, 'four');
INSERT INTO alt_s VALUES (1, NULL, NULL), (2, 2, NULL), (3, NULL, 'three'), (4, 4, 'four');

-- ADD COLUMN without a default: old rows read NULL
ALTER TABLE alt_h ADD COLUMN n int;
ALTER TABLE alt_s ADD COLUMN n int;
INSERT INTO alt_h (id, a, b, n) VALUES (5, 5, NULL, NULL), (6, NULL, NULL, 6);
INSERT INTO alt_s (id, a, b, n) VALUES (5, 5, NULL, NULL), (6, NULL, NULL, 6);

-- ADD COLUMN with a default: old rows read it; new rows store what they
-- are given, explicit NULLs included
ALTER TABLE alt_h ADD COLUMN d int DEFAULT 42;
ALTER TABLE alt_s ADD COLUMN d int DEFAULT 42;
INSERT INTO alt_h (id, a, b, n, d) VALUES (7, NULL, NULL, NULL, NULL), (9, 9, NULL, NULL, NULL);
INSERT INTO alt_s (id, a, b, n, d) VALUES (7, NULL, NULL, NULL, NULL), (9, 9, NULL, NULL, NULL);
INSERT INTO alt_h (id) VALUES (8);
INSERT INTO alt_s (id) VALUES (8);
INSERT INTO alt_h (id, d) VALUES (10, DEFAULT), (11, NULL);
INSERT INTO alt_s (id, d) VALUES (10, DEFAULT), (11, NULL);
-- the same through COPY (multi-insert) and ON CONFLICT (speculative insert)
COPY alt_h (id, d) FROM stdin;
19	\N
20	42
\.
COPY alt_s (id, d) FROM stdin;
19	\N
20	42
\.
INSERT INTO alt_h (id, d) VALUES (21, NULL) ON CONFLICT (id) DO NOTHING;
INSERT INTO alt_s (id, d) VALUES (21, NULL) ON CONFLICT (id) DO NOTHING;
-- old rows: an explicit NULL; and an update that does not touch d
UPDATE alt_h SET d = NULL WHERE id IN (1, 3);
UPDATE alt_s SET d = NULL WHERE id IN (1, 3);
UPDATE alt_h SET a = -a WHERE id = 2;
UPDATE alt_s SET a = -a WHERE id = 2;
CREATE INDEX alt_h_d ON alt_h (d);
CREATE INDEX alt_s_d ON alt_s (d);
CREATE INDEX alt_h_d_null ON alt_h (id) WHERE d IS NULL;
CREATE INDEX alt_s_d_null ON alt_s (id) WHERE d IS NULL;
-- rows 4, 5, 6 predate d and store fewer attributes: they read 42
SELECT t.*, s.natts FROM alt_s t JOIN twin.stored('alt_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM t1_check('d', 42);

-- rewrite 1: ALTER COLUMN TYPE of another column.  This one clears the
-- missing values before it rewrites (rows that read 42 get it written out),
-- so afterwards rows may leave out a NULL d again
ALTER TABLE alt_h ALTER COLUMN a TYPE bigint;
ALTER TABLE alt_s ALTER COLUMN a TYPE bigint;
SELECT t.*, s.natts FROM alt_s t JOIN twin.stored('alt_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM t1_check('d', 42);

-- rewrite 2: VACUUM FULL, with a new fast default column e
ALTER TABLE alt_h ADD COLUMN e int DEFAULT 7;
ALTER TABLE alt_s ADD COLUMN e int DEFAULT 7;
CREATE INDEX alt_h_e ON alt_h (e);
CREATE INDEX alt_s_e ON alt_s (e);
INSERT INTO alt_h (id, e) VALUES (12, NULL), (13, 7);
INSERT INTO alt_s (id, e) VALUES (12, NULL), (13, 7);
UPDATE alt_h SET e = NULL WHERE id IN (4, 7);
UPDATE alt_s SET e = NULL WHERE id IN (4, 7);
SELECT * FROM t1_check('e', 7);
VACUUM FULL alt_h;
VACUUM FULL alt_s;
SELECT t.*, s.natts FROM alt_s t JOIN twin.stored('alt_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM t1_check('e', 7);
SELECT * FROM t1_check('d', 42);

-- rewrite 3: CLUSTER by sorting (tuplesort), with a new fast default f
ALTER TABLE alt_h ADD COLUMN f int DEFAULT 8;
ALTER TABLE alt_s ADD COLUMN f int DEFAULT 8;
CREATE INDEX alt_h_f ON alt_h (f);
CREATE INDEX alt_s_f ON alt_s (f);
INSERT INTO alt_h (id, f) VALUES (14, NULL);
INSERT INTO alt_s (id, f) VALUES (14, NULL);
UPDATE alt_h SET f = NULL WHERE id IN (5, 12);
UPDATE alt_s SET f = NULL WHERE id IN (5, 12);
SET enable_indexscan = off;
CLUSTER alt_h USING alt_h_pkey;
CLUSTER alt_s USING alt_s_pkey;
RESET enable_indexscan;
SELECT * FROM t1_check('f', 8);
-- rows are in key order
SELECT array_agg(id ORDER BY ctid) AS physical_order FROM alt_s;

-- rewrite 4: CLUSTER by an index scan, with a new fast default g
ALTER TABLE alt_h ADD COLUMN g int DEFAULT 9;
ALTER TABLE alt_s ADD COLUMN g int DEFAULT 9;
CREATE INDEX alt_h_g ON alt_h (g);
CREATE INDEX alt_s_g ON alt_s (g);
INSERT INTO alt_h (id, g) VALUES (15, NULL);
INSERT INTO alt_s (id, g) VALUES (15, NULL);
UPDATE alt_h SET g = NULL WHERE id IN (6, 13);
UPDATE alt_s SET g = NULL WHERE id IN (6, 13);
CREATE INDEX alt_h_desc ON alt_h (id DESC);
CREATE INDEX alt_s_desc ON alt_s (id DESC);
SET enable_sort = off;
CLUSTER alt_h USING alt_h_desc;
CLUSTER alt_s USING alt_s_desc;
RESET enable_sort;
SELECT * FROM t1_check('g', 9);
SELECT array_agg(id ORDER BY ctid) AS physical_order FROM alt_s;

-- rewrite 5: ADD COLUMN with a volatile default, with a new fast default h
ALTER TABLE alt_h ADD COLUMN h int DEFAULT 10;
ALTER TABLE alt_s ADD COLUMN h int DEFAULT 10;
CREATE INDEX alt_h_h ON alt_h (h);
CREATE INDEX alt_s_h ON alt_s (h);
INSERT INTO alt_h (id, h) VALUES (16, NULL);
INSERT INTO alt_s (id, h) VALUES (16, NULL);
UPDATE alt_h SET h = NULL WHERE id IN (1, 14);
UPDATE alt_s SET h = NULL WHERE id IN (1, 14);
ALTER TABLE alt_h ADD COLUMN v int DEFAULT vol(NULL);
ALTER TABLE alt_s ADD COLUMN v int DEFAULT vol(NULL);
SELECT * FROM t1_check('h', 10);

-- rewrite 6: SET UNLOGGED and SET LOGGED, with a new fast default i
ALTER TABLE alt_h ADD COLUMN i int DEFAULT 11;
ALTER TABLE alt_s ADD COLUMN i int DEFAULT 11;
CREATE INDEX alt_h_i ON alt_h (i);
CREATE INDEX alt_s_i ON alt_s (i);
INSERT INTO alt_h (id, i) VALUES (17, NULL);
INSERT INTO alt_s (id, i) VALUES (17, NULL);
UPDATE alt_h SET i = NULL WHERE id IN (2, 15);
UPDATE alt_s SET i = NULL WHERE id IN (2, 15);
ALTER TABLE alt_h SET UNLOGGED;
ALTER TABLE alt_s SET UNLOGGED;
SELECT * FROM t1_check('i', 11);
ALTER TABLE alt_h SET LOGGED;
ALTER TABLE alt_s SET LOGGED;
SELECT * FROM t1_check('i', 11);

-- rewrite 7: ALTER COLUMN TYPE of a fast default column itself
ALTER TABLE alt_h ADD COLUMN j int DEFAULT 12;
ALTER TABLE alt_s ADD COLUMN j int DEFAULT 12;
CREATE INDEX alt_h_j ON alt_h (j);
CREATE INDEX alt_s_j ON alt_s (j);
INSERT INTO alt_h (id, j) VALUES (18, NULL);
INSERT INTO alt_s (id, j) VALUES (18, NULL);
UPDATE alt_h SET j = NULL WHERE id IN (3, 16);
UPDATE alt_s SET j = NULL WHERE id IN (3, 16);
ALTER TABLE alt_h ALTER COLUMN j TYPE bigint;
ALTER TABLE alt_s ALTER COLUMN j TYPE bigint;
SELECT * FROM t1_check('j', 12);

-- the final state of every column, and its stored form
SELECT t.*, s.natts FROM alt_s t JOIN twin.stored('alt_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.storage('alt_h', 'alt_s', 'id');

--
-- ADD COLUMN ... DEFAULT inside a transaction, a savepoint rolled back, and
-- a transaction rolled back: the rows written in between must follow the
-- columns as they are at that moment (the cached T1 floor is invalidated)
--
CREATE TABLE tx_h (id int, a int, p3 int, p4 int, p5 int, p6 int, p7 int,
                   p8 int, p9 int) USING heap;
CREATE TABLE tx_s (id int, a int, p3 int, p4 int, p5 int, p6 int, p7 int,
                   p8 int, p9 int) USING slimheap;
INSERT INTO tx_h VALUES (1, 1);
INSERT INTO tx_s VALUES (1, 1);
BEGIN;
ALTER TABLE tx_h ADD COLUMN d int DEFAULT 5;
ALTER TABLE tx_s ADD COLUMN d int DEFAULT 5;
INSERT INTO tx_h (id, a, d) VALUES (2, NULL, NULL);
INSERT INTO tx_s (id, a, d) VALUES (2, NULL, NULL);
SAVEPOINT sp;
ALTER TABLE tx_h ADD COLUMN e int DEFAULT 6;
ALTER TABLE tx_s ADD COLUMN e int DEFAULT 6;
INSERT INTO tx_h (id, a, d, e) VALUES (3, NULL, NULL, NULL);
INSERT INTO tx_s (id, a, d, e) VALUES (3, NULL, NULL, NULL);
ROLLBACK TO sp;
INSERT INTO tx_h (id, a, d) VALUES (4, NULL, NULL);
INSERT INTO tx_s (id, a, d) VALUES (4, NULL, NULL);
COMMIT;
BEGIN;
ALTER TABLE tx_h ADD COLUMN f int DEFAULT 7;
ALTER TABLE tx_s ADD COLUMN f int DEFAULT 7;
INSERT INTO tx_h (id, a, d, f) VALUES (5, NULL, NULL, NULL);
INSERT INTO tx_s (id, a, d, f) VALUES (5, NULL, NULL, NULL);
ROLLBACK;
INSERT INTO tx_h (id, a, d) VALUES (6, NULL, NULL);
INSERT INTO tx_s (id, a, d) VALUES (6, NULL, NULL);
SELECT t.*, s.natts FROM tx_s t JOIN twin.stored('tx_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.compare('tx_h', 'tx_s');

--
-- DROP COLUMN: a middle and a trailing column (d: only p6 .. p9 follow it);
-- dropped columns are stored as NULL by later writes and rewrites
--
CREATE TABLE drop_h (id int, a int, b text, c int, d int,
                     p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE drop_s (id int, a int, b text, c int, d int,
                     p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO drop_h VALUES (1, 1, 'b', 1, 1), (2, NULL, 'b', NULL, NULL), (3, 3, NULL, 3, NULL), (4, NULL, NULL, NULL, 4);
INSERT INTO drop_s VALUES (1, 1, 'b', 1, 1), (2, NULL, 'b', NULL, NULL), (3, 3, NULL, 3, NULL), (4, NULL, NULL, NULL, 4);
ALTER TABLE drop_h DROP COLUMN b;
ALTER TABLE drop_s DROP COLUMN b;
ALTER TABLE drop_h DROP COLUMN d;
ALTER TABLE drop_s DROP COLUMN d;
INSERT INTO drop_h VALUES (5, 5, NULL), (6, NULL, 6);
INSERT INTO drop_s VALUES (5, 5, NULL), (6, NULL, 6);
UPDATE drop_h SET c = 10 WHERE id = 4;
UPDATE drop_s SET c = 10 WHERE id = 4;
SELECT t.*, s.natts FROM drop_s t JOIN twin.stored('drop_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.compare('drop_h', 'drop_s');
VACUUM FULL drop_h;
VACUUM FULL drop_s;
-- after the rewrite no row stores the dropped trailing column d
SELECT t.*, s.natts FROM drop_s t JOIN twin.stored('drop_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.compare('drop_h', 'drop_s');
SELECT * FROM twin.storage('drop_h', 'drop_s', 'id');
ALTER TABLE drop_h ADD COLUMN e text DEFAULT 'e';
ALTER TABLE drop_s ADD COLUMN e text DEFAULT 'e';
INSERT INTO drop_h (id, a, c, e) VALUES (7, NULL, NULL, NULL);
INSERT INTO drop_s (id, a, c, e) VALUES (7, NULL, NULL, NULL);
SELECT * FROM drop_s ORDER BY id;
SELECT * FROM twin.compare('drop_h', 'drop_s');

--
-- ALTER COLUMN TYPE of a trailing column, with a USING that makes NULLs
--
CREATE TABLE typ_h (id int, a int, t text,
                    p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE typ_s (id int, a int, t text,
                    p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO typ_h VALUES (1, 1, '10'), (2, NULL, 'x'), (3, 3, NULL), (4, NULL, '40');
INSERT INTO typ_s VALUES (1, 1, '10'), (2, NULL, 'x'), (3, 3, NULL), (4, NULL, '40');
ALTER TABLE typ_h ALTER COLUMN t TYPE int USING CASE WHEN t ~ '^\d+$' THEN t::int END;
ALTER TABLE typ_s ALTER COLUMN t TYPE int USING CASE WHEN t ~ '^\d+$' THEN t::int END;
SELECT t.*, s.natts FROM typ_s t JOIN twin.stored('typ_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.compare('typ_h', 'typ_s');
SELECT * FROM twin.natts_rule('typ_s');

--
-- VACUUM and TRUNCATE: freed space is reused by new rows, TRUNCATE gives a
-- new file; the rows stay truncated
--
CREATE TABLE vac_h (id int, a int, b int, c int,
                    p5 int, p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE vac_s (id int, a int, b int, c int,
                    p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO vac_h SELECT g, g, CASE WHEN g % 2 = 0 THEN g END, CASE WHEN g % 3 = 0 THEN g END FROM generate_series(1, 1000) AS g;
INSERT INTO vac_s SELECT g, g, CASE WHEN g % 2 = 0 THEN g END, CASE WHEN g % 3 = 0 THEN g END FROM generate_series(1, 1000) AS g;
DELETE FROM vac_h WHERE id % 4 <> 0;
DELETE FROM vac_s WHERE id % 4 <> 0;
-- both in one statement, FREEZE: each page is pruned (an aggressive VACUUM
-- waits for a page another process pins), with the same horizon as near
-- as can be, so that the free space each twin reuses is alike
VACUUM (FREEZE) vac_h, vac_s;
INSERT INTO vac_h SELECT g, NULL, g FROM generate_series(1001, 1500) AS g;
INSERT INTO vac_s SELECT g, NULL, g FROM generate_series(1001, 1500) AS g;
SELECT * FROM twin.compare('vac_h', 'vac_s');
SELECT * FROM twin.natts_rule('vac_s');
SELECT pg_relation_size('vac_s') <= pg_relation_size('vac_h') AS slim_not_larger;
TRUNCATE vac_h;
TRUNCATE vac_s;
INSERT INTO vac_h VALUES (1, NULL, NULL, NULL), (2, 2, NULL, NULL);
INSERT INTO vac_s VALUES (1, NULL, NULL, NULL), (2, 2, NULL, NULL);
SELECT t.*, s.natts, s.len FROM vac_s t JOIN twin.stored('vac_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.compare('vac_h', 'vac_s');
-- TRUNCATE in the transaction that fills the table again
BEGIN;
TRUNCATE vac_s;
INSERT INTO vac_s VALUES (3, 3, NULL, NULL);
COMMIT;
SELECT t.*, s.natts, s.len FROM vac_s t JOIN twin.stored('vac_s') s ON s.tid = t.ctid ORDER BY id;

SET client_min_messages = warning;
DROP SCHEMA twin_alter CASCADE;
RESET client_min_messages;
