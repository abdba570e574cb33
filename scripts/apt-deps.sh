# apt-deps.sh: sourced by the build scripts (pg-build.sh, citus-build.sh).
#
# install_missing PACKAGE...: install, in one apt-get call after one
# `apt-get update`, those of the Debian packages that are not installed;
# noninteractive, reads no stdin, waits for a dpkg lock held by another.
# The caller defines say() for its messages.
install_missing()
{
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	say "installing build dependencies: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q update </dev/null >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q install -y "${missing[@]}" </dev/null >&2
}

# debian_mirror [security]: the Debian mirror this machine's apt uses
# (/etc/apt/sources.list.d/*.sources, then /etc/apt/sources.list): its
# archive, or with "security" its security archive.  SLIMHEAP_DEBIAN_MIRROR
# and SLIMHEAP_DEBIAN_SECURITY override them (a local mirror); prints
# nothing when neither is known.
debian_mirror()
{
	local want=debian over=${SLIMHEAP_DEBIAN_MIRROR:-} m
	if [ "${1:-}" = security ]; then
		want=debian-security
		over=${SLIMHEAP_DEBIAN_SECURITY:-}
	fi
	if [ -n "$over" ]; then
		echo "$over"
		return
	fi
	m=$(grep -hoE "^URIs:.*" /etc/apt/sources.list.d/*.sources 2>/dev/null |
		tr ' ' '\n' | grep -E "^[a-z]+://[^ ]+/$want/?\$" | head -n 1)
	[ -n "$m" ] || m=$(grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null |
		awk '{print $2}' | grep -E "/$want/?\$" | head -n 1)
	echo "${m%/}"
}
