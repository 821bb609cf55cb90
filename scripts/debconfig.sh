#!/usr/bin/env bash
# `make debconfig`: the series against a config we did not write, Debian's
# own (package linux-config-6.12, config.amd64_none_amd64). Configures the
# base (tag 'base') and the series (build/linux HEAD) with it, compiles with
# W=1 the directories the series touches, and prints every compiler or
# objtool warning the series has and the base has not. No vmlinux link and
# no boot: that config builds 9p and virtio as modules, which vm.sh does not
# load. About 5 minutes with a warm ccache (2 CPUs).
#
# Output: build/debconfig/{base,series}/ (builds, logs, warning lists).
# Exit: 0 if the series adds no warning; 1 if it does; 2 on a setup error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

D=$BUILD/debconfig
DIRS=(kernel/bpf/ kernel/trace/ arch/x86/net/ net/bpf/ kernel/livepatch/)
[ -e "$TREE/.git" ] || { echo "debconfig.sh: no kernel tree at $TREE: run scripts/tree.sh" >&2; exit 2; }
mkdir -p "$D"

# Debian's config, from the package of this Debian release
config=$D/config.amd64_none_amd64
if [ ! -s "$config" ]; then
	(cd "$D" && rm -f linux-config-6.12_*.deb && apt-get download -q linux-config-6.12) >"$D/apt.log" 2>&1 ||
		{ echo "debconfig.sh: apt-get download linux-config-6.12 failed (see $D/apt.log; apt-get update first?)" >&2; exit 2; }
	rm -rf "$D/pkg"
	dpkg-deb -x "$D"/linux-config-6.12_*.deb "$D/pkg"
	xz -dc "$D/pkg/usr/src/linux-config-6.12/config.amd64_none_amd64.xz" >"$config"
fi

# The base as a worktree of build/linux, so that the two share objects
base_tree=$D/base/linux
if [ ! -e "$base_tree/.git" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$base_tree" base
fi

for side in base series; do
	src=$TREE
	[ $side = base ] && src=$base_tree
	out=$D/$side/kbuild
	mkdir -p "$out"
	cp "$config" "$out/.config"
	# Debian's signing keys are not here
	"$TREE/scripts/config" --file "$out/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	info "$side: olddefconfig, prepare, W=1 ${DIRS[*]}"
	kmake() { make -C "$src" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }
	kmake -s olddefconfig prepare >"$D/$side/prepare.log" 2>&1 ||
		{ echo "debconfig.sh: $side: prepare failed (see $D/$side/prepare.log)" >&2; exit 2; }
	# Every object again, for its warnings (ccache replays them)
	for d in "${DIRS[@]}"; do rm -rf "${out:?}/$d"; done
	kmake W=1 "${DIRS[@]}" >"$D/$side/build.log" 2>&1 ||
		{ echo "debconfig.sh: $side: the build failed (see $D/$side/build.log)" >&2; exit 1; }
	# Warnings without line numbers or the tree's path, to compare sides
	grep -E 'warning:|error:' "$D/$side/build.log" |
		sed -E "s|$src/||; s/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/" | sort -u >"$D/$side/warnings.txt" || true
done

echo "debconfig: options the series adds:"
# (diff exits 1 when the configs differ, as they do)
diff <(grep '^CONFIG_' "$D/base/kbuild/.config" | sort) <(grep '^CONFIG_' "$D/series/kbuild/.config" | sort) |
	sed -n 's/^> /  /p' || true
new=$(comm -13 "$D/base/warnings.txt" "$D/series/warnings.txt")
objs=$(grep -cE '^\s+(CC|AS)\s' "$D/series/build.log" || true)
if [ -n "$new" ]; then
	echo "debconfig: warnings of the series that the base has not:"
	echo "$new" | sed 's/^/  /'
	echo "debconfig: FAIL ($objs objects built with W=1)"
	exit 1
fi
echo "debconfig: no warning of the series that the base has not ($objs objects built with W=1, $(wc -l <"$D/base/warnings.txt") warning line(s) on both)"
