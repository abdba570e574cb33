#!/bin/bash
#
# run-tests.sh: build, install and run every test of slimheap (`make test`).
#
# Run as root from anywhere in the tree.  The extension is built and
# installed system-wide; the tests then run as the unprivileged user
# `postgres` (initdb refuses root) in a throwaway copy of the tree under
# /tmp, against throwaway clusters that preload slimheap:
#
#   1. pg_regress over sql/*.sql (the Makefile's REGRESS and REGRESS_OPTS)
#   2. the same suite again with JIT forced on for every query
#   3. pg_isolation_regress over specs/*.spec (ISOLATION, ISOLATION_OPTS)
#   4. the TAP tests with prove (they start their own nodes): t/*.pl and
#      the benchmark tooling's bench/t/*.pl (the Makefile's PROVE_TESTS),
#      and on PostgreSQL 16 and later t/citus/*.pl too (Citus first, below)
#
# What is counted in the closing "N passed, N failed" line: one per test
# file per run, i.e. each sql/ test once per regression run (so twice), each
# isolation spec, and each TAP script (a script passes when all of its
# assertions pass; the assertion counts are printed with the TAP part).  A
# step that keeps tests from running at all (build, install, cluster start)
# counts as one failure.
#
# Every server started here (and every TAP node left behind) is stopped on
# exit, also on failure or interrupt.  The copy is removed when everything
# passed and kept for inspection otherwise (SLIMHEAP_KEEP_TMP=1 keeps it
# always).
#
# With --installed (an installcheck, as an autopkgtest runs it: debian/tests,
# scripts/package.sh test), nothing is built or installed: parts 1 and 3 run
# against the extension as installed in PG_CONFIG's server (e.g. from its
# Debian package), and parts 2 and 4 are left out.
#
# Environment: SLIMHEAP_TEST_PORT (first port to try, default 54320),
# SLIMHEAP_TEST_USER (default postgres), PG_CONFIG (the server to build
# against and test on; `make test PG=18` sets it, docs/infra.md).
#
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
# the builds below (make) must use the same server as the tests
export PG_CONFIG
RUN_AS=${SLIMHEAP_TEST_USER:-postgres}
INSTALLED=
if [ "${1:-}" = --installed ]; then
	INSTALLED=1
fi

BINDIR=$("$PG_CONFIG" --bindir)
PGXS_SRC=$(dirname "$(dirname "$("$PG_CONFIG" --pgxs)")")
PG_REGRESS=$PGXS_SRC/test/regress/pg_regress
PG_ISOLATION_REGRESS=$PGXS_SRC/test/isolation/pg_isolation_regress
PG_PERL_LIB=$PGXS_SRC/test/perl

# never let the caller's connection settings leak into a test
unset PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGOPTIONS \
	PGSERVICE PGSERVICEFILE PGSSLMODE PGDATA PGAPPNAME

TOTAL_PASS=0
TOTAL_FAIL=0
SUMMARY=()
WORK=
PGDATA_MAIN=

note() { printf '\n=== %s ===\n' "$*"; }

# Record the result of one part: name, passed, failed, detail
record()
{
	TOTAL_PASS=$((TOTAL_PASS + $2))
	TOTAL_FAIL=$((TOTAL_FAIL + $3))
	SUMMARY+=("$(printf '%-22s %3d passed, %3d failed%s' "$1:" "$2" "$3" "${4:+  ($4)}")")
}

print_summary()
{
	note "summary"
	local line
	for line in "${SUMMARY[@]}"; do
		echo "$line"
	done
	echo
	echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
}

# A step without which no test can run failed: count it, report, stop.
fatal()
{
	echo "run-tests: $*" >&2
	record "setup" 0 1 "$*"
	print_summary
	exit 1
}

# Run a command as the test user, in the current directory.
as_pg() { runuser -u "$RUN_AS" -- "$@"; }

cleanup()
{
	local rc=$?
	local pidfile dir

	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		# the main cluster, and any TAP node a killed test left running
		while IFS= read -r pidfile; do
			dir=$(dirname "$pidfile")
			if [ "$dir" = "$PGDATA_MAIN" ]; then
				as_pg "$BINDIR/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 ||
					as_pg "$BINDIR/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1
			else
				as_pg "$BINDIR/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1
			fi
		done < <(find "$WORK" -name postmaster.pid 2>/dev/null)

		if [ "$rc" = 0 ] && [ "${SLIMHEAP_KEEP_TMP:-0}" != 1 ]; then
			rm -rf "$WORK"
		else
			echo "run-tests: test files kept in $WORK"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

[ "$(id -u)" = 0 ] || { echo "run-tests: run as root (make test)" >&2; exit 1; }
id "$RUN_AS" >/dev/null 2>&1 || fatal "user $RUN_AS does not exist (is postgresql-15 installed?)"

START=$(date +%s)
PG_VERSION=$("$PG_CONFIG" --version) || fatal "no pg_config at $PG_CONFIG"
echo "testing on $PG_VERSION ($PG_CONFIG)"

if [ -n "$INSTALLED" ]; then
	note "the installed extension (nothing is built)"
	ls -l "$("$PG_CONFIG" --pkglibdir)/slimheap.so" \
		"$("$PG_CONFIG" --sharedir)/extension/slimheap.control" ||
		fatal "slimheap is not installed in $("$PG_CONFIG" --pkglibdir)"
else
	note "build and install"
	make -C "$ROOT" -s || fatal "make failed"
	make -C "$ROOT" -s install >/dev/null || fatal "make install failed"
	echo "installed into $("$PG_CONFIG" --pkglibdir)"
fi

# Older servers of this machine (/usr/lib/postgresql/N with PGXS, N from 15
# up to this server's major) get slimheap too, built from this tree in a
# scratch copy: t/017 upgrades from each of them with pg_upgrade (on 19, in
# the sid root, from sid's own 18).  A build that fails counts as a failure.
install_into_older_servers()
{
	local dir major cfg scratch
	for dir in /usr/lib/postgresql/*; do
		major=$(basename "$dir")
		cfg=$dir/bin/pg_config
		[[ $major =~ ^[0-9]+$ ]] && [ "$major" -ge 15 ] && [ "$major" -lt "$PG_MAJOR" ] || continue
		[ -x "$cfg" ] && [ -f "$("$cfg" --pgxs 2>/dev/null)" ] || continue
		[ "$("$cfg" --bindir)" != "$BINDIR" ] || continue
		scratch=$(mktemp -d /tmp/slimheap-older.XXXXXX)
		if tar -C "$ROOT" --exclude=./.git -cf - . | tar -C "$scratch" -xf - &&
			make -C "$scratch" -s clean PG_CONFIG="$cfg" >/dev/null 2>&1 &&
			make -C "$scratch" -s PG_CONFIG="$cfg" >"$scratch.log" 2>&1 &&
			make -C "$scratch" -s install PG_CONFIG="$cfg" >>"$scratch.log" 2>&1; then
			echo "installed into $("$cfg" --pkglibdir) (PostgreSQL $major, for t/017's upgrade)"
			rm -f "$scratch.log"
		else
			tail -n 30 "$scratch.log" 2>/dev/null
			record "older server" 0 1 "cannot build slimheap for PostgreSQL $major ($cfg)"
		fi
		rm -rf "$scratch"
	done
}

# Citus, for the distributed tests of t/citus/ (docs/scale-out.md).  Citus 14
# supports PostgreSQL 16 to 18: on those servers t/citus/ is part of the TAP
# run, and scripts/citus-build.sh provides Citus first (an installed one, or
# a build from SLIMHEAP_CITUS_TARBALL; .ci/run names the vendored tarball).
# When it cannot, that counts as a failure.  A run on 15 lists no t/citus/
# test at all; a run on 19 says that it skips them (Citus 14.0.1 refuses
# to configure on 19) until a Citus for 19 can be reached.
PG_MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ -z "$INSTALLED" ]; then
	note "older servers (for t/017's pg_upgrade)"
	install_into_older_servers
fi
CITUS_TAP=
if [ -z "$INSTALLED" ] && [ "$PG_MAJOR" -ge 19 ] 2>/dev/null; then
	note "Citus (for t/citus/)"
	echo "t/citus/ skipped: no Citus supports PostgreSQL $PG_MAJOR (Citus 14 supports 16 to 18)"
elif [ -z "$INSTALLED" ] && [ "$PG_MAJOR" -ge 16 ] 2>/dev/null; then
	note "Citus (for t/citus/)"
	if bash "$ROOT/scripts/citus-build.sh"; then
		CITUS_TAP=1
	else
		record "citus" 0 1 "no Citus for t/citus/: scripts/citus-build.sh failed"
	fi
fi

# The throwaway copy, owned by the test user so results can be written.
WORK=$(mktemp -d /tmp/slimheap-test.XXXXXX)
TREE=$WORK/tree
mkdir "$TREE"
tar -C "$ROOT" --exclude=./.git --exclude=./results --exclude=./output_iso \
	--exclude=./tmp_check --exclude=./log -cf - . | tar -C "$TREE" -xf - ||
	fatal "cannot copy the tree to $TREE"
chown -R "$RUN_AS:" "$WORK"
cd "$TREE" || fatal "cannot enter $TREE"

# The test lists and options, as the Makefile defines them.
make_var()
{
	make -s --no-print-directory -f Makefile -f - "show-$1" <<'MK'
show-%:
	@echo '$($*)'
MK
}
REGRESS=$(make_var REGRESS)
REGRESS_OPTS=$(make_var REGRESS_OPTS)
ISOLATION=$(make_var ISOLATION)
ISOLATION_OPTS=$(make_var ISOLATION_OPTS)
TAP_FILES=$(make_var PROVE_TESTS)
if [ -n "$CITUS_TAP" ]; then
	TAP_FILES="$TAP_FILES $(ls t/citus/*.pl 2>/dev/null | sort)"
fi

# A port nothing listens on (the cluster listens on a private unix socket
# only, so this just keeps its socket name unique and readable).
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=${SLIMHEAP_TEST_PORT:-54320}
while port_in_use "$PORT"; do
	PORT=$((PORT + 1))
done

note "throwaway cluster"
PGDATA_MAIN=$WORK/data
SOCK=$WORK/sock
as_pg mkdir "$SOCK"
# verify.sql writes a damaged page into a relation file: 18's initdb turns
# data checksums on by default, which would refuse the page before slimheap
# sees it; 15's initdb has them off and does not know the option
# (the help is read whole first: with pipefail, `initdb --help | grep -q`
# fails whenever grep exits before initdb has written everything, 34 of 300
# times on a loaded machine, and the cluster then had checksums on)
INITDB_NO_CHECKSUMS=
INITDB_HELP=$("$BINDIR/initdb" --help 2>/dev/null)
case "$INITDB_HELP" in
	*--no-data-checksums*) INITDB_NO_CHECKSUMS=--no-data-checksums ;;
esac
as_pg "$BINDIR/initdb" -D "$PGDATA_MAIN" -U postgres -A trust --no-sync \
	--no-locale -E UTF8 $INITDB_NO_CHECKSUMS >"$WORK/initdb.log" 2>&1 ||
	{ cat "$WORK/initdb.log"; fatal "initdb failed"; }
{
	echo "# added by scripts/run-tests.sh"
	echo "listen_addresses = ''"
	echo "port = $PORT"
	echo "unix_socket_directories = '$SOCK'"
	echo "fsync = off"
	echo "max_prepared_transactions = 10"
	echo "# sql/slimheap.conf"
	cat sql/slimheap.conf
} >>"$PGDATA_MAIN/postgresql.conf"
as_pg "$BINDIR/pg_ctl" -D "$PGDATA_MAIN" -l "$WORK/server.log" -w -t 120 start >/dev/null ||
	{ cat "$WORK/server.log"; fatal "the test cluster did not start"; }
echo "cluster on port $PORT, socket $SOCK, $(as_pg "$BINDIR/psql" -XAtq -h "$SOCK" -p "$PORT" -d postgres \
	-c "SELECT 'shared_preload_libraries=' || current_setting('shared_preload_libraries')")"

# Parse the closing line of pg_regress / pg_isolation_regress into
# "passed failed".  When the run died before printing it, every test of the
# run counts as failed.
regress_counts()
{
	local out=$1 ntests=$2 rc=$3 line n m k
	# 15 prints " All 22 tests passed.", 16 and later "# All 22 tests passed."
	line=$(grep -E '^(# )? *(All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests (passed|failed))' "$out" | tail -1)
	if [[ $line =~ All\ ([0-9]+)\ tests\ passed ]]; then
		n=${BASH_REMATCH[1]}
		echo "$n 0"
	elif [[ $line =~ ([0-9]+)\ of\ ([0-9]+)\ tests\ failed ]]; then
		m=${BASH_REMATCH[1]}
		n=${BASH_REMATCH[2]}
		echo "$((n - m)) $m"
	elif [[ $line =~ ([0-9]+)\ of\ ([0-9]+)\ tests\ passed,\ ([0-9]+)\ failed ]]; then
		n=${BASH_REMATCH[2]}
		k=${BASH_REMATCH[3]}
		echo "$((n - k)) $k"
	elif [ "$rc" = 0 ]; then
		echo "$ntests 0"
	else
		echo "0 $ntests"
	fi
}

# run_regress <part name> <driver> <output dir> <dbname> <opts> <tests>
run_regress()
{
	local name=$1 driver=$2 outdir=$3 db=$4 opts=$5 tests=$6
	local ntests rc counts
	ntests=$(wc -w <<<"$tests")
	as_pg mkdir -p "$outdir"
	# shellcheck disable=SC2086 # opts and tests are word lists
	as_pg "$driver" --inputdir=. --bindir="$BINDIR" --host="$SOCK" \
		--port="$PORT" --dbname="$db" --outputdir="$outdir" \
		$opts $tests 2>&1 | tee "$outdir/driver.out"
	rc=${PIPESTATUS[0]}
	counts=$(regress_counts "$outdir/driver.out" "$ntests" "$rc")
	if [ "$rc" != 0 ]; then
		[ "${counts#* }" != 0 ] || counts="${counts% *} 1"
		if [ -s "$outdir/regression.diffs" ]; then
			echo "--- $outdir/regression.diffs (first 1000 lines) ---"
			head -n 1000 "$outdir/regression.diffs"
		fi
	fi
	# shellcheck disable=SC2086
	record "$name" ${counts% *} ${counts#* } "$ntests files"
}

note "regression tests (sql/)"
if [ -z "$REGRESS" ]; then
	echo "no sql/*.sql files: this part has no tests"
	record "regression" 0 0 "no tests"
else
	run_regress "regression" "$PG_REGRESS" "$WORK/regress" contrib_regression \
		"$REGRESS_OPTS" "$REGRESS"
fi

note "regression tests (sql/) with JIT forced on"
# Every query is JIT-compiled (expressions and tuple deforming, which must
# handle rows that store fewer attributes than the table has), with
# inlining.  LLVM's optimization passes are left at their default threshold:
# they do not change what the generated code does, and on 800-column tables
# they cost tens of seconds per query (the smoke test alone: 5 s without,
# 127 s with jit_optimize_above_cost=0).  SLIMHEAP_JIT_OPTIONS overrides,
# e.g. to add "-c jit_optimize_above_cost=0".
JIT_OPTIONS=${SLIMHEAP_JIT_OPTIONS:-"-c jit=on -c jit_above_cost=0 -c jit_inline_above_cost=0"}
if [ -n "$INSTALLED" ]; then
	echo "left out of an installcheck"
elif [ -z "$REGRESS" ]; then
	echo "no sql/*.sql files: this part has no tests"
	record "regression (jit)" 0 0 "no tests"
elif ! PGOPTIONS=$JIT_OPTIONS as_pg "$BINDIR/psql" -XAtq -h "$SOCK" -p "$PORT" -d postgres \
	-c "EXPLAIN (ANALYZE, TIMING OFF) SELECT count(*) FROM pg_class" >"$WORK/jit-check.out" 2>&1 ||
	! grep -q '^JIT:' "$WORK/jit-check.out"; then
	# without a JIT provider the run would silently be the same as above
	# (EXPLAIN shows its JIT section only with COSTS on)
	cat "$WORK/jit-check.out"
	echo "JIT is not used by this server (llvmjit missing?): cannot run this part"
	record "regression (jit)" 0 1 "JIT not available"
else
	echo "PGOPTIONS=$JIT_OPTIONS (verified: EXPLAIN ANALYZE shows JIT)"
	PGOPTIONS=$JIT_OPTIONS run_regress "regression (jit)" "$PG_REGRESS" \
		"$WORK/regress-jit" contrib_regression "$REGRESS_OPTS" "$REGRESS"
fi

note "isolation tests (specs/)"
if [ -z "$ISOLATION" ]; then
	echo "no specs/*.spec files: this part has no tests"
	record "isolation" 0 0 "no tests"
else
	run_regress "isolation" "$PG_ISOLATION_REGRESS" "$WORK/isolation" \
		isolation_regression "$ISOLATION_OPTS" "$ISOLATION"
fi

# The main cluster is not needed any more; free its memory for the TAP nodes.
as_pg "$BINDIR/pg_ctl" -D "$PGDATA_MAIN" -m fast -w stop >/dev/null

note "TAP tests (t/, bench/t/)"
if [ -n "$INSTALLED" ]; then
	echo "left out of an installcheck"
elif [ -z "$TAP_FILES" ]; then
	echo "no t/*.pl or bench/t/*.pl files: this part has no tests"
	record "tap" 0 0 "no tests"
else
	ntap=$(wc -w <<<"$TAP_FILES")
	as_pg mkdir -p "$TREE/tmp_check" "$WORK/portlock"
	# shellcheck disable=SC2086
	# TESTDIR for 15's test modules, TESTDATADIR and TESTLOGDIR for 16's
	# and later (else they use relative paths the server cannot resolve)
	as_pg env TESTDIR="$TREE" TESTDATADIR="$TREE/tmp_check" \
		TESTLOGDIR="$TREE/tmp_check/log" PATH="$BINDIR:$PATH" PG_REGRESS="$PG_REGRESS" \
		PG_TEST_PORT_DIR="$WORK/portlock" \
		prove -I "$PG_PERL_LIB" -I "$TREE/t" $TAP_FILES 2>&1 | tee "$WORK/prove.out"
	rc=${PIPESTATUS[0]}
	# prove lists each failing script in its "Test Summary Report"
	failed_files=$(grep -cE '^[^ ]*t/[^ ]+\.pl +\(Wstat:' "$WORK/prove.out")
	if [ "$rc" != 0 ] && [ "$failed_files" = 0 ]; then
		failed_files=$ntap
	fi
	detail=$(grep -oE '^Files=[0-9]+, Tests=[0-9]+' "$WORK/prove.out" | tail -1)
	if [ "$failed_files" != 0 ]; then
		for f in $TAP_FILES; do
			log="$TREE/tmp_check/log/regress_log_$(basename "$f" .pl)"
			if grep -qE "^$f +\(Wstat:" "$WORK/prove.out" && [ -f "$log" ]; then
				echo "--- last 80 lines of $log ---"
				tail -n 80 "$log"
			fi
		done
	fi
	record "tap" $((ntap - failed_files)) "$failed_files" "${detail:-prove printed no summary}"
fi

echo
echo "run time: $(($(date +%s) - START)) s"
echo "server: $PG_VERSION ($PG_CONFIG)"
print_summary
[ "$TOTAL_FAIL" = 0 ]
