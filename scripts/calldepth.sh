#!/usr/bin/env bash
# `make calldepth`: call depth tracking (retbleed=stuff) against BPF
# trampolines. Builds the distribution-like kernel with the tracker's per-CPU
# call and return counters (CALLDEPTH=1: kernel/config.calldepth), boots it
# on an Intel Skylake guest CPU with retbleed=stuff, and runs
# tramp_call_depth (plain trampolines, alone, beside a kprobe and beside a
# livepatch) and tracing_multi_call_depth (the global trampoline's paths)
# from the listed selftests' test_progs: after each kind of traced call the
# counted calls minus returns must not exceed what the return stack holds,
# nor fall short of it where the count is exact. tramp_orig_stack reads the
# trampoline's call of a livepatched function there, and again on a second
# boot with spectre_v2=retpoline,lfence: the thunk (or LFENCE) each
# mitigation wants. About 10 minutes with a warm ccache, 25 cold.
# Needs `make selftests` (the test_progs built for build/kbuild serves: the
# tests need no BTF of the calldepth kernel's own); it runs from a copy of
# that directory made of symlinks, with this kernel's livepatch-sample.ko.
# Output: the tests' per-case figures and a closing 'N passed, N failed'
# (four runs: three tests on the first boot, one on the second).
# Exit: 0 if all passed; 1 if one failed or skipped (a subtest too); 2 on a
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
pass=0 runs=0 bad=0
# boot NAME APPEND TESTS [ALLOW]: runs TESTS; counts each one passed on a
# plain ':OK' (a skipped subtest fails it). ALLOW: the warnings of bugs.c
# about the mitigation the command line chose, not reports.
boot() {
	local rc t
	set +e
	CALLDEPTH=1 VM_CPU=Skylake-Client VM_APPEND="$2" VM_ALLOW="${4:-}" \
		"$TOP/scripts/vm.sh" -- bash -c "grep -q 'Stuffing' /sys/devices/system/cpu/vulnerabilities/retbleed ||
			[ '$1' != stuff ] ||
			{ echo 'calldepth: retbleed mitigation is not stuffing:' \$(cat /sys/devices/system/cpu/vulnerabilities/retbleed); exit 1; }
			cd '$cst' && ./test_progs -v -t $3" >"$log" 2>&1
	rc=$?
	set -e
	grep -E 'calls - returns per call|check_call: |check_image: the call|:FAIL:|^calldepth:|^#[0-9]+ +(tramp|tracing_multi)_[a-z_]+:|^Summary|^vm:' "$log" | sed "s/^/[$1] /" || true
	[ $rc -eq 0 ] || bad=1
	for t in ${3//,/ }; do
		runs=$((runs + 1))
		if grep -qE "^#[0-9]+ +$t:OK\s*$" "$log"; then pass=$((pass + 1)); fi
	done
}
boot stuff "retbleed=stuff spectre_v2=retpoline" tramp_call_depth,tracing_multi_call_depth,tramp_orig_stack
boot lfence "spectre_v2=retpoline,lfence" tramp_orig_stack \
	'(Spectre V2 |RETBleed|ITS): WARNING: .*(not recommended|leaves CPU vulnerable|not compatible)'
if [ $bad -eq 0 ] && [ $pass -eq $runs ]; then
	echo "$pass passed, 0 failed"
	exit 0
fi
echo "$pass passed, $((runs - pass)) failed (the tests' output above)"
exit 1
