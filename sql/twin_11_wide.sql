--
-- A slimheap table of 1600 columns (the most a table can have), next to its
-- heap twin: rows with only the last column set, only the first, none, and
-- all of them; updates between these shapes.
--
CREATE SCHEMA twin_wide;
SET search_path = twin_wide, public;

DO $$
DECLARE
	am text;
	cols text;
BEGIN
	SELECT string_agg(format('c%s int4', i), ', ') INTO cols
	FROM generate_series(1, 1600) AS i;
	FOREACH am IN ARRAY ARRAY['heap', 'slimheap'] LOOP
		EXECUTE format('CREATE TABLE wide_%s (%s) USING %s', left(am, 1), cols, am);
	END LOOP;
END
$$;
SELECT relname, relnatts FROM pg_class WHERE relname IN ('wide_h', 'wide_s') ORDER BY 1;

-- c1 is the key of the rows that have it: 1 only the first set, 2 the
-- first and the last, 3 every column; the row without c1 has only c1600
-- set; and one row is all NULL
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['wide_h', 'wide_s'] LOOP
		EXECUTE format('INSERT INTO %s (c1) VALUES (1)', t);
		EXECUTE format('INSERT INTO %s (c1, c1600) VALUES (2, 1600)', t);
		EXECUTE format('INSERT INTO %s SELECT %s', t,
					   (SELECT string_agg(CASE WHEN i = 1 THEN '3' ELSE i::text END, ', ')
						FROM generate_series(1, 1600) AS i));
		EXECUTE format('INSERT INTO %s (c1600) VALUES (-1600)', t);
		EXECUTE format('INSERT INTO %s (c2) VALUES (NULL)', t);
	END LOOP;
END
$$;
-- read back: a few columns and a checksum over all of them
SELECT c1, c2, c800, c1599, c1600,
       (SELECT count(*) FROM json_each(row_to_json(t)) AS e
        WHERE json_typeof(e.value) <> 'null') AS set_columns,
       md5(t::text) AS row_md5
FROM wide_s t ORDER BY c1, c1600;
SELECT * FROM twin.compare('wide_h', 'wide_s');
-- stored forms: natts stops at the last set column; t_hoff 224 holds a
-- 200-byte bitmap
SELECT 'heap' AS am, t.c1, t.c1600, s.natts, s.hoff, s.len
FROM wide_h t JOIN twin.stored('wide_h') s ON s.tid = t.ctid
UNION ALL
SELECT 'slimheap', t.c1, t.c1600, s.natts, s.hoff, s.len
FROM wide_s t JOIN twin.stored('wide_s') s ON s.tid = t.ctid
ORDER BY 2, 3, 1;

-- updates between the shapes
UPDATE wide_h SET c1600 = NULL WHERE c1 = 2;
UPDATE wide_s SET c1600 = NULL WHERE c1 = 2;
UPDATE wide_h SET c1 = 4, c1599 = 1599 WHERE c1 IS NULL AND c1600 IS NULL;
UPDATE wide_s SET c1 = 4, c1599 = 1599 WHERE c1 IS NULL AND c1600 IS NULL;
UPDATE wide_h SET c1600 = NULL, c1599 = NULL, c1598 = NULL WHERE c1 = 3;
UPDATE wide_s SET c1600 = NULL, c1599 = NULL, c1598 = NULL WHERE c1 = 3;
SELECT * FROM twin.compare('wide_h', 'wide_s');
SELECT 'slimheap' AS am, t.c1, t.c1600, s.natts, s.hoff, s.len
FROM wide_s t JOIN twin.stored('wide_s') s ON s.tid = t.ctid
ORDER BY 2, 3;
SELECT * FROM twin.natts_rule('wide_s');

-- a rewrite, and rows copied over from the heap twin
VACUUM FULL wide_s;
INSERT INTO wide_s SELECT * FROM wide_h;
INSERT INTO wide_h SELECT * FROM wide_h;
SELECT * FROM twin.compare('wide_h', 'wide_s');
SELECT * FROM twin.natts_rule('wide_s');

SET client_min_messages = warning;
DROP SCHEMA twin_wide CASCADE;
RESET client_min_messages;
