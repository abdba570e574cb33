-- The tables of the instruction counts (bench/instructions.sh), loaded by
-- psql into each of the two databases of the template cluster after
-- bench/bench.sql, before any backend is counted.  Database "heap" gets
-- heap tables, database "slim" slimheap tables ("truncate", the default
-- bitmap, for W1 and TPC-B; "compress" for W4 and W5), under the same
-- names, so that the statements counted are the same text in both.
--
-- psql variables (set by bench/instructions.sh):
--   vt, vc      the variant of the W1/TPC-B tables and of the W4/W5 tables
--               (bench_storage() of bench.sql: heap, slimheap, compress)
--   w1_rows     rows of the W1 table that is scanned
--   w2_rows     rows of the W2 table that is scanned (5 int4, all set)
--   w4_rows     rows of the W4 and W5 sources and tables
--   copy_dir    where database "heap" writes the W4 and W5 COPY files
--   tpcb_scale  TPC-B scale (100,000 accounts each)

\set ON_ERROR_STOP 1
SET client_min_messages = warning;

-- W1: 800 int4 columns, c1..c50 set (the table the scans read)
SELECT bench_create('w1', :'vt', w1_coldefs());
SELECT w1_insert('w1', :w1_rows) \gexec
VACUUM w1;

-- W2: 5 int4 columns, all set (the narrow table a scan reads: what the
-- slot costs a row where there is nothing to save)
SELECT bench_create('w2', :'vt', w2_coldefs('all'));
SELECT w2_insert('w2', 'all', :w2_rows) \gexec
VACUUM w2;

-- W4 and W5: heap sources (the INSERT ... SELECT reads them), and tables
-- of the variant loaded from them with the primary key made first, as
-- bench/run.sh loads them (lookups and count(c800) read these)
SELECT mixed_source('w4_src', :w4_rows, false);
SELECT mixed_source('w5_src', :w4_rows, true);
SELECT bench_create('w4', :'vc', bench_coldefs_of('w4_src'));
ALTER TABLE w4 ADD PRIMARY KEY (id);
INSERT INTO w4 SELECT * FROM w4_src;
SELECT bench_create('w5', :'vc', bench_coldefs_of('w5_src'));
ALTER TABLE w5 ADD PRIMARY KEY (id);
INSERT INTO w5 SELECT * FROM w5_src;
-- their jsonb twins (W10; bench.sql's mixed_jsonb_source()), which the
-- figures against jsonb read in database "heap"; made in both databases,
-- so that their catalogs stay alike
SELECT mixed_jsonb_source('w4_doc', 'w4_src');
ALTER TABLE w4_doc ADD PRIMARY KEY (id);
SELECT mixed_jsonb_source('w5_doc', 'w5_src');
ALTER TABLE w5_doc ADD PRIMARY KEY (id);
VACUUM w4_src;
VACUUM w5_src;
VACUUM w4;
VACUUM w5;
VACUUM w4_doc;
VACUUM w5_doc;

-- the files COPY FROM reads: the same rows (written once, from "heap")
\set w4_copy :copy_dir '/w4.copy'
\set w5_copy :copy_dir '/w5.copy'
SELECT current_database() = 'heap' AS write_copy_files \gset
\if :write_copy_files
COPY w4_src TO :'w4_copy';
COPY w5_src TO :'w5_copy';
\endif

-- TPC-B: pgbench's tables (pgbench -i of PostgreSQL 15: the same
-- definitions, rows generated on the server, VACUUM, then the keys), made
-- with the variant as default_table_access_method, as bench/run.sh's W6
-- makes them
SET default_table_access_method = :'vt';
CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int,
	mtime timestamp, filler char(22));
CREATE TABLE pgbench_tellers (tid int NOT NULL, bid int, tbalance int,
	filler char(84)) WITH (fillfactor = 100);
CREATE TABLE pgbench_accounts (aid int NOT NULL, bid int, abalance int,
	filler char(84)) WITH (fillfactor = 100);
CREATE TABLE pgbench_branches (bid int NOT NULL, bbalance int,
	filler char(88)) WITH (fillfactor = 100);
INSERT INTO pgbench_branches (bid, bbalance)
	SELECT bid, 0 FROM generate_series(1, :tpcb_scale) bid;
INSERT INTO pgbench_tellers (tid, bid, tbalance)
	SELECT tid, (tid - 1) / 10 + 1, 0 FROM generate_series(1, 10 * :tpcb_scale) tid;
INSERT INTO pgbench_accounts (aid, bid, abalance, filler)
	SELECT aid, (aid - 1) / 100000 + 1, 0, ''
	FROM generate_series(1, 100000 * :tpcb_scale) aid;
VACUUM ANALYZE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history;
ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid);
ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid);
ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid);
RESET default_table_access_method;

-- every table read before any backend is counted: hint bits set, the
-- visibility map and the statistics made (the counted backends start
-- from the same pages)
VACUUM ANALYZE;
