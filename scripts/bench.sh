#!/usr/bin/env bash
# `make bench`: run run_bench_trigger.sh in the VM for the cases in
# bench/cases.txt (or those given), in each clock mode, and write a table
# (text, CSV) and a PNG chart per mode under bench/results/.
# Usage: scripts/bench.sh [case...]
# Then the attach-time benchmark (test_progs tracing_multi_bench_attach) in
# the VM in icount mode, unless ATTACH=0: with several vCPUs, TCG sometimes
# takes an int3 oops during heavy text patching (seen on the unpatched base
# with kprobe_multi attach/detach cycles too), so one vCPU it is.
# Before it, fentry-multi and fentry-multi-all again at 100 and 1000 calls per
# driver syscall, to split multi-all's extra cost into per call and per
# syscall (scripts/lookup-report.py), unless LOOKUP=0.
# Then the branch costs per operation of the same cases
# (scripts/bench-branches.sh, the branchcost TCG plugin), unless BRANCHES=0.
# All of it on two kernels, one after the other: the series' usual bench
# kernel (kernel/config.fragment: PREEMPT_NONE, mitigations off, IBT) and a
# distribution-like one (DISTRO=1, + kernel/config.distro: Debian 6.12's
# preemption model and mitigations). Each table says which one it is from
# (results named *-icount.* and *-distro-icount.*).
# Environment: MODES="icount wall" (default icount; icount: -icount shift=0,
#   one vCPU, deterministic; wall: TCG, all vCPUs; none: no trigger run), NOBUILD=1 skips the builds,
#   KERNELS="normal distro" (the default) or either one, or cfi: the
#   distribution-like kernel built with clang and kCFI (CFI=1, *-cfi-*).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ -z "${BENCH_FLAVOR:-}" ]; then
	for k in ${KERNELS:-normal distro}; do
		case "$k" in
		normal) d=0 c=0 ;;
		distro) d=1 c=0 ;;
		cfi) d=0 c=1 ;;
		*) die "KERNELS: '$k' is none of normal, distro, cfi" ;;
		esac
		info "=== bench kernel: $k"
		env -u KOUT -u STOUT BENCH_FLAVOR="$k" DISTRO=$d CFI=$c DEBUG=0 "$0" "$@"
	done
	exit 0
fi

modes=${MODES:-icount}
# MODES=none: no trigger run (only the parts below, for instance the attach bench)
[ "$modes" = none ] && modes=
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
	mapfile -t cases < <(sed 's/#.*//' "$TOP/bench/cases.txt" | awk 'NF {print $1}')
fi

if [ "${NOBUILD:-0}" != 1 ]; then
	"$TOP/scripts/deps.sh"
	"$TOP/scripts/tree.sh"
	"$TOP/scripts/build.sh"
	"$TOP/scripts/selftests-build.sh" bench test_progs
fi
[ -x "$STOUT/bench" ] || die "no $STOUT/bench: run without NOBUILD=1"

# What the tables are measured on: the config's preemption model and the
# mitigations it builds, and what the guest CPU turned on at boot.
kcfg() { grep -q "^CONFIG_$1=y" "$KOUT/.config" && echo y || echo n; }
preempt=none
[ "$(kcfg PREEMPT_VOLUNTARY)" = y ] && preempt=voluntary
[ "$(kcfg PREEMPT)" = y ] && preempt=full
[ "$(kcfg PREEMPT_DYNAMIC)" = y ] && preempt="dynamic (default $preempt)"
BENCH_KERNEL="$BENCH_FLAVOR ($KOUT/.config): preemption $preempt, CPU_MITIGATIONS=$(kcfg CPU_MITIGATIONS)"
BENCH_KERNEL+=", builds retpolines=$(kcfg MITIGATION_RETPOLINE) return-thunks=$(kcfg MITIGATION_RETHUNK)"
BENCH_KERNEL+=" call-depth-tracking=$(kcfg MITIGATION_CALL_DEPTH_TRACKING) IBT=$(kcfg X86_KERNEL_IBT)"
BENCH_KERNEL+=" CFI_CLANG=$(kcfg CFI_CLANG)"
vuln=$("$TOP/scripts/vm.sh" --mode icount --run "$BUILD/vm/bench-cpu" -- bash -c \
	'cd /sys/devices/system/cpu/vulnerabilities && for f in spectre_v2 retbleed spec_rstack_overflow; do echo "$f: $(cat $f)"; done; grep -o -w -E "ibt|user_shstk" /proc/cpuinfo | sort -u | tr "\n" " "; echo' |
	tr -d '\r' | grep -E '^(spectre_v2|retbleed|spec_rstack_overflow):' | paste -sd';' -) ||
	die "could not boot the $BENCH_FLAVOR bench kernel (logs in $BUILD/vm/bench-cpu)"
BENCH_KERNEL+=$'\n'"guest CPU (QEMU TCG -cpu max) at boot: $vuln"
# Where the traced functions of the multi-link cases hash to in a table of
# one function: slot 0 (the table's header) costs a second probe a lookup
slots=$("$TOP/scripts/kfunc-md-slot.py" "$KOUT" bpf_get_numa_node_id \
	bpf_modify_return_test_tp __x64_sys_getpgid | paste -sd';' -)
BENCH_KERNEL+=$'\n'"kfunc_md: $slots"
export BENCH_KERNEL
info "$BENCH_KERNEL"
suffix=
[ "$BENCH_FLAVOR" = distro ] && suffix=-distro
[ "$BENCH_FLAVOR" = cfi ] && suffix=-cfi

# run_bench_trigger.sh calls sudo; the guest runs as root and may lack it.
shim=$BUILD/vm-shim
mkdir -p "$shim"
printf '#!/bin/sh\nexec "$@"\n' >"$shim/sudo"
chmod +x "$shim/sudo"

release=$(cat "$KOUT/include/config/kernel.release")
shopt -s nullglob
patches=()
for p in "$TOP"/patches/[0-9]*.patch; do
	case "$p" in */0000-cover-letter.patch) ;; *) patches+=("$p") ;; esac
done
series=base
# Named by the patches' content (patch-ids), not the cover letter's text.
[ ${#patches[@]} -gt 0 ] && series=s$(cat "${patches[@]}" | git patch-id --stable |
	cut -d' ' -f1 | sha256sum | cut -c1-8)
script=$TREE/tools/testing/selftests/bpf-harness/benchs/run_bench_trigger.sh
[ -f "$script" ] || die "missing $script: run scripts/selftests-build.sh"
mkdir -p "$TOP/bench/results"

for mode in $modes; do
	info "mode $mode: ${cases[*]}"
	run=$BUILD/vm/bench$suffix-$mode
	"$TOP/scripts/vm.sh" --mode "$mode" --run "$run" --timeout "${VM_TIMEOUT:-3000}" -- \
		env PATH="$shim:/usr/sbin:/usr/bin:/sbin:/bin" bash -c \
		"cd '$STOUT' && '$script' ${cases[*]}" ||
		die "the bench run in mode $mode failed (logs in $run)"
	stamp=$(date +%Y%m%d-%H%M%S)
	python3 "$TOP/scripts/bench-report.py" --mode "$mode" \
		--name "$stamp-$release-$series$suffix-$mode" \
		--outdir "$TOP/bench/results" "$run/out.log"
done

# Branch costs per operation (mispredicted returns, indirect branches) from
# the branchcost TCG plugin, in icount mode, unless BRANCHES=0.
if [ "${BRANCHES:-1}" = 1 ]; then
	info "branch costs (branchcost plugin, icount): ${cases[*]}"
	"$TOP/scripts/bench-branches.sh" "$(date +%Y%m%d-%H%M%S)-$release-$series$suffix-branches" "${cases[@]}"
fi

# Where fentry-multi-all's extra cost comes from: the same two cases at the
# default batch of 100 calls per driver syscall and at 1000, in icount mode.
if [ "${LOOKUP:-1}" = 1 ] && [ $# -eq 0 ]; then
	info "fentry-multi-all cost split (batch 100 and 1000, icount)"
	run=$BUILD/vm/bench$suffix-lookup
	"$TOP/scripts/vm.sh" --mode icount --run "$run" --timeout "${VM_TIMEOUT:-3000}" -- \
		bash -c "cd '$STOUT' && for c in fentry-multi fentry-multi-all; do
			for b in 100 1000; do echo \"== \$c \$b\";
				./bench -w2 -d5 -a trig-\$c --trig-batch-iters \$b 2>&1 | tail -n1; done; done" \
		>/dev/null || die "the batch-size runs failed (logs in $run)"
	stamp=$(date +%Y%m%d-%H%M%S)
	python3 "$TOP/scripts/lookup-report.py" --name "$stamp-$release-$series$suffix-lookup" \
		--outdir "$TOP/bench/results" "$run/out.log"
fi

if [ "${ATTACH:-1}" = 1 ] && [ $# -eq 0 ]; then
	info "attach-time benchmark"
	run=$BUILD/vm/bench$suffix-attach
	"$TOP/scripts/vm.sh" --mode icount --run "$run" --timeout "${VM_TIMEOUT:-3000}" -- \
		bash -c "cd '$STOUT' && echo 65536 >/sys/kernel/tracing/buffer_size_kb &&
			TRACING_MULTI_BENCH_MEMTRACE=1 ./test_progs -v -a tracing_multi_bench_attach &&
			python3 '$TOP/scripts/attach-memtrace.py'" >/dev/null ||
		die "the attach benchmark failed (logs in $run)"
	stamp=$(date +%Y%m%d-%H%M%S)
	python3 "$TOP/scripts/attach-report.py" --mode icount \
		--name "$stamp-$release-$series$suffix-attach" \
		--outdir "$TOP/bench/results" "$run/out.log"
fi
