--
-- ALTER TABLE with options: the hook and core act on the same table.
--
-- The hook looks the table up (and locks it) to take its slimheap entries
-- out while core runs; core then fires ddl_command_start event triggers and
-- looks the name up again.  An event trigger that changes search_path (as
-- a table created meanwhile earlier on the path would) must not make core
-- act on another table: the hook hands core the table it found.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
RESET client_min_messages;

CREATE SCHEMA race_early;
CREATE SCHEMA race_late;
CREATE TABLE race_late.t (a int, b int) USING slimheap;
CREATE TABLE race_early.t (a int, b int) USING heap;
INSERT INTO race_late.t VALUES (1, NULL);

CREATE FUNCTION race_path() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('search_path', 'race_early, race_late, public', false);
END $$;
CREATE EVENT TRIGGER race_path ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE') EXECUTE FUNCTION race_path();

CREATE VIEW race_opts AS
	SELECT n.nspname, c.relname, a.amname, c.reloptions
	  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	  JOIN pg_am a ON a.oid = c.relam
	 WHERE n.nspname IN ('race_early', 'race_late') AND c.relkind = 'r'
	 ORDER BY 1;

-- our option and core's land on race_late.t, found before the trigger ran
SET search_path = race_late, public;
ALTER TABLE t SET (slimheap.null_bitmap = 'full', fillfactor = 70);
SHOW search_path;
SELECT * FROM public.race_opts;

-- core's option alone, on a table with slimheap entries
SET search_path = race_late, public;
ALTER TABLE t SET (fillfactor = 50);
SELECT * FROM public.race_opts;

-- RESET
SET search_path = race_late, public;
ALTER TABLE t RESET (fillfactor);
SELECT * FROM public.race_opts;

-- leaving slimheap drops the entries of the table that leaves
SET search_path = race_late, public;
ALTER TABLE t SET ACCESS METHOD heap;
SELECT * FROM public.race_opts;
SELECT * FROM race_late.t;

-- IF EXISTS on a name that is not there: core's NOTICE, nothing changed
SET search_path = public;
ALTER TABLE IF EXISTS race_missing SET (slimheap.null_bitmap = 'full');

RESET search_path;
DROP EVENT TRIGGER race_path;
DROP FUNCTION race_path();
DROP VIEW race_opts;
DROP SCHEMA race_early, race_late CASCADE;
