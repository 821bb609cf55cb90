#!/usr/bin/env bash
# Install everything the harness needs from Debian's archive. Idempotent.
# Usage: scripts/deps.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../kernel/base.env
. "$here/kernel/base.env"

pkgs=(
	build-essential gcc make bc bison flex cpio kmod rsync
	libelf-dev libssl-dev libdw-dev zlib1g-dev libcap-dev libzstd-dev
	dwarves pahole ccache git python3 python3-ply python3-git perl xz-utils
	clang-19 llvm-19 lld-19
	qemu-system-x86 gnuplot-nox
	iproute2 iptables procps
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

need_src=1
if dpkg-query -W -f='${Status} ${Version}' "$BASE_PKG" 2>/dev/null | grep -q 'install ok installed'; then
	need_src=0
fi

if [ ${#missing[@]} -eq 0 ] && [ $need_src -eq 0 ]; then
	echo "deps: everything is installed"
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if ! $SUDO apt-get update -q >/tmp/deps-apt-update.log 2>&1; then
	echo "deps: apt-get update failed, see /tmp/deps-apt-update.log" >&2
	exit 1
fi

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	if ! $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/deps-apt.log 2>&1; then
		echo "deps: apt-get install failed; last lines of /tmp/deps-apt.log:" >&2
		tail -n 20 /tmp/deps-apt.log >&2
		for p in "${missing[@]}"; do
			apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: (none)' &&
				echo "deps: package $p is not in the archive" >&2
		done
		exit 1
	fi
fi

if [ $need_src -eq 1 ]; then
	# Prefer the pinned version; fall back to whatever the archive serves.
	if $SUDO apt-get install -y -q --no-install-recommends "$BASE_PKG=$BASE_VERSION" >/tmp/deps-src.log 2>&1; then
		echo "deps: installed $BASE_PKG $BASE_VERSION (pinned)"
	else
		served=$(apt-cache policy "$BASE_PKG" | awk '/Candidate:/ {print $2}')
		echo "deps: WARNING: pinned $BASE_PKG $BASE_VERSION is not served; the archive has '$served'." >&2
		echo "deps: installing it; scripts/tree.sh will check that the series still applies." >&2
		$SUDO apt-get install -y -q --no-install-recommends "$BASE_PKG" >>/tmp/deps-src.log 2>&1 || {
			echo "deps: cannot install $BASE_PKG, see /tmp/deps-src.log" >&2
			exit 1
		}
	fi
fi
echo "deps: done"
