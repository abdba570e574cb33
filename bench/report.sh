#!/bin/bash
# bench/report.sh RESULTS_DIR: the report step of the benchmark.
#
# Everything here is derived from what bench/run.sh has already written
# into RESULTS_DIR, so the step can run on its own, again and again, on a
# finished run (also as `bench/run.sh --report-only RESULTS_DIR`):
#
#   latest-raw.csv   every measurement (required; written during the run)
#   latest-run.txt   KEY=value lines describing the run (optional; written
#                    by run.sh right after the measurements: mode, rounds,
#                    run time, server version, sizes, load average, build)
#
# and it writes latest.md (also printed), latest.csv, w3.dat and w3.png,
# w10.dat and w10.png (a chart's two files only when the run measured its
# workload).
#
# Nothing in here may throw a finished run away: the revision of the
# checkout is read from git when git can read it, and otherwise the report
# says why it is unknown (git missing, not a checkout, or git refusing a
# checkout owned by another user: "dubious ownership").  A step that fails
# is reported and the next one still runs; the exit status is 1 when a
# result file could not be written, 0 otherwise.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/bench

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

if [ $# != 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 RESULTS_DIR (a directory holding latest-raw.csv)" >&2
	exit 2
fi
RESULTS=$(cd "$1" && pwd)
RAW=$RESULTS/latest-raw.csv
if [ ! -s "$RAW" ]; then
	log "no measurements in $RAW: nothing to report"
	exit 1
fi

# --- the description of the run ---------------------------------------------
# latest-run.txt is read line by line, never executed
declare -A RUN=()
if [ -f "$RESULTS/latest-run.txt" ]; then
	while IFS= read -r line; do
		[[ $line =~ ^([A-Z_]+)=(.*)$ ]] && RUN[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done <"$RESULTS/latest-run.txt"
else
	log "no $RESULTS/latest-run.txt: the report leaves out what it would say"
fi
run() { printf '%s' "${RUN[$1]:-}"; }

# revision: "<describe>[ (uncommitted changes in <files>)]" or
# "revision unknown: <why>"; never fails
revision() {
	local out err rev dirty
	if ! command -v git >/dev/null 2>&1; then
		echo "revision unknown: git is not installed"
		return
	fi
	err=$(mktemp) || { echo "revision unknown: no temporary file for git's messages"; return; }
	# the run's own results (bench/results/) are not changes to the build
	if rev=$(git -C "$ROOT" describe --always 2>"$err") && [ -n "$rev" ]; then
		dirty=$(git -C "$ROOT" diff --name-only HEAD -- . ':(exclude)bench/results' 2>/dev/null |
			paste -sd' ' -) || dirty=""
		out=$rev${dirty:+-dirty (uncommitted changes in $dirty)}
	elif grep -q 'dubious ownership' "$err"; then
		out="revision unknown: git refused the checkout (dubious ownership: $ROOT belongs to another user)"
	elif grep -qi 'not a git repository' "$err"; then
		out="revision unknown: $ROOT is not a git checkout"
	else
		out="revision unknown: git failed ($(head -n 1 "$err"))"
	fi
	rm -f "$err"
	echo "$out"
}

REVISION=$(revision)
case $REVISION in
	"revision unknown"*) AT="$ROOT ($REVISION)" ;;
	*) AT="$ROOT at $REVISION" ;;
esac
if [ -n "$(run BENCH_LIB)" ]; then
	BENCH_BUILD="$(run BENCH_LIB) (BENCH_LIB); W7 former from $AT"
else
	BENCH_BUILD="$AT$([ "$(run SKIP_INSTALL)" = 1 ] && echo " (not installed)")"
fi
CPUS=$(nproc 2>/dev/null || echo "?")
MEM=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
LOADAVG=$(run LOADAVG)
export BENCH_BUILD
export BENCH_MACHINE="$CPUS CPUs, ${MEM:-? GiB} RAM${LOADAVG:+, load average before the run: $LOADAVG}"
# summarize.pl leaves out a line whose variable is unset
for key in MODE REPS ELAPSED PGVERSION SIZES; do
	if [ -n "$(run $key)" ]; then
		export "BENCH_$key=$(run $key)"
	else
		unset "BENCH_$key"
	fi
done

# --- the files ----------------------------------------------------------------
STATUS=0
if ! perl "$BENCH/summarize.pl" "$RAW" "$RESULTS"; then
	log "summarize.pl failed: no latest.md, latest.csv, w3.dat, w10.dat"
	STATUS=1
fi

# chart NAME: NAME.png from NAME.dat with bench/NAME.gnuplot, when the run
# has its figures; a chart left by an earlier run must not pass for this
# run's.  The script is told the workloads of the file's blocks (its
# "# W<n>" lines: W10's has one block for each of W4 and W5 measured).
chart() {
	local blocks
	blocks=$(sed -n 's/^# \(W[0-9]*\)$/\1/p' "$RESULTS/$1.dat" 2>/dev/null | paste -sd' ' -)
	rm -f "$RESULTS/$1.png"
	if [ ! -f "$RESULTS/$1.dat" ] || ! grep -q '^[0-9]' "$RESULTS/$1.dat"; then
		# a run without the workload leaves neither file (ONLY="W4 W5")
		rm -f "$RESULTS/$1.dat"
		log "no ${1^^} figures: no ${1^^} chart"
	elif ! command -v gnuplot >/dev/null 2>&1; then
		log "gnuplot not found: no ${1^^} chart"
	elif ! gnuplot -e "datafile='$RESULTS/$1.dat'; outfile='$RESULTS/$1.png'; workloads='$blocks'" "$BENCH/$1.gnuplot"; then
		log "gnuplot failed: no ${1^^} chart"
		STATUS=1
	fi
}
chart w3
chart w10

[ -f "$RESULTS/latest.md" ] && cat "$RESULTS/latest.md"
made=""
for f in latest.md latest.csv latest-raw.csv w3.png w10.png; do
	[ -f "$RESULTS/$f" ] && made="${made:+$made, }$f"
done
log "report in $RESULTS: $made ($REVISION)"
exit $STATUS
