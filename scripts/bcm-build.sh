#!/usr/bin/env bash
# Build the branch-cost TCG plugin (bench/plugin/branchcost.c) into
# build/bcm/branchcost.so, if its source changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD/bcm"
so=$BUILD/bcm/branchcost.so
src=$TOP/bench/plugin/branchcost.c
if [ ! -f "$so" ] || [ "$src" -nt "$so" ]; then
	gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$so" "$src" ||
		die "cannot build the branch-cost plugin"
fi

# The mark program (bench/plugin/bcm-mark.c) at the plugin's mark address
mark=$BUILD/bcm/bcm-mark
if [ ! -x "$mark" ] || [ "$TOP/bench/plugin/bcm-mark.c" -nt "$mark" ]; then
	gcc -O1 -static -no-pie -Wl,--section-start=bcm_mark_text=0x20000000 -o "$mark" \
		"$TOP/bench/plugin/bcm-mark.c" || die "cannot build the mark program"
fi
