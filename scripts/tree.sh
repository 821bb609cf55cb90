#!/usr/bin/env bash
# Make build/linux: the pinned base as a git repo tagged 'base', with
# patches/*.patch applied on top as commits. Idempotent: when the tree's
# commits already match patches/, it does nothing.
# Usage: scripts/tree.sh [--force]   (--force drops unexported tree commits)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

force=0
[ "${1:-}" = --force ] && force=1

patch_ids_files() {
	local f
	for f in "$TOP"/patches/[0-9]*.patch; do
		[ -e "$f" ] || continue
		case "$f" in */0000-cover-letter.patch) continue ;; esac
		git patch-id --stable <"$f" | cut -d' ' -f1
	done | sort
}
patch_ids_tree() {
	git -C "$TREE" format-patch --stdout base..HEAD | git patch-id --stable | cut -d' ' -f1 | sort
}

check_tarball() {
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL is missing: run scripts/deps.sh"
	local ver sum
	ver=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
	if [ "$ver" != "$BASE_VERSION" ]; then
		echo "tree.sh: WARNING: installed $BASE_PKG is '$ver', the pinned base is $BASE_VERSION." >&2
		echo "tree.sh: going on; the series must still apply (git am stops otherwise)." >&2
		return
	fi
	sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA256" ] ||
		die "$BASE_TARBALL has sha256 $sum, expected $BASE_SHA256 (kernel/base.env)"
}

unpack_base() {
	check_tarball
	info "unpacking $BASE_TARBALL into $TREE"
	rm -rf "$TREE" "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$BASE_TARBALL" -C "$TREE.tmp" --strip-components=1
	git -C "$TREE.tmp" init -q -b main
	git -C "$TREE.tmp" config core.autocrlf false
	git -C "$TREE.tmp" config gc.auto 0
	git -C "$TREE.tmp" add -A -f .
	git -C "$TREE.tmp" "${GIT_IDENT[@]}" commit -q -m "base: $BASE_PKG $BASE_VERSION"
	git -C "$TREE.tmp" tag base
	# Harness scratch dirs inside the tree are never part of the series.
	echo "/tools/testing/selftests/bpf-harness/" >>"$TREE.tmp/.git/info/exclude"
	mv "$TREE.tmp" "$TREE"
}

mkdir -p "$BUILD"
if ! git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	unpack_base
fi
cd "$TREE"
git config user.name "Tracing Multi Dev"
git config user.email "dev@tracing-multi.invalid"

if [ -d .git/rebase-apply ]; then
	git am --abort || true
fi

want=$(patch_ids_files)
have=$(patch_ids_tree)
if [ "$want" = "$have" ]; then
	info "tree is up to date ($(git rev-list --count base..HEAD) patches on base)"
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		info "note: $TREE has uncommitted edits; they are built and tested as they are (commit and export them)"
	exit 0
fi

if [ $force -eq 0 ]; then
	[ -z "$(git status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes; commit and export them (scripts/export.sh) or rerun with --force to drop them"
	# Commits in the tree that patches/ does not have would be lost.
	lost=$(comm -13 <(printf '%s\n' "$want") <(printf '%s\n' "$have") | grep -c . || true)
	[ "$lost" -eq 0 ] ||
		die "$TREE has $lost commit(s) not in patches/; export them (scripts/export.sh) or rerun with --force to drop them"
fi

info "resetting to base and applying patches/"
git reset -q --hard base
shopt -s nullglob
for p in "$TOP"/patches/[0-9]*.patch; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	if ! git am -q --keep-cr "$p" >/tmp/tree-am.log 2>&1; then
		cat /tmp/tree-am.log >&2
		git am --abort >/dev/null 2>&1 || true
		die "patch does not apply to the base: $(basename "$p")"
	fi
done
info "applied $(git rev-list --count base..HEAD) patches on base"
