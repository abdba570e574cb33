--
-- INSERT ... SELECT from a table of the same layout hands the source's
-- stored tuple to the table AM; slimheap then rewrites only its header
-- (slim_trim_tuple) instead of deforming and forming the row.  These rows
-- must read back, and be stored, exactly as if they had been formed from
-- their values.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

-- a heap source with mixed alignments and widths
CREATE TABLE ins_src (id int, a int2, b int8, c text, d bool, e float8,
					  f numeric, g int4, h text, i int2, j int8, k bool,
					  l int4, m int4, n int4, o int4, p int4, q text);
INSERT INTO ins_src (id) VALUES (1);
INSERT INTO ins_src (id, a) VALUES (2, 2);
INSERT INTO ins_src (id, b, c) VALUES (3, 3, 'three');
INSERT INTO ins_src (id, q) VALUES (4, 'last only');
INSERT INTO ins_src VALUES (5, 5, 5, 'five', true, 5.5, 5.55, 5, 'v', 5, 5,
							false, 5, 5, 5, 5, 5, 'all set');
INSERT INTO ins_src (id, e, f, g) VALUES (6, 6.5, 66.6, 6);
INSERT INTO ins_src (id, a, k) VALUES (7, 7, true);
INSERT INTO ins_src (id, c, h, p) VALUES (8, repeat('x', 300), 'eight', 8);
INSERT INTO ins_src (id, a, b, c, d, e, f, g, h) VALUES
	(9, NULL, 9, NULL, true, NULL, 9, NULL, 'nine');
INSERT INTO ins_src (id, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q)
	SELECT g,
		   CASE WHEN g % 2 = 0 THEN g END, CASE WHEN g % 3 = 0 THEN g END,
		   CASE WHEN g % 5 = 0 THEN 't' || g END, CASE WHEN g % 7 = 0 THEN true END,
		   CASE WHEN g % 11 = 0 THEN g / 3.0 END, CASE WHEN g % 13 = 0 THEN g END,
		   CASE WHEN g % 4 = 0 THEN g END, CASE WHEN g % 6 = 0 THEN 'h' || g END,
		   CASE WHEN g % 8 = 0 THEN g END, CASE WHEN g % 9 = 0 THEN g END,
		   CASE WHEN g % 10 = 0 THEN false END, CASE WHEN g % 12 = 0 THEN g END,
		   CASE WHEN g % 14 = 0 THEN g END, CASE WHEN g % 15 = 0 THEN g END,
		   CASE WHEN g % 16 = 0 THEN g END, CASE WHEN g % 17 = 0 THEN g END,
		   CASE WHEN g % 18 = 0 THEN 'q' || g END
	FROM generate_series(10, 400) g;

CREATE TABLE ins_heap (LIKE ins_src);
CREATE TABLE ins_slim (LIKE ins_src) USING slimheap;
INSERT INTO ins_heap SELECT * FROM ins_src;
INSERT INTO ins_slim SELECT * FROM ins_src;
SELECT twin.compare('ins_heap', 'ins_slim');
SELECT * FROM twin.storage('ins_heap', 'ins_slim', 'id');
SELECT * FROM twin.same_data('ins_heap', 'ins_slim', 'id');
SELECT * FROM twin.natts_rule('ins_slim');
-- the all-NULL-but-id row and the last-only row
SELECT st.id, s.natts, s.hoff, s.len, s.bits
FROM ins_slim st JOIN twin.stored('ins_slim') s ON s.tid = st.ctid
WHERE st.id IN (1, 2, 4, 5) ORDER BY st.id;

-- a slimheap source stores fewer attributes than its descriptor: formed
-- from values, same result
CREATE TABLE ins_slim2 (LIKE ins_src) USING slimheap;
INSERT INTO ins_slim2 SELECT * FROM ins_slim;
SELECT twin.compare('ins_heap', 'ins_slim2');
SELECT * FROM twin.natts_rule('ins_slim2');

-- the full mode copies the tuple as heap does: byte for byte
CREATE TABLE ins_full (LIKE ins_src) USING slimheap
	WITH (slimheap.null_bitmap = full);
INSERT INTO ins_full SELECT * FROM ins_src;
SELECT count(*) AS rows,
	   count(*) FILTER (WHERE (fs.natts, fs.hoff, fs.len, fs.bits, fs.data)
						IS DISTINCT FROM (hs.natts, hs.hoff, hs.len, hs.bits, hs.data))
		 AS differ
FROM ins_heap ht JOIN twin.stored('ins_heap') hs ON hs.tid = ht.ctid
JOIN ins_full ft ON ft.id = ht.id
JOIN twin.stored('ins_full') fs ON fs.tid = ft.ctid;

-- a target whose column has a fast default keeps an explicit NULL in it
-- (invariant T1), also when the source tuple is copied.  p5 .. p9 are never
-- set: they make the target wider than 8 attributes, so that its rows are
-- stored truncated (a narrower table stores heap's full form in every mode,
-- docs/narrow-slot.md); the source has the same columns
CREATE TABLE fd_src (id int, v int, w int, x int, p5 int, p6 int, p7 int,
					 p8 int, p9 int);
INSERT INTO fd_src VALUES (1, NULL, NULL, NULL), (2, 2, NULL, NULL),
	(3, NULL, 3, NULL);
CREATE TABLE fd_heap (id int, v int);
CREATE TABLE fd_slim (id int, v int) USING slimheap;
INSERT INTO fd_heap VALUES (0, 0);
INSERT INTO fd_slim VALUES (0, 0);
ALTER TABLE fd_heap ADD COLUMN w int DEFAULT 42, ADD COLUMN x int,
	ADD COLUMN p5 int, ADD COLUMN p6 int, ADD COLUMN p7 int, ADD COLUMN p8 int,
	ADD COLUMN p9 int;
ALTER TABLE fd_slim ADD COLUMN w int DEFAULT 42, ADD COLUMN x int,
	ADD COLUMN p5 int, ADD COLUMN p6 int, ADD COLUMN p7 int, ADD COLUMN p8 int,
	ADD COLUMN p9 int;
INSERT INTO fd_heap SELECT * FROM fd_src;
INSERT INTO fd_slim SELECT * FROM fd_src;
SELECT * FROM fd_slim ORDER BY id;
SELECT twin.compare('fd_heap', 'fd_slim');
SELECT st.id, s.natts, s.bits
FROM fd_slim st JOIN twin.stored('fd_slim') s ON s.tid = st.ctid ORDER BY st.id;

-- a row whose heap form is just over the TOAST threshold and whose slim
-- form would be just under it is toasted like heap's, never stored longer
CREATE TABLE tw_src (id int, t text);
ALTER TABLE tw_src ALTER COLUMN t SET STORAGE plain;
DO $$
BEGIN
	EXECUTE 'ALTER TABLE tw_src ' ||
		(SELECT string_agg(format('ADD COLUMN n%s int', i), ', ')
		   FROM generate_series(1, 400) i);
END $$;
INSERT INTO tw_src (id, t) VALUES (1, repeat('ab', 980)), (2, repeat('ab', 400));
CREATE TABLE tw_heap (LIKE tw_src);
CREATE TABLE tw_slim (LIKE tw_src) USING slimheap;
ALTER TABLE tw_heap ALTER COLUMN t SET STORAGE extended;
ALTER TABLE tw_slim ALTER COLUMN t SET STORAGE extended;
INSERT INTO tw_heap SELECT * FROM tw_src;
INSERT INTO tw_slim SELECT * FROM tw_src;
SELECT twin.compare('tw_heap', 'tw_slim');
SELECT * FROM twin.storage('tw_heap', 'tw_slim', 'id');
SELECT ht.id, hs.len AS heap_len, ss.len AS slim_len, ss.natts AS slim_natts
FROM tw_heap ht JOIN twin.stored('tw_heap') hs ON hs.tid = ht.ctid
JOIN tw_slim st ON st.id = ht.id JOIN twin.stored('tw_slim') ss ON ss.tid = st.ctid
ORDER BY ht.id;

-- a BEFORE trigger that returns a row of its own: stored in slim form
CREATE FUNCTION ins_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.b := NULL;
	RETURN NEW;
END $$;
CREATE TABLE trg_heap (LIKE ins_src);
CREATE TABLE trg_slim (LIKE ins_src) USING slimheap;
CREATE TRIGGER touch BEFORE INSERT ON trg_heap FOR EACH ROW EXECUTE FUNCTION ins_touch();
CREATE TRIGGER touch BEFORE INSERT ON trg_slim FOR EACH ROW EXECUTE FUNCTION ins_touch();
INSERT INTO trg_heap SELECT * FROM ins_src;
INSERT INTO trg_slim SELECT * FROM ins_src;
SELECT twin.compare('trg_heap', 'trg_slim');
SELECT * FROM twin.storage('trg_heap', 'trg_slim', 'id');
SELECT * FROM twin.natts_rule('trg_slim');

DROP TABLE ins_src, ins_heap, ins_slim, ins_slim2, ins_full, fd_src, fd_heap,
	fd_slim, tw_src, tw_heap, tw_slim, trg_heap, trg_slim;
DROP FUNCTION ins_touch();
