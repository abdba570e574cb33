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
