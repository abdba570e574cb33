--
-- Triggers on slimheap tables: BEFORE ROW triggers that change NEW (making a
-- trailing column non-NULL or NULL), AFTER ROW triggers that read OLD and
-- NEW, statement triggers with transition tables.  Each twin logs into its
-- own log table; the logs must be identical.
--
CREATE SCHEMA twin_trigger;
SET search_path = twin_trigger, public;

-- p6 .. p9 are never set: they make the table wider than 8 attributes, so
-- that rows ending in NULLs are stored truncated (a narrower table stores
-- heap's full form in every mode, docs/narrow-slot.md); d is the last
-- column a row can end at
CREATE TABLE trg_h (id int PRIMARY KEY, a int, b text, c int, d text,
                    p6 int, p7 int, p8 int, p9 int) USING heap;
CREATE TABLE trg_s (id int PRIMARY KEY, a int, b text, c int, d text,
                    p6 int, p7 int, p8 int, p9 int) USING slimheap;
CREATE TABLE log_h (n serial, op text, old text, new text);
CREATE TABLE log_s (n serial, op text, old text, new text);

-- BEFORE ROW: a < 0 sets d, the last column set; b = 'clear' clears c and d;
-- b = 'skip' drops the row; an UPDATE appends to d
CREATE FUNCTION before_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.b IS DISTINCT FROM 'clear' THEN
		NEW.d := coalesce(OLD.d, '') || '+';
	END IF;
	IF NEW.a < 0 THEN
		NEW.d := 'negative';
	END IF;
	IF NEW.b = 'clear' THEN
		NEW.c := NULL;
		NEW.d := NULL;
	END IF;
	IF NEW.b = 'skip' THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END
$$;

-- AFTER ROW: log OLD and NEW as the trigger sees them
CREATE FUNCTION after_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO log_%s (op, old, new) VALUES ($1, $2, $3)',
				   right(TG_TABLE_NAME, 1))
	USING TG_OP || ' row',
		  CASE WHEN TG_OP <> 'INSERT' THEN OLD::text END,
		  CASE WHEN TG_OP <> 'DELETE' THEN NEW::text END;
	RETURN NULL;
END
$$;

-- AFTER STATEMENT: log the transition tables
CREATE FUNCTION after_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	o text;
	n text;
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') THEN
		SELECT string_agg(t::text, ' ' ORDER BY t.id, t::text) INTO o FROM old_rows t;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		SELECT string_agg(t::text, ' ' ORDER BY t.id, t::text) INTO n FROM new_rows t;
	END IF;
	EXECUTE format('INSERT INTO log_%s (op, old, new) VALUES ($1, $2, $3)',
				   right(TG_TABLE_NAME, 1))
	USING TG_OP || ' statement', o, n;
	RETURN NULL;
END
$$;

-- BEFORE STATEMENT: just log that it ran
CREATE FUNCTION before_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO log_%s (op) VALUES ($1)', right(TG_TABLE_NAME, 1))
	USING 'before ' || TG_OP;
	RETURN NULL;
END
$$;

CREATE TRIGGER b_row BEFORE INSERT OR UPDATE ON trg_h FOR EACH ROW EXECUTE FUNCTION before_row();
CREATE TRIGGER b_row BEFORE INSERT OR UPDATE ON trg_s FOR EACH ROW EXECUTE FUNCTION before_row();
CREATE TRIGGER a_row AFTER INSERT OR UPDATE OR DELETE ON trg_h FOR EACH ROW EXECUTE FUNCTION after_row();
CREATE TRIGGER a_row AFTER INSERT OR UPDATE OR DELETE ON trg_s FOR EACH ROW EXECUTE FUNCTION after_row();
CREATE TRIGGER b_stmt BEFORE INSERT OR UPDATE OR DELETE ON trg_h FOR EACH STATEMENT EXECUTE FUNCTION before_stmt();
CREATE TRIGGER b_stmt BEFORE INSERT OR UPDATE OR DELETE ON trg_s FOR EACH STATEMENT EXECUTE FUNCTION before_stmt();
CREATE TRIGGER a_stmt_ins AFTER INSERT ON trg_h REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION after_stmt();
CREATE TRIGGER a_stmt_ins AFTER INSERT ON trg_s REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION after_stmt();
CREATE TRIGGER a_stmt_upd AFTER UPDATE ON trg_h REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION after_stmt();
CREATE TRIGGER a_stmt_upd AFTER UPDATE ON trg_s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION after_stmt();
CREATE TRIGGER a_stmt_del AFTER DELETE ON trg_h REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION after_stmt();
CREATE TRIGGER a_stmt_del AFTER DELETE ON trg_s REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION after_stmt();

INSERT INTO trg_h VALUES (1, 1, 'one', NULL, NULL),
                         (2, -2, NULL, NULL, NULL),     -- trigger sets d
                         (3, 3, 'clear', 3, 'three'),   -- trigger clears c, d
                         (4, 4, 'skip', 4, 'four'),     -- trigger drops it
                         (5, NULL, NULL, NULL, NULL);
INSERT INTO trg_s VALUES (1, 1, 'one', NULL, NULL),
                         (2, -2, NULL, NULL, NULL),
                         (3, 3, 'clear', 3, 'three'),
                         (4, 4, 'skip', 4, 'four'),
                         (5, NULL, NULL, NULL, NULL);
COPY trg_h FROM stdin;
6	-6	\N	\N	\N	\N	\N	\N	\N
7	7	clear	7	seven	\N	\N	\N	\N
8	\N	\N	\N	\N	\N	\N	\N	\N
\.
COPY trg_s FROM stdin;
6	-6	\N	\N	\N	\N	\N	\N	\N
7	7	clear	7	seven	\N	\N	\N	\N
8	\N	\N	\N	\N	\N	\N	\N	\N
\.
UPDATE trg_h SET a = a + 100 WHERE id IN (1, 5);        -- d gets '+'
UPDATE trg_s SET a = a + 100 WHERE id IN (1, 5);
UPDATE trg_h SET b = 'clear' WHERE id = 2;               -- d cleared again
UPDATE trg_s SET b = 'clear' WHERE id = 2;
UPDATE trg_h SET a = -1, c = 9 WHERE id = 8;             -- c and d set
UPDATE trg_s SET a = -1, c = 9 WHERE id = 8;
UPDATE trg_h SET b = 'skip' WHERE id = 3;                -- update skipped
UPDATE trg_s SET b = 'skip' WHERE id = 3;
INSERT INTO trg_h VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET c = 1;
INSERT INTO trg_s VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET c = 1;
DELETE FROM trg_h WHERE id IN (6, 7);
DELETE FROM trg_s WHERE id IN (6, 7);

SELECT * FROM trg_s ORDER BY id;
SELECT * FROM twin.compare('trg_h', 'trg_s');
SELECT * FROM twin.natts_rule('trg_s');
SELECT * FROM twin.storage('trg_h', 'trg_s', 'id');
SELECT n, op, old, new FROM log_s ORDER BY n;
SELECT * FROM twin.compare('log_h', 'log_s');

--
-- A BEFORE trigger on a wide table that sets the last of 40 columns, and
-- one that clears it: the stored natts follows what the trigger returned.
--
CREATE TABLE wide_h (id int) USING heap;
CREATE TABLE wide_s (id int) USING slimheap;
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['wide_h', 'wide_s'] LOOP
		EXECUTE format('ALTER TABLE %s %s', t,
					   (SELECT string_agg(format('ADD COLUMN c%s int', i), ', ')
						FROM generate_series(2, 40) AS i));
	END LOOP;
END
$$;
CREATE FUNCTION set_last() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.id % 2 = 0 THEN
		NEW.c40 := NEW.id;
	ELSE
		NEW.c40 := NULL;
	END IF;
	RETURN NEW;
END
$$;
CREATE TRIGGER set_last BEFORE INSERT OR UPDATE ON wide_h FOR EACH ROW EXECUTE FUNCTION set_last();
CREATE TRIGGER set_last BEFORE INSERT OR UPDATE ON wide_s FOR EACH ROW EXECUTE FUNCTION set_last();
INSERT INTO wide_h (id, c2, c40) SELECT g, g, 1 FROM generate_series(1, 6) AS g;
INSERT INTO wide_s (id, c2, c40) SELECT g, g, 1 FROM generate_series(1, 6) AS g;
UPDATE wide_h SET id = id + 1 WHERE id > 4;
UPDATE wide_s SET id = id + 1 WHERE id > 4;
SELECT t.id, t.c2, t.c40, s.natts, s.hoff, s.len
FROM wide_s t JOIN twin.stored('wide_s') s ON s.tid = t.ctid ORDER BY t.id;
SELECT * FROM twin.compare('wide_h', 'wide_s');
SELECT * FROM twin.storage('wide_h', 'wide_s', 'id');

SET client_min_messages = warning;
DROP SCHEMA twin_trigger CASCADE;
RESET client_min_messages;
