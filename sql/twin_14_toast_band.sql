--
-- Rows just over the TOAST threshold in heap's form, next to a heap twin,
-- on every path that forms slimheap rows: CREATE TABLE AS, materialized
-- views and REFRESH, ALTER TABLE rewrites, CLUSTER, VACUUM FULL, INSERT and
-- COPY.
--
-- heap toasts a row longer than TOAST_TUPLE_THRESHOLD (2032 bytes with 8 kB
-- pages).  Leaving out trailing NULLs shortens the header, so a row can be
-- over the threshold in heap's form and under it in slimheap's: it would
-- escape the toaster and be stored uncompressed, far longer than heap
-- stores it.  slimheap gives such a row heap's form, so the toaster treats
-- it as heap's.  Here: 402 columns (id, t, c1 .. c400, all c NULL), heap's
-- header 80 bytes (bitmap of 402 bits), slimheap's 24 (natts 2, no bitmap),
-- data 8 + L bytes for a text of L bytes: the band is 1945 <= L <= 2000.
-- The lengths L run from 1921 to 2025, below, through and above the band,
-- for a compressible value (heap compresses it inline) and an
-- incompressible one (heap moves it to the TOAST table).
--
-- On every path: no slimheap row is longer than its heap twin ("longer" is
-- 0), the rows heap toasted are the band rows and those above it, and the
-- rows below the band are shorter in slimheap.
--
CREATE SCHEMA twin_band;
SET search_path = twin_band, public;
SET default_toast_compression = pglz;

-- the values: id < 10000 compressible, id >= 10000 incompressible (md5
-- hex), stored as they are (storage "plain"), so that the statements below
-- read them uncompressed
CREATE TABLE src (id int, t text);
ALTER TABLE src ALTER COLUMN t SET STORAGE PLAIN;
INSERT INTO src
SELECT l, repeat('x', l) FROM generate_series(1921, 2025, 4) AS l
UNION ALL
SELECT 10000 + l,
	   left((SELECT string_agg(md5(l::text || '/' || i), '') FROM generate_series(1, 64) AS i), l)
FROM generate_series(1921, 2025, 4) AS l;

-- "NULL::int AS c1, ..., NULL::int AS c400" and "c1 int, ..., c400 int"
CREATE FUNCTION null_cols() RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(format('NULL::int AS c%s', i), ', ') FROM generate_series(1, 400) AS i
$$;
CREATE FUNCTION col_defs() RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(format('c%s int', i), ', ') FROM generate_series(1, 400) AS i
$$;

--
-- band(h, s): the twins h (heap) and s (slimheap) hold the same rows, and
-- per kind of value: the rows, how many of them heap stored toasted (shorter
-- than the value) and how many of those are in the band (slimheap's form
-- would fit under the threshold: 24 + 8 + L <= 2032), and the rows whose
-- slimheap form is longer (never), the same length or shorter than heap's.
--
CREATE FUNCTION band(h regclass, s regclass)
RETURNS TABLE (kind text, rows bigint, heap_toasted bigint, in_band bigint,
			   slim_longer bigint, same_len bigint, slim_shorter bigint)
LANGUAGE plpgsql AS $$
BEGIN
	IF (SELECT count(*) FROM twin.compare(h, s) AS c WHERE c NOT LIKE '% rows, identical') > 0 THEN
		RAISE EXCEPTION 'the twins % and % hold different rows', h, s;
	END IF;
	RETURN QUERY EXECUTE format(
		'SELECT CASE WHEN ht.id < 10000 THEN ''compressible'' ELSE ''incompressible'' END,'
		' count(*),'
		' count(*) FILTER (WHERE hs.len < length(ht.t)),'
		' count(*) FILTER (WHERE hs.len < length(ht.t) AND 32 + length(ht.t) <= 2032),'
		' count(*) FILTER (WHERE ss.len > hs.len),'
		' count(*) FILTER (WHERE ss.len = hs.len),'
		' count(*) FILTER (WHERE ss.len < hs.len)'
		' FROM %1$s ht JOIN twin.stored(%1$L::regclass) hs ON hs.tid = ht.ctid'
		' JOIN %2$s st ON st.id = ht.id'
		' JOIN twin.stored(%2$L::regclass) ss ON ss.tid = st.ctid'
		' GROUP BY 1 ORDER BY 1', h, s);
END
$$;

--
-- CREATE TABLE AS (the NULL columns are computed: the rows are formed from
-- their values)
--
DO $$
BEGIN
	EXECUTE format('CREATE TABLE ctas_h USING heap AS SELECT id, t, %s FROM src', null_cols());
	EXECUTE format('CREATE TABLE ctas_s USING slimheap AS SELECT id, t, %s FROM src', null_cols());
END
$$;
SELECT * FROM band('ctas_h', 'ctas_s');
-- the band rows of slimheap got heap's form (402 attributes), the rows
-- below the band slimheap's (2)
SELECT 32 + length(t) <= 2032 AS fits_slim_form, s.natts, count(*)
FROM ctas_s t JOIN twin.stored('ctas_s') s ON s.tid = t.ctid
WHERE 88 + length(t) > 2032
GROUP BY 1, 2 ORDER BY 1, 2;

--
-- materialized views, and REFRESH (which fills a new file)
--
DO $$
BEGIN
	EXECUTE format('CREATE MATERIALIZED VIEW mv_h USING heap AS SELECT id, t, %s FROM src', null_cols());
	EXECUTE format('CREATE MATERIALIZED VIEW mv_s USING slimheap AS SELECT id, t, %s FROM src', null_cols());
END
$$;
SELECT * FROM band('mv_h', 'mv_s');
SELECT relfilenode AS mv_file FROM pg_class WHERE relname = 'mv_s' \gset
REFRESH MATERIALIZED VIEW mv_h;
REFRESH MATERIALIZED VIEW mv_s;
SELECT relfilenode <> :mv_file AS refreshed_into_new_file FROM pg_class WHERE relname = 'mv_s';
SELECT * FROM band('mv_h', 'mv_s');
-- REFRESH ... CONCURRENTLY inserts the rows that changed
CREATE UNIQUE INDEX ON mv_h (id);
CREATE UNIQUE INDEX ON mv_s (id);
UPDATE src SET t = t || 'y' WHERE id % 8 = 1;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_h;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_s;
SELECT * FROM band('mv_h', 'mv_s');
UPDATE src SET t = left(t, -1) WHERE id % 8 = 1;

--
-- ALTER TABLE rewrites: the values were toasted when they were inserted; a
-- change of type whose USING expression makes new (uncompressed) values
-- from them rewrites the table, forming every row anew
--
DO $$
BEGIN
	EXECUTE format('CREATE TABLE alt_h (id int, t text, %s) USING heap', col_defs());
	EXECUTE format('CREATE TABLE alt_s (id int, t text, %s) USING slimheap', col_defs());
END
$$;
INSERT INTO alt_h (id, t) SELECT id, t FROM src;
INSERT INTO alt_s (id, t) SELECT id, t FROM src;
SELECT * FROM band('alt_h', 'alt_s');
SELECT relfilenode AS alt_file FROM pg_class WHERE relname = 'alt_s' \gset
ALTER TABLE alt_h ALTER COLUMN t TYPE text USING t || '';
ALTER TABLE alt_s ALTER COLUMN t TYPE text USING t || '';
SELECT relfilenode <> :alt_file AS rewritten FROM pg_class WHERE relname = 'alt_s';
SELECT * FROM band('alt_h', 'alt_s');

--
-- CLUSTER and VACUUM FULL copy the values of the old rows: rows stored with
-- the column's storage "plain" (never toasted, so not in the band), then the
-- storage set back to "extended" (a change of the catalog only), and the
-- rewrite forms the rows with values that may be toasted now
--
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['cl_h', 'cl_s', 'vf_h', 'vf_s'] LOOP
		EXECUTE format('CREATE TABLE %s (id int PRIMARY KEY, t text, %s) USING %s',
					   t, col_defs(), CASE WHEN t LIKE '%_h' THEN 'heap' ELSE 'slimheap' END);
		EXECUTE format('ALTER TABLE %s ALTER COLUMN t SET STORAGE PLAIN', t);
		EXECUTE format('INSERT INTO %s (id, t) SELECT id, t FROM src', t);
		EXECUTE format('ALTER TABLE %s ALTER COLUMN t SET STORAGE EXTENDED', t);
	END LOOP;
END
$$;
-- stored untoasted: slimheap shorter on every row
SELECT * FROM band('cl_h', 'cl_s');
CLUSTER cl_h USING cl_h_pkey;
CLUSTER cl_s USING cl_s_pkey;
SELECT * FROM band('cl_h', 'cl_s');
VACUUM FULL vf_h;
VACUUM FULL vf_s;
SELECT * FROM band('vf_h', 'vf_s');

--
-- INSERT: of the values of a query, of single rows, and rows given by a
-- BEFORE trigger
--
DO $$
BEGIN
	EXECUTE format('CREATE TABLE ins_h (id int, t text, %s) USING heap', col_defs());
	EXECUTE format('CREATE TABLE ins_s (id int, t text, %s) USING slimheap', col_defs());
END
$$;
INSERT INTO ins_h (id, t) SELECT id, t FROM src WHERE id % 3 = 0;
INSERT INTO ins_s (id, t) SELECT id, t FROM src WHERE id % 3 = 0;
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, t FROM src WHERE id % 3 = 1 LOOP
		INSERT INTO ins_h (id, t) VALUES (r.id, r.t);
		INSERT INTO ins_s (id, t) VALUES (r.id, r.t);
	END LOOP;
END
$$;
CREATE FUNCTION fill_t() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.t := (SELECT t FROM src WHERE id = NEW.id);
	RETURN NEW;
END
$$;
CREATE TRIGGER fill_t BEFORE INSERT ON ins_h FOR EACH ROW EXECUTE FUNCTION fill_t();
CREATE TRIGGER fill_t BEFORE INSERT ON ins_s FOR EACH ROW EXECUTE FUNCTION fill_t();
INSERT INTO ins_h (id) SELECT id FROM src WHERE id % 3 = 2;
INSERT INTO ins_s (id) SELECT id FROM src WHERE id % 3 = 2;
SELECT * FROM band('ins_h', 'ins_s');

--
-- COPY FROM a file (written by COPY TO in the data directory)
--
DO $$
BEGIN
	EXECUTE format('CREATE TABLE copy_h (id int, t text, %s) USING heap', col_defs());
	EXECUTE format('CREATE TABLE copy_s (id int, t text, %s) USING slimheap', col_defs());
	EXECUTE format('COPY src TO %L', current_setting('data_directory') || '/twin_band_src.copy');
	EXECUTE format('COPY copy_h (id, t) FROM %L', current_setting('data_directory') || '/twin_band_src.copy');
	EXECUTE format('COPY copy_s (id, t) FROM %L', current_setting('data_directory') || '/twin_band_src.copy');
	-- leave an empty file behind
	EXECUTE format('COPY (SELECT WHERE false) TO %L', current_setting('data_directory') || '/twin_band_src.copy');
END
$$;
SELECT * FROM band('copy_h', 'copy_s');

SET client_min_messages = warning;
DROP SCHEMA twin_band CASCADE;
RESET client_min_messages;
