#!/bin/bash
#
# package.sh: the Debian packages of slimheap (debian/, docs/infra.md).
#
#   package.sh build   (make deb) one postgresql-NN-slimheap per version of
#                      debian/pgversions whose postgresql-server-dev-NN is
#                      installed, built with dpkg-buildpackage from a copy of
#                      the tree in build/deb/ (gitignored); the .deb files
#                      land in build/deb/.
#   package.sh test    (.ci/run) build, check `make dist` and `make deb` in
#                      the unpacked tarball, install the PostgreSQL 15 package
#                      with apt on the machine's server, run the regression
#                      and isolation suites against the installed package in
#                      a throwaway cluster (scripts/run-tests.sh --installed),
#                      then remove the package again.  The last line is
#                      "N passed, N failed".
#
# Run as root.  The build dependencies (debhelper, postgresql-server-dev-all,
# dpkg-dev, fakeroot) are installed when missing, in one apt-get.  On a
# machine shared by developers, run `test` under the install lock
# (flock -o /tmp/slimheap-install.lock), as `make test`: it replaces the
# extension's files of PostgreSQL 15.
#
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${SLIMHEAP_DEB_DIR:-$ROOT/build/deb}
PG_MAJOR=${SLIMHEAP_DEB_PG:-15}
BUILD_DEPS=(debhelper postgresql-server-dev-all dpkg-dev fakeroot)

say() { echo "package: $*" >&2; }

# shellcheck source=apt-deps.sh
. "$ROOT/scripts/apt-deps.sh"

version()
{
	sed -n "s/^default_version = '\(.*\)'$/\1/p" "$ROOT/slimheap.control"
}

# copy_tree DIR: the source tree, without what builds and tests leave in
# it.  In a git checkout, the tracked files and new ones not ignored; in a
# release tarball (make dist), where packagers build, every file but the
# build's own output.
copy_tree()
{
	local dest=$1 top
	top=$(git -C "$ROOT" rev-parse --show-toplevel 2>/dev/null) || top=
	if [ "$top" = "$ROOT" ]; then
		(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 cp --parents -t "$dest")
	else
		tar -C "$ROOT" --exclude=./build --exclude=./results \
			--exclude=./tmp_check --exclude=./log --exclude='*.o' \
			--exclude='*.so' --exclude='*.bc' -cf - . | tar -C "$dest" -xf -
	fi
}

build()
{
	local src start
	start=$(date +%s)
	install_missing "${BUILD_DEPS[@]}" || { say "cannot install ${BUILD_DEPS[*]}"; return 1; }

	src=$OUT/slimheap-$(version)
	rm -rf "$OUT"
	mkdir -p "$src"
	copy_tree "$src" || { say "cannot copy the tree"; return 1; }

	say "building in $src for: $(cd "$src" && PG_SUPPORTED_VERSIONS=installed pg_buildext supported-versions | xargs)"
	# installed: every postgresql-server-dev-NN of this machine (that
	# debian/pgversions lists); debian/control is made for those
	(cd "$src" && PG_SUPPORTED_VERSIONS=installed PG_UPDATECONTROL=yes \
		dpkg-buildpackage -us -uc -b >"$OUT/build.log" 2>&1) ||
		{ tail -n 40 "$OUT/build.log"; say "dpkg-buildpackage failed (log: $OUT/build.log)"; return 1; }
	rm -rf "$src"
	say "built in $(($(date +%s) - start)) s:"
	ls -1 "$OUT"/*.deb
}

# make dist: the tarball of HEAD, named after META.json's version, with
# META.json, the control file and the script under slimheap-<version>/
check_dist()
{
	local tarball list v
	tarball=$(make -s -C "$ROOT" dist | tail -n 1) || { say "make dist failed"; return 1; }
	v=${tarball#slimheap-}
	v=${v%.tar.gz}
	list=$(tar -tzf "$ROOT/$tarball") || { say "cannot read $tarball"; return 1; }
	for f in META.json LICENSE slimheap.control slimheap--1.0.sql slimheap--1.1.sql slimheap--1.2.sql slimheap--1.3.sql slimheap--1.4.sql slimheap--1.0--1.1.sql slimheap--1.1--1.2.sql slimheap--1.2--1.3.sql slimheap--1.3--1.4.sql debian/control Makefile; do
		grep -qx "slimheap-$v/$f" <<<"$list" ||
			{ say "$tarball has no slimheap-$v/$f"; return 1; }
	done
	say "make dist: $tarball, $(wc -l <<<"$list") entries"

	# packagers build from the tarball: make deb there, outside any checkout
	local unpacked
	unpacked=$(mktemp -d) || return 1
	tar -C "$unpacked" -xzf "$ROOT/$tarball" || { say "cannot unpack $tarball"; return 1; }
	rm -f "$ROOT/$tarball"
	if ! (cd "$unpacked/slimheap-$v" && SLIMHEAP_DEB_DIR="$unpacked/deb" make -s deb) \
		>"$unpacked/deb.log" 2>&1; then
		tail -n 20 "$unpacked/deb.log"
		say "make deb in the unpacked $tarball failed"
		rm -rf "$unpacked"
		return 1
	fi
	say "make deb in the unpacked $tarball: $(cd "$unpacked/deb" && ls -- *.deb | xargs)"
	rm -rf "$unpacked"
}

# install_deb FILE: the package, with apt (which also pulls its dependencies)
install_deb()
{
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q install -y \
		--reinstall "$1" </dev/null
}

test_package()
{
	local deb rc start
	start=$(date +%s)
	if ! build; then
		echo; echo "0 passed, 1 failed"
		return 1
	fi
	if ! check_dist; then
		echo; echo "0 passed, 1 failed"
		return 1
	fi
	deb=$(ls "$OUT"/postgresql-"$PG_MAJOR"-slimheap_*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		say "no postgresql-$PG_MAJOR-slimheap package was built"
		echo; echo "0 passed, 1 failed"
		return 1
	fi
	say "installing $deb"
	if ! install_deb "$deb" >"$OUT/install.log" 2>&1; then
		cat "$OUT/install.log"
		echo; echo "0 passed, 1 failed"
		return 1
	fi
	dpkg -L "postgresql-$PG_MAJOR-slimheap" | grep -E '\.(so|control|sql)$'

	PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config \
		bash "$ROOT/scripts/run-tests.sh" --installed | tee "$OUT/installcheck.out"
	rc=${PIPESTATUS[0]}

	# leave the server as it was: `make test` installs from the build tree
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q remove -y \
		"postgresql-$PG_MAJOR-slimheap" </dev/null >>"$OUT/install.log" 2>&1 ||
		say "could not remove postgresql-$PG_MAJOR-slimheap"
	echo "package build, install and installcheck took $(($(date +%s) - start)) s"
	# the summary last, as the other runs of .ci/run end
	echo
	tail -n 1 "$OUT/installcheck.out"
	return $rc
}

case "${1:-}" in
	build) build ;;
	test) test_package ;;
	*)
		echo "usage: $0 build|test" >&2
		exit 2
		;;
esac
