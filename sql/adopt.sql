--
-- CALL slimheap.adopt() (src/am/slim_adopt.c): a heap table becomes
-- slimheap in the catalog alone.  The file, the rows and the indexes stay;
-- pg_class.relam, its pg_depend entry and the mode in reloptions change.
-- A heap twin goes through the same statements and must read the same,
-- before and after rows are written in the new mode, and after
-- slimheap.compact() re-lays the old rows in place.  Then every refusal,
-- each with its message.  (t/067_adopt.pl: the lock taken in short tries
-- while other sessions hold and wait for the table.)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA adopt_t;
SET search_path = adopt_t, public;

-- ad (to adopt) and tw (its twin, heap for good): id, c1 .. c300, t text
SELECT format('CREATE TABLE %I (id int PRIMARY KEY, %s, t text) USING heap', n,
			  string_agg(format('c%s int4', i), ', ' ORDER BY i))
FROM generate_series(1, 300) i, unnest(ARRAY['ad', 'tw']) n GROUP BY n \gexec
-- rows of every age: a load, short rows from before ADD COLUMN, a dropped
-- column, TOASTed text, an index on a middle column
SELECT format('INSERT INTO %I (id, c3, c150, c299, t) SELECT g, g, '
			  'CASE WHEN g %% 3 = 0 THEN g END, CASE WHEN g %% 5 = 0 THEN -g END, '
			  'CASE WHEN g %% 50 = 0 THEN repeat(md5(g::text), 300) ELSE ''t'' || g END '
			  'FROM generate_series(1, 2000) g', n)
FROM unnest(ARRAY['ad', 'tw']) n \gexec
SELECT format('CREATE INDEX ON %I (c150)', n) FROM unnest(ARRAY['ad', 'tw']) n \gexec
SELECT format('ALTER TABLE %I ADD COLUMN late int', n) FROM unnest(ARRAY['ad', 'tw']) n \gexec
SELECT format('ALTER TABLE %I DROP COLUMN c7', n) FROM unnest(ARRAY['ad', 'tw']) n \gexec

-- differ(): rows of one table the other lacks, both ways
CREATE FUNCTION differ() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM ((TABLE ad EXCEPT ALL TABLE tw) UNION ALL (TABLE tw EXCEPT ALL TABLE ad)) d
$$;

SELECT pg_relation_filenode('ad') AS node \gset
CALL slimheap.adopt('ad');
SELECT a.amname, c.relfilenode = :node AS same_file, c.reloptions
FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'ad'::regclass;
SELECT a.amname AS depends_on
FROM pg_depend d JOIN pg_am a ON a.oid = d.refobjid
WHERE d.classid = 'pg_class'::regclass AND d.objid = 'ad'::regclass
  AND d.refclassid = 'pg_am'::regclass;
SELECT differ() AS rows_differ;

-- written in compress now: new rows get tails; old rows read as before
SELECT format('INSERT INTO %I (id, c3, c150, c299, t) SELECT g, g, NULL, g, ''n'' FROM generate_series(3001, 3500) g', n)
FROM unnest(ARRAY['ad', 'tw']) n \gexec
SELECT format('UPDATE %I SET c299 = NULL, late = id WHERE id %% 7 = 0', n)
FROM unnest(ARRAY['ad', 'tw']) n \gexec
SELECT format('DELETE FROM %I WHERE id %% 11 = 0', n) FROM unnest(ARRAY['ad', 'tw']) n \gexec
SELECT differ() AS rows_differ;
SELECT tail_rows > 0 AS new_rows_have_tails FROM slimheap.stats('ad');
SELECT count(*) AS problems FROM slimheap.verify('ad');
SELECT bt_index_check(indexrelid, true) FROM pg_index WHERE indrelid = 'ad'::regclass
ORDER BY indexrelid::regclass::text;
SET enable_seqscan = off;
SELECT count(*) AS differ_by_index FROM ((SELECT id FROM ad WHERE c150 > 100 EXCEPT ALL
	SELECT id FROM tw WHERE c150 > 100) UNION ALL (SELECT id FROM tw WHERE c150 > 100
	EXCEPT ALL SELECT id FROM ad WHERE c150 > 100)) d;
RESET enable_seqscan;
-- compact: the rows still in heap's form are re-laid in place into
-- compress; the rows, the file and the indexes stay
SELECT live_bytes AS live_before, pg_relation_size('ad') AS size_before
FROM slimheap.stats('ad') \gset
CALL slimheap.compact('ad');
SELECT differ() AS rows_differ,
	   s.live_bytes < :live_before AS live_bytes_shrank,
	   s.tail_rows > 1000 AS old_rows_got_tails,
	   pg_relation_size('ad') = :size_before AS same_size
FROM slimheap.stats('ad') s;
SELECT count(*) AS problems FROM slimheap.verify('ad');
SELECT bt_index_check(indexrelid, true) FROM pg_index WHERE indrelid = 'ad'::regclass
ORDER BY indexrelid::regclass::text;
-- a second CALL finds nothing left; in a transaction block it runs in one
CALL slimheap.compact('ad');
BEGIN;
CALL slimheap.compact('ad');
COMMIT;
CALL slimheap.compact('tw');
CALL slimheap.compact(NULL);
-- and a rewrite keeps it so
VACUUM FULL ad;
SELECT differ() AS rows_differ;

-- a table adopted in truncate mode
CREATE TABLE small (id int, a int, b int) USING heap;
INSERT INTO small SELECT g, g, NULL FROM generate_series(1, 100) g;
CALL slimheap.adopt('small', 'truncate', '10 s');
SELECT c.reloptions, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 'small'::regclass;
SELECT count(*), sum(a) FROM small;

-- a partitioned table: every partition (a sub-partitioned one, a default
-- one, one adopted before) is adopted; the parent gets the access method
-- from PostgreSQL 17 on (before, a NOTICE says it keeps none)
CREATE TABLE parted (id int, a int, b int) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (100) TO (200)
	PARTITION BY RANGE (id);
CREATE TABLE parted_2a PARTITION OF parted_2 FOR VALUES FROM (100) TO (200);
CREATE TABLE parted_def PARTITION OF parted DEFAULT;
CREATE TABLE parted_3 PARTITION OF parted FOR VALUES FROM (200) TO (300);
INSERT INTO parted SELECT g, g, NULL FROM generate_series(1, 400) g;
CALL slimheap.adopt('parted_3', 'compress');
SET client_min_messages = warning;
CALL slimheap.adopt('parted', 'truncate');
RESET client_min_messages;
SELECT c.relname, c.relkind, a.amname, c.reloptions
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relname LIKE 'parted%' AND c.relkind = 'r' ORDER BY 1;
SELECT c.relname, a.amname IS NOT DISTINCT FROM
	   CASE WHEN current_setting('server_version_num')::int >= 170000 THEN 'slimheap' END
	   AS am_as_the_version_allows
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relname LIKE 'parted%' AND c.relkind = 'p' ORDER BY 1;
SELECT count(*), sum(a) FROM parted;
INSERT INTO parted SELECT g, g, NULL FROM generate_series(401, 450) g;
SELECT count(*) FROM parted_def;

-- from a DO block: allowed, and it commits, so the block goes on in a new
-- transaction, without the lock and with the session's lock_timeout
CREATE TABLE lt (id int) USING heap;
DO $$
BEGIN
	CALL slimheap.adopt('lt', 'truncate');
	RAISE NOTICE 'lock_timeout is %, lock held: %', current_setting('lock_timeout'),
		(SELECT count(*) FROM pg_locks WHERE relation = 'adopt_t.lt'::regclass
		   AND pid = pg_backend_pid() AND mode = 'AccessExclusiveLock');
END $$;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'lt'::regclass;

-- refusals
CREATE FUNCTION adopt_in_function() RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	CALL slimheap.adopt('tw');
	RETURN 1;
END $$;
SELECT adopt_in_function();
BEGIN;
CALL slimheap.adopt('tw');
ROLLBACK;
CALL slimheap.adopt('ad');
CALL slimheap.adopt('tw', 'sparse');
CALL slimheap.adopt('tw', 'compress', '-1 s');
CALL slimheap.adopt('tw', 'compress', '1 mon');
CALL slimheap.adopt(NULL);
CALL slimheap.adopt('tw_pkey');
CREATE VIEW tw_view AS SELECT id FROM tw;
CALL slimheap.adopt('tw_view');
CALL slimheap.adopt('pg_class');
CREATE ROLE adopt_other;
GRANT USAGE ON SCHEMA adopt_t TO adopt_other;
SET ROLE adopt_other;
CALL slimheap.adopt('tw');
RESET ROLE;
-- and a table that is not found
CALL slimheap.adopt(0);
-- nothing of the refused calls changed the twin
SELECT a.amname, c.reloptions FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 'tw'::regclass;

RESET search_path;
DROP SCHEMA adopt_t CASCADE;
DROP ROLE adopt_other;
