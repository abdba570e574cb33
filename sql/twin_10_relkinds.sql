--
-- Other ways to get a slimheap table: temporary and unlogged tables,
-- default_table_access_method, CREATE TABLE AS and SELECT INTO, and
-- materialized views.  Rows written through each must be truncated and read
-- back like the heap twin's.  Every table here has more than 8 attributes
-- (some through columns p<n>, n their attribute number, that are never set):
-- a narrower one stores heap's full form in every mode (docs/narrow-slot.md).
--
CREATE SCHEMA twin_relkinds;
SET search_path = twin_relkinds, public;

CREATE TABLE src (id int, a int, b text, c int, d int, e int, f int, g int, h int, i int);
INSERT INTO src SELECT g, CASE WHEN g % 2 = 0 THEN g END, CASE WHEN g % 3 = 0 THEN 'b' || g END,
  CASE WHEN g % 10 = 0 THEN g END FROM generate_series(1, 300) AS g;

-- temporary
CREATE TEMP TABLE tmp_h (LIKE src) USING heap;
CREATE TEMP TABLE tmp_s (LIKE src) USING slimheap;
INSERT INTO tmp_h SELECT * FROM src;
INSERT INTO tmp_s SELECT * FROM src;
UPDATE tmp_h SET i = id WHERE id % 50 = 0;
UPDATE tmp_s SET i = id WHERE id % 50 = 0;
SELECT * FROM twin.compare('tmp_h', 'tmp_s');
SELECT * FROM twin.natts_rule('tmp_s');
SELECT * FROM twin.storage('tmp_h', 'tmp_s', 'id');

-- unlogged, and its init fork
CREATE UNLOGGED TABLE unl_h (LIKE src) USING heap;
CREATE UNLOGGED TABLE unl_s (LIKE src) USING slimheap;
INSERT INTO unl_h SELECT * FROM src;
INSERT INTO unl_s SELECT * FROM src;
SELECT relname, relpersistence, pg_relation_size(oid, 'init') AS init_fork_size
FROM pg_class WHERE relname IN ('unl_h', 'unl_s') ORDER BY 1;
SELECT * FROM twin.compare('unl_h', 'unl_s');
SELECT * FROM twin.natts_rule('unl_s');
SELECT * FROM twin.storage('unl_h', 'unl_s', 'id');

-- COPY FREEZE into a table created in the same transaction: the rows are
-- stored frozen and truncated
BEGIN;
CREATE TABLE frz_s (id int, a int, b text,
                    p4 int, p5 int, p6 int, p7 int, p8 int, p9 int) USING slimheap;
COPY frz_s (id, a, b) FROM stdin WITH (FREEZE);
1	\N	\N
2	2	\N
3	\N	three
\.
COMMIT;
SELECT t.*, s.natts, (p.t_infomask & 768) = 768 AS frozen
FROM frz_s t JOIN twin.stored('frz_s') s ON s.tid = t.ctid
JOIN heap_page_items(get_raw_page('frz_s', 0)) p ON p.lp = (t.ctid::text::point)[1]
ORDER BY id;

-- default_table_access_method
SET default_table_access_method = slimheap;
CREATE TABLE dflt_s (LIKE src);
CREATE TABLE dflt_part (id int, a int, p3 int, p4 int, p5 int, p6 int, p7 int,
                        p8 int, p9 int) PARTITION BY RANGE (id);
CREATE TABLE dflt_part1 PARTITION OF dflt_part FOR VALUES FROM (0) TO (1000);
RESET default_table_access_method;
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname IN ('dflt_s', 'dflt_part1') ORDER BY 1;
INSERT INTO dflt_s SELECT * FROM src;
INSERT INTO dflt_part SELECT id, a FROM src;
SELECT * FROM twin.compare('unl_h', 'dflt_s');
SELECT * FROM twin.natts_rule('dflt_s');
SELECT * FROM twin.natts_rule('dflt_part1');

-- CREATE TABLE AS, with USING and through the default
CREATE TABLE ctas_h USING heap AS SELECT * FROM src WHERE id % 3 <> 1;
CREATE TABLE ctas_s USING slimheap AS SELECT * FROM src WHERE id % 3 <> 1;
SELECT * FROM twin.compare('ctas_h', 'ctas_s');
SELECT * FROM twin.natts_rule('ctas_s');
SELECT * FROM twin.storage('ctas_h', 'ctas_s', 'id');
-- a projection (virtual tuples) and WITH NO DATA
CREATE TABLE ctas_proj_s USING slimheap AS
  SELECT id, a, NULL::int AS n1, b, NULL::text AS n2, NULL::int AS p6,
         NULL::int AS p7, NULL::int AS p8, NULL::int AS p9 FROM src WHERE id < 20;
SELECT t.*, s.natts FROM ctas_proj_s t JOIN twin.stored('ctas_proj_s') s ON s.tid = t.ctid
WHERE id < 7 ORDER BY id;
CREATE TABLE ctas_empty_s USING slimheap AS SELECT * FROM src WITH NO DATA;
INSERT INTO ctas_empty_s SELECT * FROM src;
SELECT * FROM twin.compare('unl_h', 'ctas_empty_s');
SET default_table_access_method = slimheap;
SELECT * INTO into_s FROM src WHERE id <= 100;
CREATE TABLE ctas_dflt_s AS SELECT * FROM src WHERE id > 100;
RESET default_table_access_method;
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname IN ('into_s', 'ctas_dflt_s', 'ctas_empty_s') ORDER BY 1;
SELECT * FROM twin.query('SELECT * FROM %s WHERE id <= 100', 'src', 'into_s');
SELECT * FROM twin.query('SELECT * FROM %s WHERE id > 100', 'src', 'ctas_dflt_s');
SELECT * FROM twin.natts_rule('into_s');
SELECT * FROM twin.natts_rule('ctas_dflt_s');

-- materialized views, refreshed plain and concurrently
-- (d .. h of src are never set)
CREATE MATERIALIZED VIEW mv_h USING heap AS SELECT id, a, b, c, d, e, f, g, h FROM src WHERE id % 2 = 0;
CREATE MATERIALIZED VIEW mv_s USING slimheap AS SELECT id, a, b, c, d, e, f, g, h FROM src WHERE id % 2 = 0;
SELECT * FROM twin.compare('mv_h', 'mv_s');
SELECT * FROM twin.natts_rule('mv_s');
UPDATE src SET c = -id WHERE id % 4 = 0;
REFRESH MATERIALIZED VIEW mv_h;
REFRESH MATERIALIZED VIEW mv_s;
SELECT * FROM twin.compare('mv_h', 'mv_s');
CREATE UNIQUE INDEX ON mv_h (id);
CREATE UNIQUE INDEX ON mv_s (id);
UPDATE src SET c = NULL, b = NULL WHERE id % 8 = 0;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_h;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_s;
SELECT * FROM twin.compare('mv_h', 'mv_s');
SELECT * FROM twin.natts_rule('mv_s');
SELECT * FROM twin.storage('mv_h', 'mv_s', 'id');

SET client_min_messages = warning;
DROP SCHEMA twin_relkinds CASCADE;
RESET client_min_messages;
