#!/usr/bin/env bash
# Where the kernel spends the cost of a small attach: an fentry.multi link on
# FUNCS functions (default 1) attached and detached ROUNDS times (default
# 20) with nothing else traced, then a kprobe.multi link as many times,
# in one icount VM under the branch-cost plugin with
# its block profile on (prof=1); the attach bench marks each attach and
# detach (TRACING_MULTI_BENCH_ONLY=one_func_marks). Prints, and writes to
# bench/results/NAME-attach-profile.txt, the kernel instructions of an
# attach and of a detach of each by symbol (scripts/profile-report.py --attach).
# Usage: scripts/profile-attach.sh NAME [ROUNDS [FUNCS]]   (FUNCS: functions
#   per link, default 1: the last ones of the attach bench's list)
# BUSY=n in the environment: another multi-link traces the first n
#   functions of the list meanwhile (the cost that grows with the traced set)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:?usage: scripts/profile-attach.sh NAME [ROUNDS [FUNCS]]}
rounds=${2:-20}
funcs=${3:-1}
busy=${BUSY:-0}
case "$rounds$funcs$busy" in *[!0-9]*) die "ROUNDS, FUNCS and BUSY are numbers" ;; esac
"$TOP/scripts/bcm-build.sh"
[ -x "$STOUT/test_progs" ] || die "no test_progs in $STOUT: run scripts/selftests-build.sh"
run=$BUILD/vm/profile-attach
counts=$BUILD/bcm/attach-counts.txt
rm -f "$counts"
VM_PLUGIN="$BUILD/bcm/branchcost.so,out=$counts,mark=20000000,prof=1,range=ffff800000000000:ffffffffffffffff" \
	"$TOP/scripts/vm.sh" --mode icount --run "$run" --timeout "${VM_TIMEOUT:-1800}" -- \
	bash -c "cd '$STOUT' && TRACING_MULTI_BENCH_ONLY=one_func_marks TRACING_MULTI_BENCH_ROUNDS=$rounds TRACING_MULTI_BENCH_FUNCS=$funcs TRACING_MULTI_BENCH_BUSY=$busy ./test_progs -v -a tracing_multi_bench_attach" \
	>/dev/null || die "the attach run failed (logs in $run)"
grep -q "kind=one_func_marks rounds=$rounds funcs=$funcs busy=$busy " "$run/out.log" ||
	die "the attach bench did not run its marked rounds (logs in $run)"
python3 "$TOP/scripts/profile-report.py" --attach "$run/out.log" "$counts" "$KOUT/System.map" |
	tee "$TOP/bench/results/$name-attach-profile.txt"
