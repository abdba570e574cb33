--
-- CREATE INDEX on a compress table whose file is new in this transaction
-- (BEGIN; CREATE TABLE; INSERT; CREATE INDEX, as pg_restore
-- --single-transaction loads): nobody else sees the table, so instead of
-- moving the rows that hold a value of the new index (new versions, and at
-- fillfactor 100 a file almost twice the size) the table is rewritten for
-- the index first (src/am/slim_index_fresh.c).  The file must end within
-- 2% of what a load into the indexed table takes, the rows must be the
-- heap twin's, the index must pass amcheck, and each row keeps the
-- index's column in its prefix exactly
-- where it holds a value (rule R).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA build_fresh;
SET search_path = build_fresh, public;

-- make(name, am): id, c1 .. c300 int4; opts: the WITH list
CREATE FUNCTION make(name text, am text, opts text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (id int4 NOT NULL, %s) USING %s %s', name,
		(SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i)
		 FROM generate_series(1, 300) i), am, opts);
END $$;

-- fill(name): 3000 rows, every 15th column set in 2 of 3 rows, c300 always
CREATE FUNCTION fill(name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %I (id, %s, c300) SELECT g, %s, -g FROM generate_series(1, 3000) g',
		name,
		(SELECT string_agg(format('c%s', i), ', ' ORDER BY i)
		 FROM generate_series(15, 285, 15) i),
		(SELECT string_agg(format('CASE WHEN g %% 3 <> 0 THEN g + %s END', i), ', ' ORDER BY i)
		 FROM generate_series(15, 285, 15) i));
END $$;

-- natts_wrong(rel): live rows whose prefix is not what rule R gives them
-- with an index on c150 (attribute 151): 151 where c150 is set, else 8
CREATE FUNCTION natts_wrong(rel regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %1$s t JOIN (SELECT format(''(%%s,%%s)'', b, i.lp)::tid AS tid, i.*'
		' FROM generate_series(0::bigint, pg_relation_size(%2$L) / 8192 - 1) b,'
		' LATERAL heap_page_items(get_raw_page(%2$L, b::int)) i WHERE i.lp_flags = 1) p ON p.tid = t.ctid'
		' WHERE (p.t_infomask2 & 2048) = 0'
		'    OR (p.t_infomask2 & 2047) <> CASE WHEN t.c150 IS NOT NULL THEN 151 ELSE 8 END',
		rel, rel::text) INTO n;
	RETURN n;
END $$;

SELECT make('fh', 'heap', '');
SELECT fill('fh');
CREATE INDEX fh_c150 ON fh (c150);
-- what the rows take when the index exists before the load
SELECT make('fi', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
CREATE INDEX fi_c150 ON fi (c150);
SELECT fill('fi');
SELECT pg_relation_size('fi') AS size_indexed_first \gset

-- 1. created in the transaction: the file ends as a load into the indexed
-- table (the rows that hold c150 carry it in their prefix now)
BEGIN;
SELECT make('fc', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
SELECT fill('fc');
SELECT pg_relation_filenode('fc') AS node \gset
CREATE INDEX fc_c150 ON fc (c150);
SELECT pg_relation_filenode('fc') <> :node AS rewritten,
	   pg_relation_size('fc') <= :size_indexed_first * 1.02 AS as_indexed_first,
	   natts_wrong('fc') AS natts_wrong;
COMMIT;

-- 2. truncated in the transaction, then loaded again: a partial index
BEGIN;
SELECT make('ft', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
COMMIT;
BEGIN;
TRUNCATE ft;
SELECT fill('ft');
CREATE INDEX ft_c150 ON ft (id) WHERE c150 > 0;
SELECT pg_relation_size('ft') <= :size_indexed_first * 1.02 AS as_indexed_first,
	   natts_wrong('ft') AS natts_wrong;
COMMIT;

-- the twins agree, by sequential and index scans, and amcheck passes
SELECT count(*) AS differ FROM ((TABLE fh EXCEPT ALL TABLE fc) UNION ALL (TABLE fc EXCEPT ALL TABLE fh)) d;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS differ FROM ((SELECT id, c150 FROM fh WHERE c150 > 1000
	EXCEPT ALL SELECT id, c150 FROM fc WHERE c150 > 1000) UNION ALL
	(SELECT id, c150 FROM fc WHERE c150 > 1000
	 EXCEPT ALL SELECT id, c150 FROM fh WHERE c150 > 1000)) d;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) AS differ FROM ((TABLE fh EXCEPT ALL TABLE ft) UNION ALL (TABLE ft EXCEPT ALL TABLE fh)) d;
SELECT bt_index_check(i, true) FROM unnest(ARRAY['fc_c150', 'ft_c150']::regclass[]) i;

-- 3. an index of the first 8 columns, or a table that is not new: no rewrite
BEGIN;
SELECT make('fn', 'slimheap', 'WITH (slimheap.null_bitmap = compress)');
SELECT fill('fn');
SELECT pg_relation_filenode('fn') AS node \gset
CREATE INDEX ON fn (c3);
SELECT pg_relation_filenode('fn') = :node AS same_file;
COMMIT;
SELECT pg_relation_filenode('fn') AS node \gset
CREATE INDEX ON fn (c150);
SELECT pg_relation_filenode('fn') = :node AS same_file;

RESET search_path;
DROP SCHEMA build_fresh CASCADE;
