--
-- COPY fills a slimheap table's pages as INSERT does.  From
-- PostgreSQL 16 on, a load with a bulk-insert state extends the file in
-- growing steps of up to 64 pages and may leave the last ones empty; slimheap
-- extends by what its rows need.  The same 10,000 rows (100 int4 columns,
-- the first 20 set) go in by INSERT ... SELECT, text COPY, binary COPY, COPY
-- into a table created in the same transaction, and CREATE TABLE AS; the
-- files must be within 2% of INSERT's (on 15 they are equal).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

CREATE SCHEMA copy_fill;
SET search_path = copy_fill;

CREATE FUNCTION cols() RETURNS text LANGUAGE sql AS
$$ SELECT string_agg(format('c%s int4', i), ', ') FROM generate_series(1, 100) i $$;
CREATE FUNCTION vals() RETURNS text LANGUAGE sql AS
$$ SELECT string_agg(format('g + %s', i), ', ') FROM generate_series(1, 20) i $$;
CREATE FUNCTION make(t text) RETURNS void LANGUAGE plpgsql AS
$$ BEGIN EXECUTE format('CREATE TABLE %I (%s) USING slimheap', t, cols()); END $$;

SELECT make('by_insert');
DO $$ BEGIN
	EXECUTE format('INSERT INTO by_insert (%s) SELECT %s FROM generate_series(1, 10000) g',
				   (SELECT string_agg(format('c%s', i), ', ') FROM generate_series(1, 20) i),
				   vals());
END $$;
COPY by_insert TO '/tmp/slimheap_copy_fill.txt';
COPY by_insert TO '/tmp/slimheap_copy_fill.bin' (FORMAT binary);

SELECT make('by_copy_text');
COPY by_copy_text FROM '/tmp/slimheap_copy_fill.txt';
SELECT make('by_copy_binary');
COPY by_copy_binary FROM '/tmp/slimheap_copy_fill.bin' (FORMAT binary);
BEGIN;
SELECT make('by_copy_same_xact');
COPY by_copy_same_xact FROM '/tmp/slimheap_copy_fill.bin' (FORMAT binary);
COMMIT;
CREATE TABLE by_ctas USING slimheap AS SELECT * FROM by_insert;

-- same rows everywhere, and the pages: within 2% of INSERT's
SELECT t, (SELECT count(*) FROM by_insert) AS rows,
	   pg_relation_size(t::regclass) <= pg_relation_size('by_insert') * 1.02 AS within_2_percent,
	   pg_relation_size(t::regclass) >= pg_relation_size('by_insert') AS not_smaller
FROM unnest(ARRAY['by_copy_text', 'by_copy_binary', 'by_copy_same_xact', 'by_ctas']) t
ORDER BY t;
SELECT count(*) AS differ FROM (
	(TABLE by_insert EXCEPT ALL TABLE by_copy_binary) UNION ALL
	(TABLE by_copy_text EXCEPT ALL TABLE by_insert) UNION ALL
	(TABLE by_copy_same_xact EXCEPT ALL TABLE by_ctas)) d;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA copy_fill CASCADE;
RESET client_min_messages;
