#!/usr/bin/env bash
# `make calldepth`: call depth tracking (retbleed=stuff) against the global
# trampoline. Builds the distribution-like kernel with the tracker's per-CPU
# call and return counters (CALLDEPTH=1: kernel/config.calldepth), boots it
# on an Intel Skylake guest CPU with retbleed=stuff, and runs
# tracing_multi_call_depth from the listed selftests' test_progs: after each
# kind of traced call the counted calls minus returns must not exceed what
# the return stack holds. About 10 minutes with a warm ccache, 25 cold.
# Needs `make selftests` (the test uses raw bpf(2) calls only, so the
# test_progs built for build/kbuild serves).
# Output: the test's per-case figures and a closing 'N passed, N failed'.
# Exit: 0 if the test passed; 1 if it failed or skipped; 2 on a setup error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

st=$BUILD/kbuild/selftests
[ -x "$st/test_progs" ] || { echo "calldepth.sh: no $st/test_progs: run make selftests" >&2; exit 2; }
CALLDEPTH=1 "$TOP/scripts/build.sh" >&2 || { echo "calldepth.sh: the kernel build failed" >&2; exit 2; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
CALLDEPTH=1 VM_CPU=Skylake-Client VM_APPEND="retbleed=stuff spectre_v2=retpoline" \
	"$TOP/scripts/vm.sh" -- bash -c "grep -q 'Stuffing' /sys/devices/system/cpu/vulnerabilities/retbleed ||
		{ echo 'calldepth: retbleed mitigation is not stuffing:' \$(cat /sys/devices/system/cpu/vulnerabilities/retbleed); exit 1; }
		cd '$st' && ./test_progs -v -t tracing_multi_call_depth" >"$log" 2>&1
rc=$?
set -e
grep -E 'calls - returns per call|:FAIL:|^calldepth:|^#[0-9]+ +tracing_multi_call_depth:|^Summary|^vm:' "$log" || true
if [ $rc -eq 0 ] && grep -q '^#[0-9]* *tracing_multi_call_depth:OK' "$log"; then
	echo "1 passed, 0 failed"
	exit 0
fi
echo "0 passed, 1 failed (guest exit $rc; the test's output above)"
exit 1
