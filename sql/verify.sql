--
-- slimheap.verify(): clean tables report nothing; a page with damaged
-- tuple headers is reported; what cannot be verified is refused with a clear
-- error; only privileged roles may run it.  (More corruptions are tested in
-- t/030_faults.pl, which writes to the relation files while the server is
-- stopped.)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;

-- rows of every shape slimheap writes: no bitmap, short bitmap, full
-- natts, all-NULL, short and long varlenas, TOASTed and compressed values
CREATE TABLE vf_slim (a int, b text, c int8, d bool, e numeric, f text)
  USING slimheap;
INSERT INTO vf_slim VALUES
  (1, 'x', 3, true, 1.5, 'y'),
  (2, NULL, NULL, NULL, NULL, NULL),
  (NULL, NULL, NULL, NULL, NULL, NULL),
  (NULL, 'leading', NULL, NULL, NULL, NULL),
  (4, NULL, 5, NULL, NULL, 'last'),
  (5, repeat('compressible', 1000), NULL, NULL, NULL, NULL),
  (6, NULL, NULL, NULL, NULL,
   (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 200) i));
-- fast default columns (T1), updates across them, HOT chains
ALTER TABLE vf_slim ADD COLUMN g int DEFAULT 42;
ALTER TABLE vf_slim ADD COLUMN h text DEFAULT 'dflt';
INSERT INTO vf_slim (a) VALUES (7);
INSERT INTO vf_slim (a, g, h) VALUES (8, NULL, NULL);
UPDATE vf_slim SET b = NULL, f = NULL WHERE a IN (1, 5);
UPDATE vf_slim SET g = NULL WHERE a = 7;
DELETE FROM vf_slim WHERE a = 2;
SELECT a, g, h, length(f) FROM vf_slim ORDER BY a;
SELECT count(*) AS problems FROM slimheap.verify('vf_slim');

-- the same data in a heap table, and after VACUUM FULL
CREATE TABLE vf_heap USING heap AS SELECT * FROM vf_slim;
SELECT count(*) AS problems FROM slimheap.verify('vf_heap');
VACUUM FULL vf_slim;
SELECT count(*) AS problems FROM slimheap.verify('vf_slim');
SELECT count(*) AS differences
  FROM ((TABLE vf_slim EXCEPT ALL TABLE vf_heap)
        UNION ALL (TABLE vf_heap EXCEPT ALL TABLE vf_slim)) d;

-- a heap table converted to slimheap (the rewrite forms every row anew)
CREATE TABLE vf_convert USING heap AS SELECT * FROM vf_heap;
ALTER TABLE vf_convert SET ACCESS METHOD slimheap;
SELECT count(*) AS problems FROM slimheap.verify('vf_convert');
SELECT count(*) AS differences
  FROM ((TABLE vf_convert EXCEPT ALL TABLE vf_heap)
        UNION ALL (TABLE vf_heap EXCEPT ALL TABLE vf_convert)) d;

-- the TOAST table of a slimheap table is a heap table
SELECT count(*) AS problems
  FROM pg_class c, LATERAL slimheap.verify(c.reltoastrelid) v
 WHERE c.oid = 'vf_slim'::regclass;

-- a wide sparse table and a table without columns
CREATE TABLE vf_wide USING slimheap AS
  SELECT i AS k, CASE WHEN i % 3 = 0 THEN i END AS x
    FROM generate_series(1, 500) i;
DO $$
BEGIN
  EXECUTE (SELECT format('ALTER TABLE vf_wide %s',
                         string_agg(format('ADD COLUMN w%s int', i), ', '))
             FROM generate_series(1, 700) i);
END $$;
UPDATE vf_wide SET w700 = k WHERE k % 7 = 0;
UPDATE vf_wide SET w350 = k WHERE k % 5 = 0;
SELECT count(*) AS problems FROM slimheap.verify('vf_wide');
CREATE TABLE vf_empty () USING slimheap;
INSERT INTO vf_empty DEFAULT VALUES;
SELECT count(*) AS problems FROM slimheap.verify('vf_empty');

-- the result columns
SELECT * FROM slimheap.verify('vf_empty');

--
-- A damaged page is reported.  The page of vf_flags_src is read with
-- pageinspect, its tuple headers are damaged in SQL, and the page is written
-- (as a superuser, with lo_export) as the first block of vf_flags, a table of
-- the same columns whose file is still empty, so no shared buffer holds a
-- copy of the block.  (This needs a cluster without data checksums, as the
-- test clusters are.)
--   row 1: a short varlena, HEAP_HASVARWIDTH (0x0002) cleared
--   row 2: a TOAST pointer, HEAP_HASEXTERNAL (0x0004) cleared; the pointer
--          is made to name vf_flags's TOAST table, so that only the flag is
--          wrong
--
CREATE TABLE vf_flags_src (a int, b text) USING slimheap;
INSERT INTO vf_flags_src VALUES
  (1, 'short'),
  (2, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i));
CREATE TABLE vf_flags (a int, b text) USING slimheap;
SELECT count(*) AS problems FROM slimheap.verify('vf_flags_src');
-- v as 4 bytes, little-endian, at byte pos of page
CREATE FUNCTION vf_put4(page bytea, pos int, v int8) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  SELECT set_byte(set_byte(set_byte(set_byte(page,
           pos, (v & 255)::int), pos + 1, ((v >> 8) & 255)::int),
           pos + 2, ((v >> 16) & 255)::int), pos + 3, ((v >> 24) & 255)::int)
$$;
CREATE FUNCTION vf_get4(page bytea, pos int) RETURNS int8
LANGUAGE sql IMMUTABLE AS $$
  SELECT get_byte(page, pos)::int8 | (get_byte(page, pos + 1)::int8 << 8) |
         (get_byte(page, pos + 2)::int8 << 16) | (get_byte(page, pos + 3)::int8 << 24)
$$;
SELECT get_raw_page('vf_flags_src', 0) AS page,
       (SELECT lp_off FROM heap_page_items(get_raw_page('vf_flags_src', 0)) WHERE lp = 1) AS off1,
       (SELECT lp_off FROM heap_page_items(get_raw_page('vf_flags_src', 0)) WHERE lp = 2) AS off2,
       (SELECT t_hoff FROM heap_page_items(get_raw_page('vf_flags_src', 0)) WHERE lp = 2) AS hoff2
\gset
-- the flags are set, and row 2 holds a TOAST pointer (first byte 0x01, tag
-- 18) naming vf_flags_src's TOAST table at byte 14 of the pointer, after
-- the int4 a
SELECT get_byte(:'page', :off1 + 20) & 2 = 2 AS row1_hasvarwidth,
       get_byte(:'page', :off2 + 20) & 4 = 4 AS row2_hasexternal,
       get_byte(:'page', :off2 + :hoff2 + 4) = 1 AND
       get_byte(:'page', :off2 + :hoff2 + 5) = 18 AS row2_toast_pointer,
       vf_get4(:'page', :off2 + :hoff2 + 18) =
         (SELECT reltoastrelid::int8 FROM pg_class WHERE relname = 'vf_flags_src')
         AS names_toast_table;
SELECT lo_from_bytea(0,
         vf_put4(
           set_byte(
             set_byte(:'page', :off1 + 20, get_byte(:'page', :off1 + 20) & ~2),
             :off2 + 20, get_byte(:'page', :off2 + 20) & ~4),
           :off2 + :hoff2 + 18,
           (SELECT reltoastrelid::int8 FROM pg_class WHERE relname = 'vf_flags'))) AS lo
\gset
SELECT lo_export(:lo, current_setting('data_directory') || '/' || pg_relation_filepath('vf_flags'));
SELECT lo_unlink(:lo);
-- the block is read from the file
SELECT a FROM vf_flags ORDER BY a;
SELECT * FROM slimheap.verify('vf_flags');
DROP TABLE vf_flags, vf_flags_src;
DROP FUNCTION vf_put4, vf_get4;

--
-- compress tables (docs/format.md): rows with a compressed tail verify
-- clean, with values of every alignment and varlena kind in the tail (short
-- and 4-byte headers, an inline-compressed value) and NULLs in the prefix.
-- The marker stays legitimate after a switch to truncate, until a rewrite
-- re-forms the rows.
--
CREATE TABLE vf_comp_src (v text);
ALTER TABLE vf_comp_src ALTER COLUMN v SET STORAGE MAIN;
INSERT INTO vf_comp_src VALUES (repeat('compressible ', 400));
SELECT format('CREATE TABLE vf_comp (id int4 PRIMARY KEY, %s) USING slimheap
				 WITH (slimheap.null_bitmap = compress, slimheap.prefix_columns = 3)',
			  string_agg(format('c%s %s', i,
								(ARRAY['int2', 'int4', 'int8', 'text', 'numeric',
									   'bool', 'float8'])[i % 7 + 1]),
						 ', ' ORDER BY i))
  FROM generate_series(2, 150) i \gexec
-- about one column in eight set, at positions fixed by a hash; c2 NULL in
-- every third row (a bitmap in the prefix)
SELECT format('INSERT INTO vf_comp SELECT g, %s FROM generate_series(1, 300) g',
			  string_agg(format('CASE WHEN %s THEN %s END',
								CASE WHEN i = 2 THEN 'g % 3 <> 0'
									 ELSE format('abs(hashint4(g * 1000 + %s)) %% 8 = 0', i) END,
								CASE i % 7
									WHEN 0 THEN format('(g + %s) %% 300', i)
									WHEN 1 THEN format('g + %s', i)
									WHEN 2 THEN format('(g + %s)::int8 * 1000000000', i)
									WHEN 3 THEN format('repeat(''t'', (g + %s) %% 150)', i)
									WHEN 4 THEN format('(g + %s) / 7.0', i)
									WHEN 5 THEN format('(g + %s) %% 2 = 0', i)
									ELSE format('(g + %s) * 0.25', i)
								END),
						 ', ' ORDER BY i))
  FROM generate_series(2, 150) i \gexec
-- a run of values at the end, and an inline-compressed value in the tail
UPDATE vf_comp SET c140 = 1, c141 = 2, c142 = 3, c143 = 4, c144 = 5
 WHERE id % 10 = 0;
SELECT format('UPDATE vf_comp SET c%s = (SELECT v FROM vf_comp_src) WHERE id %% 20 = 7', i)
  FROM generate_series(2, 150) i WHERE i % 7 = 3 AND i > 100 LIMIT 1 \gexec
CREATE TABLE vf_comp_heap USING heap AS SELECT * FROM vf_comp;
-- tail rows are there (the encodings chosen), and verify finds nothing wrong
SELECT tail_encoding, count(*) > 0 AS present
  FROM generate_series(0, pg_relation_size('vf_comp') / 8192 - 1) b,
	   slimheap.page_items('vf_comp', b)
 WHERE form = 'tail' GROUP BY 1 ORDER BY 1;
SELECT count(*) AS problems FROM slimheap.verify('vf_comp');
-- inline-compressed values lie in tails
SELECT pg_column_compression(t.c101) AS compression, p.form, count(*) > 0 AS present
  FROM vf_comp t,
	   LATERAL slimheap.page_items('vf_comp', (t.ctid::text::point)[0]::int8) p
 WHERE t.id % 20 = 7 AND p.lp = (t.ctid::text::point)[1] AND p.form = 'tail'
 GROUP BY 1, 2;
-- the rows read back as heap's
SELECT count(*) AS differences
  FROM ((TABLE vf_comp EXCEPT ALL TABLE vf_comp_heap)
		UNION ALL (TABLE vf_comp_heap EXCEPT ALL TABLE vf_comp)) d;
-- switched to truncate: old tail rows stay, new versions have no tail
ALTER TABLE vf_comp SET (slimheap.null_bitmap = truncate);
UPDATE vf_comp SET c2 = -1 WHERE id % 4 = 0;
UPDATE vf_comp_heap SET c2 = -1 WHERE id % 4 = 0;
SELECT (SELECT tail_rows FROM slimheap.stats('vf_comp')) > 0 AS tails_left,
	   (SELECT count(*) FROM slimheap.verify('vf_comp')) AS problems;
-- a rewrite re-forms every row in the table's mode
VACUUM FULL vf_comp;
SELECT (SELECT tail_rows FROM slimheap.stats('vf_comp')) AS tail_rows,
	   (SELECT count(*) FROM slimheap.verify('vf_comp')) AS problems;
SELECT count(*) AS differences
  FROM ((TABLE vf_comp EXCEPT ALL TABLE vf_comp_heap)
		UNION ALL (TABLE vf_comp_heap EXCEPT ALL TABLE vf_comp)) d;
DROP TABLE vf_comp, vf_comp_heap, vf_comp_src;

--
-- Damaged compressed tails are reported, by the same technique as above.
-- vf_tail_src's rows keep only c1..c8 in their prefix (no index, no fast
-- default: the attributes whose bitmap fits in the header's padding), all
-- NULL, so each tail starts at t_hoff; its page is damaged and written as
-- the first block of vf_tail.  The tail header is one varint, (M << 2) |
-- encoding, two bytes for M = 92:
--   row 1: the encoding bits of the header are 0, which says a second
--          header (stored NULLs at the tail's end, and the map's encoding)
--          follows: read from the map's bytes, it does not add up
--   row 2: every byte of the tail is 0xff: the header varint runs past the
--          end of the row
--   row 3: every byte after the header is 0xff: the NULL map runs past the
--          end of the row
--   row 4: intact
--
SELECT format('CREATE TABLE %s (%s) USING slimheap
				 WITH (slimheap.null_bitmap = compress)', t,
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 100) i, unnest(ARRAY['vf_tail_src', 'vf_tail']) t
 GROUP BY t \gexec
SELECT format('CREATE TABLE vf_tail_heap (%s) USING heap',
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
  FROM generate_series(1, 100) i \gexec
INSERT INTO vf_tail_src (c50, c100)
	SELECT g, g FROM generate_series(1, 4) g;
SELECT lp, form, natts, t_hoff, tail_encoding, stored_natts
  FROM slimheap.page_items('vf_tail_src', 0);
SELECT count(*) AS problems FROM slimheap.verify('vf_tail_src');
CREATE FUNCTION vf_fill(page bytea, pos int, n int, byte text) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  SELECT overlay(page PLACING decode(repeat(byte, n), 'hex') FROM pos + 1 FOR n)
$$;
SELECT get_raw_page('vf_tail_src', 0) AS page \gset
SELECT string_agg(format('%s %s %s', lp_off, t_hoff, lp_len), ' ' ORDER BY lp)
  FROM heap_page_items(:'page') \gset items_
SELECT split_part(:'items_string_agg', ' ', 1)::int +
	   split_part(:'items_string_agg', ' ', 2)::int AS tail1 \gset
SELECT lo_from_bytea(0, vf_fill(vf_fill(
		 set_byte(:'page', :tail1, get_byte(:'page', :tail1) & 252),
		 split_part(:'items_string_agg', ' ', 4)::int + split_part(:'items_string_agg', ' ', 5)::int,
		 split_part(:'items_string_agg', ' ', 6)::int - split_part(:'items_string_agg', ' ', 5)::int, 'ff'),
		 split_part(:'items_string_agg', ' ', 7)::int + split_part(:'items_string_agg', ' ', 8)::int + 2,
		 split_part(:'items_string_agg', ' ', 9)::int - split_part(:'items_string_agg', ' ', 8)::int - 2, 'ff'))
  AS lo \gset
SELECT lo_export(:lo, current_setting('data_directory') || '/' || pg_relation_filepath('vf_tail'));
SELECT lo_unlink(:lo);
SELECT * FROM slimheap.verify('vf_tail');
SELECT lp, form, tail_encoding, problem FROM slimheap.page_items('vf_tail', 0);
SELECT live_rows FROM slimheap.stats('vf_tail');
-- the intact page under a heap table: heap never holds tail rows
SELECT lo_from_bytea(0, :'page') AS lo \gset
SELECT lo_export(:lo, current_setting('data_directory') || '/' || pg_relation_filepath('vf_tail_heap'));
SELECT lo_unlink(:lo);
SELECT * FROM slimheap.verify('vf_tail_heap');
DROP TABLE vf_tail, vf_tail_src, vf_tail_heap;
DROP FUNCTION vf_fill;

--
-- A sound tail row that is not shorter than its truncate form breaks
-- invariant C4.  vf_c4_src's row (NULL, NULL, 7) is 28 bytes in the
-- truncate form (32 on the page); rewritten by hand as a tail row of the
-- same values (natts 0, marker 0x0800, no bitmap; data: header varint
-- (3 << 2) | GAPS = 0x0e, gap 2, padding, the int4 7) it is 32 bytes (32 on
-- the page), and the page is written as the first block of vf_c4.
--
CREATE TABLE vf_c4_src (a int4, b int4, c int4) USING slimheap;
CREATE TABLE vf_c4 (a int4, b int4, c int4) USING slimheap;
INSERT INTO vf_c4_src VALUES (NULL, NULL, 7);
-- v as 4 bytes, little-endian
CREATE FUNCTION vf_le4(v int8) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
  SELECT set_byte(set_byte(set_byte(set_byte('\x00000000'::bytea,
		   0, (v & 255)::int), 1, ((v >> 8) & 255)::int),
		   2, ((v >> 16) & 255)::int), 3, ((v >> 24) & 255)::int)
$$;
SELECT get_raw_page('vf_c4_src', 0) AS page,
	   (SELECT lp_off FROM heap_page_items(get_raw_page('vf_c4_src', 0)) WHERE lp = 1) AS off
\gset
SELECT lo_from_bytea(0,
		 overlay(overlay(overlay(:'page'
		   -- the line pointer: lp_off, LP_NORMAL, lp_len 32
		   PLACING vf_le4(:off | (1 << 15) | (32 << 17))
		   FROM 25 FOR 4)
		   -- t_infomask2 (natts 0, the marker), t_infomask (HEAP_HASNULL
		   -- cleared), t_hoff 24, no bitmap
		   PLACING '\x0008'::bytea ||
				   set_byte(substr(:'page'::bytea, :off + 21, 2), 0,
							get_byte(:'page', :off + 20) & 254) ||
				   '\x1800'::bytea
		   FROM :off + 19 FOR 6)
		   PLACING '\x0e02000007000000'::bytea FROM :off + 25 FOR 8)) AS lo
\gset
-- a row written by hand, as by an earlier release: the file is not one of
-- full rows (docs/narrow-slot.md, "The record of full files")
DELETE FROM slimheap.full_row_files WHERE relid = 'vf_c4'::regclass;
SELECT lo_export(:lo, current_setting('data_directory') || '/' || pg_relation_filepath('vf_c4'));
SELECT lo_unlink(:lo);
SELECT a, b, c FROM vf_c4;
SELECT lp, lp_len, form, natts, tail_encoding, stored_natts
  FROM slimheap.page_items('vf_c4', 0);
SELECT * FROM slimheap.verify('vf_c4');
DROP TABLE vf_c4, vf_c4_src;
DROP FUNCTION vf_le4;

-- what cannot be verified
CREATE VIEW vf_view AS SELECT 1 AS x;
CREATE INDEX vf_index ON vf_slim (a);
CREATE SEQUENCE vf_seq;
CREATE TABLE vf_parted (a int) PARTITION BY RANGE (a);
SELECT * FROM slimheap.verify('vf_view');
SELECT * FROM slimheap.verify('vf_index');
SELECT * FROM slimheap.verify('vf_seq');
SELECT * FROM slimheap.verify('vf_parted');
SELECT * FROM slimheap.verify(NULL);

-- privileges: superusers only, not PUBLIC and not pg_stat_scan_tables (its
-- reports describe single rows; inspect_errors has the details)
CREATE ROLE regress_verify_nobody;
CREATE ROLE regress_verify_scanner IN ROLE pg_stat_scan_tables;
GRANT USAGE ON SCHEMA slimheap TO regress_verify_nobody, regress_verify_scanner;
SET ROLE regress_verify_nobody;
SELECT count(*) FROM slimheap.verify('vf_slim');
RESET ROLE;
SET ROLE regress_verify_scanner;
SELECT count(*) AS problems FROM slimheap.verify('vf_slim');
RESET ROLE;

--
-- Fuzzer finding: INSERT/UPDATE stored the slim tuple into the executor's
-- buffer-heap slot before heap_insert(); that slot copies the tuple and
-- frees the original, so heap wrote freed memory (a PANIC "failed to add
-- tuple to page" once the memory was reused), and RETURNING read system
-- columns from a copy taken before heap had filled in the header.
--
CREATE TABLE vf_returning (a int4[], b int) USING slimheap;
INSERT INTO vf_returning VALUES ('{}', 1), ('{1,2}', NULL)
  RETURNING a, b, xmin = pg_current_xact_id()::xid AS own_xmin,
            ctid IS NOT NULL AS has_ctid;
UPDATE vf_returning SET b = 2
  RETURNING a, b, xmin = pg_current_xact_id()::xid AS own_xmin;
CREATE UNIQUE INDEX vf_returning_a ON vf_returning (a);
INSERT INTO vf_returning VALUES ('{}', 3), ('{5}', 4)
  ON CONFLICT (a) DO UPDATE SET b = excluded.b
  RETURNING a, b, xmin = pg_current_xact_id()::xid AS own_xmin;
INSERT INTO vf_returning VALUES ('{6}', 5)
  ON CONFLICT (a) DO NOTHING
  RETURNING a, b, xmin = pg_current_xact_id()::xid AS own_xmin;
SELECT a, b FROM vf_returning ORDER BY b;
SELECT count(*) AS problems FROM slimheap.verify('vf_returning');

DROP TABLE vf_slim, vf_heap, vf_convert, vf_wide, vf_empty, vf_parted, vf_returning;
DROP VIEW vf_view;
DROP SEQUENCE vf_seq;
REVOKE USAGE ON SCHEMA slimheap FROM regress_verify_nobody, regress_verify_scanner;
DROP ROLE regress_verify_nobody;
DROP ROLE regress_verify_scanner;
