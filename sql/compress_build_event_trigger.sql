--
-- An index build on a compress table leaves no row for the statement's own
-- code to meet half done.  Rows that keep the indexed
-- column c50 in their tails are stored again with it in their prefix
-- before the index build's scan, so when a ddl_command_end event trigger
-- of the CREATE INDEX updates one of them (SET c50 = NULL), heap_update()
-- decides HOT on the real old value: no HOT update across a change of the
-- indexed column, and the index holds no entry the table does not.  The
-- heap twin gets the same statements.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

DO $$
BEGIN
  EXECUTE (SELECT format('CREATE TABLE ev_h (id int, %s) USING heap',
                         string_agg(format('c%s int', i), ', ' ORDER BY i))
             FROM generate_series(2, 100) i);
END
$$;
CREATE TABLE ev_s (LIKE ev_h) USING slimheap WITH (slimheap.null_bitmap = compress);
INSERT INTO ev_h (id, c2, c3, c4, c5, c6, c7, c8, c50, c100)
  SELECT g, g, g, g, g, g, g, g, g * 10, g FROM generate_series(1, 20) g;
INSERT INTO ev_s SELECT * FROM ev_h;
-- c50 lives in the tails of the compress rows
SELECT count(*) FILTER (WHERE tail_encoding IS NOT NULL AND natts < 50) AS hiding
  FROM slimheap.page_items('ev_s', 0);

-- (the table the trigger updates: the one whose index is being built)
CREATE FUNCTION ev_null_c50() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('UPDATE %I SET c50 = NULL WHERE id = 2',
                 current_setting('ev.target'));
END $$;
CREATE EVENT TRIGGER ev_null_c50 ON ddl_command_end
  WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION ev_null_c50();

SET ev.target = 'ev_h';
CREATE INDEX ev_h_c50 ON ev_h (c50);
SET ev.target = 'ev_s';
CREATE INDEX ev_s_c50 ON ev_s (c50);
RESET ev.target;
DROP EVENT TRIGGER ev_null_c50;

-- through the index and through the table: the same rows as the heap twin
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT 'heap' AS t, id, c50 FROM ev_h WHERE c50 = 20
UNION ALL
SELECT 'slim', id, c50 FROM ev_s WHERE c50 = 20;
SELECT 'heap' AS t, count(*) FROM ev_h WHERE c50 BETWEEN 1 AND 1000
UNION ALL
SELECT 'slim', count(*) FROM ev_s WHERE c50 BETWEEN 1 AND 1000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT bt_index_check('ev_h_c50', true), bt_index_check('ev_s_c50', true);
-- no live row hides c50 any more
SELECT count(*) AS hiding
  FROM slimheap.page_items('ev_s', 0) i JOIN ev_s q ON q.ctid = format('(0,%s)', i.lp)::tid
 WHERE i.tail_encoding IS NOT NULL AND i.natts < 50 AND q.c50 IS NOT NULL;

DROP TABLE ev_h, ev_s;
DROP FUNCTION ev_null_c50();
