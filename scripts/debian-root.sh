#!/bin/bash
#
# debian-root.sh: PostgreSQL 17 from Debian 13's own packages, in a Debian
# 13 (trixie) root made by debootstrap, for machines that have no
# PostgreSQL 17 of their own (Debian 12 has none, and Debian 13's binary
# packages need Debian 13's libc); with SLIMHEAP_ROOT_PG=19, PostgreSQL 19
# from Debian's experimental suite in a Debian sid root (sid-root: the
# same steps, another package list and apt settings).  `make test PG=17`
# (or 19), `make demo` and `make bench` run through it (docs/infra.md).
# The mirror is the one this machine's apt uses (SLIMHEAP_DEBIAN_MIRROR
# overrides it).
#
#   scripts/debian-root.sh prepare       make sure the root is complete;
#                                        print its path
#   scripts/debian-root.sh run CMD...    prepare, then run CMD as root inside
#                                        the root, in the checkout
#   scripts/debian-root.sh run --counted CMD...
#                                        the same for scripts/run-tests.sh:
#                                        when the root cannot be made or
#                                        entered, the output still ends with
#                                        "0 passed, 1 failed"
#   scripts/debian-root.sh status        say whether the root is complete
#
# The root: $SLIMHEAP_ROOT_CACHE/debian13-root (default
# /var/cache/slimheap/debian13-root), outside any checkout.  It is made
# once: `debootstrap --variant=minbase trixie` from this machine's mirror
# (debootstrap is installed with apt when missing), then one apt-get
# install of Debian 13's postgresql-17 and postgresql-server-dev-17 and of
# what the suite, the benchmark and the Citus build need ($PACKAGES below).
# Each step leaves a stamp; a root whose debootstrap did not finish is
# removed and made again, one whose packages are missing (or whose stamp
# names another package list) gets the apt-get step again.  A complete
# root is used as it is, without network: the check takes milliseconds.
# SLIMHEAP_ROOT_REFRESH=1 runs apt-get update and upgrade in it first (a
# newer 17.x).  No server is started and no cluster is created by the
# packages (policy-rc.d, create_main_cluster = false).
#
# `run`: in a private mount namespace of its own (unshare --mount), it
# mounts /proc, and binds /dev, /dev/pts, /dev/shm and the checkout (at
# /slimheap) into the root, chroots, and runs CMD there from /slimheap with
# a clean environment: PATH, HOME, LANG, TERM, CI, PG_CONFIG (Debian's
# /usr/lib/postgresql/17/bin/pg_config), and every SLIMHEAP_*, BENCH_*,
# SLIMFUZZ_* and PG_TEST_* variable.  SLIMHEAP_CITUS_TARBALL names a file
# of the host: it is copied into the root and passed on as the copy's path.
# When CMD ends (whatever its status), or on INT, TERM or HUP, every
# process still running in the root is stopped and everything is
# unmounted, innermost first; the namespace takes what might remain with
# it, so no mount is ever visible outside the run.  The exit status is
# CMD's (130/143/129 on a signal), and nothing is printed after CMD's own
# last line unless unmounting fails.
#
# Safety: the root is only ever removed by this script, under the lock,
# after checking /proc/self/mountinfo for mounts under it (and with rm
# --one-file-system): a bind of the checkout or of /dev can never be
# followed by the removal.  Outside the run's namespace the root has no
# mounts at all.  When the kernel refuses a private namespace (some
# containers), the mounts are made in the caller's namespace with the same
# cleanup, and a run first unmounts what a killed earlier run left there.
#
# One run at a time: `prepare` and `run` hold $CACHE/debian13-root.lock
# (flock) while they work, so two runs wait for each other instead of
# sharing the root's installed extension and /tmp.
#
# Progress messages go to stderr, prefixed "debian-root:".  Must run as
# root.
#
set -uo pipefail

SELF=$(realpath "${BASH_SOURCE[0]}")
HERE=$(dirname "$SELF")
. "$HERE/apt-deps.sh"

CACHE=${SLIMHEAP_ROOT_CACHE:-${SLIMHEAP_PG_CACHE:-/var/cache/slimheap}}
# the mirror: this machine's own (apt-deps.sh), or SLIMHEAP_DEBIAN_MIRROR
MIRROR=${SLIMHEAP_ROOT_MIRROR:-$(debian_mirror)}
SECURITY=${SLIMHEAP_ROOT_SECURITY:-$(debian_mirror security)}
# which PostgreSQL: 17 (Debian 13) or 19 (Debian sid with experimental)
MAJOR=${SLIMHEAP_ROOT_PG:-17}
case "$MAJOR" in
	17)
		NAME=debian13-root
		SUITE=trixie
		DISTRO="Debian 13"
		;;
	19)
		NAME=sid-root
		SUITE=sid
		DISTRO="Debian sid"
		;;
	*)
		echo "debian-root: no root for PostgreSQL $MAJOR (17 or 19)" >&2
		exit 2
		;;
esac
INNER_PG_CONFIG=/usr/lib/postgresql/$MAJOR/bin/pg_config
# where the checkout appears inside the root
INNER_TREE=/slimheap
# the server and its PGXS headers, IPC::Run for the TAP tests, a compiler,
# git (bench/t/040_bench_report.pl, the benchmark's report) and gnuplot (the
# benchmark's chart), and what Citus's build needs for t/citus/: the
# libraries scripts/citus-build.sh installs on the host, ICU's headers
# (Debian 13's utils/pg_locale.h includes unicode/ucol.h), and pg_repack and
# pg_partman for t/060 and t/061 (docs/tools.md)
if [ "$MAJOR" = 17 ]; then
	PACKAGES=("postgresql-$MAJOR" "postgresql-server-dev-$MAJOR" libipc-run-perl
		"postgresql-$MAJOR-repack" "postgresql-$MAJOR-partman"
		gcc make libc6-dev git gnuplot-nox
		liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev libicu-dev)
else
	# 19 is in experimental only (19~rc1 until 19.0 reaches the archive);
	# without libpq from there apt picks sid's, for 18
	# (JIT is a package of its own there, which the suite's JIT part needs);
	# sid's own 18 too, the old server of t/017's upgrade to 19 (the
	# project's 18 build links Debian 12's libraries)
	PACKAGES=("postgresql-$MAJOR/experimental" "postgresql-server-dev-$MAJOR/experimental"
		"postgresql-client-$MAJOR/experimental" "postgresql-$MAJOR-jit/experimental"
		postgresql-18 postgresql-server-dev-18 libpq5/experimental
		libpq-dev/experimental libipc-run-perl gcc make libc6-dev git gnuplot-nox
		liblz4-dev libzstd-dev libcurl4-openssl-dev libkrb5-dev libicu-dev)
fi

BOOT_STAMP=.slimheap-debootstrap-complete
ROOT_STAMP=.slimheap-root-complete

say() { echo "debian-root: $*" >&2; }

# `run --counted`: a failure that keeps the command from running at all
# ends with the closing lines of scripts/run-tests.sh, counted as one
# failed test file, as run-tests.sh counts a failed build
COUNTED=0
die()
{
	say "$*"
	if [ "$COUNTED" = 1 ]; then
		printf '\n=== summary ===\n%-22s %3d passed, %3d failed  (%s)\n\n0 passed, 1 failed\n' \
			"setup:" 0 1 "PostgreSQL $MAJOR in the $DISTRO root: $*"
	fi
	exit 1
}

# The root's path, with every symlink resolved: /proc/PID/root of a
# process chrooted into it reads exactly this.
paths()
{
	[ -n "$MIRROR" ] || die "no Debian mirror in this machine's apt sources: set SLIMHEAP_DEBIAN_MIRROR"
	if ! mkdir -p "$CACHE" 2>/dev/null || ! [ -w "$CACHE" ]; then
		die "cannot write to $CACHE (run as root, or set SLIMHEAP_ROOT_CACHE)"
	fi
	CACHE=$(realpath "$CACHE")
	R=$CACHE/$NAME
	LOCK=$CACHE/$NAME.lock
}

# mounts_under DIR: print the mount points at or under DIR in this
# process's mount namespace, deepest first
mounts_under()
{
	awk -v d="$1" '{
		m = $5
		gsub(/\\040/, " ", m)
		if (m == d || index(m, d "/") == 1) print length(m) "\t" m
	}' /proc/self/mountinfo | sort -rn | cut -f2-
}

# safe_remove DIR: rm -rf DIR, which must be in the cache and have nothing
# mounted under it
safe_remove()
{
	local d=$1 m
	case "$d" in
		"$CACHE"/"$NAME"*) ;;
		*) die "refusing to remove $d: not a root of $CACHE" ;;
	esac
	[ -e "$d" ] || return 0
	m=$(mounts_under "$d")
	[ -z "$m" ] || die "refusing to remove $d: mounted under it: $(echo "$m" | paste -sd" " -)"
	rm -rf --one-file-system "$d" || die "could not remove $d"
}

packages_line() { echo "${PACKAGES[*]}"; }

complete()
{
	[ -f "$R/$BOOT_STAMP" ] && [ -f "$R/$ROOT_STAMP" ] &&
		[ "$(head -n 1 "$R/$ROOT_STAMP")" = "$(packages_line)" ] &&
		[ -x "$R$INNER_PG_CONFIG" ]
}

# --- entering the root ---------------------------------------------------

# the clean environment of a command run inside
inner_env()
{
	local v
	INNER_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" PG_CONFIG="$INNER_PG_CONFIG")
	[ -n "${CI:-}" ] && INNER_ENV+=(CI="$CI")
	[ -n "${DEBIAN_FRONTEND:-}" ] && INNER_ENV+=(DEBIAN_FRONTEND="$DEBIAN_FRONTEND")
	while IFS= read -r v; do
		case "$v" in
			SLIMHEAP_CITUS_TARBALL|SLIMHEAP_ROOT_*) ;;
			SLIMHEAP_*|BENCH_*|SLIMFUZZ_*|PG_TEST_*) INNER_ENV+=("$v=${!v}") ;;
		esac
	done < <(compgen -e)
}

# enter [exec] TREE CMD...: run CMD in the root (TREE, when not empty,
# bound at $INNER_TREE and the working directory), in a private mount
# namespace when the kernel allows one; "exec" replaces this process
# (unshare execs without forking), so that signals sent to it reach the
# part that cleans up
enter()
{
	local ex=
	if [ "$1" = exec ]; then
		ex="exec"
		shift
	fi
	if unshare --mount --propagation private true 2>/dev/null; then
		$ex unshare --mount --propagation private -- bash "$SELF" _inside private "$COUNTED" "$@"
	else
		$ex bash "$SELF" _inside shared "$COUNTED" "$@"
	fi
}

# _inside MODE COUNTED TREE CMD...: the part that mounts, runs and unmounts
inside()
{
	local mode=$1 tree=$3
	COUNTED=$2
	shift 3
	MOUNTED=()
	CHILD=
	trap inside_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP

	if [ "$mode" = shared ]; then
		# our lock is held: whatever is mounted here is left from a run
		# that was killed
		local m
		for m in $(mounts_under "$R"); do
			say "unmounting $m, left behind by an earlier run"
			umount "$m" 2>/dev/null || umount -l "$m" || die "cannot unmount $m"
		done
	fi

	bind() # bind SOURCE TARGET [mount options...]
	{
		local src=$1 dst=$2
		shift 2
		mkdir -p "$dst" || die "cannot make $dst"
		if [ "$src" = proc ]; then
			mount -t proc proc "$dst" || die "cannot mount /proc on $dst"
		else
			mount --bind "$@" "$src" "$dst" || die "cannot bind $src on $dst"
		fi
		MOUNTED+=("$dst")
	}
	bind proc "$R/proc"
	bind /dev "$R/dev"
	bind /dev/pts "$R/dev/pts"
	bind /dev/shm "$R/dev/shm"
	local dir=/
	if [ -n "$tree" ]; then
		bind "$tree" "$R$INNER_TREE"
		dir=$INNER_TREE
	fi

	inner_env
	local tb=${SLIMHEAP_CITUS_TARBALL:-}
	if [ -n "$tb" ]; then
		[ -f "$tb" ] || die "SLIMHEAP_CITUS_TARBALL=$tb: no such file"
		mkdir -p "$R/var/cache/slimheap/vendor"
		local copy
		copy=/var/cache/slimheap/vendor/$(basename "$tb")
		cmp -s "$tb" "$R$copy" || cp "$tb" "$R$copy" || die "cannot copy $tb into the root"
		INNER_ENV+=(SLIMHEAP_CITUS_TARBALL="$copy")
	fi

	# in the background, so that a signal reaches the trap at once
	# instead of after CMD (a shell defers traps while it waits for a
	# foreground command)
	# (stdin kept: an async command would read /dev/null; the lock's fd
	# not passed on)
	chroot "$R" /usr/bin/env -i "${INNER_ENV[@]}" /bin/bash -c 'cd "$0" && exec "$@"' "$dir" "$@" <&0 9>&- &
	CHILD=$!
	wait "$CHILD"
	local rc=$?
	CHILD=
	exit "$rc"
}

# processes whose root is the root, in this mount namespace
root_processes()
{
	local p ns
	ns=$(readlink /proc/self/ns/mnt)
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] || continue
		[ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] || continue
		echo "${p#/proc/}"
	done
}

inside_cleanup()
{
	local rc=$? pids i m left
	trap - EXIT INT TERM HUP
	if [ -n "$CHILD" ]; then
		# interrupted: TERM to the command and to everything it started
		# (a shell runs its TERM trap only once its foreground command
		# has ended), then a while for the command's own cleanup
		# (run-tests.sh stops its servers and says where its files are)
		pids=$(root_processes)
		# shellcheck disable=SC2086
		kill -TERM "$CHILD" $pids 2>/dev/null
		for i in $(seq 1 60); do
			kill -0 "$CHILD" 2>/dev/null || break
			sleep 0.5
		done
	fi
	pids=$(root_processes)
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null
		for i in $(seq 1 20); do
			pids=$(root_processes)
			[ -z "$pids" ] && break
			sleep 0.5
		done
		# shellcheck disable=SC2086
		[ -n "$pids" ] && kill -KILL $pids 2>/dev/null && sleep 0.5
	fi
	for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
		m=${MOUNTED[i]}
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null ||
			{ say "cannot unmount $m"; rc=1; }
	done
	left=$(mounts_under "$R")
	if [ -n "$left" ]; then
		say "still mounted under $R: $(echo "$left" | paste -sd" " -)"
		rc=1
	fi
	exit "$rc"
}

# --- making the root -----------------------------------------------------

debootstrap_root()
{
	local part=$R.partial
	install_missing debootstrap || die "cannot install debootstrap"
	safe_remove "$part"
	safe_remove "$R"
	say "debootstrap --variant=minbase $SUITE $part $MIRROR (about a minute)"
	local log=$CACHE/$NAME-debootstrap.log
	if ! debootstrap --variant=minbase "$SUITE" "$part" "$MIRROR" </dev/null >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "debootstrap failed (log: $log)"
	fi
	rm -f "$log"

	# apt: the suite's updates and security fixes (trixie), or sid and
	# experimental, whose Release files on the mirror may be past their
	# Valid-Until date; no recommends
	if [ "$SUITE" = sid ]; then
		printf 'deb %s sid main\ndeb %s experimental main\n' "$MIRROR" "$MIRROR" \
			>"$part/etc/apt/sources.list"
		echo 'Acquire::Check-Valid-Until "false";' >"$part/etc/apt/apt.conf.d/91slimheap-valid-until"
	else
		{
			echo "deb $MIRROR $SUITE main"
			echo "deb $MIRROR $SUITE-updates main"
			[ -n "$SECURITY" ] && echo "deb $SECURITY $SUITE-security main"
		} >"$part/etc/apt/sources.list"
	fi
	cat >"$part/etc/apt/apt.conf.d/90slimheap" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Retries "3";
EOF
	# no documentation in the root (a test root; faster installs)
	mkdir -p "$part/etc/dpkg/dpkg.cfg.d"
	cat >"$part/etc/dpkg/dpkg.cfg.d/90slimheap-nodoc" <<'EOF'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
EOF
	# packages start no services here, and postgresql-common makes no
	# cluster: the tests make their own
	printf '#!/bin/sh\nexit 101\n' >"$part/usr/sbin/policy-rc.d"
	chmod 755 "$part/usr/sbin/policy-rc.d"
	mkdir -p "$part/etc/postgresql-common/createcluster.d"
	echo "create_main_cluster = false" >"$part/etc/postgresql-common/createcluster.d/00-slimheap.conf"
	grep -qs localhost "$part/etc/hosts" ||
		printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >>"$part/etc/hosts"
	cp /etc/resolv.conf "$part/etc/resolv.conf" 2>/dev/null || true
	mkdir -p "$part$INNER_TREE"
	touch "$part/$BOOT_STAMP"
	mv "$part" "$R" || die "cannot move $part to $R"
}

install_packages()
{
	local upgrade=$1
	say "installing in the root: ${PACKAGES[*]}"
	rm -f "$R/$ROOT_STAMP"
	cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true
	local script='set -e
		export DEBIAN_FRONTEND=noninteractive
		dpkg --configure -a
		apt-get -q update
		if [ "$1" = 1 ]; then apt-get -q -y upgrade; fi
		shift
		apt-get -q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold install "$@"
		apt-get clean'
	local log=$CACHE/$NAME-apt.log
	if ! enter "" sh -c "$script" sh "$upgrade" "${PACKAGES[@]}" </dev/null >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "apt-get install in the root failed (log: $log)"
	fi
	local p missing=
	for p in "${PACKAGES[@]%/*}"; do
		# (no `| grep -q` under pipefail: it fails when grep exits first)
		[ "$(chroot "$R" dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
			missing="$missing $p"
	done
	[ -z "$missing" ] || die "not installed in the root:$missing (log: $log)"
	[ -x "$R$INNER_PG_CONFIG" ] || die "no $INNER_PG_CONFIG in the root (log: $log)"
	rm -f "$log"
	{
		packages_line
		chroot "$R" "$INNER_PG_CONFIG" --version
	} >"$R/$ROOT_STAMP"
}

# ensure: a complete root, made or completed under the lock (held by the
# caller)
ensure()
{
	local refresh=${SLIMHEAP_ROOT_REFRESH:-0} start
	if complete && [ "$refresh" != 1 ]; then
		return 0
	fi
	[ "$(id -u)" = 0 ] || die "must run as root to make $R"
	start=$(date +%s)
	if [ ! -f "$R/$BOOT_STAMP" ]; then
		debootstrap_root
	fi
	install_packages "$refresh"
	say "the root is ready: $R, $(sed -n 2p "$R/$ROOT_STAMP") ($(($(date +%s) - start)) s)"
}

lock()
{
	exec 9>"$LOCK" || die "cannot open $LOCK"
	if ! flock -n 9; then
		say "waiting for $LOCK (another run uses the root)"
		flock 9 || die "cannot lock $LOCK"
	fi
}

# --- commands ------------------------------------------------------------

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
	_inside)
		paths
		inside "$@"
		;;
	prepare)
		[ "$(id -u)" = 0 ] || die "run as root"
		paths
		lock
		ensure
		echo "$R"
		;;
	status)
		paths
		if complete; then
			echo "$R: complete, $(sed -n 2p "$R/$ROOT_STAMP")"
		else
			echo "$R: not complete"
			exit 1
		fi
		;;
	run)
		if [ "${1:-}" = --counted ]; then
			COUNTED=1
			shift
		fi
		[ $# -gt 0 ] || die "usage: $0 run [--counted] CMD [ARG...]"
		[ "$(id -u)" = 0 ] || die "run as root"
		paths
		TREE=$(cd "$HERE/.." && pwd)
		lock
		ensure
		enter exec "$TREE" "$@"
		;;
	*)
		echo "usage: $0 prepare | status | run [--counted] CMD [ARG...]" >&2
		exit 2
		;;
esac
