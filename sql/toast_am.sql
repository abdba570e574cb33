--
-- The TOAST table of a slimheap table uses heap's access method: the
-- toaster writes its rows with heap_insert() whatever the table's access
-- method, so they are heap's, and amcheck's verify_heapam() and pgstattuple
-- read them (both refuse other access methods).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE EXTENSION IF NOT EXISTS pgstattuple;
RESET client_min_messages;

-- the access method of a table and of its TOAST table
CREATE FUNCTION toast_ams(rel regclass, OUT table_am name, OUT toast_am name)
LANGUAGE sql AS $$
	SELECT a.amname, ta.amname
	  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	  JOIN pg_class t ON t.oid = c.reltoastrelid
	  JOIN pg_am ta ON ta.oid = t.relam
	 WHERE c.oid = rel
$$;
-- amcheck and pgstattuple on the TOAST table, and the values read back
CREATE FUNCTION toast_check(rel regclass, OUT problems bigint,
							OUT toast_chunks bigint, OUT stored text)
LANGUAGE plpgsql AS $$
DECLARE
	toast regclass := (SELECT reltoastrelid FROM pg_class WHERE oid = rel);
BEGIN
	SELECT count(*) INTO problems FROM verify_heapam(toast);
	SELECT tuple_count INTO toast_chunks FROM pgstattuple(toast);
	EXECUTE format('SELECT count(*) || '' rows, '' || sum(length(t)) || '' chars, '' || md5(string_agg(t, '''' ORDER BY id)) FROM %s', rel)
		INTO stored;
END $$;

-- values stored out of line, uncompressed: 4 chunks each
CREATE TABLE ta (id int, t text, pad int) USING slimheap;
ALTER TABLE ta ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO ta SELECT g, repeat(md5(g::text), 200) FROM generate_series(1, 20) g;
SELECT * FROM toast_ams('ta');
SELECT * FROM toast_check('ta');
SELECT count(*) AS problems FROM slimheap.verify('ta');

-- rewrites: VACUUM FULL and CLUSTER swap the TOAST tables by content,
-- ALTER TABLE by links; each new one is heap's
VACUUM FULL ta;
SELECT * FROM toast_ams('ta');
SELECT * FROM toast_check('ta');
CREATE INDEX ta_id ON ta (id);
CLUSTER ta USING ta_id;
SELECT * FROM toast_ams('ta');
SELECT * FROM toast_check('ta');
ALTER TABLE ta ALTER COLUMN pad TYPE bigint;
SELECT * FROM toast_ams('ta');
SELECT * FROM toast_check('ta');

-- a heap table converted, and back
CREATE TABLE th (id int, t text) USING heap;
ALTER TABLE th ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO th SELECT id, t FROM ta;
ALTER TABLE th SET ACCESS METHOD slimheap;
SELECT * FROM toast_ams('th');
SELECT * FROM toast_check('th');
ALTER TABLE th SET ACCESS METHOD heap;
SELECT * FROM toast_ams('th');

-- a TOAST table created later, for a column added to a table without one;
-- a materialized view
CREATE TABLE tl (id int, n int) USING slimheap;
SELECT reltoastrelid = 0 AS no_toast FROM pg_class WHERE relname = 'tl';
ALTER TABLE tl ADD COLUMN t text;
ALTER TABLE tl ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO tl (id, t) SELECT id, t FROM ta;
SELECT * FROM toast_ams('tl');
SELECT * FROM toast_check('tl');
CREATE MATERIALIZED VIEW tm USING slimheap AS SELECT id, t FROM ta;
SELECT * FROM toast_ams('tm');
SELECT count(*) AS problems FROM verify_heapam(
	(SELECT reltoastrelid FROM pg_class WHERE relname = 'tm')::regclass);

-- A table created by an earlier version has a TOAST table of slimheap's (made
-- here by hand).  It keeps working, and keeps it: VACUUM FULL and CLUSTER
-- swap it with a new one of the same access method, which core requires of
-- tables swapped by content.  SET ACCESS METHOD heap gives it heap's.
CREATE TABLE told (id int, t text) USING slimheap;
ALTER TABLE told ALTER COLUMN t SET STORAGE EXTERNAL;
INSERT INTO told SELECT id, t FROM ta;
UPDATE pg_class SET relam = (SELECT oid FROM pg_am WHERE amname = 'slimheap')
 WHERE oid = (SELECT reltoastrelid FROM pg_class WHERE relname = 'told');
SELECT * FROM toast_ams('told');
VACUUM FULL told;
SELECT * FROM toast_ams('told');
CREATE INDEX told_id ON told (id);
CLUSTER told USING told_id;
UPDATE told SET t = t || 'x' WHERE id = 1;
SELECT * FROM toast_ams('told');
SELECT count(*), sum(length(t)) FROM told;
SELECT count(*) AS problems FROM slimheap.verify('told');
ALTER TABLE told SET ACCESS METHOD heap;
SELECT * FROM toast_ams('told');
SELECT count(*), sum(length(t)) FROM told;

DROP MATERIALIZED VIEW tm;
DROP TABLE ta, th, tl, told;
DROP FUNCTION toast_ams(regclass), toast_check(regclass);
