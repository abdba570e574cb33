--
-- TOAST-sized values in slimheap rows: 100 kB compressible and
-- incompressible texts, values compressed inline, then updates of other
-- columns, reads and rewrites.  Rows the toaster had to change are re-formed
-- by it with heap's full bitmap, so they are never longer than heap's; the
-- values and the number of TOAST chunks must be the heap twin's.
--
CREATE SCHEMA twin_toast;
SET search_path = twin_toast, public;
SET default_toast_compression = pglz;

-- the number of chunks in the TOAST table of rel
CREATE FUNCTION toast_chunks(rel regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = rel))
	INTO n;
	RETURN n;
END
$$;

-- 20 columns: id, a label, the big value, and 17 mostly NULL ones
CREATE TABLE tst_h (id int PRIMARY KEY, label text, big text) USING heap;
CREATE TABLE tst_s (id int PRIMARY KEY, label text, big text) USING slimheap;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['tst_h', 'tst_s'] LOOP
		EXECUTE format('ALTER TABLE %s %s', t,
					   (SELECT string_agg(format('ADD COLUMN c%s int', i), ', ')
						FROM generate_series(4, 20) AS i));
	END LOOP;
END
$$;

-- the values: 100 kB compressible, 100 kB incompressible (md5 chain),
-- 10 kB compressible (compressed inline), 3 kB incompressible (stored out
-- of line uncompressed), and a small one
CREATE TABLE vals (id int, label text, big text);
INSERT INTO vals VALUES
  (1, 'compressible 100k', repeat('slimheap ', 11112)),
  (2, 'incompressible 100k',
   (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 3125) AS i)),
  (3, 'compressible 10k', repeat('x', 10000)),
  (4, 'incompressible 3k',
   (SELECT string_agg(md5((-i)::text), '') FROM generate_series(1, 94) AS i)),
  (5, 'small', 'small'),
  (6, 'null', NULL);
INSERT INTO tst_h (id, label, big) SELECT id, label, big FROM vals;
INSERT INTO tst_s (id, label, big) SELECT id, label, big FROM vals;
-- the same values with the last column set
INSERT INTO tst_h (id, label, big, c20) SELECT id + 10, label, big, id FROM vals;
INSERT INTO tst_s (id, label, big, c20) SELECT id + 10, label, big, id FROM vals;

SELECT t.id, t.label, length(t.big) AS len, md5(t.big) = md5(v.big) AS same_value,
       pg_column_size(t.big) AS stored_size, s.natts, s.len AS row_len
FROM tst_s t JOIN vals v ON v.id = t.id % 10
JOIN twin.stored('tst_s') s ON s.tid = t.ctid ORDER BY t.id;
SELECT * FROM twin.compare('tst_h', 'tst_s');
SELECT * FROM twin.storage('tst_h', 'tst_s', 'id');
SELECT toast_chunks('tst_h') AS heap_chunks, toast_chunks('tst_s') AS slim_chunks;

-- update other columns: the TOAST pointers are kept, no chunks are added
UPDATE tst_h SET c4 = id;
UPDATE tst_s SET c4 = id;
UPDATE tst_h SET c20 = NULL, label = label || ' updated' WHERE id > 10;
UPDATE tst_s SET c20 = NULL, label = label || ' updated' WHERE id > 10;
VACUUM tst_h;
VACUUM tst_s;
SELECT toast_chunks('tst_h') AS heap_chunks, toast_chunks('tst_s') AS slim_chunks;
SELECT t.id, t.label, md5(t.big) = md5(v.big) AS same_value, t.c4, t.c20
FROM tst_s t JOIN vals v ON v.id = t.id % 10 ORDER BY t.id;
SELECT * FROM twin.compare('tst_h', 'tst_s');
SELECT * FROM twin.storage('tst_h', 'tst_s', 'id');

-- the big value shrinks: the row no longer needs the toaster and is
-- stored truncated again; the old chunks go with VACUUM
UPDATE tst_h SET big = left(big, 10), c4 = NULL WHERE id IN (2, 12);
UPDATE tst_s SET big = left(big, 10), c4 = NULL WHERE id IN (2, 12);
-- and grows again
UPDATE tst_h SET big = big || repeat(md5(big), 200) WHERE id = 5;
UPDATE tst_s SET big = big || repeat(md5(big), 200) WHERE id = 5;
VACUUM tst_h;
VACUUM tst_s;
SELECT toast_chunks('tst_h') AS heap_chunks, toast_chunks('tst_s') AS slim_chunks;
SELECT t.id, length(t.big) AS len, md5(t.big), s.natts, s.len AS row_len
FROM tst_s t JOIN twin.stored('tst_s') s ON s.tid = t.ctid
WHERE t.id IN (2, 5, 12) ORDER BY t.id;
SELECT * FROM twin.compare('tst_h', 'tst_s');
SELECT * FROM twin.storage('tst_h', 'tst_s', 'id');

-- a rewrite copies the values into the new TOAST table
VACUUM FULL tst_h;
VACUUM FULL tst_s;
SELECT toast_chunks('tst_h') AS heap_chunks, toast_chunks('tst_s') AS slim_chunks;
SELECT * FROM twin.compare('tst_h', 'tst_s');
SELECT * FROM twin.storage('tst_h', 'tst_s', 'id');
-- and the index on the TOASTed column's expression agrees
CREATE INDEX ON tst_s (md5(big));
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id FROM tst_s WHERE md5(big) = (SELECT md5(big) FROM vals WHERE id = 1) ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- more TOAST-sized rows, then DELETE
INSERT INTO tst_h (id, label, big, c10) SELECT id + 100, label, big, 1 FROM vals WHERE id <= 2;
INSERT INTO tst_s (id, label, big, c10) SELECT id + 100, label, big, 1 FROM vals WHERE id <= 2;
DELETE FROM tst_h WHERE id IN (1, 11);
DELETE FROM tst_s WHERE id IN (1, 11);
VACUUM tst_h;
VACUUM tst_s;
SELECT toast_chunks('tst_h') AS heap_chunks, toast_chunks('tst_s') AS slim_chunks;
SELECT * FROM twin.compare('tst_h', 'tst_s');

--
-- Rows near the TOAST threshold.  heap runs the toaster on a row longer
-- than TOAST_TUPLE_THRESHOLD (2032 bytes): it compresses its values or
-- moves them out of line.  With 400 mostly NULL columns heap's header is 56
-- bytes longer than slimheap's, so some rows are over the threshold in
-- heap's form and under it in slimheap's; slimheap must not store them
-- longer than heap does.
--
CREATE TABLE near_h (id int, t text) USING heap;
CREATE TABLE near_s (id int, t text) USING slimheap;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['near_h', 'near_s'] LOOP
		EXECUTE format('ALTER TABLE %s %s', t,
					   (SELECT string_agg(format('ADD COLUMN c%s int', i), ', ')
						FROM generate_series(1, 400) AS i));
	END LOOP;
END
$$;
CREATE TABLE near_vals (id int, t text);
INSERT INTO near_vals VALUES
  (1, repeat('ab', 980)),                                                -- compressible, 1960 bytes
  (2, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 62) AS i)),  -- incompressible, 1984
  (3, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 60) AS i)),  -- incompressible, 1920
  (4, repeat('ab', 700));                                                -- compressible, 1400
INSERT INTO near_h (id, t) SELECT id, t FROM near_vals;
INSERT INTO near_s (id, t) SELECT id, t FROM near_vals;
-- and the same values reached by an UPDATE
INSERT INTO near_h (id, t) SELECT id + 10, 'short' FROM near_vals;
INSERT INTO near_s (id, t) SELECT id + 10, 'short' FROM near_vals;
UPDATE near_h n SET t = v.t FROM near_vals v WHERE n.id = v.id + 10;
UPDATE near_s n SET t = v.t FROM near_vals v WHERE n.id = v.id + 10;
SELECT hs.id, length(hs.t) AS length, hst.natts AS heap_natts, hst.len AS heap_len,
       sst.natts AS slim_natts, sst.len AS slim_len
FROM near_h hs JOIN twin.stored('near_h') hst ON hst.tid = hs.ctid
JOIN near_s ss ON ss.id = hs.id JOIN twin.stored('near_s') sst ON sst.tid = ss.ctid
ORDER BY hs.id;
SELECT * FROM twin.compare('near_h', 'near_s');
SELECT * FROM twin.storage('near_h', 'near_s', 'id');
-- the same rows formed from their values (CREATE TABLE AS with computed
-- NULL columns; twin_14_toast_band covers the other paths that form rows)
DO $$
DECLARE
	am text;
BEGIN
	FOREACH am IN ARRAY ARRAY['heap', 'slimheap'] LOOP
		EXECUTE format('CREATE TABLE near_ctas_%s USING %s AS SELECT id, t, %s FROM near_vals',
					   left(am, 1), am,
					   (SELECT string_agg(format('NULL::int AS c%s', i), ', ')
						FROM generate_series(1, 400) AS i));
	END LOOP;
END
$$;
SELECT * FROM twin.compare('near_ctas_h', 'near_ctas_s');
SELECT * FROM twin.storage('near_ctas_h', 'near_ctas_s', 'id');

SET client_min_messages = warning;
DROP SCHEMA twin_toast CASCADE;
RESET client_min_messages;
