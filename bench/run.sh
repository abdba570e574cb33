#!/bin/bash
# bench/run.sh: slimheap against heap, side by side, on the workloads W1-W9
# of WORKLOADS.md (docs/bench.md says what each one measures).
#
#   make bench               full run (the row counts of WORKLOADS.md)
#   make bench QUICK=1       everything at 1/10 of the rows, 3 repetitions
#   make bench REPS=7        repetitions per figure (default 5, quick 3)
#
# Builds and installs the extension, builds the W7 module, starts a
# throwaway cluster as user postgres, runs heap and slimheap alternately
# (a warm-up round first, then REPS measured rounds), writing every
# measurement to bench/results/latest-raw.csv as it is taken and the run's
# description to latest-run.txt; bench/report.sh then derives latest.md
# (also printed), latest.csv (median, min, max and ratio per figure),
# w3.png and w10.png from those two, whatever git says about the checkout.
# W4 and W5 also run on their jsonb twin (W10: (id, doc jsonb), the same
# rows), with the reads by column position.
# `bench/run.sh --report-only RESULTS_DIR` runs only that report step.
# Benchmarks are not tests: nothing here asserts a timing.
#
# Also read from the environment: ONLY="W3 W7" (run only these workloads;
# their results go to bench/results/only-W3-W7/, so that a partial run
# does not replace the full one that README.md quotes), BENCH_RESULTS=<dir>
# (write the results there instead), BENCH_PORT (default 5530), BENCH_LOCK_WAIT (seconds to wait for the
# install lock, default 900), BENCH_SKIP_INSTALL=1 (do not install),
# BENCH_LIB=<path> (benchmark that build of slimheap.so instead of the
# tree's, e.g. to compare two builds; implies BENCH_SKIP_INSTALL=1).
set -euo pipefail

# bench/run.sh --report-only RESULTS_DIR: only the report step, on the
# measurements of a finished run (bench/report.sh)
if [ "${1:-}" = --report-only ]; then
	[ $# = 2 ] || { echo "usage: $0 --report-only RESULTS_DIR" >&2; exit 2; }
	exec bash "$(dirname "${BASH_SOURCE[0]}")/report.sh" "$2"
elif [ $# != 0 ]; then
	echo "usage: $0 [--report-only RESULTS_DIR] (the rest is read from the environment)" >&2
	exit 2
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/bench
for w in ${ONLY:-}; do
	if ! [[ $w =~ ^W[1-9][0-9]?$ ]]; then
		echo "ONLY: '$w' is not a workload (W1 ... W11 of WORKLOADS.md)" >&2
		exit 2
	fi
done
if [ -n "${BENCH_RESULTS:-}" ]; then
	RESULTS=$BENCH_RESULTS
elif [ -n "${ONLY:-}" ]; then
	RESULTS=$BENCH/results/only-$(printf '%s\n' $ONLY | sort -u | paste -sd- -)
else
	RESULTS=$BENCH/results
fi
# the server: PG_CONFIG's (`make bench PG=18` sets it), or PGBIN
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=${PGBIN:-$("$PG_CONFIG" --bindir)}
PORT=${BENCH_PORT:-5530}
LOCK=/tmp/slimheap-install.lock

case "${QUICK:-0}" in
	1|yes|true) QUICK=1 ;;
	0|''|no|false) QUICK=0 ;;
	*) echo "QUICK must be 1 or 0, not '$QUICK'" >&2; exit 2 ;;
esac
REPS=${REPS:-$([ $QUICK = 1 ] && echo 3 || echo 5)}
if ! [[ $REPS =~ ^[1-9][0-9]*$ ]]; then
	echo "REPS must be a positive integer, not '$REPS'" >&2
	exit 2
fi

# Sizes: WORKLOADS.md for the full run, a tenth of the rows for QUICK.
if [ $QUICK = 1 ]; then
	DIV=10
	PGBENCH_SCALE=2 PGBENCH_SECONDS=3 PGBENCH_WARMUP=2
	W7_ITERATIONS=1000000 W7_WIDE_ITERATIONS=20000
else
	DIV=1
	PGBENCH_SCALE=10 PGBENCH_SECONDS=20 PGBENCH_WARMUP=10
	W7_ITERATIONS=10000000 W7_WIDE_ITERATIONS=200000
fi
W1_ROWS=$((200000 / DIV))
W2_ROWS=$((2000000 / DIV))
W3_ROWS=$((1000000 / DIV))
W4_ROWS=$((100000 / DIV))
W9_ROWS=$((50000 / DIV))
LOOKUPS=$((20000 / DIV))
PGBENCH_CLIENTS=4
# W3: the four positions of WORKLOADS.md, plus both sides of the MAXALIGN
# steps of slimheap's header: with id, a value at c<p> stores p+1 attributes,
# so t_hoff is 24 up to c7, 32 from c8 to c71 and 40 from c72 (heap: 40)
W3_POSITIONS="7 8 71 72 80 90 95 100"
W2_CASES="all first notnull"
W7_CASES="w1 w2_all w2_first w2_notnull w4 w5"
W7_SLICES=20

LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

as_postgres() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# --- build ------------------------------------------------------------------
log "building the extension and the W7 module (bench/formbench)"
make -C "$ROOT" -s
make -C "$BENCH/formbench" -s
FORMBENCH_SO=$BENCH/formbench/slimheap_formbench.so

# --- throwaway cluster ------------------------------------------------------
WORK=$(mktemp -d /tmp/bench-XXXXXX)
DATA=$WORK/data
[ "$(id -u)" = 0 ] && chown postgres: "$WORK"
SERVER_STARTED=0

cleanup() {
	local rc=$?
	local d
	if [ $SERVER_STARTED = 1 ]; then
		for d in "$DATA" "$WORK/data-logical"; do
			[ -f "$d/postmaster.pid" ] || continue
			as_postgres "$PGBIN/pg_ctl" -D "$d" -m fast -w stop >/dev/null 2>&1 ||
				as_postgres "$PGBIN/pg_ctl" -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
		done
	fi
	if [ $rc != 0 ] && [ -f "$WORK/server.log" ]; then
		echo "--- last lines of the server log ---" >&2
		tail -n 20 "$WORK/server.log" >&2
	fi
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The server runs a private copy of the library, preloaded and named by
# path in the access method's handler: a later install into $libdir (by
# anyone, during a run of 20 minutes) then cannot change what new
# connections (pgbench) load.  The copy is the tree's build, which is also
# installed, under the shared install lock, unless BENCH_SKIP_INSTALL=1.
SKIP_INSTALL=${BENCH_SKIP_INSTALL:-0}
SOURCE_LIB=$ROOT/slimheap.so
if [ -n "${BENCH_LIB:-}" ]; then
	SKIP_INSTALL=1
	SOURCE_LIB=$(realpath "$BENCH_LIB")
fi
if [ "$SKIP_INSTALL" != 1 ]; then
	log "installing the extension"
	if ! flock -w "${BENCH_LOCK_WAIT:-900}" "$LOCK" make -C "$ROOT" -s install >/dev/null; then
		log "could not install within ${BENCH_LOCK_WAIT:-900} s (is $LOCK held?);"
		log "BENCH_SKIP_INSTALL=1 runs the benchmark without installing"
		exit 1
	fi
fi
SLIMHEAP_LIB=$WORK/slimheap.so
cp "$SOURCE_LIB" "$SLIMHEAP_LIB"
chmod 755 "$SLIMHEAP_LIB"

# Fixed settings: every table of a workload fits in shared_buffers; no
# autovacuum; commits do not wait for the WAL flush; checkpoints happen only
# when asked for (each timed section is preceded by CHECKPOINT); no JIT and
# no parallel workers, whose start-up costs are noise on a 2-core machine.
# make_cluster DIR PORT [SETTING...]: initdb, these settings, and any more
make_cluster() {
	local dir=$1 port=$2
	shift 2
	log "initdb in $dir"
	as_postgres "$PGBIN/initdb" -D "$dir" -U postgres -A trust -E UTF8 \
		--locale=C --no-sync >"$dir.initdb.log"
	cat >>"$dir/postgresql.conf" <<EOF

# slimheap benchmark (bench/run.sh)
port = $port
listen_addresses = ''
unix_socket_directories = '$WORK'
shared_preload_libraries = '$SLIMHEAP_LIB'
shared_buffers = 2GB
work_mem = 64MB
maintenance_work_mem = 256MB
autovacuum = off
synchronous_commit = off
checkpoint_timeout = 1h
max_wal_size = 20GB
min_wal_size = 1GB
jit = off
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
EOF
	printf '%s\n' "$@" >>"$dir/postgresql.conf"
}
make_cluster "$DATA" "$PORT"

SERVER_STARTED=1		# from here on, cleanup stops the server

log "starting the server (port $PORT) with a copy of $SOURCE_LIB"
as_postgres "$PGBIN/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w start >/dev/null

export PGHOST=$WORK PGPORT=$PORT PGUSER=postgres
psql_db() {
	PGOPTIONS="-c client_min_messages=warning" \
		"$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"
}
PGVERSION=$(psql_db -d postgres -c "SELECT version()")

# The record of full files (docs/narrow-slot.md) that the extension's 1.4
# script makes, made by hand beside the handler, whose schema is where the
# library looks for it: without it every narrow table's scan would check
# each row, as in a database whose catalog is older than 1.4.
FULL_ROW_FILES="CREATE UNLOGGED TABLE full_row_files (relid oid PRIMARY KEY,
	spcoid oid NOT NULL, relfilenode oid NOT NULL, natts int2 NOT NULL) USING heap"
# create_db NAME: a database with the slimheap access method and the
# procedures that convert tables (by hand, not with CREATE EXTENSION, whose
# script names the installed library)
create_db() {
	psql_db -d postgres -c "CREATE DATABASE $1"
	psql_db -d "$1" -c "CREATE FUNCTION slimheap_tableam_handler(internal)
			RETURNS table_am_handler AS '$SLIMHEAP_LIB' LANGUAGE C STRICT" \
		-c "CREATE ACCESS METHOD slimheap TYPE TABLE HANDLER slimheap_tableam_handler" \
		-c "$FULL_ROW_FILES" \
		-c "CREATE SCHEMA slimheap" \
		-c "CREATE PROCEDURE slimheap.adopt(rel regclass, mode text, wait interval DEFAULT '1 min')
			AS '$SLIMHEAP_LIB', 'slimheap_adopt' LANGUAGE C" \
		-c "CREATE PROCEDURE slimheap.compact(rel regclass)
			AS '$SLIMHEAP_LIB', 'slimheap_compact' LANGUAGE C" \
		-c "CREATE PROCEDURE slimheap.release(rel regclass, wait interval DEFAULT '1 min')
			AS '$SLIMHEAP_LIB', 'slimheap_release' LANGUAGE C"
}

create_db bench
psql_db -d bench -c "CREATE EXTENSION pageinspect"
psql_db -d bench -f "$BENCH/bench.sql" >/dev/null
psql_db -d bench -c "CREATE FUNCTION formbench(workload text, iterations int8,
		former text, OUT ns_per_tuple float8, OUT bytes_per_tuple float8)
	AS '$FORMBENCH_SO', 'formbench' LANGUAGE C STRICT"

# slimheap variants to compare with heap; W4 and W5 add the "compress"
# NULL bitmap once the extension accepts it.
COMPRESS=""
if psql_db -d bench -c 'CREATE TABLE compress_probe (a int) USING slimheap
		WITH ("slimheap.null_bitmap" = compress)' 2>/dev/null; then
	COMPRESS=compress
	psql_db -d bench -c "DROP TABLE compress_probe"
fi

# One psql session runs the statements of the workloads: starting a psql
# for each would cost more than some of the statements measured.
coproc PSQL {
	PGOPTIONS="-c client_min_messages=warning" \
		exec "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d bench 2>&1
}
exec {SQL_IN}>&"${PSQL[1]}" {SQL_OUT}<&"${PSQL[0]}"
MARK="--bench: statement done--"

# val SQL: run one statement in the session and print its result
val() {
	local line out=""
	printf '%s;\n\\echo %s\n' "$1" "$MARK" >&$SQL_IN
	while IFS= read -r line <&$SQL_OUT; do
		if [ "$line" = "$MARK" ]; then
			[ -n "$out" ] && printf '%s\n' "$out"
			return 0
		fi
		out=${out:+$out$'\n'}$line
	done
	log "the SQL session failed on: $1"
	printf '%s\n' "$out" >&2
	exit 1
}
q() { val "$1" >/dev/null; }					# run a statement
checkpoint() { q "CHECKPOINT"; }
# vacuum TABLE...: VACUUM that leaves every page with rows all-visible, as
# a user's settled table is.  Commits here do not wait for the WAL flush,
# and a row gets no hint bit while the commit LSN clog keeps for its group
# of transactions is not flushed, so VACUUM would leave its page out of the
# visibility map and every later scan would check each row (seen: W5's
# tables at 0 of 2,607 pages, by timing).  The CHECKPOINT flushes the
# loads' commits; the VACUUM itself commits synchronously, because on 18
# and 19 vacuuming one table commits a transaction with an XID (seen:
# w4_src's), which made the next table of the list lose its hint bits
# (w4_src_jsonb at 0 of 1,024 pages).  Pages after the last that holds a
# row are left out of the count: 16 and later extend a relation by many
# pages at once in bulk loads, and VACUUM leaves never-initialized pages
# out of the map.  The check says so if a page with rows is left out.
vacuum() {
	local t bad
	checkpoint
	q "SET synchronous_commit = on"
	q "VACUUM $(IFS=,; echo "$*")"
	q "RESET synchronous_commit"
	for t in "$@"; do
		bad=$(val "SELECT (SELECT coalesce(max((r.ctid::text::point)[0])::int + 1, 0) FROM $t r)
			- relallvisible FROM pg_class WHERE oid = '$t'::regclass")
		if [ "${bad:-0}" -gt 0 ]; then
			log "VACUUM $t left $bad pages with rows out of the visibility map"
			exit 1
		fi
	done
}
ms() { val "SELECT bench_ms(\$q\$$1\$q\$)"; }	# time a statement
# time a statement that cannot run in a function (VACUUM) by the server's
# clock around it: two extra round trips, well below what it measures
outer_ms() {
	local t0 t1
	t0=$(val "SELECT extract(epoch FROM clock_timestamp())")
	q "$1"
	t1=$(val "SELECT extract(epoch FROM clock_timestamp())")
	echo "$t0 $t1" | awk '{printf "%.3f", ($2 - $1) * 1000}'
}
sqlms() { val "SELECT bench_ms($1)"; }			# time a generated statement
log "variants: heap slimheap${COMPRESS:+ $COMPRESS (W4, W5)} jsonb (W4, W5: W10)"

# --- recording --------------------------------------------------------------
mkdir -p "$RESULTS"
RAW=$RESULTS/latest-raw.csv
echo "workload,case,metric,unit,variant,rep,value" >"$RAW"
REP=0

# record WORKLOAD CASE METRIC UNIT VARIANT VALUE (round 0 is the warm-up)
record() {
	if ! [[ $6 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		log "no valid figure for $1 $2 $3 ($5): '$6'"
		exit 1
	fi
	if [ $REP -gt 0 ]; then
		echo "$1,$2,$3,$4,$5,$REP,$6" >>"$RAW"
	fi
}

# sizes WORKLOAD CASE TABLE VARIANT ROWS: relation sizes every round (main
# fork; with TOAST, FSM and VM: pg_table_size; total, with the indexes too),
# tuple bytes from the pages in the first measured round (they do not vary)
sizes() {
	local w=$1 c=$2 t=$3 v=$4 rows=$5 main table total
	IFS='|' read -r main table total < <(val "SELECT pg_relation_size('$t'), pg_table_size('$t'), pg_total_relation_size('$t')")
	record "$w" "$c" "size (main fork)" MB "$v" "$(echo "$main" | awk '{printf "%.2f", $1 / 1048576}')"
	record "$w" "$c" "size (with TOAST)" MB "$v" "$(echo "$table" | awk '{printf "%.2f", $1 / 1048576}')"
	record "$w" "$c" "size (total)" MB "$v" "$(echo "$total" | awk '{printf "%.2f", $1 / 1048576}')"
	record "$w" "$c" "main fork per row" bytes "$v" "$(echo "$main $rows" | awk '{printf "%.1f", $1 / $2}')"
	if [ $REP = 1 ]; then
		local lp hoff
		IFS='|' read -r lp hoff < <(val "SELECT round(lp_len::numeric, 1), round(t_hoff::numeric, 1) FROM bench_row_bytes('$t')")
		record "$w" "$c" "tuple lp_len" bytes "$v" "$lp"
		record "$w" "$c" "tuple t_hoff" bytes "$v" "$hoff"
	fi
}

# scan WORKLOAD CASE VARIANT LABEL QUERY: one warm-up execution, then the
# fastest of three timed ones.  A scan of 20-200 ms here varies by up to
# half from one execution to the next (the VM's neighbours); what they add
# is never the scan's own cost, and the fastest of three is far steadier
# across rounds than one execution.
scan() {
	local i t best=""
	q "$5"
	for i in 1 2 3; do
		t=$(ms "$5")
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
	done
	record "$1" "$2" "scan $4" ms "$3" "$best"
}

# lookups WORKLOAD CASE VARIANT TABLE NROWS [LABEL SELECT-LIST]: point
# lookups by primary key through pgbench (one client, prepared statements);
# whole rows returned, or the select list given (figure "point lookup
# (LABEL)")
lookups() {
	local script=$WORK/lookup_$4${6:+_${6// /_}}.sql latency
	printf '\\set k random(1, %d)\nSELECT %s FROM %s WHERE id = :k;\n' "$5" "${7:-*}" "$4" >"$script"
	latency=$("$PGBIN/pgbench" -n -M prepared -c 1 -t "$(n $LOOKUPS)" \
		--random-seed=7 -f "$script" bench 2>&1 |
		awk '/^latency average/ {print $4}')
	record "$1" "$2" "point lookup${6:+ ($6)}" us "$3" "$(echo "$latency" | awk '{printf "%.1f", $1 * 1000}')"
}

# n COUNT: the row count of this round; the warm-up round (0) runs every
# statement of the workload once at a tenth of the size, which is enough to
# load catalogs, code and WAL segments, and keeps the full run in budget
n() {
	if [ $REP = 0 ]; then
		echo $(($1 / 10))
	else
		echo "$1"
	fi
}

# rounds FUNCTION: the warm-up round, then REPS measured rounds
rounds() {
	for REP in $(seq 0 "$REPS"); do
		"$1"
	done
}

# --- W1 and W8: 800 int4 columns, the first 50 set --------------------------
w1_round() {
	local v t
	for v in heap slimheap; do
		t=w1_$v
		q "SELECT bench_create('$t', '$v', w1_coldefs())"
		checkpoint
		record W1 "" insert ms $v "$(sqlms "w1_insert('$t', $(n $W1_ROWS))")"
		vacuum "$t"
		checkpoint
		scan W1 "" $v "sum(c50)" "SELECT sum(c50) FROM $t"
		scan W1 "" $v "count(*)" "SELECT count(*) FROM $t"
		sizes W1 "" $t $v $W1_ROWS
		checkpoint
		record W1 "" "index build" ms $v "$(ms "CREATE INDEX ${t}_c25 ON $t (c25)")"
		q "DROP INDEX ${t}_c25"

		# W8: 10% of the rows get column 688 set, so their NULLs stop
		# being trailing
		checkpoint
		record W8 "" update ms $v "$(ms "UPDATE $t SET c688 = c1 WHERE c1 % 10 = 0")"
		vacuum "$t"
		sizes W8 "" $t $v $W1_ROWS
	done
}

# --- W2: 5 int4 columns, three variants --------------------------------------
w2_round() {
	local c v t
	for c in $W2_CASES; do
		for v in heap slimheap; do
			t=w2_$v
			q "SELECT bench_create('$t', '$v', w2_coldefs('$c'))"
			checkpoint
			record W2 "$c" insert ms $v "$(sqlms "w2_insert('$t', '$c', $(n $W2_ROWS))")"
			sizes W2 "$c" $t $v $W2_ROWS
		done
	done
}

# --- W3: 100 nullable int4 + id, one value at column <pos> -------------------
w3_round() {
	local p v t
	for p in $W3_POSITIONS; do
		for v in heap slimheap; do
			t=w3_$v
			q "SELECT bench_create('$t', '$v', w3_coldefs())"
			checkpoint
			record W3 "c$p" insert ms $v "$(sqlms "w3_insert('$t', $p, $(n $W3_ROWS))")"
			sizes W3 "c$p" $t $v $W3_ROWS
		done
	done
}

# --- W4, W5, W9: 800 mixed columns; rows copied from a prepared source -------
# The reads of W4 and W5 by column position (c2 float8, c200 text,
# c403 bool, c600 and c800 text), and the two columns of the filter
READ_POSITIONS="2 200 403 600 800"

# col VARIANT N: column c<N> as the variant's queries read it (jsonb: the
# key "cN" of doc, NULL when the row has none)
col() {
	if [ "$1" = jsonb ]; then
		echo "doc->'c$2'"
	else
		echo "c$2"
	fi
}

# mixed_round WORKLOAD SOURCE ROWS VARIANTS...: variant jsonb (W10) is the
# table (id, doc jsonb) of the same rows, loaded the same way from its own
# heap source (SOURCE_jsonb, mixed_jsonb_source() of bench.sql)
mixed_round() {
	local w=$1 src=$2 rows=$3 v t s p filter
	shift 3
	for v in "$@"; do
		t=${w,,}_$v
		s=$src
		[ "$v" = jsonb ] && s=${src}_jsonb
		q "SELECT bench_create('$t', '$v', bench_coldefs_of('$s'))"
		if [ "$w" != W9 ]; then
			q "ALTER TABLE $t ADD PRIMARY KEY (id)"
		fi
		checkpoint
		record "$w" "" insert ms "$v" "$(ms "INSERT INTO $t SELECT * FROM $s$([ $REP = 0 ] && echo " LIMIT $(n $rows)")")"
		vacuum "$t"
		checkpoint
		scan "$w" "" "$v" "count(*)" "SELECT count(*) FROM $t"
		if [ "$w" = W9 ]; then
			scan "$w" "" "$v" "sum(length(c400))" "SELECT sum(length(c400)) FROM $t"
		else
			for p in $READ_POSITIONS; do
				scan "$w" "" "$v" "count(c$p)" "SELECT count($(col "$v" "$p")) FROM $t"
			done
			if [ "$v" = jsonb ]; then
				filter="doc ? 'c403' AND NOT doc ? 'c5'"
			else
				filter="c403 IS NOT NULL AND c5 IS NULL"
			fi
			scan "$w" "" "$v" "count(*) where c403 and not c5" "SELECT count(*) FROM $t WHERE $filter"
			if [ "$v" != jsonb ]; then
				# JIT deforming is specialized for core's slot types
				# only; LLVM's optimization is left off (on 800 columns
				# it costs seconds, the same for both)
				q "SET jit = on"
				q "SET jit_above_cost = 0"
				q "SET jit_optimize_above_cost = -1"
				scan "$w" "" "$v" "count(c800) jit" "SELECT count(c800) FROM $t"
				q "RESET jit"
				q "RESET jit_above_cost"
				q "RESET jit_optimize_above_cost"
			fi
			lookups "$w" "" "$v" "$t" "$(n $rows)"
			lookups "$w" "" "$v" "$t" "$(n $rows)" "3 columns" \
				"$(col "$v" 2), $(col "$v" 403), $(col "$v" 800)"
		fi
		sizes "$w" "" "$t" "$v" "$rows"
		if [ "$w" = W4 ] && [ "$v" != jsonb ]; then
			index_round "$w" "$src" "$rows" "$v" "$t"
			rewrite_round "$w" "$src" "$rows" "$v" "$t"
		fi
	done
}

# index_round WORKLOAD SOURCE ROWS VARIANT TABLE: index builds:
# a second index on the key of the loaded table (no row keeps it in a
# tail), and the primary key of a copy loaded without it (compress rows
# keep id in their tails: the build moves them)
index_round() {
	local w=$1 src=$2 rows=$3 v=$4 t=$5
	checkpoint
	record "$w" "" "index build (key loaded first)" ms "$v" "$(ms "CREATE UNIQUE INDEX ${t}_id2 ON $t (id)")"
	q "DROP INDEX ${t}_id2"
	q "SELECT bench_create('${t}_ix', '$v', bench_coldefs_of('$src'))"
	q "INSERT INTO ${t}_ix SELECT * FROM $src$([ $REP = 0 ] && echo " LIMIT $(n $rows)")"
	vacuum "${t}_ix"
	checkpoint
	record "$w" "" "index build (after load)" ms "$v" "$(ms "ALTER TABLE ${t}_ix ADD PRIMARY KEY (id)")"
	# an index on a column that compress rows keep in their tails: the
	# build re-lays them out in place where their page has room, and
	# moves the others (docs/format.md "Index builds"); then a second
	# index on it, which finds every row in place already
	q "CREATE TABLE ${t}_ix_ctid AS SELECT id, ctid AS t FROM ${t}_ix"
	checkpoint
	# the insert position: with synchronous_commit off, what is written
	# may lag behind
	local lsn
	lsn=$(val "SELECT pg_current_wal_insert_lsn()")
	record "$w" "" "index build on c403 (after load)" ms "$v" "$(ms "CREATE INDEX ${t}_ix_c403 ON ${t}_ix (c403)")"
	record "$w" "" "index build on c403 (after load): WAL" kB "$v" \
		"$(val "SELECT round(pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn') / 1024.0, 1)")"
	record "$w" "" "index build on c403 (after load): rows moved" rows "$v" \
		"$(val "SELECT count(*) FROM ${t}_ix x JOIN ${t}_ix_ctid b USING (id) WHERE x.ctid <> b.t")"
	checkpoint
	record "$w" "" "index build on c403 (rows in place)" ms "$v" "$(ms "CREATE INDEX ${t}_ix_c403b ON ${t}_ix (c403)")"
	q "DROP TABLE ${t}_ix, ${t}_ix_ctid"
}

# rewrite_round WORKLOAD SOURCE ROWS VARIANT TABLE: a table rewrite of the
# same rows, with its primary key: heap's VACUUM FULL of its table, and for
# the slimheap variants SET ACCESS METHOD slimheap of a heap copy into
# their mode (rows formed once); then "VACUUM FULL" of each
# table as it is, like for like (PostgreSQL 19's heap and slimheap copy
# the rows whose form does not change)
rewrite_round() {
	local w=$1 src=$2 rows=$3 v=$4 t=$5 mode=truncate
	if [ "$v" = heap ]; then
		checkpoint
		record "$w" "" "rewrite" ms heap "$(outer_ms "VACUUM FULL $t")"
		checkpoint
		record "$w" "" "VACUUM FULL" ms heap "$(outer_ms "VACUUM FULL $t")"
		return
	fi
	if [ "$v" = compress ]; then
		mode=compress
	fi
	q "SELECT bench_create('${t}_rw', 'heap', bench_coldefs_of('$src'))"
	q "ALTER TABLE ${t}_rw ADD PRIMARY KEY (id)"
	q "INSERT INTO ${t}_rw SELECT * FROM $src$([ $REP = 0 ] && echo " LIMIT $(n $rows)")"
	vacuum "${t}_rw"
	checkpoint
	record "$w" "" "rewrite" ms "$v" "$(ms "ALTER TABLE ${t}_rw SET ACCESS METHOD slimheap, SET (slimheap.null_bitmap = $mode)")"
	checkpoint
	record "$w" "" "VACUUM FULL" ms "$v" "$(outer_ms "VACUUM FULL ${t}_rw")"
	q "DROP TABLE ${t}_rw"
}
# w4_indexed_round: W4's rows loaded into tables that have indexes on
# c200 and c600 from the start (jsonb: on doc->>'c200' and doc->>'c600'),
# as real wide tables do; compress rows keep those columns in their prefix
# where set (the per-row floor, docs/row-floor.md).  The load, sizes, a
# scan, lookups through the c600 index, and an UPDATE of c600 in 1% of
# the rows.
w4_indexed_round() {
	local v t s k x="indexed c200/c600"
	for v in heap slimheap $COMPRESS jsonb; do
		t=w4x_$v
		s=w4_src
		[ "$v" = jsonb ] && s=w4_src_jsonb
		q "SELECT bench_create('$t', '$v', bench_coldefs_of('$s'))"
		q "ALTER TABLE $t ADD PRIMARY KEY (id)"
		if [ "$v" = jsonb ]; then
			q "CREATE INDEX ${t}_c200 ON $t ((doc->>'c200'))"
			q "CREATE INDEX ${t}_c600 ON $t ((doc->>'c600'))"
		else
			q "CREATE INDEX ${t}_c200 ON $t (c200)"
			q "CREATE INDEX ${t}_c600 ON $t (c600)"
		fi
		checkpoint
		record W4 "$x" insert ms "$v" "$(ms "INSERT INTO $t SELECT * FROM $s$([ $REP = 0 ] && echo " LIMIT $(n $W4_ROWS)")")"
		vacuum "$t"
		checkpoint
		sizes W4 "$x" "$t" "$v" "$W4_ROWS"
		scan W4 "$x" "$v" "count(c600)" "SELECT count($(col "$v" 600)) FROM $t"
		k=$(val "SELECT coalesce(min(id), 0) FROM $t WHERE $(col "$v" 600) IS NOT NULL")
		if [ "$v" = jsonb ]; then
			scan W4 "$x" "$v" "lookup by c600" "SELECT count(*) FROM $t WHERE doc->>'c600' = (SELECT doc->>'c600' FROM $t WHERE id = $k)"
			record W4 "$x" "UPDATE c600 (1% of rows)" ms "$v" "$(ms "UPDATE $t SET doc = jsonb_set(doc, '{c600}', to_jsonb(id::text)) WHERE id % 100 = 0")"
		else
			scan W4 "$x" "$v" "lookup by c600" "SELECT count(*) FROM $t WHERE c600 = (SELECT c600 FROM $t WHERE id = $k)"
			record W4 "$x" "UPDATE c600 (1% of rows)" ms "$v" "$(ms "UPDATE $t SET c600 = id::text WHERE id % 100 = 0")"
		fi
		q "DROP TABLE $t"
	done
}
# timed_wal WORKLOAD CASE METRIC VARIANT STATEMENT: outer_ms of the
# statement after a checkpoint (full-page images counted, as a user's
# first change of each page after one writes them), and the WAL it wrote;
# the time also in $TIMED_MS
timed_wal() {
	local lsn
	checkpoint
	lsn=$(val "SELECT pg_current_wal_insert_lsn()")
	TIMED_MS=$(outer_ms "$5")
	record "$1" "$2" "$3" ms "$4" "$TIMED_MS"
	record "$1" "$2" "$3: WAL" kB "$4" "$(val "SELECT round((pg_current_wal_insert_lsn() - '$lsn'::pg_lsn) / 1024.0)")"
}
# w4_heap_copy TABLE: W4's rows in a heap table with its primary key,
# VACUUMed, as a user's settled table is
w4_heap_copy() {
	q "SELECT bench_create('$1', 'heap', bench_coldefs_of('w4_src'))"
	q "ALTER TABLE $1 ADD PRIMARY KEY (id)"
	q "INSERT INTO $1 SELECT * FROM w4_src$([ $REP = 0 ] && echo " LIMIT $(n $W4_ROWS)")"
	vacuum "$1"
}
# adopt_round: the ways of W4's rows from heap into compress and back
# (#58): slimheap.adopt() (the catalog alone: the time its ACCESS
# EXCLUSIVE lock is held is at most this), compact() (the rows re-laid in
# place, online; MB/s of the main fork), the size then, release() (back
# to heap, in place, online); against ALTER TABLE ... SET ACCESS METHOD
# (a rewrite under ACCESS EXCLUSIVE lock) and VACUUM FULL, heap's too.
# Each after a checkpoint, with the WAL it writes.
adopt_round() {
	local t=w4_adopt c="adopt / compact / release" mb
	w4_heap_copy "$t"
	timed_wal W4 "$c" "VACUUM FULL" heap "VACUUM FULL $t"
	mb=$(val "SELECT pg_relation_size('$t') / 1048576.0")
	timed_wal W4 "$c" "adopt" compress "CALL slimheap.adopt('$t', 'compress')"
	timed_wal W4 "$c" "compact" compress "CALL slimheap.compact('$t')"
	record W4 "$c" "compact throughput (main fork)" MB/s compress "$(echo "$mb $TIMED_MS" | awk '{printf "%.1f", $1 / ($2 / 1000)}')"
	sizes W4 "$c" "$t" compress "$W4_ROWS"
	timed_wal W4 "$c" "release" compress "CALL slimheap.release('$t')"
	q "DROP TABLE $t"
	w4_heap_copy "$t"
	timed_wal W4 "$c" "SET ACCESS METHOD (rewrite)" compress "ALTER TABLE $t SET ACCESS METHOD slimheap, SET (slimheap.null_bitmap = compress)"
	timed_wal W4 "$c" "VACUUM FULL" compress "VACUUM FULL $t"
	q "DROP TABLE $t"
}
w4_round() {
	mixed_round W4 w4_src $W4_ROWS heap slimheap $COMPRESS jsonb
	w4_indexed_round
	[ -n "$COMPRESS" ] && adopt_round
	return 0
}
w5_round() { mixed_round W5 w5_src $W4_ROWS heap slimheap $COMPRESS jsonb; }
w9_round() { mixed_round W9 w9_src $W9_ROWS heap slimheap; }

# --- W4 under wal_level = logical --------------------------------------------
# The WAL a W4 load writes while logical decoding is on, on a second server
# started with wal_level = logical (the first runs with replica, as every
# other figure here): heap; slimheap's truncate form, which is what
# compress stored there before it could log tails for decoding; and
# compress, whose tail rows write heap's record and slimheap's own.  WAL
# from pg_current_wal_insert_lsn() around the load (primary key made
# before it), and the main fork's size.  Measured once: bytes do not vary.
logical_wal() {
	local ldata=$WORK/data-logical lport=$((PORT + 1)) v t lsn main
	make_cluster "$ldata" "$lport" "wal_level = logical" "unix_socket_directories = '$WORK'"
	as_postgres "$PGBIN/pg_ctl" -D "$ldata" -l "$WORK/server-logical.log" -w start >/dev/null
	PGPORT=$lport create_db bench
	lq() { psql_db -p "$lport" -d bench -c "$1"; }
	lq "CREATE EXTENSION pageinspect"
	psql_db -p "$lport" -d bench -f "$BENCH/bench.sql" >/dev/null
	lq "SELECT mixed_source('w4_src', $W4_ROWS, false)" >/dev/null
	REP=1
	for v in heap slimheap compress; do
		t=w4_$v
		lq "SELECT bench_create('$t', '$v', bench_coldefs_of('w4_src'))" >/dev/null
		lq "ALTER TABLE $t ADD PRIMARY KEY (id)"
		lq "CHECKPOINT"
		lsn=$(lq "SELECT pg_current_wal_insert_lsn()")
		lq "INSERT INTO $t SELECT * FROM w4_src"
		IFS='|' read -r lsn main < <(lq "SELECT pg_current_wal_insert_lsn() - '$lsn'::pg_lsn, pg_relation_size('$t')")
		record W4 "" "WAL of the load (wal_level = logical)" kB "$v" "$(echo "$lsn" | awk '{printf "%.0f", $1 / 1024}')"
		record W4 "" "WAL per row (wal_level = logical)" bytes "$v" "$(echo "$lsn $W4_ROWS" | awk '{printf "%.1f", $1 / $2}')"
		record W4 "" "size (main fork; wal_level = logical)" MB "$v" "$(echo "$main" | awk '{printf "%.2f", $1 / 1048576}')"
	done
	life_w4 "$lport"
	as_postgres "$PGBIN/pg_ctl" -D "$ldata" -m fast -w stop >/dev/null
}

# --- a year in the life of W4's table (#59) -------------------------------------
# On the wal_level = logical server (change data capture on, as it often is):
# W4's rows loaded (90%), an index on a middle column (c200), ADD COLUMN d
# DEFAULT 42 and the last 10% of the rows (d NULL in a tenth of them),
# UPDATEs of a quarter of the rows (c404) and of a tenth (c5 set NULL),
# DELETE of 2%, VACUUM, VACUUM FULL, and pg_dump | psql into another
# database.  After
# each step: a live row's stored bytes (lp_len, after a VACUUM) against a
# fresh load of the same rows into a table of the same columns, variant
# and indexes; heap, compress and jsonb.  Sizes do not vary: measured once.
life_w4() {
	local lport=$1 v t s n9
	local rdb=bench_life_restore
	lq() { psql_db -p "$lport" -d bench -c "$1"; }
	PGPORT=$lport create_db "$rdb"
	psql_db -p "$lport" -d "$rdb" -c "CREATE EXTENSION pageinspect"
	psql_db -p "$lport" -d "$rdb" -f "$BENCH/bench.sql" >/dev/null
	lq "SELECT mixed_jsonb_source('w4_src_jsonb', 'w4_src')" >/dev/null
	n9=$((W4_ROWS * 9 / 10))
	# life_step STEP TABLE VARIANT [DB]: the figures after a step
	life_step() {
		local db=${4:-bench} f=life_fresh ratio bytes idx
		idx=$([ "$3" = jsonb ] && echo "((doc->>'c200'))" || echo "(c200)")
		psql_db -p "$lport" -d "$db" -c "VACUUM $2" \
			-c "SELECT bench_create('$f', '$3', bench_coldefs_of('$2'))" \
			-c "ALTER TABLE $f ADD PRIMARY KEY (id)" >/dev/null
		[ "$1" != "load" ] && psql_db -p "$lport" -d "$db" -c "CREATE INDEX ON $f $idx"
		psql_db -p "$lport" -d "$db" -c "INSERT INTO $f SELECT * FROM $2 ORDER BY id" -c "VACUUM $f"
		IFS='|' read -r bytes ratio < <(psql_db -p "$lport" -d "$db" -c \
			"SELECT round(bench_live_row_bytes('$2')::numeric, 1),
					round((bench_live_row_bytes('$2') / bench_live_row_bytes('$f'))::numeric, 3)")
		record LIFE "$1" "live row bytes" bytes "$3" "$bytes"
		record LIFE "$1" "live row bytes / a fresh load's" ratio "$3" "$ratio"
		psql_db -p "$lport" -d "$db" -c "DROP TABLE $f"
	}
	for v in heap compress jsonb; do
		t=life_$v
		s=w4_src
		[ "$v" = jsonb ] && s=w4_src_jsonb
		lq "SELECT bench_create('$t', '$v', bench_coldefs_of('$s'))" >/dev/null
		lq "ALTER TABLE $t ADD PRIMARY KEY (id)"
		lq "INSERT INTO $t SELECT * FROM $s WHERE id <= $n9"
		life_step "load" "$t" "$v"
		if [ "$v" = jsonb ]; then
			lq "CREATE INDEX ON $t ((doc->>'c200'))"
		else
			lq "CREATE INDEX ON $t (c200)"
		fi
		life_step "index on c200" "$t" "$v"
		lq "ALTER TABLE $t ADD COLUMN d int DEFAULT 42"
		lq "INSERT INTO $t SELECT s.*, CASE WHEN s.id % 10 = 0 THEN NULL ELSE 42 END FROM $s s WHERE s.id > $n9"
		life_step "ADD COLUMN d DEFAULT 42 then 10% more rows" "$t" "$v"
		if [ "$v" = jsonb ]; then
			lq "UPDATE $t SET doc = jsonb_set(doc, '{c404}', to_jsonb('v' || id)) WHERE id % 4 = 0"
			lq "UPDATE $t SET doc = doc - 'c5' WHERE id % 10 = 1"
		else
			lq "UPDATE $t SET c404 = 'v' || id WHERE id % 4 = 0"
			lq "UPDATE $t SET c5 = NULL WHERE id % 10 = 1"
		fi
		lq "DELETE FROM $t WHERE id % 50 = 0"
		lq "VACUUM $t"
		life_step "UPDATE 25% and DELETE 2% (logical WAL) then VACUUM" "$t" "$v"
		lq "VACUUM FULL $t"
		life_step "VACUUM FULL" "$t" "$v"
		"$PGBIN/pg_dump" -p "$lport" -d bench -t "$t" | psql_db -p "$lport" -d "$rdb" >/dev/null
		life_step "pg_dump into psql" "$t" "$v" "$rdb"
	done
}

# --- W6: pgbench TPC-B --------------------------------------------------------
w6_init() {
	local v
	for v in heap slimheap; do
		create_db "pgbench_$v"
		PGOPTIONS="-c default_table_access_method=$v" \
			"$PGBIN/pgbench" -i -q -s $PGBENCH_SCALE "pgbench_$v" >"$WORK/pgbench-init-$v.log" 2>&1
		psql_db -d "pgbench_$v" -c "SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
			WHERE relname = 'pgbench_accounts'" | grep -qx "$v" ||
			{ echo "pgbench_accounts of pgbench_$v is not a $v table" >&2; exit 1; }
	done
}
w6_round() {
	local v seconds out
	seconds=$([ $REP = 0 ] && echo $PGBENCH_WARMUP || echo $PGBENCH_SECONDS)
	for v in heap slimheap; do
		psql_db -d "pgbench_$v" -c CHECKPOINT
		out=$("$PGBIN/pgbench" -M prepared -c $PGBENCH_CLIENTS -j 2 -T "$seconds" \
			--random-seed=11 "pgbench_$v" 2>&1)
		record W6 "" tps tps $v "$(echo "$out" | awk '/^tps = / {printf "%.1f", $3}')"
		record W6 "" "latency average" ms $v "$(echo "$out" | awk '/^latency average/ {print $4}')"
	done
}

# --- W7: form-then-free loop (bench/formbench) -------------------------------
# Each round forms the round's iterations in W7_SLICES slices per former,
# alternating between the formers (see formbench_alternating in bench.sql).
w7_round() {
	local c iterations former ns bytes got
	for c in $W7_CASES; do
		iterations=$W7_ITERATIONS
		case $c in w1|w4|w5) iterations=$W7_WIDE_ITERATIONS ;; esac
		got=0
		while IFS='|' read -r former ns bytes; do
			record W7 "$c" "form+free" ns "$former" "$ns"
			if [ $REP = 1 ]; then
				record W7 "$c" "tuple t_len" bytes "$former" "$bytes"
			fi
			got=$((got + 1))
		done < <(val "SELECT former, round(ns_per_tuple::numeric, 1), round(bytes_per_tuple::numeric, 1)
			FROM formbench_alternating('$c', $(n $iterations), $W7_SLICES)")
		if [ $got -lt 2 ]; then
			log "W7 $c: no figures"
			exit 1
		fi
	done
}

# --- run ------------------------------------------------------------------------
START=$(date +%s)
timed() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	log "$name ..."
	"$@"
	log "$name done in $(($(date +%s) - t0)) s"
}

# ONLY="W3 W7" runs just those workloads (W1 and W8 run together)
wanted() {
	local w
	[ -z "${ONLY:-}" ] && return 0
	for w in $ONLY; do
		case " $* " in *" $w "*) return 0 ;; esac
	done
	return 1
}

if wanted W1 W8; then
	timed "W1+W8 ($W1_ROWS rows)" rounds w1_round
	q "DROP TABLE w1_heap, w1_slimheap"
fi
if wanted W2; then
	timed "W2 ($W2_ROWS rows)" rounds w2_round
	q "DROP TABLE w2_heap, w2_slimheap"
fi
if wanted W3; then
	timed "W3 ($W3_ROWS rows per position)" rounds w3_round
	q "DROP TABLE w3_heap, w3_slimheap"
fi
if wanted W4; then
	timed "W4 source ($W4_ROWS rows)" q "SELECT mixed_source('w4_src', $W4_ROWS, false)"
	q "SELECT mixed_jsonb_source('w4_src_jsonb', 'w4_src')"
	vacuum w4_src w4_src_jsonb
	timed "W4 ($W4_ROWS rows)" rounds w4_round
	q "DROP TABLE IF EXISTS w4_src, w4_src_jsonb, w4_heap, w4_slimheap, w4_compress, w4_jsonb"
	[ -n "$COMPRESS" ] && timed "W4 under wal_level = logical" logical_wal
fi
if wanted W5; then
	timed "W5 source ($W4_ROWS rows)" q "SELECT mixed_source('w5_src', $W4_ROWS, true)"
	q "SELECT mixed_jsonb_source('w5_src_jsonb', 'w5_src')"
	vacuum w5_src w5_src_jsonb
	timed "W5 ($W4_ROWS rows)" rounds w5_round
	q "DROP TABLE IF EXISTS w5_src, w5_src_jsonb, w5_heap, w5_slimheap, w5_compress, w5_jsonb"
fi
if wanted W9; then
	timed "W9 source ($W9_ROWS rows)" q "SELECT mixed_source('w9_src', $W9_ROWS, false, 400)"
	vacuum w9_src
	timed "W9 ($W9_ROWS rows)" rounds w9_round
	q "DROP TABLE w9_src, w9_heap, w9_slimheap"
fi
if wanted W6; then
	timed "W6 init (scale $PGBENCH_SCALE)" w6_init
	timed "W6 (${PGBENCH_SECONDS}s per run)" rounds w6_round
fi
if wanted W7; then
	timed "W7 ($W7_ITERATIONS iterations, 800 columns: $W7_WIDE_ITERATIONS)" rounds w7_round
fi
ELAPSED=$(($(date +%s) - START))

# --- report ---------------------------------------------------------------------
# The measurements are in $RAW.  What follows must not lose them: the run's
# description goes next to them (plain KEY=value lines, nothing that can
# fail), then bench/report.sh derives every other result file from the two,
# and says so when git cannot tell the revision.
{
	echo "MODE=$([ $QUICK = 1 ] && echo "quick (QUICK=1: 1/10 of the rows)" || echo "full")${ONLY:+, only $ONLY}"
	echo "REPS=$REPS"
	echo "ELAPSED=$ELAPSED"
	echo "PGVERSION=$PGVERSION"
	echo "LOADAVG=$LOADAVG"
	echo "SIZES=W1/W8 $W1_ROWS rows, W2 $W2_ROWS, W3 $W3_ROWS per position, W4/W5 $W4_ROWS ($LOOKUPS lookups), W9 $W9_ROWS, W6 pgbench scale $PGBENCH_SCALE, $PGBENCH_CLIENTS clients, ${PGBENCH_SECONDS}s per run (warm-up ${PGBENCH_WARMUP}s), W7 $W7_ITERATIONS iterations ($W7_WIDE_ITERATIONS for the 800-column rows of w1, w4, w5)"
	echo "SKIP_INSTALL=$SKIP_INSTALL"
	echo "BENCH_LIB=${BENCH_LIB:+$SOURCE_LIB}"
} >"$RESULTS/latest-run.txt"
if ! bash "$BENCH/report.sh" "$RESULTS"; then
	log "the report is incomplete (see above); the measurements are in $RAW"
	exit 1
fi
log "done in $ELAPSED s"
