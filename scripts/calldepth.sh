#!/usr/bin/env bash
# `make calldepth`: call depth tracking (retbleed=stuff) against BPF
# trampolines. Builds the distribution-like kernel with the tracker's per-CPU
# call and return counters (CALLDEPTH=1: kernel/config.calldepth), boots it
# on an Intel Skylake guest CPU with retbleed=stuff, and runs
# tramp_call_depth (plain trampolines, alone, beside a kprobe and beside a
# livepatch) and tracing_multi_call_depth (the global trampoline's paths)
# from the listed selftests' test_progs: after each kind of traced call the
# counted calls minus returns must not exceed what the return stack holds,
# nor fall short of it where the count is exact. About 10 minutes with a
# warm ccache, 25 cold.
# Needs `make selftests` (the test_progs built for build/kbuild serves: the
# tests need no BTF of the calldepth kernel's own); it runs from a copy of
# that directory made of symlinks, with this kernel's livepatch-sample.ko.
# Output: the tests' per-case figures and a closing 'N passed, N failed'.
# Exit: 0 if both passed; 1 if one failed or skipped (a subtest too); 2 on a
# setup error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

st=$BUILD/kbuild/selftests
[ -x "$st/test_progs" ] || { echo "calldepth.sh: no $st/test_progs: run make selftests" >&2; exit 2; }
CALLDEPTH=1 "$TOP/scripts/build.sh" >&2 || { echo "calldepth.sh: the kernel build failed" >&2; exit 2; }

# test_progs finds livepatch-sample.ko next to itself: this kernel's
cst=$BUILD/kbuild-calldepth/selftests
lp=$BUILD/kbuild-calldepth/samples/livepatch/livepatch-sample.ko
[ -f "$lp" ] || { echo "calldepth.sh: no $lp (CONFIG_SAMPLE_LIVEPATCH=m)" >&2; exit 2; }
rm -rf "$cst" && cp -as "$st" "$cst" && rm -f "$cst/livepatch-sample.ko" && cp "$lp" "$cst/"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
CALLDEPTH=1 VM_CPU=Skylake-Client VM_APPEND="retbleed=stuff spectre_v2=retpoline" \
	"$TOP/scripts/vm.sh" -- bash -c "grep -q 'Stuffing' /sys/devices/system/cpu/vulnerabilities/retbleed ||
		{ echo 'calldepth: retbleed mitigation is not stuffing:' \$(cat /sys/devices/system/cpu/vulnerabilities/retbleed); exit 1; }
		cd '$cst' && ./test_progs -v -t tramp_call_depth,tracing_multi_call_depth" >"$log" 2>&1
rc=$?
set -e
grep -E 'calls - returns per call|:FAIL:|^calldepth:|^#[0-9]+ +(tramp|tracing_multi)_call_depth:|^Summary|^vm:' "$log" || true
pass=0
for t in tramp_call_depth tracing_multi_call_depth; do
	if grep -qE "^#[0-9]+ +$t:OK\s*$" "$log"; then pass=$((pass + 1)); fi
done
if [ $rc -eq 0 ] && [ $pass -eq 2 ]; then
	echo "2 passed, 0 failed"
	exit 0
fi
echo "$pass passed, $((2 - pass)) failed (guest exit $rc; the tests' output above)"
exit 1
