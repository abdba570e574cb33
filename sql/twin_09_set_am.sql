--
-- ALTER TABLE ... SET ACCESS METHOD heap -> slimheap -> heap -> slimheap: a
-- rewrite that re-forms every row in the new access method's form.  The
-- data (including explicit NULLs in fast-default columns, TOAST values and
-- index entries) must survive each step; pageinspect shows the row forms.
--
CREATE SCHEMA twin_set_am;
SET search_path = twin_set_am, public;

-- the stored natts of each row, and whether it has a bitmap
CREATE FUNCTION forms(rel regclass) RETURNS TABLE (id int, natts int, hoff int, has_bitmap bool)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT t.id, s.natts, s.hoff, s.bits IS NOT NULL FROM %s t'
		' JOIN twin.stored(%s::regclass) s ON s.tid = t.ctid ORDER BY t.id', rel, rel::oid);
END
$$;

-- the reference stays heap; am_t moves between the access methods
CREATE TABLE am_ref (id int PRIMARY KEY, a int, b text, c int, big text) USING heap;
CREATE TABLE am_t (id int PRIMARY KEY, a int, b text, c int, big text) USING heap;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['am_ref', 'am_t'] LOOP
		EXECUTE format('ALTER TABLE %s %s', t,
					   (SELECT string_agg(format('ADD COLUMN x%s int', i), ', ')
						FROM generate_series(1, 12) AS i));
		EXECUTE format($i$
INSERT INTO %1$s (id) VALUES (1);
INSERT INTO %1$s (id, a) VALUES (2, 2);
INSERT INTO %1$s (id, b, x12) VALUES (3, 'three', 12);
INSERT INTO %1$s (id, big) VALUES (4, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 200) AS i));
INSERT INTO %1$s (id, a, c) VALUES (5, 5, 5);
ALTER TABLE %1$s ADD COLUMN d int DEFAULT 42;
INSERT INTO %1$s (id, d) VALUES (6, NULL), (7, 7);
INSERT INTO %1$s (id) VALUES (8);
UPDATE %1$s SET d = NULL WHERE id = 2;
ALTER TABLE %1$s ADD COLUMN y1 int, ADD COLUMN y2 int;
INSERT INTO %1$s (id, d, y1) VALUES (10, NULL, 1);
CREATE INDEX ON %1$s (d);
CREATE INDEX ON %1$s (c) WHERE d IS NULL;
$i$, t);
	END LOOP;
END
$$;

SELECT id, a, b, c, length(big) AS big, x12, d, y1, y2 FROM am_t ORDER BY id;
SELECT * FROM forms('am_t');

-- heap -> slimheap: the rows lose their trailing NULLs (y1, y2), but keep
-- d (attribute 18): its fast default is still in the catalog during the
-- rewrite, and the rows stored before d existed get 42 written out, as a
-- heap rewrite does (the reference is rewritten too, by VACUUM FULL)
VACUUM FULL am_ref;
ALTER TABLE am_t SET ACCESS METHOD slimheap;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'am_t'::regclass;
SELECT * FROM forms('am_t');
SELECT * FROM twin.compare('am_ref', 'am_t');
SELECT * FROM twin.storage('am_ref', 'am_t', 'id');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM twin.query('SELECT id FROM %s WHERE d IS NULL', 'am_ref', 'am_t');
SELECT * FROM twin.query('SELECT id FROM %s WHERE d = 42', 'am_ref', 'am_t');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'am_t'::regclass ORDER BY c.relname;

-- slimheap rows written now are truncated too
INSERT INTO am_ref (id, a) VALUES (9, 9);
INSERT INTO am_t (id, a) VALUES (9, 9);
UPDATE am_ref SET x12 = NULL, b = 'b' WHERE id = 3;
UPDATE am_t SET x12 = NULL, b = 'b' WHERE id = 3;

-- slimheap -> heap: every row gets heap's full form back
ALTER TABLE am_t SET ACCESS METHOD heap;
SELECT * FROM forms('am_t');
SELECT * FROM twin.compare('am_ref', 'am_t');
-- the same forms as the reference
SELECT * FROM forms('am_ref') r FULL JOIN forms('am_t') t USING (id)
WHERE r IS DISTINCT FROM t;

-- heap -> slimheap again, now without fast defaults
ALTER TABLE am_t SET ACCESS METHOD slimheap;
SELECT * FROM forms('am_t');
SELECT * FROM twin.compare('am_ref', 'am_t');
SELECT * FROM twin.storage('am_ref', 'am_t', 'id');
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'am_t'::regclass ORDER BY c.relname;
SELECT id, length(big) AS big, md5(big) FROM am_t WHERE big IS NOT NULL;

SET client_min_messages = warning;
DROP SCHEMA twin_set_am CASCADE;
RESET client_min_messages;
