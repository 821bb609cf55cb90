#!/usr/bin/env bash
# Build the kernel in build/linux with output in build/kbuild (or
# build/kbuild-debug with DEBUG=1, build/kbuild-distro with DISTRO=1,
# build/kbuild-cfi with CFI=1, build/kbuild-calldepth with CALLDEPTH=1).
# Config = tinyconfig + kernel/config.fragment (+ kernel/config.debug, or
# kernel/config.distro, or kernel/config.distro and kernel/config.cfi, built
# with clang, or kernel/config.distro and kernel/config.calldepth). Uses ccache.
# Usage: scripts/build.sh [extra make targets]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run scripts/tree.sh"
mkdir -p "$KOUT" "$CCACHE_DIR"
frags=("$TOP/kernel/config.fragment")
[ "$DEBUG" = 1 ] && frags+=("$TOP/kernel/config.debug")
[ "$DISTRO" = 1 ] && frags+=("$TOP/kernel/config.distro")
[ "$CFI" = 1 ] && frags+=("$TOP/kernel/config.distro" "$TOP/kernel/config.cfi")
[ "$CALLDEPTH" = 1 ] && frags+=("$TOP/kernel/config.distro" "$TOP/kernel/config.calldepth")
cc=gcc
[ "$CFI" = 1 ] && cc=$CLANG
kmake() { make -s -C "$TREE" O="$KOUT" "${KLLVM[@]}" CC="ccache $cc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }

# Whether the tree's Kconfig has the option: one the series adds is missing
# from the trees of its earlier patches (make build-each)
in_kconfig() {
	grep -rqs --include='Kconfig*' -E "^[[:space:]]*(menu)?config ${1#CONFIG_}\$" "$TREE"
}

# An option of the fragments that the tree's Kconfig has but .config lost:
# kbuild drops what a Kconfig lacks when it builds an earlier patch's tree
# (a one-file compile during a rebase, make build-each) in the same $KOUT.
lost_option() {
	local line
	while IFS= read -r line; do
		case "$line" in CONFIG_*=n | CONFIG_*=) continue ;; CONFIG_*=*) ;; *) continue ;; esac
		grep -qx "$line" "$KOUT/.config" || ! in_kconfig "${line%%=*}" || return 0
	done < <(cat "${frags[@]}")
	return 1
}

# Regenerate .config when a fragment changed, or an option of one was lost.
stamp=$(cat "${frags[@]}" | sha256sum | cut -d' ' -f1)
if [ ! -f "$KOUT/.config" ] || [ "$(cat "$KOUT/.config.stamp" 2>/dev/null)" != "$stamp" ] ||
	lost_option; then
	info "configuring $KOUT (tinyconfig + ${frags[*]##*/})"
	kmake tinyconfig >/dev/null
	(cd "$KOUT" && "$TREE/scripts/kconfig/merge_config.sh" -m -O "$KOUT" .config "${frags[@]}" >/dev/null)
	kmake olddefconfig >/dev/null
	# Every option the fragments ask for must have survived olddefconfig.
	bad=0
	while IFS= read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		key=${line%%=*}
		val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$key=" "$KOUT/.config" && { echo "  $key should be off" >&2; bad=1; }
		else
			grep -qx "$line" "$KOUT/.config" || ! in_kconfig "$key" ||
				{ echo "  $line is missing (dependency?)" >&2; bad=1; }
		fi
	done < <(cat "${frags[@]}")
	[ $bad -eq 0 ] || die "the config fragments did not apply cleanly (see above)"
	echo "$stamp" >"$KOUT/.config.stamp"
fi

info "building bzImage and modules in $KOUT"
kmake bzImage modules "$@"
info "built $KOUT/arch/x86/boot/bzImage"
