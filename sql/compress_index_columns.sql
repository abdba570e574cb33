-- slimheap.index_columns: the columns a compress table's indexes read,
-- kept with its options so that pg_dump carries them (t/073 restores).
-- Builds of new indexes add their columns past the first 8; RENAME COLUMN
-- and DROP COLUMN follow; a user may set or reset it; rows keep the named
-- columns in their prefix where set, with or without an index.
CREATE EXTENSION IF NOT EXISTS slimheap;
SELECT format('CREATE TABLE ic (id int PRIMARY KEY, %s) USING slimheap WITH (slimheap.null_bitmap = compress)',
              string_agg(format('c%s int', i), ', ' ORDER BY i))
  FROM generate_series(2, 40) i \gexec
CREATE VIEW ic_options AS
  SELECT reloptions FROM pg_class WHERE oid = 'ic'::regclass;

-- a key column past the first 8; one in the first 8 adds nothing
CREATE INDEX ic_c20 ON ic (c20);
CREATE INDEX ic_c3 ON ic (c3);
TABLE ic_options;
-- INCLUDE columns, expressions and predicates count; each name once
CREATE INDEX ic_more ON ic (c30) INCLUDE (c31) WHERE c35 IS NOT NULL;
CREATE INDEX ic_expr ON ic ((c25 + c20));
TABLE ic_options;
-- a unique constraint, and a build in a transaction that rolls back
ALTER TABLE ic ADD CONSTRAINT ic_c36 UNIQUE (c36);
BEGIN;
CREATE INDEX ic_c37 ON ic (c37);
ROLLBACK;
TABLE ic_options;
-- a concurrent build
CREATE INDEX CONCURRENTLY ic_c26 ON ic (c26);
TABLE ic_options;
-- a failed build adds nothing
INSERT INTO ic (id, c38) VALUES (1, 1), (2, 1);
CREATE UNIQUE INDEX ic_c38 ON ic (c38);
TABLE ic_options;
-- DROP INDEX leaves the option (it only widens the floor)
DROP INDEX ic_more;
TABLE ic_options;
-- RENAME COLUMN and DROP COLUMN
ALTER TABLE ic RENAME COLUMN c20 TO "Twenty, ""x""";
ALTER TABLE ic DROP COLUMN c31;
TABLE ic_options;

-- set by hand: checked and spelled as SQL spells names
ALTER TABLE ic SET (slimheap.index_columns = 'c21, "c22",C23');
TABLE ic_options;
ALTER TABLE ic SET (slimheap.index_columns = 'c21,,c22');
-- a name that is no column: left out with a WARNING (a dump that names
-- one, from a rename slimheap did not see, still restores)
ALTER TABLE ic SET (slimheap.index_columns = 'c21,nosuch');
TABLE ic_options;
ALTER TABLE ic SET (slimheap.index_columns = '');
TABLE ic_options;
ALTER TABLE ic RESET (slimheap.index_columns);
TABLE ic_options;
-- REINDEX makes no new index: it adds nothing
REINDEX TABLE ic;
REINDEX TABLE CONCURRENTLY ic;
TABLE ic_options;

-- a partitioned parent's RENAME COLUMN reaches its partitions' options
-- too; a name left stale where slimheap did not see a rename (ALTER TYPE
-- ... RENAME ATTRIBUTE of a typed table) goes quietly at the next change
-- of the table's options, and blocks nothing
SELECT format('CREATE TABLE icp (id int, %s) PARTITION BY RANGE (id)',
              string_agg(format('c%s int', i), ', ' ORDER BY i))
  FROM generate_series(2, 20) i \gexec
CREATE TABLE icp1 PARTITION OF icp FOR VALUES FROM (0) TO (100)
  USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE INDEX ON icp (c12);
SELECT reloptions FROM pg_class WHERE oid = 'icp1'::regclass;
ALTER TABLE icp RENAME COLUMN c12 TO d12;
SELECT reloptions FROM pg_class WHERE oid = 'icp1'::regclass;
CREATE INDEX ON icp (c14);
ALTER TABLE icp1 SET (fillfactor = 90);
SELECT reloptions FROM pg_class WHERE oid = 'icp1'::regclass;
CREATE TYPE ict_type AS (a int, b int, c int, d int, e int, f int, g int, h int, i int, j int);
CREATE TABLE ictyped OF ict_type USING slimheap WITH (slimheap.null_bitmap = compress);
CREATE INDEX ON ictyped (j);
ALTER TYPE ict_type RENAME ATTRIBUTE j TO jj CASCADE;
SELECT reloptions FROM pg_class WHERE oid = 'ictyped'::regclass;
ALTER TABLE ictyped SET (fillfactor = 90);
SELECT reloptions FROM pg_class WHERE oid = 'ictyped'::regclass;
-- a CREATE TABLE (a restore's) that names a column it has not: a WARNING
CREATE TABLE icd (a int, b int) USING slimheap
  WITH (slimheap.null_bitmap = compress, slimheap.index_columns = 'b,gone');
SELECT reloptions FROM pg_class WHERE oid = 'icd'::regclass;

-- a named column stays in the prefix of rows that hold it, with no index
SELECT format('CREATE TABLE icr (id int, %s) USING slimheap WITH (slimheap.null_bitmap = compress, slimheap.index_columns = c30)',
              string_agg(format('c%s int', i), ', ' ORDER BY i))
  FROM generate_series(2, 80) i \gexec
INSERT INTO icr (id, c2, c30, c80) VALUES (1, 1, 30, 80), (2, 2, NULL, 80);
SELECT lp, form, natts, stored_natts FROM slimheap.page_items('icr', 0) ORDER BY lp;
SELECT id, c30, c80 FROM icr ORDER BY id;

-- tables in the other modes keep no tails: nothing is added
SELECT format('CREATE TABLE ict (id int, %s) USING slimheap WITH (slimheap.null_bitmap = truncate)',
              string_agg(format('c%s int', i), ', ' ORDER BY i))
  FROM generate_series(2, 40) i \gexec
CREATE INDEX ON ict (c20);
SELECT reloptions FROM pg_class WHERE oid = 'ict'::regclass;
-- and a heap table cannot take it
CREATE TABLE ich (a int, b int) WITH (slimheap.index_columns = b);

DROP TABLE ic, icr, ict, ich, icp, icd, ictyped CASCADE;
DROP TYPE ict_type;
