#!/usr/bin/env bash
# Export the tree's commits since 'base' into patches/ (git format-patch,
# numbered, with a cover letter). The cover letter's subject and text are kept
# from the current patches/0000-cover-letter.patch; only its shortlog and
# diffstat are regenerated.
# Usage: scripts/export.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -e "$TREE/.git" ] || die "no kernel tree at $TREE"
[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them first"
n=$(git -C "$TREE" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "no commits since base in $TREE"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$TREE" format-patch -q --cover-letter --numbered --no-signature \
	-o "$tmp" base..HEAD
cover="$TOP/patches/0000-cover-letter.patch"
python3 - "$tmp/0000-cover-letter.patch" "$cover" <<'PY'
import re, sys, os
new_path, old_path = sys.argv[1], sys.argv[2]
new = open(new_path).read()
subject, blurb = "BPF tracing multi-link", "*** BLURB HERE ***"
if os.path.exists(old_path):
    old = open(old_path).read()
    m = re.search(r"^Subject: \[PATCH[^\]]*\] (.*(?:\n .*)*)$", old, re.M)
    if m:
        subject = m.group(1).replace("\n ", " ")
    head, _, body = old.partition("\n\n")
    # The blurb ends where git's shortlog starts ("Name (N):").
    m = re.search(r"^\S.* \(\d+\):$", body, re.M)
    blurb = body[:m.start()].rstrip("\n") if m else body.rstrip("\n")
new = new.replace("*** SUBJECT HERE ***", subject, 1)
new = new.replace("*** BLURB HERE ***", blurb, 1)
open(new_path, "w").write(new)
PY
rm -f "$TOP"/patches/*.patch
mkdir -p "$TOP/patches"
cp "$tmp"/*.patch "$TOP/patches/"
info "exported $n patches and the cover letter to patches/"
