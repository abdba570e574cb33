--
-- Constraints on slimheap tables: CHECK and NOT NULL (also added later, which
-- scans the stored rows), foreign keys in both directions between heap and
-- slimheap tables (with actions that set trailing columns to NULL), unique,
-- exclusion and generated columns.  Same statements on the heap twins; the
-- errors must be the same too.  Columns p<n> (n their attribute number) are
-- never set: they make the tables wider than 8 attributes, so that rows
-- ending in NULLs are stored truncated (a narrower table stores heap's full
-- form in every mode, docs/narrow-slot.md).
--
CREATE SCHEMA twin_constraint;
SET search_path = twin_constraint, public;

--
-- CHECK and NOT NULL
--
CREATE TABLE chk_h (id int NOT NULL, a int, b int CHECK (b IS NULL OR b > 0),
                    c text, CHECK (num_nonnulls(a, b, c) <= 2),
                    p5 int, p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE chk_s (id int NOT NULL, a int, b int CHECK (b IS NULL OR b > 0),
                    c text, CHECK (num_nonnulls(a, b, c) <= 2),
                    p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO chk_h VALUES (1, NULL, NULL, NULL), (2, 2, NULL, NULL), (3, NULL, 3, NULL), (4, NULL, NULL, 'four');
INSERT INTO chk_s VALUES (1, NULL, NULL, NULL), (2, 2, NULL, NULL), (3, NULL, 3, NULL), (4, NULL, NULL, 'four');
INSERT INTO chk_h VALUES (5, NULL, -5);
INSERT INTO chk_s VALUES (5, NULL, -5);
INSERT INTO chk_h VALUES (6, 6, 6, 'six');
INSERT INTO chk_s VALUES (6, 6, 6, 'six');
INSERT INTO chk_h VALUES (NULL, 7);
INSERT INTO chk_s VALUES (NULL, 7);
UPDATE chk_h SET c = 'x' WHERE id = 2;
UPDATE chk_s SET c = 'x' WHERE id = 2;
UPDATE chk_h SET b = 1 WHERE id = 2;
UPDATE chk_s SET b = 1 WHERE id = 2;
-- constraints added later check the stored rows (trailing NULLs included)
ALTER TABLE chk_h ADD CONSTRAINT c_set CHECK (c IS NOT NULL);
ALTER TABLE chk_s ADD CONSTRAINT c_set CHECK (c IS NOT NULL);
ALTER TABLE chk_h ALTER COLUMN c SET NOT NULL;
ALTER TABLE chk_s ALTER COLUMN c SET NOT NULL;
ALTER TABLE chk_h ADD CONSTRAINT a_null CHECK (a IS NULL) NOT VALID;
ALTER TABLE chk_s ADD CONSTRAINT a_null CHECK (a IS NULL) NOT VALID;
ALTER TABLE chk_h VALIDATE CONSTRAINT a_null;
ALTER TABLE chk_s VALIDATE CONSTRAINT a_null;
DELETE FROM chk_h WHERE a IS NOT NULL;
DELETE FROM chk_s WHERE a IS NOT NULL;
ALTER TABLE chk_h VALIDATE CONSTRAINT a_null;
ALTER TABLE chk_s VALIDATE CONSTRAINT a_null;
UPDATE chk_h SET c = 'set' WHERE c IS NULL;
UPDATE chk_s SET c = 'set' WHERE c IS NULL;
ALTER TABLE chk_h ALTER COLUMN c SET NOT NULL;
ALTER TABLE chk_s ALTER COLUMN c SET NOT NULL;
INSERT INTO chk_h (id) VALUES (8);
INSERT INTO chk_s (id) VALUES (8);
SELECT * FROM chk_s ORDER BY id;
SELECT * FROM twin.compare('chk_h', 'chk_s');

--
-- Foreign keys: slimheap referencing heap, heap referencing slimheap, and
-- slimheap referencing slimheap.  The referencing columns come last (but
-- for p5 .. p9), so SET NULL actions make rows end earlier.
--
CREATE TABLE pk_heap (k int PRIMARY KEY, k2 int UNIQUE) USING heap;
CREATE TABLE pk_slim (k int PRIMARY KEY, k2 int UNIQUE, extra text) USING slimheap;
INSERT INTO pk_heap SELECT g, g + 100 FROM generate_series(1, 10) AS g;
INSERT INTO pk_slim SELECT g, g + 100, NULL FROM generate_series(1, 10) AS g;
-- the twins: fk_h_* are heap, fk_s_* slimheap
CREATE TABLE fk_h_to_heap (id int PRIMARY KEY, note text,
  r int REFERENCES pk_heap ON DELETE SET NULL,
  r2 int REFERENCES pk_heap (k2) ON UPDATE CASCADE ON DELETE CASCADE,
  p5 int, p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE fk_s_to_heap (id int PRIMARY KEY, note text,
  r int REFERENCES pk_heap ON DELETE SET NULL,
  r2 int REFERENCES pk_heap (k2) ON UPDATE CASCADE ON DELETE CASCADE,
  p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
CREATE TABLE fk_h_to_slim (id int PRIMARY KEY, note text,
  r int REFERENCES pk_slim ON DELETE SET NULL,
  r2 int REFERENCES pk_slim (k2) ON UPDATE CASCADE ON DELETE CASCADE,
  p5 int, p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE fk_s_to_slim (id int PRIMARY KEY, note text,
  r int REFERENCES pk_slim ON DELETE SET NULL,
  r2 int REFERENCES pk_slim (k2) ON UPDATE CASCADE ON DELETE CASCADE,
  p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO fk_h_to_heap VALUES (1, 'a', 1, 101), (2, NULL, 2, NULL), (3, NULL, NULL, 103), (4, NULL, NULL, NULL), (5, 'e', 5, 105);
INSERT INTO fk_s_to_heap VALUES (1, 'a', 1, 101), (2, NULL, 2, NULL), (3, NULL, NULL, 103), (4, NULL, NULL, NULL), (5, 'e', 5, 105);
INSERT INTO fk_h_to_slim VALUES (1, 'a', 1, 101), (2, NULL, 2, NULL), (3, NULL, NULL, 103), (4, NULL, NULL, NULL), (5, 'e', 5, 105);
INSERT INTO fk_s_to_slim VALUES (1, 'a', 1, 101), (2, NULL, 2, NULL), (3, NULL, NULL, 103), (4, NULL, NULL, NULL), (5, 'e', 5, 105);
-- violations
INSERT INTO fk_s_to_heap VALUES (6, NULL, 99);
INSERT INTO fk_h_to_slim VALUES (6, NULL, NULL, 999);
INSERT INTO fk_s_to_slim VALUES (6, NULL, 99);
UPDATE fk_s_to_heap SET r = 42 WHERE id = 4;
-- the actions run as RI triggers: deleting keys 1 and 5 sets r of rows 1
-- and 5 to NULL (SET NULL) and deletes them (CASCADE on r2); updating k2 of
-- key 3 changes r2 of row 3 (ON UPDATE CASCADE)
DELETE FROM pk_heap WHERE k IN (1, 5);
DELETE FROM pk_slim WHERE k IN (1, 5);
UPDATE pk_heap SET k2 = k2 + 1000 WHERE k = 3;
UPDATE pk_slim SET k2 = k2 + 1000 WHERE k = 3;
-- a referencing row must block deleting a referenced row of an
-- ON DELETE RESTRICT key
CREATE TABLE fk_restrict_s (id int, r int REFERENCES pk_slim ON DELETE RESTRICT) USING slimheap;
INSERT INTO fk_restrict_s VALUES (1, 4), (2, NULL);
-- (the error changed in PostgreSQL 18: its wording, and its SQLSTATE from
-- 23503 foreign_key_violation to 23001 restrict_violation; show its class
-- and what it names)
DO $$
DECLARE
	state text;
	cons text;
	tab text;
BEGIN
	DELETE FROM pk_slim WHERE k = 4;
	RAISE NOTICE 'deleted';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE,
		cons = CONSTRAINT_NAME, tab = TABLE_NAME;
	RAISE NOTICE 'SQLSTATE class %, constraint %, table %',
		left(state, 2), cons, tab;
END $$;
SELECT k FROM pk_slim WHERE k = 4;
SELECT * FROM fk_s_to_heap ORDER BY id;
SELECT * FROM fk_s_to_slim ORDER BY id;
SELECT * FROM twin.compare('fk_h_to_heap', 'fk_s_to_heap');
SELECT * FROM twin.compare('fk_h_to_heap', 'fk_h_to_slim');
SELECT * FROM twin.compare('fk_h_to_heap', 'fk_s_to_slim');
SELECT * FROM twin.natts_rule('fk_s_to_heap');
SELECT * FROM twin.natts_rule('fk_s_to_slim');
-- adding a foreign key validates the stored rows
ALTER TABLE fk_s_to_slim ADD CONSTRAINT r2_k FOREIGN KEY (r2) REFERENCES pk_slim (k);
UPDATE fk_s_to_slim SET r2 = NULL WHERE r2 > 1000;
ALTER TABLE fk_s_to_slim ADD CONSTRAINT r2_k FOREIGN KEY (r2) REFERENCES pk_slim (k);

--
-- Unique (deferrable) and exclusion constraints
--
CREATE TABLE uq_h (id int, u int UNIQUE DEFERRABLE INITIALLY DEFERRED,
                   r int4range, EXCLUDE USING gist (r WITH &&),
                   p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE uq_s (id int, u int UNIQUE DEFERRABLE INITIALLY DEFERRED,
                   r int4range, EXCLUDE USING gist (r WITH &&),
                   p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO uq_h VALUES (1, NULL, NULL), (2, NULL, NULL), (3, 3, '[1,5)'), (4, 4, NULL);
INSERT INTO uq_s VALUES (1, NULL, NULL), (2, NULL, NULL), (3, 3, '[1,5)'), (4, 4, NULL);
INSERT INTO uq_h VALUES (5, NULL, '[4,6)');
INSERT INTO uq_s VALUES (5, NULL, '[4,6)');
INSERT INTO uq_h VALUES (5, NULL, '[5,6)');
INSERT INTO uq_s VALUES (5, NULL, '[5,6)');
-- swapping two unique values is fine when checked at commit
BEGIN;
UPDATE uq_h SET u = 4 WHERE id = 3;
UPDATE uq_h SET u = 3 WHERE id = 4;
UPDATE uq_s SET u = 4 WHERE id = 3;
UPDATE uq_s SET u = 3 WHERE id = 4;
COMMIT;
-- a trailing NULL becoming a duplicate is not
BEGIN;
UPDATE uq_s SET u = 4 WHERE id = 1;
COMMIT;
SELECT * FROM uq_s ORDER BY id;
SELECT * FROM twin.compare('uq_h', 'uq_s');

--
-- Generated columns (STORED), the last one (g2) NULL whenever c is
--
CREATE TABLE gen_h (id int, a int, c int,
                    g1 int GENERATED ALWAYS AS (coalesce(a, 0) + 1) STORED,
                    g2 int GENERATED ALWAYS AS (c * 2) STORED,
                    p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE gen_s (id int, a int, c int,
                    g1 int GENERATED ALWAYS AS (coalesce(a, 0) + 1) STORED,
                    g2 int GENERATED ALWAYS AS (c * 2) STORED,
                    p6 int, p7 int, p8 int, p9 int) USING slimheap;
INSERT INTO gen_h (id, a, c) VALUES (1, NULL, NULL), (2, 2, NULL), (3, NULL, 3);
INSERT INTO gen_s (id, a, c) VALUES (1, NULL, NULL), (2, 2, NULL), (3, NULL, 3);
COPY gen_h (id, a, c) FROM stdin;
4	\N	4
5	5	\N
\.
COPY gen_s (id, a, c) FROM stdin;
4	\N	4
5	5	\N
\.
UPDATE gen_h SET c = 10 WHERE id = 1;
UPDATE gen_s SET c = 10 WHERE id = 1;
UPDATE gen_h SET c = NULL WHERE id = 3;
UPDATE gen_s SET c = NULL WHERE id = 3;
SELECT t.*, s.natts FROM gen_s t JOIN twin.stored('gen_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.compare('gen_h', 'gen_s');
-- a generated column added to a table with truncated rows (a rewrite)
ALTER TABLE gen_h ADD COLUMN g3 text GENERATED ALWAYS AS (CASE WHEN a IS NULL THEN 'a null' END) STORED;
ALTER TABLE gen_s ADD COLUMN g3 text GENERATED ALWAYS AS (CASE WHEN a IS NULL THEN 'a null' END) STORED;
SELECT t.*, s.natts FROM gen_s t JOIN twin.stored('gen_s') s ON s.tid = t.ctid ORDER BY id;
SELECT * FROM twin.compare('gen_h', 'gen_s');
SELECT * FROM twin.storage('gen_h', 'gen_s', 'id');

SET client_min_messages = warning;
DROP SCHEMA twin_constraint CASCADE;
RESET client_min_messages;
