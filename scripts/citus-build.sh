#!/bin/bash
#
# citus-build.sh: make sure Citus is installed into the PostgreSQL server of
# $PG_CONFIG, for the distributed test t/citus/ (docs/scale-out.md).
#
#   PG_CONFIG=/var/cache/slimheap/pg-18.6/bin/pg_config \
#   SLIMHEAP_CITUS_TARBALL=../shared/vendor/citus-14.0.1.tar.gz \
#       scripts/citus-build.sh
#
# 1. When the server already has Citus ($(pg_config --pkglibdir)/citus.so
#    and citus.control in its extension directory), that is used as it is:
#    users install Citus from Citus's own package repositories.
# 2. Otherwise Citus is built from the source tarball SLIMHEAP_CITUS_TARBALL
#    names (Citus's unmodified release source; the project contains no Citus
#    code) and installed into that server's prefix: ./configure
#    PG_CONFIG=...; make; make install.  The build dependencies Citus needs
#    from Debian (liblz4-dev, libzstd-dev, libcurl4-openssl-dev, libkrb5-dev)
#    are installed first when missing: one apt-get update, one apt-get
#    install.  The installed files are the cache: the next call finds them
#    and builds nothing.
#
# Without an installed Citus and without a tarball it fails and says so.
# Concurrent calls are serialized by a lock file in /tmp.  Progress goes to
# stderr.  Must run as root when it has to build or install.
#
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/apt-deps.sh"

say() { echo "citus-build: $*" >&2; }

PG_CONFIG=${PG_CONFIG:?citus-build: set PG_CONFIG to the server to install Citus into}
PKGLIBDIR=$("$PG_CONFIG" --pkglibdir)
EXTDIR=$("$PG_CONFIG" --sharedir)/extension
JOBS=${SLIMHEAP_CITUS_JOBS:-2}

installed() { [ -f "$PKGLIBDIR/citus.so" ] && [ -f "$EXTDIR/citus.control" ]; }

report()
{
	say "Citus $(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$EXTDIR/citus.control") is installed in $PKGLIBDIR"
}

if installed; then
	report
	exit 0
fi

TARBALL=${SLIMHEAP_CITUS_TARBALL:-}
if [ -z "$TARBALL" ]; then
	say "Citus is not installed in $PKGLIBDIR, and SLIMHEAP_CITUS_TARBALL names no source to build it from"
	say "install Citus for $("$PG_CONFIG" --version), or set SLIMHEAP_CITUS_TARBALL=/path/to/citus-<version>.tar.gz"
	exit 1
fi
[ -f "$TARBALL" ] || { say "SLIMHEAP_CITUS_TARBALL=$TARBALL: no such file"; exit 1; }
TARBALL=$(cd "$(dirname "$TARBALL")" && pwd)/$(basename "$TARBALL")
[ "$(id -u)" = 0 ] || { say "must run as root to build Citus into $PKGLIBDIR"; exit 1; }

exec 9>/tmp/slimheap-citus-build.lock
flock 9
# someone else may have installed it while we waited
if installed; then
	report
	exit 0
fi

# Citus's build dependencies from Debian, in one apt-get call
DEPS=(liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev gcc make)
install_missing "${DEPS[@]}"

BUILD=$(mktemp -d /tmp/slimheap-citus-build.XXXXXX)
trap 'rm -rf "$BUILD"' EXIT
LOG=$BUILD.log
: >"$LOG"
step()
{
	say "  $*"
	"$@" >>"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; say "failed: $* (log: $LOG)"; exit 1; }
}
say "building Citus from $TARBALL against $("$PG_CONFIG" --version) (log: $LOG)"
tar -xf "$TARBALL" -C "$BUILD" --strip-components=1
cd "$BUILD"
step ./configure PG_CONFIG="$PG_CONFIG"
step make -j"$JOBS"
step make install
installed || { say "make install did not install citus.so into $PKGLIBDIR"; exit 1; }
rm -f "$LOG"
report
