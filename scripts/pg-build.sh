#!/bin/bash
#
# pg-build.sh: make sure a PostgreSQL server of the given major version,
# built from source, is installed in the machine's cache, and print the path
# of its pg_config (`make test PG=18` calls it; docs/infra.md).
#
#   scripts/pg-build.sh 18        -> /var/cache/slimheap/pg-18.6/bin/pg_config
#
# This is for machines that have no package of that major version (Debian 12
# has none of PostgreSQL 18): a user with PostgreSQL 18 installed points
# PG_CONFIG at its pg_config instead and never needs this script.
#
# The source is the release tarball of Debian's source package
# postgresql-<major>, downloaded with apt-get source through a private apt
# configuration under the cache (the system's apt sources are untouched).
# The build goes into $SLIMHEAP_PG_CACHE/pg-<version> (default
# /var/cache/slimheap/pg-18.6), outside any checkout.  A finished build
# carries a stamp file and is reused as it is: no network, no compiler,
# well under a second.  A build that was interrupted (no stamp) is removed
# and done again.  SLIMHEAP_PG_REFRESH=1 asks apt for the newest source
# version first (a newer minor release is then built beside the old one).
#
# What it builds: the server, client programs, the contrib modules the
# tests use (amcheck pageinspect pg_freespacemap pgstattuple test_decoding;
# SLIMHEAP_PG_CONTRIB; a cached build that lacks one is built again), the
# regression drivers for PGXS (pg_regress, pg_isolation_regress) and the
# TAP test modules; configured --with-llvm (Debian 12's llvm-14/clang-14,
# so the JIT part of the suite runs), --enable-tap-tests, --with-icu,
# --enable-debug (symbols only; no assertions, like a packaged server).
# It installs the Debian build dependencies that are missing, builds with
# make -j2 (SLIMHEAP_PG_JOBS), and takes roughly 10-15 minutes on 2 cores.
#
# PostgreSQL's make generates its headers only when it runs at make level
# 0, so the build runs in a clean make environment whoever calls it (a
# recipe of the project's Makefile passes MAKELEVEL and MAKEFLAGS down).
#
# SLIMHEAP_PG_SOURCE=/path/postgresql-18_18.6.orig.tar.bz2 builds from that
# tarball instead of downloading one (offline machines; t/003 uses it with a
# stand-in tree).  SLIMHEAP_PG_SKIP_DEPS=1 installs no build dependencies.
#
# Only progress messages go to stderr; the only line on stdout is the path
# of pg_config.  Concurrent calls are serialized by a lock in the cache.
#
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/apt-deps.sh"

# The whole script is one block, read before it runs: editing the file
# during a build of a quarter of an hour cannot change what the build does.
{

# the make that calls this script must not reach PostgreSQL's make
unset MAKELEVEL MAKEFLAGS MFLAGS MAKEOVERRIDES GNUMAKEFLAGS

MAJOR=${1:?usage: pg-build.sh <major version, e.g. 18>}
[[ $MAJOR =~ ^[0-9]+$ ]] || { echo "pg-build: bad major version '$MAJOR'" >&2; exit 2; }
CACHE=${SLIMHEAP_PG_CACHE:-/var/cache/slimheap}
JOBS=${SLIMHEAP_PG_JOBS:-2}
PKG=postgresql-$MAJOR
STAMP=.slimheap-build-complete
LLVM_VERSION=14
# the contrib modules the tests and the benchmark use
CONTRIB=${SLIMHEAP_PG_CONTRIB:-"amcheck pageinspect pg_freespacemap pgstattuple test_decoding"}

say() { echo "pg-build: $*" >&2; }

# complete <prefix>: a finished build that has every module of $CONTRIB
# (a cache made by an older version of this script may lack one)
complete()
{
	local m lib
	[ -f "$1/$STAMP" ] && [ -x "$1/bin/pg_config" ] || return 1
	lib=$("$1/bin/pg_config" --pkglibdir) || return 1
	for m in $CONTRIB; do
		[ -f "$lib/$m.so" ] || return 1
	done
}

# The newest finished build of this major version in the cache, or nothing.
cached_prefix()
{
	local d best=
	for d in "$CACHE"/pg-"$MAJOR".*; do
		complete "$d" || continue
		if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$best" "$d" | sort -V | tail -1)" = "$d" ]; then
			best=$d
		fi
	done
	[ -n "$best" ] && echo "$best"
	return 0
}

# use_cached: print the cached build's pg_config and exit, if there is one
# (and no rebuild was asked for)
use_cached()
{
	local prefix
	[ "${SLIMHEAP_PG_REFRESH:-0}" != 1 ] || return 0
	prefix=$(cached_prefix)
	[ -n "$prefix" ] || return 0
	say "using the cached build in $prefix"
	echo "$prefix/bin/pg_config"
	exit 0
}

# The tests and the benchmark run the server as another user (postgres):
# the cache must let it reach the build, also when it was made private (a
# cache made with `mktemp -d` is mode 0700).
reachable()
{
	[ -d "$CACHE" ] || return 0
	chmod a+x "$CACHE" 2>/dev/null ||
		say "cannot make $CACHE searchable by other users: the server may not start from it"
}

reachable
use_cached

mkdir -p "$CACHE" 2>/dev/null && [ -w "$CACHE" ] ||
	{ say "cannot write to $CACHE (run as root, or set SLIMHEAP_PG_CACHE)"; exit 1; }
reachable
exec 9>"$CACHE/pg-build-$MAJOR.lock"
say "waiting for the build lock $CACHE/pg-build-$MAJOR.lock"
flock 9
# someone else may have finished the build while we waited
use_cached

# Build dependencies, in one apt-get call when any is missing.
DEPS=(bison flex gcc make perl libreadline-dev zlib1g-dev libicu-dev
	pkg-config libipc-run-perl "llvm-$LLVM_VERSION-dev" "clang-$LLVM_VERSION")
if [ "${SLIMHEAP_PG_SKIP_DEPS:-0}" != 1 ]; then
	[ "$(id -u)" = 0 ] || { say "must run as root to install the build dependencies"; exit 1; }
	install_missing "${DEPS[@]}"
fi

# The source: Debian's source package, through a private apt configuration.
if [ -n "${SLIMHEAP_PG_SOURCE:-}" ]; then
	tarball=$SLIMHEAP_PG_SOURCE
	[ -f "$tarball" ] || { say "SLIMHEAP_PG_SOURCE=$tarball: no such file"; exit 1; }
else
	A=$CACHE/apt
	mkdir -p "$A/etc" "$A/lists/partial" "$A/cache/archives/partial" "$A/src"
	# the machine's own mirror (scripts/apt-deps.sh), as apt uses it
	M=$(debian_mirror)
	MS=$(debian_mirror security)
	[ -n "$M" ] || { say "no Debian mirror in this machine's apt sources: set SLIMHEAP_DEBIAN_MIRROR"; exit 1; }
	{
		echo "deb-src $M bookworm main"
		[ -n "$MS" ] && echo "deb-src $MS bookworm-security main"
		echo "deb-src $M trixie main"
		echo "deb-src $M sid main"
	} >"$A/etc/sources.list"
	APT=(-o "Dir::Etc::SourceList=$A/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -q)
	say "fetching the source of $PKG from Debian's archive"
	apt-get "${APT[@]}" update </dev/null >&2
	ok=
	# the newest version is not always downloadable: fall back to older ones
	for v in "" $(apt-cache "${APT[@]}" showsrc "$PKG" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -Vr); do
		if (cd "$A/src" && apt-get "${APT[@]}" source --download-only "$PKG${v:+=$v}" </dev/null >&2); then
			ok=1
			break
		fi
	done
	[ -n "$ok" ] || { say "no source of $PKG could be downloaded"; exit 1; }
	tarball=$(ls -t "$A/src/${PKG}_"*.orig.tar.* | head -1)
fi
# postgresql-18_18.6.orig.tar.bz2 or postgresql-18.6.tar.bz2 -> 18.6
VERSION=$(basename "$tarball" | sed -E "s/^postgresql(-$MAJOR)?[_-]([0-9][0-9.]*)(\.orig)?\.tar\..*/\2/")
[[ $VERSION =~ ^$MAJOR\.[0-9]+$ ]] || { say "cannot tell the version of $tarball"; exit 1; }
PREFIX=$CACHE/pg-$VERSION
if complete "$PREFIX"; then
	say "PostgreSQL $VERSION is already built in $PREFIX"
	echo "$PREFIX/bin/pg_config"
	exit 0
fi

say "building PostgreSQL $VERSION into $PREFIX (make -j$JOBS; this takes minutes)"
rm -rf "$PREFIX"
BUILD=$CACHE/build-$VERSION
rm -rf "$BUILD"
mkdir -p "$BUILD"
tar -xf "$tarball" -C "$BUILD" --strip-components=1
LOG=$CACHE/build-$VERSION.log
: >"$LOG"
step()
{
	say "  $*"
	"$@" >>"$LOG" 2>&1 || { tail -n 40 "$LOG" >&2; say "failed: $* (log: $LOG)"; exit 1; }
}
cd "$BUILD"
step ./configure --prefix="$PREFIX" --enable-debug --enable-tap-tests \
	--with-llvm LLVM_CONFIG="/usr/bin/llvm-config-$LLVM_VERSION" \
	CLANG="/usr/bin/clang-$LLVM_VERSION" --with-icu
step make -j"$JOBS"
for m in $CONTRIB; do
	step make -C "contrib/$m" -j"$JOBS"
done
step make install
for m in $CONTRIB; do
	step make -C "contrib/$m" install
done
# the drivers PGXS's installcheck uses (the main install has pg_regress)
step make -C src/test/isolation -j"$JOBS"
step make -C src/test/isolation install
"$PREFIX/bin/pg_config" --version >&2
touch "$PREFIX/$STAMP"
cd /
rm -rf "$BUILD"
say "done: $PREFIX"
echo "$PREFIX/bin/pg_config"
exit 0
}
