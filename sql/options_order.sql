--
-- Core's checks come before the hook's work: in a read-only transaction,
-- DDL with or without slimheap options gets core's error, and the hook
-- writes nothing before core rejects the statement (no transaction ID is
-- ever assigned).  A statement without slimheap options on a table without
-- slimheap entries is core's alone.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

CREATE TABLE ro_slim (a int4, b int4) USING slimheap
  WITH (slimheap.null_bitmap = full, fillfactor = 90);
CREATE TABLE ro_heap (a int4, b int4);

BEGIN READ ONLY;
SAVEPOINT s;
ALTER TABLE ro_slim SET (fillfactor = 60);
ROLLBACK TO s;
ALTER TABLE ro_slim SET (slimheap.null_bitmap = truncate);
ROLLBACK TO s;
ALTER TABLE ro_slim RESET (slimheap.null_bitmap);
ROLLBACK TO s;
ALTER TABLE ro_slim SET ACCESS METHOD heap;
ROLLBACK TO s;
ALTER TABLE ro_heap SET (fillfactor = 60);
ROLLBACK TO s;
ALTER TABLE ro_heap SET (slimheap.null_bitmap = full);
ROLLBACK TO s;
ALTER TABLE ro_slim SET (slimheap.no_such_option = 1);
ROLLBACK TO s;
CREATE TABLE ro_new (a int4) USING slimheap WITH (slimheap.null_bitmap = bogus);
ROLLBACK TO s;
CREATE VIEW ro_view WITH (slimheap.null_bitmap = full) AS SELECT 1;
ROLLBACK TO s;
SELECT pg_current_xact_id_if_assigned() IS NULL AS nothing_written;
COMMIT;

-- the options are where they were
SELECT relname, reloptions FROM pg_class
 WHERE relname IN ('ro_slim', 'ro_heap') ORDER BY relname;

-- outside a read-only transaction the same statements work as before
ALTER TABLE ro_slim SET (fillfactor = 60);
ALTER TABLE ro_heap SET (fillfactor = 60);
SELECT relname, reloptions FROM pg_class
 WHERE relname IN ('ro_slim', 'ro_heap') ORDER BY relname;

DROP TABLE ro_slim, ro_heap;
