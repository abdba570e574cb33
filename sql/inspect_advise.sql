--
-- slimheap.advise(): the tables worth converting, ranked by the bytes a
-- rewrite would save, with estimate()'s figures on the same sample.  A
-- W1-like table (800 int4 columns, the first 50 set), a W4-like one (800
-- columns, 40 set at scattered places) in heap and in slimheap truncate, a
-- narrow table, the leaves of a partitioned table, and a table the caller
-- may not read; then 120 tables in one run, bounded by the sample size, and
-- the progress NOTICEs.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;
CREATE SCHEMA slim_advise;
SET search_path = slim_advise, public;

DO $$
BEGIN
  EXECUTE (SELECT format('CREATE TABLE w1 (%s)',
                         string_agg(format('c%s int4', i), ', ' ORDER BY i))
             FROM generate_series(1, 800) i);
  EXECUTE (SELECT format('INSERT INTO w1 (%s) SELECT %s FROM generate_series(1, 4000) i',
                         string_agg(format('c%s', i), ', ' ORDER BY i),
                         string_agg('i', ', '))
             FROM generate_series(1, 50) i);
  -- W4-like: 40 of 800 columns set per row, at places that move from row
  -- to row (columns c with c % 20 = i % 20), and a primary key
  EXECUTE (SELECT format('CREATE TABLE w4 (id int PRIMARY KEY, %s)',
                         string_agg(format('c%s int4', i), ', ' ORDER BY i))
             FROM generate_series(1, 800) i);
  EXECUTE (SELECT format('INSERT INTO w4 SELECT i, %s FROM generate_series(1, 3000) i',
                         string_agg(format('CASE WHEN %s %% 20 = i %% 20 THEN i END', c),
                                    ', ' ORDER BY c))
             FROM generate_series(1, 800) c);
END
$$;
-- the same rows in a slimheap table in truncate: compress would save more
CREATE TABLE w4_slim (LIKE w4) USING slimheap WITH (slimheap.null_bitmap = truncate);
INSERT INTO w4_slim SELECT * FROM w4;
CREATE TABLE narrow (a int NOT NULL, b int NOT NULL);
INSERT INTO narrow SELECT i, i FROM generate_series(1, 20000) i;
-- a partitioned table: its leaves are tables, it is not
CREATE TABLE parted (a int, b int, c int, d int, e int, f int, g int, h int,
                     i int, j int) PARTITION BY RANGE (a);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (5000);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (5000) TO (10000);
INSERT INTO parted (a) SELECT i FROM generate_series(0, 9999) i;
-- and one the role below may not read
CREATE TABLE secret (LIKE w1);
INSERT INTO secret SELECT * FROM w1;

-- ranked by the bytes saved; the narrow table saves nothing, so it shows
-- only with min_saved_bytes 0, and without a statement
SELECT rel, access_method, current_mode, mode, current_bytes, full_bytes,
       truncate_bytes, compress_bytes, saved_bytes, saved_percent,
       sampled_rows, total_rows, full_scan
  FROM slimheap.advise(0, 1000, ARRAY['slim_advise']);
SELECT rel, rewrite_estimate > '0'::interval AS has_time, statement
  FROM slimheap.advise(0, 1000, ARRAY['slim_advise']);
-- the default minimum, 1 MB, leaves out what saves less
SELECT rel, mode, saved_bytes FROM slimheap.advise(schemas => '{slim_advise}');

-- the figures are estimate()'s on the same sample, table by table: the
-- projection of each mode, the sample, and the saving against the table's
-- current layout (heap's for a heap table)
SELECT a.rel,
       a.full_bytes = e.full_bytes AND a.truncate_bytes = e.truncate_bytes AND
       a.compress_bytes = e.compress_bytes AS same_projections,
       a.sampled_rows = e.sampled_rows AND a.total_rows = e.total_rows AND
       a.full_scan = e.full_scan AND a.current_bytes = e.current_bytes AS same_sample,
       a.saved_bytes = CASE WHEN a.access_method = 'heap' THEN (e.saved->>a.mode)::bigint
                            ELSE (e.bytes->>a.current_mode)::bigint - (e.bytes->>a.mode)::bigint
                       END AS same_saving
  FROM slimheap.advise(0, 1000, ARRAY['slim_advise']) a,
       LATERAL (SELECT max(projected_bytes) FILTER (WHERE mode = 'full') AS full_bytes,
                       max(projected_bytes) FILTER (WHERE mode = 'truncate') AS truncate_bytes,
                       max(projected_bytes) FILTER (WHERE mode = 'compress') AS compress_bytes,
                       max(sampled_rows) AS sampled_rows, max(total_rows) AS total_rows,
                       bool_and(full_scan) AS full_scan, max(current_bytes) AS current_bytes,
                       jsonb_object_agg(mode, saved_bytes) AS saved,
                       jsonb_object_agg(mode, projected_bytes) AS bytes
                  FROM slimheap.estimate(a.rel, 1000) e) e
 ORDER BY a.rel::text;
-- and a full scan (sample_rows NULL) agrees with estimate()'s full scan
SELECT a.rel, a.full_scan, a.truncate_bytes = e.projected_bytes AS same
  FROM slimheap.advise(0, NULL, ARRAY['slim_advise']) a,
       slimheap.estimate(a.rel, NULL) e
 WHERE e.mode = 'truncate' AND a.rel = 'w1'::regclass;

-- the converted tables measure what advise() projected
ALTER TABLE w1 SET ACCESS METHOD slimheap, SET (slimheap.null_bitmap = truncate);
SELECT pg_relation_size('w1');
SELECT rel, access_method, current_mode, mode, saved_bytes, statement
  FROM slimheap.advise(0, 1000, ARRAY['slim_advise']) WHERE rel = 'w1'::regclass;

-- a role that may run it (pg_stat_scan_tables) reads only the tables it
-- may SELECT from; the others are skipped with a NOTICE, not an error
CREATE ROLE regress_slim_advisor;
GRANT USAGE ON SCHEMA slim_advise TO regress_slim_advisor;
GRANT SELECT ON w1, w4, narrow TO regress_slim_advisor;
SET ROLE regress_slim_advisor;
SELECT rel FROM slimheap.advise(0, 1000, ARRAY['slim_advise']);
RESET ROLE;
GRANT pg_stat_scan_tables TO regress_slim_advisor;
SET ROLE regress_slim_advisor;
SELECT rel, mode FROM slimheap.advise(0, 1000, ARRAY['slim_advise']);
RESET ROLE;

-- arguments: sample_rows as for estimate(); a schema that does not exist,
-- or none at all, gives no rows
SELECT * FROM slimheap.advise(0, 0, ARRAY['slim_advise']);
SELECT * FROM slimheap.advise(0, 20000000, ARRAY['slim_advise']);
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['no_such_schema']);
SELECT count(*) FROM slimheap.advise(0, 100, '{}');

-- every schema: catalogs, information_schema and TOAST tables never show
SET client_min_messages = error;
SELECT count(*) FILTER (WHERE n.nspname IN ('pg_catalog', 'information_schema', 'pg_toast')) AS system,
       count(*) FILTER (WHERE n.nspname = 'slim_advise') AS ours
  FROM slimheap.advise(0, 100) a
  JOIN pg_class c ON c.oid = a.rel JOIN pg_namespace n ON n.oid = c.relnamespace;
RESET client_min_messages;

-- 120 tables, and one of 80 000 rows: each is a sample of at most
-- sample_rows rows (plus what its last block holds), whatever its size
CREATE SCHEMA slim_advise_many;
DO $$
BEGIN
  FOR i IN 1 .. 120 LOOP
    EXECUTE format('CREATE TABLE slim_advise_many.t%s (a int, b int, c int)', i);
    EXECUTE format('INSERT INTO slim_advise_many.t%s (a) SELECT generate_series(1, 30)', i);
  END LOOP;
END
$$;
CREATE TABLE slim_advise_many.big (a int, b int, c int);
INSERT INTO slim_advise_many.big (a) SELECT g FROM generate_series(1, 80000) g;
SELECT count(*) AS tables, count(*) FILTER (WHERE full_scan) AS full_scans,
       max(sampled_rows) FILTER (WHERE full_scan) AS max_rows_of_full_scans,
       max(sampled_rows) FILTER (WHERE NOT full_scan) AS rows_read_of_big,
       max(total_rows) AS total_rows_of_big
  FROM slimheap.advise(0, 500, ARRAY['slim_advise_many']);

-- progress: a NOTICE per table once the run has lasted progress_after
-- (the DETAIL, the time so far, is left out here)
CREATE SCHEMA slim_advise_progress;
CREATE TABLE slim_advise_progress.p1 (a int);
CREATE TABLE slim_advise_progress.p2 (a int);
\set VERBOSITY terse
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'], '0 s');
-- the default, 10 s, says nothing on a short run; NULL never does
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress']);
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'], NULL);
-- an interval past what microseconds hold means never too, not "at once"
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'], '1000000 years');
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'],
                                     '178000000 years 100 days');
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'],
                                     '178956970 years -1 day');
-- (infinite intervals exist from PostgreSQL 17 on)
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'],
  (CASE WHEN current_setting('server_version_num')::int >= 170000
        THEN 'infinity' ELSE '1000000 years' END)::interval);
\set VERBOSITY default
-- a negative interval or byte count is refused, not taken as "at once" or
-- "every table": the hints say what to pass instead
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'], '-1000000 years');
SELECT count(*) FROM slimheap.advise(0, 100, ARRAY['slim_advise_progress'], '-1 s');
SELECT count(*) FROM slimheap.advise(-1, 100, ARRAY['slim_advise_progress']);

-- who may run it: superusers and pg_stat_scan_tables, like estimate()
SELECT p.proname, r.rolname
  FROM pg_proc p, aclexplode(p.proacl) a JOIN pg_roles r ON r.oid = a.grantee
 WHERE p.oid = 'slimheap.advise'::regproc AND a.privilege_type = 'EXECUTE'
   AND a.grantee <> p.proowner;

SET client_min_messages = warning;
DROP SCHEMA slim_advise, slim_advise_many, slim_advise_progress CASCADE;
DROP ROLE regress_slim_advisor;
RESET client_min_messages;
