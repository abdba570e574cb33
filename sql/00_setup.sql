--
-- The suite's setup, run before every other file (hence 00_): the
-- extensions the tests use (slimheap, pageinspect, amcheck) and the helpers
-- of the differential twin_* tests (schema "twin"), where the same
-- statements run against a heap table and a slimheap twin, and the twins
-- must return the same rows.  Later files may rely on all of it.
--
-- quietly, and only where missing: this file may also run after others
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS slimheap;
CREATE EXTENSION IF NOT EXISTS pageinspect;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;

CREATE SCHEMA twin;

--
-- twin.query(q, h, s): run query q (with %s standing for the table) against
-- the heap table h and the slimheap table s and compare the results as
-- multisets of row texts.  Returns one line "n rows, identical", or one line
-- per row that only one of the twins returned (the first 20 of them, and a
-- count of the rest).
--
CREATE FUNCTION twin.query(q text, h regclass, s regclass)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	r record;
	ndiff bigint := 0;
BEGIN
	-- each twin is read once; the last line (o = 3) is the row count
	FOR r IN EXECUTE format(
		'WITH a AS MATERIALIZED (SELECT x::text AS r FROM (%3$s) x),'
		' b AS MATERIALIZED (SELECT x::text AS r FROM (%4$s) x)'
		' SELECT 1 AS o, ''only in %1$s: '' || r AS line FROM (TABLE a EXCEPT ALL TABLE b) d'
		' UNION ALL'
		' SELECT 2, ''only in %2$s: '' || r FROM (TABLE b EXCEPT ALL TABLE a) d'
		' UNION ALL'
		' SELECT 3, (SELECT count(*) FROM b) || '' rows, identical'''
		' ORDER BY o, line',
		h, s, format(q, h), format(q, s))
	LOOP
		IF r.o < 3 THEN
			ndiff := ndiff + 1;
			IF ndiff <= 20 THEN
				RETURN NEXT r.line;
			END IF;
		ELSIF ndiff > 20 THEN
			RETURN NEXT format('... and %s more rows that differ', ndiff - 20);
		ELSIF ndiff = 0 THEN
			RETURN NEXT r.line;
		END IF;
	END LOOP;
END
$$;

-- twin.compare(h, s): the twins hold the same rows
CREATE FUNCTION twin.compare(h regclass, s regclass)
RETURNS SETOF text LANGUAGE sql AS $$
	SELECT twin.query('SELECT * FROM %s', h, s)
$$;

--
-- twin.stored(rel): the stored form of every normal line pointer of a table
-- (all blocks), read with pageinspect: natts is t_infomask2 & HEAP_NATTS_MASK,
-- bits the NULL bitmap (NULL when HEAP_HASNULL is not set), data the bytes
-- after t_hoff.  Join on ctid to get the stored form of the visible rows.
--
CREATE FUNCTION twin.stored(rel regclass)
RETURNS TABLE (tid tid, natts int, hoff int, len int, bits text, data bytea)
LANGUAGE sql STABLE AS $$
	SELECT format('(%s,%s)', b, p.lp)::tid, p.t_infomask2 & 2047,
		   p.t_hoff::int, p.lp_len::int, p.t_bits, p.t_data
	FROM generate_series(0::bigint,
						 pg_relation_size(rel) / current_setting('block_size')::int - 1) AS b,
		 LATERAL heap_page_items(get_raw_page(rel::text, b)) AS p
	WHERE p.lp_flags = 1
$$;

--
-- twin.storage(h, s, key): join the visible rows of the twins on column key
-- and count the rows whose slimheap form is longer than heap's (there must
-- be none) and those that are shorter.
--
CREATE FUNCTION twin.storage(h regclass, s regclass, key text,
							 OUT rows bigint, OUT longer bigint,
							 OUT shorter bigint)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format(
		'SELECT count(*), count(*) FILTER (WHERE ss.len > hs.len),'
		' count(*) FILTER (WHERE ss.len < hs.len)'
		' FROM %1$s ht JOIN twin.stored(%3$s::regclass) hs ON hs.tid = ht.ctid'
		' JOIN %2$s st ON st.%5$I = ht.%5$I'
		' JOIN twin.stored(%4$s::regclass) ss ON ss.tid = st.ctid',
		h, s, h::oid, s::oid, key)
	INTO rows, longer, shorter;
END
$$;

--
-- twin.same_data(h, s, key): count the twin rows whose data bytes (after
-- t_hoff) differ.  For rows inserted from plain values there must be none:
-- NULLs take no data bytes and data starts at a MAXALIGNed t_hoff in both
-- forms, so only the header differs.  (UPDATE materializes the new row
-- before the table AM sees it, and slimheap then rewrites only that row's
-- header, so updated rows keep heap's data bytes too.)
--
CREATE FUNCTION twin.same_data(h regclass, s regclass, key text,
							   OUT rows bigint, OUT data_differs bigint)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format(
		'SELECT count(*), count(*) FILTER (WHERE ss.data IS DISTINCT FROM hs.data)'
		' FROM %1$s ht JOIN twin.stored(%3$s::regclass) hs ON hs.tid = ht.ctid'
		' JOIN %2$s st ON st.%5$I = ht.%5$I'
		' JOIN twin.stored(%4$s::regclass) ss ON ss.tid = st.ctid',
		h, s, h::oid, s::oid, key)
	INTO rows, data_differs;
END
$$;

--
-- twin.natts_rule(s): count the visible rows of a slimheap table (without
-- dropped columns and fast defaults) whose stored natts is not the number of
-- their last non-NULL attribute (found through row_to_json, which keeps the
-- column order), and those that carry a NULL bitmap although none of their
-- stored attributes is NULL (or lack one although one is).
--
CREATE FUNCTION twin.natts_rule(s regclass, OUT rows bigint,
								OUT wrong_natts bigint, OUT wrong_bitmap bigint)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format(
		'SELECT count(*),'
		' count(*) FILTER (WHERE ss.natts <> l.last_not_null),'
		' count(*) FILTER (WHERE (ss.bits IS NOT NULL) <>'
		'   (strpos(substr(ss.bits, 1, ss.natts), ''0'') > 0))'
		' FROM %1$s st JOIN twin.stored(%2$s::regclass) ss ON ss.tid = st.ctid,'
		' LATERAL (SELECT coalesce(max(e.n), 0) AS last_not_null'
		'          FROM json_each(row_to_json(st)) WITH ORDINALITY AS e(k, v, n)'
		'          WHERE json_typeof(e.v) <> ''null'') AS l',
		s, s::oid)
	INTO rows, wrong_natts, wrong_bitmap;
END
$$;
