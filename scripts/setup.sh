#!/bin/bash
#
# setup.sh: install what `make test`, `make demo` and `make bench` need on
# Debian 12 (run as root; `make test` and friends call it first).
#
# What is needed: the PostgreSQL 15 server, its headers for PGXS, IPC::Run
# for the TAP tests, gnuplot for the benchmark charts, git (the report
# of the benchmark names the revision; bench/t/040_bench_report.pl makes
# scratch checkouts), and pg_repack and pg_partman, which t/060 and t/061 run on
# slimheap tables (docs/tools.md).  Server and headers
# must be the same minor version (the extension is built against the headers
# and loaded by the server), so everything is installed by one apt-get call:
# apt then takes both to the same candidate version.
#
# Fast path: when every package is installed and the server and headers
# versions are equal, apt is not touched at all.  Otherwise `apt-get update`
# runs once, then one `apt-get install`.  Noninteractive, reads no stdin.
#
set -euo pipefail

PACKAGES=(postgresql-15 postgresql-server-dev-15 libipc-run-perl gnuplot-nox git
	postgresql-15-repack postgresql-15-partman)

# "<version>" when the package is installed, "" otherwise
installed_version()
{
	dpkg-query -W -f='${Status}|${Version}\n' "$1" 2>/dev/null |
		sed -n 's/^install ok installed|//p'
}

# Print why an install is needed, one reason a line; nothing when none is.
missing_reasons()
{
	local pkg
	for pkg in "${PACKAGES[@]}"; do
		[ -n "$(installed_version "$pkg")" ] || echo "$pkg is not installed"
	done
	# PGXS compiles with gcc; a fresh Debian 12 normally has it already
	command -v gcc >/dev/null || echo "gcc is not installed"

	local server dev
	server=$(installed_version postgresql-15)
	dev=$(installed_version postgresql-server-dev-15)
	if [ -n "$server" ] && [ -n "$dev" ] && [ "$server" != "$dev" ]; then
		echo "postgresql-15 $server and postgresql-server-dev-15 $dev differ"
	fi
}

reasons=$(missing_reasons)
if [ -z "$reasons" ]; then
	echo "setup: all packages present (postgresql-15 $(installed_version postgresql-15))"
	exit 0
fi

echo "setup: installing, because:"
sed 's/^/  /' <<<"$reasons"

if [ "$(id -u)" != 0 ]; then
	echo "setup: must run as root to install packages" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# wait for a dpkg lock held by someone else instead of failing at once
APT_OPTS=(-o DPkg::Lock::Timeout=600 -q)

# apt's own output goes to a log: a user of `make demo` came to see sizes
LOG=${SLIMHEAP_SETUP_LOG:-/tmp/slimheap-setup.log}
install=("${PACKAGES[@]}")
command -v gcc >/dev/null || install+=(gcc)
echo "setup: apt-get update and install ${install[*]} (output in $LOG)"
if ! { apt-get "${APT_OPTS[@]}" update &&
	apt-get "${APT_OPTS[@]}" install -y \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"${install[@]}"; } </dev/null >"$LOG" 2>&1; then
	echo "setup: apt-get failed; the last lines of $LOG:" >&2
	tail -n 20 "$LOG" >&2
	exit 1
fi

reasons=$(missing_reasons)
if [ -n "$reasons" ]; then
	echo "setup: still not usable after apt-get install:" >&2
	sed 's/^/  /' <<<"$reasons" >&2
	exit 1
fi
echo "setup: done (postgresql-15 $(installed_version postgresql-15))"
