#!/usr/bin/env bash
# Boot the built kernel under QEMU with the host's / shared read-only over 9p,
# run one command inside, and return its exit status. The command's output is
# streamed here and kept in $RUN/out.log; the kernel console in
# $RUN/console.log. A kernel oops, BUG, WARN, lockdep, KASAN, kmemleak or RCU
# stall report in the console fails the run even if the command succeeded.
#
# Usage: scripts/vm.sh [options] -- COMMAND [ARGS...]
#   --mode test|icount|wall   test (default): TCG, all vCPUs;
#                             icount: -icount shift=0, 1 vCPU (deterministic);
#                             wall: TCG, all vCPUs (alias of test)
#   --timeout SECONDS         kill the guest after this long (default 1200)
#   --mem SIZE                guest memory (default 4G)
#   --run DIR                 keep logs in DIR (default build/vm/<timestamp>)
# Exit status: 0 ok; 1 the command failed; 2 the guest crashed, hung or the
# kernel reported a problem.
# Environment: DEBUG=1 boots build/kbuild-debug; VM_ACCEL=kvm|tcg forces one;
# VM_PLUGIN='file.so,arg=...' loads a TCG plugin (bench/plugin/branchcost.c);
# VM_TCG_THREAD=multi runs each vCPU in a host thread of its own (test/wall
# modes; the default, single, runs all vCPUs in one host thread);
# VM_CPU sets the TCG CPU model (default max); VM_APPEND adds to the command line.
# VM_ALLOW: an extended regex of console lines that are not reports, for a
# warning the command line asks for (a mitigation the CPU does not want).
# Multi-threaded TCG sometimes lets a vCPU run a stale int3 that another
# vCPU's text_poke_bp() already removed (an "Oops: int3" seen with the
# unpatched base too); single-threaded TCG keeps vCPUs in step.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=test timeout=1200 mem=4G run=
while [ $# -gt 0 ]; do
	case "$1" in
	--mode) mode=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || die "no command given (usage: vm.sh [options] -- COMMAND)"
case "$mode" in test|wall|icount) ;; *) die "--mode must be test, icount or wall" ;; esac

kernel=$KOUT/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run scripts/build.sh"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run scripts/deps.sh"

[ -n "$run" ] || run=$BUILD/vm/$(date +%Y%m%d-%H%M%S)-$$
rm -rf "$run"
mkdir -p "$run"
run=$(cd "$run" && pwd)

# The command, run by the init script below in the caller's directory.
{
	printf 'cd %q\n' "$PWD"
	printf '%q ' "$@"
	printf '\n'
} >"$run/cmd"

# Directories under the host's /tmp that the guest must still see once it
# mounts a tmpfs on /tmp (a project cloned under /tmp, say).
keep_tmp=
for p in "$run" "$PWD" "$TOP" "$KOUT"; do
	case "$p" in /tmp/?*) d=${p#/tmp/}; keep_tmp+=" ${d%%/*}" ;; esac
done
keep_tmp=$(printf '%s\n' $keep_tmp | sort -u | tr '\n' ' ')

cat >"$run/init" <<INIT
#!/bin/bash
# PID 1 in the guest.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
# A writable /tmp; if the project itself lives under /tmp, keep it visible.
mkdir -p /run/hosttmp
mount --bind /tmp /run/hosttmp
mount -t tmpfs tmpfs /tmp
for d in $keep_tmp; do
	mkdir -p "/tmp/\$d"
	mount --bind "/run/hosttmp/\$d" "/tmp/\$d"
done
mount -t tmpfs tmpfs /var/tmp 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpffs /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$run"
ip link set lo up 2>/dev/null
ulimit -l unlimited
echo "vm: running the command" >/dev/kmsg
bash "$run/cmd" >"$run/out.log" 2>&1 </dev/null
echo \$? >"$run/rc"
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo "vm: kmemleak scan" >/dev/kmsg
	echo scan >/sys/kernel/debug/kmemleak; sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >"$run/kmemleak.log"
	[ -s "$run/kmemleak.log" ] && echo "vm: kmemleak: suspected memory leaks, see $run/kmemleak.log" >/dev/kmsg
fi
echo "vm: done" >/dev/kmsg
sync
echo o >/proc/sysrq-trigger
# PID 1 must not exit (that panics); wait with a bash builtin, since the 9p
# root may already be gone.
while :; do read -rt 1 <>/dev/zero; done
INIT
chmod +x "$run/init"

accel=tcg
if [ -n "${VM_ACCEL:-}" ]; then
	accel=$VM_ACCEL
fi
# KVM hangs a guest at "Booting from ROM" on these hosts: use it only when
# forced (VM_ACCEL=kvm); icount needs TCG anyway.
[ "$mode" = icount ] && accel=tcg

smp=$(nproc)
extra=()
if [ "$mode" = icount ]; then
	smp=1
	extra+=(-icount shift=0)
fi
if [ "$accel" = tcg ]; then
	# icount needs single-threaded TCG.
	if [ "$mode" = icount ]; then
		extra+=(-accel tcg,thread=single,tb-size=512)
	else
		extra+=(-accel "tcg,thread=${VM_TCG_THREAD:-single},tb-size=512")
	fi
fi
[ "$accel" = kvm ] && extra+=(-accel kvm -cpu host)
if [ -n "${VM_PLUGIN:-}" ]; then
	[ "$accel" = tcg ] || die "VM_PLUGIN needs TCG"
	extra+=(-plugin "$VM_PLUGIN")
fi
[ "$accel" = tcg ] && extra+=(-cpu "${VM_CPU:-max}")

append="root=rootfs rootfstype=9p rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=262144 ro"
append+=" init=$run/init console=ttyS0 panic=-1 oops=panic nokaslr"
append+=" rcupdate.rcu_cpu_stall_suppress_at_boot=1 ${VM_APPEND:-}"

: >"$run/out.log"
: >"$run/console.log"
tail -n +1 -f "$run/out.log" &
tailpid=$!
start=$(date +%s.%N)
set +e
timeout -k 10 "$timeout" qemu-system-x86_64 \
	-nodefaults -no-user-config -nographic -no-reboot \
	-m "$mem" -smp "$smp" "${extra[@]}" \
	-kernel "$kernel" -append "$append" \
	-virtfs local,path=/,mount_tag=rootfs,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$run,mount_tag=out,security_model=none,multidevs=remap" \
	-serial "file:$run/console.log" -monitor none \
	</dev/null >"$run/qemu.log" 2>&1
qrc=$?
set -e
end=$(date +%s.%N)
sleep 0.5
kill "$tailpid" 2>/dev/null || true
wait "$tailpid" 2>/dev/null || true

secs=$(echo "$end - $start" | bc)
fail=()
kfail=0
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	fail+=("the guest did not finish within ${timeout}s and was killed (hung?)")
	kfail=1
elif [ $qrc -ne 0 ]; then
	fail+=("qemu exited with status $qrc: $(tail -n 3 "$run/qemu.log" | tr '\n' ' ')")
	kfail=1
fi
rc=$(cat "$run/rc" 2>/dev/null || echo none)
if [ "$rc" = none ]; then
	fail+=("the command did not complete (no exit status; see $run/console.log)")
	kfail=1
elif [ "$rc" != 0 ]; then
	fail+=("the command exited with status $rc")
fi
# Kernel reports that fail the run whatever the command said.
pat='WARNING:|BUG:|Oops|general protection fault|Kernel panic|KASAN:|UBSAN:|'
pat+='possible recursive locking|circular locking|inconsistent lock state|'
pat+='suspicious RCU usage|detected stall|soft lockup|hung_task|kmemleak: suspected|'
pat+='unreferenced object|Call Trace:|CFI failure'
# A failure that fault injection forced makes the allocator print
# warn_alloc()'s backtrace: the test asked for it, so that backtrace alone
# is not a report. Such a failure is known by should_fail_ex() in the
# backtrace, or, as a failure deeper in the call chain may have left no
# trace of it (vmalloc's "vm_struct allocation failed"), by the test's
# own kernel log lines around its fault injection ("injecting allocation
# failures", "no more injected allocation failures"). Every other
# backtrace is a report.
console_reports() {
	awk '
	function flush() {
		if (blk ~ /warn_alloc/ && (blk ~ /should_fail_ex/ || faults))
			injected++
		else
			printf "%s", blk
		inblk = 0
	}
	/no more injected allocation failures/ { faults = 0 }
	/injecting allocation failures/ { faults = 1 }
	allow != "" && $0 ~ allow { next }
	/Call Trace:/ { if (inblk) flush(); blk = $0 "\n"; inblk = 1; n = 0; next }
	inblk { blk = blk $0 "\n"; if (++n > 60 || /<\/TASK>/) flush(); next }
	{ print }
	END {
		if (inblk) flush()
		if (injected) printf "vm: %d allocation-failure backtrace(s) of injected faults\n", injected > "/dev/stderr"
	}' allow="${VM_ALLOW:-}" "$run/console.log"
}
if console_reports 2>/dev/null | grep -aEq "$pat"; then
	first=$(console_reports 2>/dev/null | grep -aEm1 "$pat")
	fail+=("kernel report in the console: '$first' (see $run/console.log)")
	kfail=1
fi
console_reports 2>&1 >/dev/null || true
echo "vm: mode=$mode accel=$accel smp=$smp time=${secs%.*}s logs=$run"
if [ ${#fail[@]} -gt 0 ]; then
	for f in "${fail[@]}"; do echo "vm: FAIL: $f" >&2; done
	console_reports 2>/dev/null | grep -aEA20 "$pat" | head -n 60 >&2 || true
	[ $kfail -eq 1 ] && exit 2
	exit 1
fi
exit 0
