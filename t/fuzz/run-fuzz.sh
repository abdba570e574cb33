#!/bin/bash
#
# run-fuzz.sh SEED STEPS: run the differential fuzzer (`make fuzz`) against
# a throwaway cluster that preloads slimheap.  Run as root (the cluster runs
# as the user postgres, initdb refuses root) or as a non-root user who can
# run initdb.  The extension must be installed (`make fuzz` installs it).
#
# Environment: PG_CONFIG, SLIMFUZZ_PORT (default 54390), SLIMFUZZ_USER
# (default postgres, when run as root).
#
set -euo pipefail

SEED=${1:-1}
STEPS=${2:-200}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BINDIR=$("$PG_CONFIG" --bindir)
PORT=${SLIMFUZZ_PORT:-54390}

if [ "$(id -u)" = 0 ]; then
	RUN_AS=${SLIMFUZZ_USER:-postgres}
	as_user() { runuser -u "$RUN_AS" -- "$@"; }
else
	as_user() { "$@"; }
fi

WORK=$(mktemp -d /tmp/slimfuzz.XXXXXX)
[ "$(id -u)" = 0 ] && chown "$RUN_AS:" "$WORK"
DATA=$WORK/data

cleanup()
{
	if [ -f "$DATA/postmaster.pid" ]; then
		as_user "$BINDIR/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$DATA"
	echo "slimfuzz: server log and any reproduction script are in $WORK"
}
trap cleanup EXIT

as_user "$BINDIR/initdb" -D "$DATA" -A trust -N >"$WORK/initdb.log" 2>&1
cat >>"$DATA/postgresql.conf" <<CONF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$WORK'
shared_preload_libraries = 'slimheap'
autovacuum = off
restart_after_crash = on
fsync = off
CONF
as_user "$BINDIR/pg_ctl" -D "$DATA" -l "$WORK/server.log" -w start >/dev/null

as_user perl "$HERE/slimfuzz.pl" --seed "$SEED" --steps "$STEPS" \
	--host "$WORK" --port "$PORT" --dbname postgres \
	--psql "$BINDIR/psql" --outdir "$WORK"
