#!/bin/bash
# bench/instructions.sh: instruction counts of slimheap against heap, the
# figures that this machine's clocks cannot resolve (`make
# bench-instructions`; docs/bench.md, "Instruction counts").
#
# Wall-clock ratios on a shared 2-core VM move by 10% between runs; the
# number of instructions a backend executes for the same statements on the
# same pages does not (callgrind counts them: the same binary given the
# same input executes the same instructions, whatever else runs).  So each
# figure here is
#
#   (instructions of a single-user backend that runs SETUP + STATEMENTS)
#     - (instructions of an identical backend that runs SETUP only)
#
# on a heap table and on a slimheap table, and the ratio of the two.  The
# setup-only twin takes away start-up, shutdown, catalog loading and
# whatever warm-up the setup does (creating the target table, a first scan).
#
# How, every time the same way:
#   1. build the extension from this checkout in a private copy of it
#      (BENCH_REV=<commit>: that commit instead of the working tree), so
#      neither a concurrent build in the tree nor another developer's
#      install changes what is counted;
#   2. make a fresh template cluster: a server that preloads a private copy
#      of that slimheap.so (the access method's handler names the copy, as
#      bench/run.sh does) loads two databases, "heap" and "slim", with the
#      same tables under the same names (bench/bench.sql, then
#      bench/instructions.sql): heap tables in one, slimheap tables in the
#      other ("truncate" for W1, W2 and TPC-B, "compress" for W4 and W5),
#      and in both the jsonb twins of W4 and W5 (W10), which the figures
#      against jsonb read in database "heap" (backends <group>.jsonb.*);
#   3. run each backend, `postgres --single` in a fixed environment under
#      `valgrind --tool=callgrind`, on its own copy of that cluster (so all
#      start from the same bytes), with the statements on standard input,
#      BENCH_JOBS at a time (default: the number of CPUs; counts do not
#      depend on it);
#   4. write bench/results/instructions.md (also printed) and
#      instructions.csv (bench/instructions-report.pl): one line per
#      figure, and every backend's count.
#
# Installs valgrind when it is missing (as root).  Nothing here is a test:
# no figure fails the run.
#
# Also read from the environment: BENCH_REV (build that commit, e.g.
# HEAD, instead of the working tree as it is), BENCH_LIB (count that
# build of slimheap.so, no build), BENCH_ONLY="w2_all tpcb" (only these
# figures, by the keys of instructions.csv), BENCH_RESULTS (write the
# report there instead of bench/results), BENCH_KEEP=<dir> (keep every
# backend's callgrind.out there, for callgrind_annotate),
# BENCH_PROFILE="w4_scan w4_insert" (the figures whose backends get a
# per-function table, instructions-profile.md, by
# bench/instructions-profile.pl; default: W4's count(c2), count(c403)
# and count(c800) against heap, count(c800) against jsonb, and INSERT
# ... SELECT from heap; empty:
# none), BENCH_CALLGRIND_OPTS (more options for callgrind, e.g. --dump-instr=yes
# to count each instruction of the kept outputs), BENCH_JOBS,
# BENCH_PORT (the template server's port, unix socket only, default 5531),
# PG_CONFIG (the server, default PostgreSQL 15's).  A build without the
# "compress" bitmap (older commits) gets no W4/W5 figures.
set -euo pipefail

if [ $# != 0 ]; then
	echo "usage: $0 (settings are read from the environment)" >&2
	exit 2
fi

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/bench
RESULTS=${BENCH_RESULTS:-$BENCH/results}
KEEP=${BENCH_KEEP:-}
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	KEEP=$(cd "$KEEP" && pwd)
fi
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir)
PORT=${BENCH_PORT:-5531}
JOBS=${BENCH_JOBS:-$(nproc 2>/dev/null || echo 1)}
if ! [[ $JOBS =~ ^[1-9][0-9]*$ ]]; then
	echo "BENCH_JOBS must be a positive integer, not '$JOBS'" >&2
	exit 2
fi

# Sizes: large enough that per-row and per-transaction costs dominate what
# the setup-only twin does not take away (plans, first reads of the new
# table), small enough that the whole run takes minutes under callgrind
# (about 50 times slower than native).
TPCB_SCALE=1 TPCB_WARMUP=10 TPCB_TX=3000
W1_ROWS=50000			# the table the scans read
W1_INSERT_ROWS=10000	# heap forms 800 attributes a row: 75k instructions
W2_ROWS=100000
W4_ROWS=5000
LOOKUPS=2000 LOOKUP_WARMUP=6	# > 5: the warm-up ends on the generic plan
SCANS=3
W2_CASES="all first notnull"

log() { printf '[instructions %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

as_postgres() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# The environment of initdb and of the counted backends is always the
# same: a backend copies its environment into its heap (for its process
# title), so a longer one (`make` adds MAKEFLAGS, MAKELEVEL, ...) moves
# every later allocation, and memcpy and memset take other paths for
# other alignments (seen: 5 instructions a W2 row).  TZ fixes the
# template's time zone.
CLEAN_ENV=(env -i PATH=/usr/bin:/bin LC_ALL=C TZ=UTC)

# --- valgrind ----------------------------------------------------------------
if ! command -v valgrind >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		log "valgrind is not installed, and only root can install it (apt-get install valgrind)"
		exit 1
	fi
	log "installing valgrind"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q update </dev/null >&2
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q install -y valgrind </dev/null >&2
fi
VALGRIND=$(command -v valgrind)
VALGRIND_VERSION=$("$VALGRIND" --version)

START=$(date +%s)
START_DATE=$(date -u '+%Y-%m-%d %H:%M')
WORK=$(mktemp -d /tmp/instructions-XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres: "$WORK"
TEMPLATE=$WORK/template
SERVER_STARTED=0
JOB_PIDS=()

cleanup() {
	local rc=$? pid
	for pid in "${JOB_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	if [ $SERVER_STARTED = 1 ]; then
		as_postgres "$PGBIN/pg_ctl" -D "$TEMPLATE" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. the build ------------------------------------------------------------
# revision [REV]: what git says the checkout (or REV) is; never fails
revision() {
	local rev dirty
	if ! command -v git >/dev/null 2>&1; then
		echo "revision unknown: git is not installed"
	elif [ -n "${1:-}" ]; then
		git -C "$ROOT" describe --always "$1" 2>/dev/null || echo "revision unknown: $1"
	elif rev=$(git -C "$ROOT" describe --always 2>/dev/null) && [ -n "$rev" ]; then
		# results under bench/results/ are not changes to the build
		dirty=$(git -C "$ROOT" diff --name-only HEAD -- . ':(exclude)bench/results' 2>/dev/null |
			paste -sd' ' -) || dirty=""
		echo "$rev${dirty:+-dirty (uncommitted changes in $dirty)}"
	else
		echo "revision unknown: git cannot read $ROOT"
	fi
}

LIB=$WORK/lib/slimheap.so
mkdir -p "$WORK/lib" "$WORK/build"
if [ -n "${BENCH_LIB:-}" ]; then
	cp "$BENCH_LIB" "$LIB"
	BUILD="$(realpath "$BENCH_LIB") (BENCH_LIB)"
else
	if [ -n "${BENCH_REV:-}" ]; then
		BUILD=$(revision "$BENCH_REV")
		log "building the extension at $BENCH_REV ($BUILD) in $WORK/build"
		git -C "$ROOT" archive --format=tar "$BENCH_REV" | tar -x -C "$WORK/build"
	else
		BUILD=$(revision)
		log "building the extension from the working tree ($BUILD) in $WORK/build"
		if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
			# the tracked and the untracked, not ignored, files as they
			# are now (tracked files deleted in the tree stay out)
			git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
				tar -C "$ROOT" --null -T - --ignore-failed-read -cf - 2>/dev/null |
				tar -x -C "$WORK/build"
		else
			tar -C "$ROOT" --exclude=.git --exclude='*.o' --exclude='*.so' \
				--exclude='*.bc' -cf - . | tar -x -C "$WORK/build"
		fi
	fi
	make -C "$WORK/build" -s -j"$JOBS" PG_CONFIG="$PG_CONFIG" >"$WORK/build.log" 2>&1 ||
		{ tail -n 30 "$WORK/build.log" >&2; log "the build failed"; exit 1; }
	cp "$WORK/build/slimheap.so" "$LIB"
fi
chmod 755 "$LIB"
[ "$(id -u)" = 0 ] && chown -R postgres: "$WORK"

# --- 2. the template cluster -------------------------------------------------
log "initdb in $TEMPLATE"
as_postgres "${CLEAN_ENV[@]}" "$PGBIN/initdb" -D "$TEMPLATE" -U postgres -A trust -E UTF8 \
	--locale=C --no-sync >"$WORK/initdb.log"

# The server that loads the template and every counted backend read these.
# Every table of a backend fits in shared_buffers; no checkpoint but the
# shutdown's (a standalone backend runs a requested one itself); fsync off,
# which changes no instruction count of what is compared, only the wait.
cat >>"$TEMPLATE/postgresql.conf" <<EOF

# slimheap instruction counts (bench/instructions.sh)
port = $PORT
listen_addresses = ''
unix_socket_directories = '$WORK'
shared_preload_libraries = '$LIB'
shared_buffers = 256MB
huge_pages = off
work_mem = 64MB
maintenance_work_mem = 256MB
autovacuum = off
fsync = off
checkpoint_timeout = 1h
max_wal_size = 4GB
min_wal_size = 32MB
jit = off
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
EOF

SERVER_STARTED=1
log "loading the template (W1 $W1_ROWS rows, W4/W5 $W4_ROWS, TPC-B scale $TPCB_SCALE) with a copy of $BUILD"
as_postgres "$PGBIN/pg_ctl" -D "$TEMPLATE" -l "$WORK/server.log" -w start >/dev/null
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
COMPRESS=compress
for db in heap slim; do
	psql_db -d postgres -c "CREATE DATABASE $db"
	psql_db -d $db -c "CREATE FUNCTION slimheap_tableam_handler(internal)
			RETURNS table_am_handler AS '$LIB' LANGUAGE C STRICT" \
		-c "CREATE ACCESS METHOD slimheap TYPE TABLE HANDLER slimheap_tableam_handler" \
		-c "$FULL_ROW_FILES" \
		-c "CREATE EXTENSION pageinspect"
	psql_db -d $db -f "$BENCH/bench.sql" >/dev/null
	if [ $db = heap ]; then
		vt=heap vc=heap
	else
		# the W4/W5 tables are compress ones, where the build has it
		if psql_db -d $db -c 'CREATE TABLE compress_probe (a int) USING slimheap
				WITH ("slimheap.null_bitmap" = compress)' 2>/dev/null; then
			psql_db -d $db -c "DROP TABLE compress_probe"
		else
			COMPRESS=""
			log "this build has no compress bitmap: no W4/W5 figures"
		fi
		vt=slimheap vc=${COMPRESS:-slimheap}
	fi
	psql_db -d $db -v vt=$vt -v vc=$vc -v w1_rows=$W1_ROWS -v w2_rows=$W2_ROWS \
		-v w4_rows=$W4_ROWS \
		-v copy_dir="$WORK" -v tpcb_scale=$TPCB_SCALE \
		-f "$BENCH/instructions.sql" >/dev/null
done

# --- the statements ----------------------------------------------------------
# A standalone backend reads one statement a line.  SQL/<group>.<db>.setup
# is what both backends of a group run first; SQL/<group>.<part> what the
# counted one runs after it (the same text for heap and slimheap).
SQL=$WORK/sql
mkdir -p "$SQL"

# keys N MAX SEED: N pseudo-random integers in 1..MAX, one a line: the
# minimal standard generator (Park and Miller), the same on every machine
keys() {
	perl -e 'my ($n, $max, $x) = @ARGV;
		for (1 .. $n) { $x = ($x * 48271) % 2147483647; print 1 + $x % $max, "\n" }' "$@"
}

# TPC-B: pgbench's built-in transaction with fixed pseudo-random accounts,
# tellers, branches and deltas, drawn from pgbench's ranges; as plain
# statements (pgbench's default, -M simple: each one parsed and planned)
# and prepared (-M prepared, which bench/run.sh's W6 uses)
# tpcb_tx simple|prepared COUNT SEED
tpcb_tx() {
	local fmt
	if [ "$1" = simple ]; then
		fmt='BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + %2$d WHERE aid = %1$d;
SELECT abalance FROM pgbench_accounts WHERE aid = %1$d;
UPDATE pgbench_tellers SET tbalance = tbalance + %2$d WHERE tid = %3$d;
UPDATE pgbench_branches SET bbalance = bbalance + %2$d WHERE bid = %4$d;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (%3$d, %4$d, %1$d, %2$d, CURRENT_TIMESTAMP);
END;'
	else
		fmt='BEGIN;
EXECUTE tpcb_ua(%1$d, %2$d);
EXECUTE tpcb_sa(%1$d);
EXECUTE tpcb_ut(%3$d, %2$d);
EXECUTE tpcb_ub(%4$d, %2$d);
EXECUTE tpcb_ih(%3$d, %4$d, %1$d, %2$d);
END;'
	fi
	paste -d' ' <(keys "$2" $((100000 * TPCB_SCALE)) "$3") \
		<(keys "$2" $((10 * TPCB_SCALE)) $(($3 + 1))) \
		<(keys "$2" "$TPCB_SCALE" $(($3 + 2))) \
		<(keys "$2" 10001 $(($3 + 3))) |
	FMT=$fmt perl -ne 'my ($aid, $tid, $bid, $d) = split;
		printf "$ENV{FMT}\n", $aid, $d - 5001, $tid, $bid'
}
for db in heap slim; do
	tpcb_tx simple $TPCB_WARMUP 17 >"$SQL/tpcb.$db.setup"
	{
		echo 'PREPARE tpcb_ua(int, int) AS UPDATE pgbench_accounts SET abalance = abalance + $2 WHERE aid = $1;'
		echo 'PREPARE tpcb_sa(int) AS SELECT abalance FROM pgbench_accounts WHERE aid = $1;'
		echo 'PREPARE tpcb_ut(int, int) AS UPDATE pgbench_tellers SET tbalance = tbalance + $2 WHERE tid = $1;'
		echo 'PREPARE tpcb_ub(int, int) AS UPDATE pgbench_branches SET bbalance = bbalance + $2 WHERE bid = $1;'
		echo 'PREPARE tpcb_ih(int, int, int, int) AS INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP);'
		tpcb_tx prepared $TPCB_WARMUP 17
	} >"$SQL/tpcb_prep.$db.setup"
done
tpcb_tx simple $TPCB_TX 101 >"$SQL/tpcb.tx"
tpcb_tx prepared $TPCB_TX 101 >"$SQL/tpcb_prep.tx"

# W2: INSERT ... SELECT of 5 int4 columns into a fresh table (bench.sql)
for c in $W2_CASES; do
	for db in heap slim; do
		v=$([ $db = heap ] && echo heap || echo slimheap)
		echo "SELECT bench_create('w2_new', '$v', w2_coldefs('$c'));" >"$SQL/w2_$c.$db.setup"
	done
	echo "$(psql_db -d heap -c "SELECT w2_insert('w2_new', '$c', $W2_ROWS)");" >"$SQL/w2_$c.insert"
done

# W2: a scan of the template's narrow table, after one in the setup
for db in heap slim; do
	echo 'SELECT sum(c5) FROM w2;' >"$SQL/w2_read.$db.setup"
done
for i in $(seq $SCANS); do echo 'SELECT sum(c5) FROM w2;'; done >"$SQL/w2_read.sum"

# W1: INSERT ... SELECT of 800 int4 columns, c1..c50 set; scans of the
# template's table, after one of each in the setup
for db in heap slim; do
	v=$([ $db = heap ] && echo heap || echo slimheap)
	echo "SELECT bench_create('w1_new', '$v', w1_coldefs());" >"$SQL/w1_write.$db.setup"
	printf 'SELECT sum(c50) FROM w1;\nSELECT count(*) FROM w1;\n' >"$SQL/w1_read.$db.setup"
done
echo "$(psql_db -d heap -c "SELECT w1_insert('w1_new', $W1_INSERT_ROWS)");" >"$SQL/w1_write.insert"
for i in $(seq $SCANS); do echo 'SELECT sum(c50) FROM w1;'; done >"$SQL/w1_read.sum"
for i in $(seq $SCANS); do echo 'SELECT count(*) FROM w1;'; done >"$SQL/w1_read.count"
# a rewrite of the same rows (19's heap copies them, slimheap copies those
# whose form does not change): once for W1, as often as the scans for W4/W5
echo 'VACUUM FULL w1;' >"$SQL/w1_read.vacuumfull"

# the reads by column position (bench/run.sh): count(cN) at these positions, a
# two-column filter, a lookup of three columns, count(*); on the jsonb twin
# the same reads of its keys
READ_POSITIONS="2 200 403 600 800"
READ_FILTER="c403 IS NOT NULL AND c5 IS NULL"
JSONB_FILTER="doc ? 'c403' AND NOT doc ? 'c5'"

# W4, W5: into a fresh table with its primary key (as bench/run.sh loads
# them), from the heap source or from the COPY file of the same rows; and
# on the template's tables, lookups by key (prepared; the row turned into
# text, which reads every attribute, and of three columns), count(cN) at
# the positions above, the filter and count(*)
for w in w4 w5; do
	for db in heap slim; do
		v=$([ $db = heap ] && echo heap || echo compress)
		{
			echo "SELECT bench_create('${w}_new', '$v', bench_coldefs_of('${w}_src'));"
			echo "ALTER TABLE ${w}_new ADD PRIMARY KEY (id);"
			echo "SELECT count(*) FROM ${w}_src;"
		} >"$SQL/${w}_write.$db.setup"
		{
			echo "PREPARE lookup(int) AS SELECT length(t::text) FROM $w t WHERE id = \$1;"
			echo "PREPARE lookup3(int) AS SELECT c2, c403, c800 FROM $w WHERE id = \$1;"
			keys $LOOKUP_WARMUP $W4_ROWS 23 | sed 's/.*/EXECUTE lookup(&);/'
			keys $LOOKUP_WARMUP $W4_ROWS 23 | sed 's/.*/EXECUTE lookup3(&);/'
			for p in $READ_POSITIONS; do echo "SELECT count(c$p) FROM $w;"; done
			echo "SELECT count(*) FROM $w WHERE $READ_FILTER;"
			echo "SELECT count(*) FROM $w;"
		} >"$SQL/${w}_read.$db.setup"
	done
	echo "INSERT INTO ${w}_new SELECT * FROM ${w}_src;" >"$SQL/${w}_write.insert"
	echo "COPY ${w}_new FROM '$WORK/$w.copy';" >"$SQL/${w}_write.copy"
	keys $LOOKUPS $W4_ROWS 29 | sed 's/.*/EXECUTE lookup(&);/' >"$SQL/${w}_read.lookups"
	keys $LOOKUPS $W4_ROWS 29 | sed 's/.*/EXECUTE lookup3(&);/' >"$SQL/${w}_read.lookup3"
	for i in $(seq $SCANS); do echo "SELECT count(c800) FROM $w;"; done >"$SQL/${w}_read.scan"
	for p in $READ_POSITIONS; do
		[ $p = 800 ] && continue	# the figure "scan" above
		for i in $(seq $SCANS); do echo "SELECT count(c$p) FROM $w;"; done >"$SQL/${w}_read.c$p"
	done
	for i in $(seq $SCANS); do echo "SELECT count(*) FROM $w WHERE $READ_FILTER;"; done >"$SQL/${w}_read.filter"
	for i in $(seq $SCANS); do echo "SELECT count(*) FROM $w;"; done >"$SQL/${w}_read.count"
	for i in $(seq $SCANS); do echo "VACUUM FULL $w;"; done >"$SQL/${w}_read.vacuumfull"

	# "jsonb": the same reads of the twin ${w}_doc, in database "heap"
	# (SQL/<group>.jsonb.<part> instead of SQL/<group>.<part>)
	{
		echo "PREPARE lookup3(int) AS SELECT doc->'c2', doc->'c403', doc->'c800' FROM ${w}_doc WHERE id = \$1;"
		keys $LOOKUP_WARMUP $W4_ROWS 23 | sed 's/.*/EXECUTE lookup3(&);/'
		for p in $READ_POSITIONS; do echo "SELECT count(doc->'c$p') FROM ${w}_doc;"; done
		echo "SELECT count(*) FROM ${w}_doc WHERE $JSONB_FILTER;"
		echo "SELECT count(*) FROM ${w}_doc;"
	} >"$SQL/${w}_read.jsonb.setup"
	keys $LOOKUPS $W4_ROWS 29 | sed 's/.*/EXECUTE lookup3(&);/' >"$SQL/${w}_read.jsonb.lookup3"
	for p in $READ_POSITIONS; do
		part=c$p
		[ $p = 800 ] && part=scan
		for i in $(seq $SCANS); do echo "SELECT count(doc->'c$p') FROM ${w}_doc;"; done >"$SQL/${w}_read.jsonb.$part"
	done
	for i in $(seq $SCANS); do echo "SELECT count(*) FROM ${w}_doc WHERE $JSONB_FILTER;"; done >"$SQL/${w}_read.jsonb.filter"
	for i in $(seq $SCANS); do echo "SELECT count(*) FROM ${w}_doc;"; done >"$SQL/${w}_read.jsonb.count"
done

as_postgres "$PGBIN/pg_ctl" -D "$TEMPLATE" -m fast -w stop >/dev/null
SERVER_STARTED=0
rm -f "$TEMPLATE/postmaster.opts"
[ "$(id -u)" = 0 ] && chown -R postgres: "$WORK"

# th N: N with thousands separators (10000 -> 10,000), for the labels
th() { perl -e 'my $n = shift; 1 while $n =~ s/^(\d+)(\d{3})/$1,$2/; print $n' "$1"; }

# The figures: key|label|group|part|units|unit|slimheap variant[|baseline].
# Each needs the backends <group>.<db>.<part> and <group>.<db>.setup of
# slimheap ("slim") and of its baseline ("heap", or "jsonb": the jsonb twin
# in database "heap").
FIGURES=$WORK/figures.txt
{
	echo "tpcb|TPC-B: $(th $TPCB_TX) transactions (pgbench's, plain statements; scale $TPCB_SCALE)|tpcb|tx|$TPCB_TX|transaction|truncate"
	echo "tpcb_prep|TPC-B: $(th $TPCB_TX) transactions (pgbench's, prepared; scale $TPCB_SCALE)|tpcb_prep|tx|$TPCB_TX|transaction|truncate"
	for c in $W2_CASES; do
		echo "w2_$c|W2 INSERT ... SELECT, $c: $(th $W2_ROWS) rows of 5 int4|w2_$c|insert|$W2_ROWS|row|truncate"
	done
	echo "w2_sum|W2 scan sum(c5): $SCANS x $(th $W2_ROWS) rows of 5 int4, all set|w2_read|sum|$((SCANS * W2_ROWS))|row|truncate"
	echo "w1_insert|W1 INSERT ... SELECT: $(th $W1_INSERT_ROWS) rows of 800 int4, 50 set|w1_write|insert|$W1_INSERT_ROWS|row|truncate"
	echo "w1_sum|W1 scan sum(c50): $SCANS x $(th $W1_ROWS) rows|w1_read|sum|$((SCANS * W1_ROWS))|row|truncate"
	echo "w1_count|W1 scan count(*): $SCANS x $(th $W1_ROWS) rows|w1_read|count|$((SCANS * W1_ROWS))|row|truncate"
	echo "w1_vacuum_full|W1 VACUUM FULL: $(th $W1_ROWS) rows|w1_read|vacuumfull|$W1_ROWS|row|truncate"
	for w in w4 w5; do
		W=${w^^}
		echo "${w}_insert|$W INSERT ... SELECT * from a heap table: $(th $W4_ROWS) rows|${w}_write|insert|$W4_ROWS|row|compress"
		echo "${w}_copy|$W COPY FROM a file: $(th $W4_ROWS) rows|${w}_write|copy|$W4_ROWS|row|compress"
		echo "${w}_lookup|$W lookups by key (prepared, row to text): $(th $LOOKUPS)|${w}_read|lookups|$LOOKUPS|lookup|compress"
		echo "${w}_lookup3|$W lookups by key (prepared, c2, c403, c800): $(th $LOOKUPS)|${w}_read|lookup3|$LOOKUPS|lookup|compress"
		for p in $READ_POSITIONS; do
			[ $p = 800 ] && continue
			echo "${w}_c$p|$W scan count(c$p): $SCANS x $(th $W4_ROWS) rows|${w}_read|c$p|$((SCANS * W4_ROWS))|row|compress"
		done
		echo "${w}_scan|$W scan count(c800): $SCANS x $(th $W4_ROWS) rows|${w}_read|scan|$((SCANS * W4_ROWS))|row|compress"
		echo "${w}_filter|$W scan count(*) WHERE $READ_FILTER: $SCANS x $(th $W4_ROWS) rows|${w}_read|filter|$((SCANS * W4_ROWS))|row|compress"
		echo "${w}_count|$W scan count(*): $SCANS x $(th $W4_ROWS) rows|${w}_read|count|$((SCANS * W4_ROWS))|row|compress"
		echo "${w}_vacuum_full|$W VACUUM FULL: $SCANS x $(th $W4_ROWS) rows|${w}_read|vacuumfull|$((SCANS * W4_ROWS))|row|compress"
	done
	# the same reads against the jsonb twin (W10)
	for w in w4 w5; do
		W=${w^^}
		echo "${w}_jsonb_lookup3|$W lookups by key (prepared, c2, c403, c800; jsonb: doc->'cN'): $(th $LOOKUPS)|${w}_read|lookup3|$LOOKUPS|lookup|compress|jsonb"
		for p in $READ_POSITIONS; do
			part=c$p
			[ $p = 800 ] && part=scan
			echo "${w}_jsonb_c$p|$W scan count(c$p) (jsonb: count(doc->'c$p')): $SCANS x $(th $W4_ROWS) rows|${w}_read|$part|$((SCANS * W4_ROWS))|row|compress|jsonb"
		done
		echo "${w}_jsonb_filter|$W scan of the filter (jsonb: $JSONB_FILTER): $SCANS x $(th $W4_ROWS) rows|${w}_read|filter|$((SCANS * W4_ROWS))|row|compress|jsonb"
		echo "${w}_jsonb_count|$W scan count(*) (jsonb twin): $SCANS x $(th $W4_ROWS) rows|${w}_read|count|$((SCANS * W4_ROWS))|row|compress|jsonb"
	done
} >"$FIGURES.all"

# BENCH_ONLY: only the figures named; no compress: none of its figures
NOTE=""
if [ -n "${BENCH_ONLY:-}" ]; then
	for key in $BENCH_ONLY; do
		if ! grep -q "^$key|" "$FIGURES.all"; then
			log "BENCH_ONLY: no figure '$key'; the figures are: $(cut -d'|' -f1 "$FIGURES.all" | paste -sd' ' -)"
			exit 2
		fi
	done
	NOTE="only $BENCH_ONLY"
fi
awk -F'|' -v only=" ${BENCH_ONLY:-} " -v compress="$COMPRESS" '
	(only ~ /^ *$/ || index(only, " " $1 " ")) && ($7 != "compress" || compress != "")
' "$FIGURES.all" >"$FIGURES"
if [ -z "$COMPRESS" ]; then
	NOTE="${NOTE:+$NOTE; }no W4/W5 figures (the build has no compress bitmap)"
fi
if [ ! -s "$FIGURES" ]; then
	log "no figures to count"
	exit 2
fi

# --- 3. the counted backends -------------------------------------------------
# run_backend NAME DB FILE...: a copy of the template, a standalone backend
# under callgrind on database DB reading FILE..., its count into
# $WORK/counts/NAME (the output stays in $WORK/runs/NAME on failure)
mkdir -p "$WORK/counts" "$WORK/runs" "$WORK/profile"
[ "$(id -u)" = 0 ] && chown postgres: "$WORK/counts" "$WORK/runs" "$WORK/profile"
# the figures profiled function by function (BENCH_PROFILE) that this run
# counts, and the backends they read
PROFILE_KEYS=""
PROFILE_BACKENDS=""
for key in ${BENCH_PROFILE-w4_c2 w4_c403 w4_scan w4_jsonb_c800 w4_insert}; do
	line=$(grep "^$key|" "$FIGURES" || true)
	[ -n "$line" ] || continue
	IFS='|' read -r _ _ group part _ _ _ baseline <<<"$line"
	PROFILE_KEYS="$PROFILE_KEYS $key"
	for db in "${baseline:-heap}" slim; do
		PROFILE_BACKENDS="$PROFILE_BACKENDS $group.$db.$part $group.$db.setup"
	done
done
run_backend() {
	local name=$1 db=$2 dir=$WORK/runs/$1 n
	shift 2
	mkdir "$dir"
	cp -a "$TEMPLATE" "$dir/data"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir"
	local rc=0
	cat "$@" | as_postgres "${CLEAN_ENV[@]}" "$VALGRIND" --tool=callgrind --trace-children=no \
		--collect-atstart=yes ${BENCH_CALLGRIND_OPTS:-} --log-file="$dir/valgrind.log" \
		--callgrind-out-file="$dir/callgrind.out" \
		"$PGBIN/postgres" --single -D "$dir/data" "$db" \
		>"$dir/stdout" 2>"$dir/stderr" || rc=$?
	if [ $rc != 0 ]; then
		log "$name: the backend failed (exit status $rc)"
		tail -n 5 "$dir/stderr" "$dir/valgrind.log" >&2
		return 1
	fi
	if grep -Eq '(ERROR|FATAL|PANIC):' "$dir/stderr"; then
		log "$name: the statements failed"
		grep -E -m 5 '(ERROR|FATAL|PANIC):' "$dir/stderr" >&2
		return 1
	fi
	n=$(awk '$1 == "summary:" { print $2 }' "$dir/callgrind.out")
	if ! [[ $n =~ ^[0-9]+$ ]]; then
		log "$name: no instruction count in $dir/callgrind.out"
		return 1
	fi
	echo "$n" >"$WORK/counts/$name"
	if [[ " $PROFILE_BACKENDS " == *" $name "* ]]; then
		cp "$dir/callgrind.out" "$WORK/profile/$name.callgrind.out"
	fi
	if [ -n "$KEEP" ]; then
		mv "$dir/callgrind.out" "$KEEP/$name.callgrind.out"
	fi
	rm -rf "$dir"
}

# every backend the figures need, the longest first (TPC-B, COPY, W2) so
# that the last to finish are short ones
BACKENDS=()
while IFS='|' read -r key label group part units unit variant baseline; do
	for db in "${baseline:-heap}" slim; do
		BACKENDS+=("$group.$db.$part")
	done
done <"$FIGURES"
for b in "${BACKENDS[@]}"; do
	BACKENDS+=("${b%.*}.setup")
done
mapfile -t BACKENDS < <(printf '%s\n' "${BACKENDS[@]}" | awk '!seen[$0]++' |
	awk -F. '{ o = 5 } $3 == "tx" { o = 0 } $3 == "copy" { o = 1 } $1 ~ /^w2_/ && $3 != "setup" { o = 2 }
		$3 == "lookups" || $3 == "lookup3" { o = 3 } $3 == "setup" { o = 6 } { print o, NR, $0 }' |
	sort -n -k1,1 -k2,2 | cut -d' ' -f3)

log "${#BACKENDS[@]} backends under callgrind, $JOBS at a time"
FAILED=0
running=0
done_count=0
finish_one() {
	if ! wait -n; then
		FAILED=1
	fi
	running=$((running - 1))
	done_count=$((done_count + 1))
	log "$done_count of ${#BACKENDS[@]} backends done"
}
for b in "${BACKENDS[@]}"; do
	IFS=. read -r group db part <<<"$b"
	files=("$SQL/$group.$db.setup")
	if [ "$part" = setup ]; then
		:
	elif [ -e "$SQL/$group.$db.$part" ]; then
		files+=("$SQL/$group.$db.$part")
	else
		files+=("$SQL/$group.$part")
	fi
	[ $running -lt "$JOBS" ] || finish_one
	run_backend "$b" "$([ "$db" = jsonb ] && echo heap || echo "$db")" "${files[@]}" &
	JOB_PIDS+=($!)
	running=$((running + 1))
done
while [ $running -gt 0 ]; do
	finish_one
done
JOB_PIDS=()
if [ $FAILED = 1 ]; then
	log "a backend failed (above): no report"
	exit 1
fi

# --- 4. the report -----------------------------------------------------------
RAW=$WORK/counts.csv
echo "backend,instructions" >"$RAW"
for b in "${BACKENDS[@]}"; do
	echo "$b,$(cat "$WORK/counts/$b")" >>"$RAW"
done
mkdir -p "$RESULTS"
BENCH_DATE="$START_DATE-$(date -u '+%H:%M') UTC" \
BENCH_CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) \
BENCH_BUILD=$BUILD \
BENCH_PGVERSION=$PGVERSION \
BENCH_VALGRIND=$VALGRIND_VERSION \
BENCH_ELAPSED=$(($(date +%s) - START)) \
BENCH_JOBS=$JOBS \
BENCH_NOTE=$NOTE \
	perl "$BENCH/instructions-report.pl" "$RAW" "$FIGURES" "$RESULTS"
if [ -n "$PROFILE_KEYS" ]; then
	perl "$BENCH/instructions-profile.pl" "$FIGURES" "$WORK/profile" \
		"$RESULTS/instructions-profile.md" $PROFILE_KEYS
	log "per-function profiles of$PROFILE_KEYS: $RESULTS/instructions-profile.md"
fi
cat "$RESULTS/instructions.md"
log "done in $(($(date +%s) - START)) s: $RESULTS/instructions.md, instructions.csv"
