#!/usr/bin/env bash
# The branch-cost columns of `make bench`: each bench case runs twice in one
# icount VM under the branchcost TCG plugin (bench/plugin/branchcost.c),
# counting the guest kernel's instructions, calls, returns, returns a
# 32-entry return stack buffer mispredicts, indirect branches and indirect
# branches whose target changed. The plugin writes its counts at marks
# (bench/plugin/bcm-mark.c) before, between and after the two runs, which
# measure for 1 and 3 seconds after the same warm-up: the difference
# between the two parts is 2 seconds of the case in steady state, divided
# by the operations the bench counted in them. Setup, attach, teardown and
# the marks themselves cancel out.
# Usage: scripts/bench-branches.sh NAME CASE...   (writes
#   bench/results/NAME.{txt,csv,png}, or OUTDIR/NAME.*; called by
#   scripts/bench.sh and scripts/check.sh)
# PROF=1 also writes bench/results/NAME-profile.txt: each case's kernel
# instructions per op by symbol (scripts/profile-report.py), and the
# difference between consecutive cases, so that two cases given one after
# the other show where they differ.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=$1
shift
[ $# -gt 0 ] || die "no bench case given"
"$TOP/scripts/bcm-build.sh"
mark=$BUILD/bcm/bcm-mark
run=$BUILD/vm/bench-branches${BENCH_FLAVOR:+-$BENCH_FLAVOR}
counts=$BUILD/bcm/bench-counts${BENCH_FLAVOR:+-$BENCH_FLAVOR}.txt
rm -f "$counts"
cmd="cd '$STOUT'"
for c in "$@"; do
	cmd+=" && echo '== $c' && '$mark'"
	cmd+=" && ./bench -w1 -d1 -a trig-$c 2>&1 | tail -n1 && '$mark'"
	cmd+=" && ./bench -w1 -d3 -a trig-$c 2>&1 | tail -n1 && '$mark'"
done
prof=
if [ "${PROF:-0}" = 1 ]; then
	prof=,prof=1
	# What System.map does not name: BPF programs, trampolines, modules
	cmd+=" && echo '%% kallsyms' && awk '\$4 ~ /^\\[/' /proc/kallsyms"
fi
# The kernel half of the address space: kernel text, modules, BPF programs
# and trampolines.
VM_PLUGIN="$BUILD/bcm/branchcost.so,out=$counts,mark=20000000,range=ffff800000000000:ffffffffffffffff$prof" \
	"$TOP/scripts/vm.sh" --mode icount --run "$run" --timeout "${VM_TIMEOUT:-3000}" -- \
	bash -c "$cmd" >/dev/null || die "the branch-cost runs failed (logs in $run)"
outdir=${OUTDIR:-$TOP/bench/results}
mkdir -p "$outdir"
python3 "$TOP/scripts/branches-report.py" --name "$name" --outdir "$outdir" \
	"$run/out.log" "$counts"
if [ -n "$prof" ]; then
	python3 "$TOP/scripts/profile-report.py" "$run/out.log" "$counts" "$KOUT/System.map" \
		>"$TOP/bench/results/$name-profile.txt"
	info "profile in bench/results/$name-profile.txt"
fi
