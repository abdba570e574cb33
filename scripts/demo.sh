#!/bin/bash
#
# demo.sh: load workload W1 into heap and slimheap and compare (`make demo`).
#
# W1: 800 nullable int4 columns, each row sets the first 50, the rest NULL,
# 200k rows, loaded with INSERT ... SELECT into a heap table and a slimheap
# table.  Prints rows, relation size, bytes per row, load time and the
# slimheap/heap ratio, and the stored header of one row of each.
#
# Run as root: builds and installs the extension, then runs a throwaway
# cluster as the unprivileged user `postgres` under /tmp (shared_buffers
# 512MB, autovacuum off, synchronous_commit off), which is stopped and
# removed at the end, also on failure.
#
# Environment: SLIMHEAP_DEMO_PORT (first port to try, default 54340),
# SLIMHEAP_DEMO_ROWS (default 200000), PG_CONFIG.
#
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BINDIR=$("$PG_CONFIG" --bindir)
RUN_AS=postgres
ROWS=${SLIMHEAP_DEMO_ROWS:-200000}

unset PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGOPTIONS \
	PGSERVICE PGSERVICEFILE PGDATA

[ "$(id -u)" = 0 ] || { echo "demo: run as root (make demo)" >&2; exit 1; }
[[ $ROWS =~ ^[1-9][0-9]*$ ]] || { echo "demo: SLIMHEAP_DEMO_ROWS must be a positive integer" >&2; exit 1; }

as_pg() { runuser -u "$RUN_AS" -- "$@"; }

WORK=
cleanup()
{
	local rc=$?
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		if [ -f "$WORK/data/postmaster.pid" ]; then
			as_pg "$BINDIR/pg_ctl" -D "$WORK/data" -m immediate -w stop >/dev/null 2>&1 || true
		fi
		if [ "$rc" != 0 ] && [ -f "$WORK/server.log" ]; then
			echo "--- last lines of the server log ---" >&2
			tail -n 20 "$WORK/server.log" >&2
		fi
		rm -rf "$WORK"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

echo "== build and install"
make -C "$ROOT" -s
make -C "$ROOT" -s install >/dev/null

WORK=$(mktemp -d /tmp/slimheap-demo.XXXXXX)
chown "$RUN_AS:" "$WORK"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=${SLIMHEAP_DEMO_PORT:-54340}
while port_in_use "$PORT"; do
	PORT=$((PORT + 1))
done

echo "== throwaway cluster in $WORK (port $PORT)"
as_pg "$BINDIR/initdb" -D "$WORK/data" -U postgres -A trust --no-sync \
	--no-locale -E UTF8 >"$WORK/initdb.log" 2>&1 ||
	{ cat "$WORK/initdb.log" >&2; exit 1; }
cat >>"$WORK/data/postgresql.conf" <<EOF
# added by scripts/demo.sh
listen_addresses = ''
port = $PORT
unix_socket_directories = '$WORK'
shared_buffers = 512MB
autovacuum = off
synchronous_commit = off
shared_preload_libraries = 'slimheap'
EOF
as_pg "$BINDIR/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 120 start >/dev/null

psql_demo() { as_pg "$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "$PORT" -d postgres "$@"; }

echo "== loading W1: $ROWS rows of 800 int4 columns, c1..c50 set, the rest NULL"
psql_demo -v rows="$ROWS" <<'SQL'
CREATE EXTENSION slimheap;
CREATE EXTENSION pageinspect;

-- the two tables, and the load into one of them, timed in the server
CREATE FUNCTION w1_create(am text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE w1_%s (%s) USING %s', am,
				   (SELECT string_agg(format('c%s int4', i), ', ' ORDER BY i)
					  FROM generate_series(1, 800) i), am);
END $$;

CREATE TABLE w1_load (am text PRIMARY KEY, load_ms numeric);

CREATE FUNCTION w1_load(am text, nrows int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE format('INSERT INTO w1_%s (%s) SELECT %s FROM generate_series(1, %s) g',
				   am,
				   (SELECT string_agg(format('c%s', i), ', ' ORDER BY i)
					  FROM generate_series(1, 50) i),
				   (SELECT string_agg(format('g + %s', i), ', ' ORDER BY i)
					  FROM generate_series(1, 50) i),
				   nrows);
	INSERT INTO w1_load
		VALUES (am, round(extract(epoch FROM clock_timestamp() - t0) * 1000));
END $$;

\o /dev/null
SELECT w1_create('heap');
SELECT w1_create('slimheap');
SELECT w1_load('heap', :rows);
CHECKPOINT;
SELECT w1_load('slimheap', :rows);
CHECKPOINT;
\o
SQL

echo
psql_demo <<'SQL'
\pset footer off
CREATE TEMP TABLE w1 AS
SELECT l.am, t.nrows, pg_relation_size(format('w1_%s', l.am)) AS bytes, l.load_ms
  FROM w1_load l,
	   LATERAL (SELECT count(*) AS nrows FROM w1_heap WHERE l.am = 'heap'
				UNION ALL
				SELECT count(*) FROM w1_slimheap WHERE l.am = 'slimheap') t
 WHERE t.nrows > 0;

SELECT am AS "table", nrows AS rows, pg_size_pretty(bytes) AS size,
	   round(bytes::numeric / nrows, 1) AS bytes_per_row,
	   load_ms || ' ms' AS load_time
  FROM w1 ORDER BY am;

SELECT round(s.bytes::numeric / h.bytes, 3) AS "size ratio slimheap/heap",
	   round(s.load_ms / nullif(h.load_ms, 0), 2) AS "load time ratio slimheap/heap"
  FROM w1 h, w1 s WHERE h.am = 'heap' AND s.am = 'slimheap';

\pset tuples_only on
SELECT format('stored row 1 of w1_%s: natts=%s t_hoff=%s lp_len=%s',
			  am, t_infomask2 & 2047, t_hoff, lp_len)
  FROM (VALUES ('heap'), ('slimheap')) v(am),
	   LATERAL heap_page_items(get_raw_page(format('w1_%s', am), 0))
 WHERE lp = 1
 ORDER BY am;
SQL

echo
echo "== compress: $((ROWS / 4)) rows of 800 int4/text columns, 40 set at scattered places"
psql_demo -v rows="$((ROWS / 4))" <<'SQL'
\pset footer off
\o /dev/null
SELECT format('CREATE TABLE w4_%s (id int PRIMARY KEY, %s) USING %s', v, cols, am)
  FROM (SELECT string_agg(format('c%s %s', i, CASE WHEN i % 2 = 0 THEN 'text' ELSE 'int4' END),
						  ', ' ORDER BY i) AS cols
		  FROM generate_series(1, 800) i) c,
	   (VALUES ('heap', 'heap'),
			   ('compress', 'slimheap WITH (slimheap.null_bitmap = compress)')) v(v, am)
\gexec
-- one column in every 20: c1, c22, c41, c62, ... (int4 and text in turn)
SELECT format('INSERT INTO w4_%s (id, %s) SELECT g, %s FROM generate_series(1, %s) g', v,
			  string_agg(format('c%s', 20 * k + 1 + k % 2), ', ' ORDER BY k),
			  string_agg(CASE WHEN k % 2 = 0 THEN 'g' ELSE '''v'' || g' END, ', ' ORDER BY k),
			  :rows)
  FROM (VALUES ('heap'), ('compress')) v(v),
	   generate_series(0, 39) k
 GROUP BY v
\gexec
\o
SELECT t AS "table", pg_size_pretty(pg_relation_size(t)) AS size,
	   round(pg_relation_size(t)::numeric / pg_relation_size('w4_heap'), 3) AS "size/heap"
  FROM unnest(ARRAY['w4_heap', 'w4_compress']) t;
SELECT (SELECT count(*) FROM (TABLE w4_heap EXCEPT ALL TABLE w4_compress) a) +
	   (SELECT count(*) FROM (TABLE w4_compress EXCEPT ALL TABLE w4_heap) b)
	   AS "rows that differ from heap",
	   (SELECT count(*) FROM heap_page_items(get_raw_page('w4_compress', 0))
		 WHERE t_infomask2 & 2048 <> 0) AS "rows with a tail on page 0";
SQL

echo "(load times are from one run on a possibly busy machine; \`make bench\` measures)"
as_pg "$BINDIR/pg_ctl" -D "$WORK/data" -m fast -w stop >/dev/null
echo "== cluster stopped and removed"
