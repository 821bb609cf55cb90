#!/usr/bin/env bash
# What `bpftool link show` prints for a tracing multi-link, as a user sees it:
# in the VM, tools/funcstat traces vfs_read* and vfs_write* (one fentry.multi
# and one fexit.multi link), and the series' bpftool lists the links, in
# plain text and in pretty JSON. The output goes to stdout and to
# build/bpftool-show.txt.
# Usage: scripts/bpftool-show.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bpftool=$STOUT/tools/sbin/bpftool
[ -x "$bpftool" ] || die "no $bpftool: run scripts/selftests-build.sh"
make -s -C "$TOP/tools/funcstat" KOUT="$KOUT" || die "building funcstat failed"

"$TOP/scripts/vm.sh" --mode icount --timeout 300 --run "$BUILD/vm/bpftool-show" -- bash -c "
	'$BUILD/funcstat/funcstat' -d 60 'vfs_read*,vfs_write*' >/tmp/funcstat.out 2>&1 &
	for i in \$(seq 300); do grep -q '^Tracing ' /tmp/funcstat.out && break; sleep 0.2; done
	grep '^Tracing ' /tmp/funcstat.out || { cat /tmp/funcstat.out; exit 1; }
	echo
	echo '\$ bpftool link show'
	'$bpftool' link show
	echo
	echo '\$ bpftool link show --pretty'
	'$bpftool' link show --pretty
	echo
	echo '\$ bpftool prog show name funcstat_entry'
	'$bpftool' prog show name funcstat_entry
	echo
	echo '\$ bpftool feature list_builtins attach_types | grep multi'
	'$bpftool' feature list_builtins attach_types | grep multi
	echo
	echo '\$ bpftool feature list_builtins link_types | grep multi'
	'$bpftool' feature list_builtins link_types | grep multi
	kill -INT %1
	wait
" | tee "$BUILD/bpftool-show.txt"
