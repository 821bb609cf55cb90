#!/usr/bin/env bash
# The branch-cost model's own test: builds the TCG plugin
# (bench/plugin/branchcost.c) and a static binary of known branch sequences
# (bench/plugin/bcm-selftest.c), runs the binary in the VM (icount mode)
# with the plugin counting each sequence's section, and compares every
# count with the one worked out by hand below. Prints "ok ..." or
# "FAIL ..." per sequence and a closing "N passed, N failed"; exits 1 on a
# failure. `make check` runs it. The plugin's block profile (prof=1) is
# checked too: the instructions of a case's blocks add up to its count.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/bcm
mkdir -p "$out"
"$TOP/scripts/bcm-build.sh"
plugin=$BUILD/bcm/branchcost.so

# One section per case, 64 KiB apart, at an address no other program of
# the guest uses.
cases=(callret retpoline gtramp ptramp indirect1 indirect2 jmp1)
ld_opts=()
addr=$((0x10000000))
for c in "${cases[@]}"; do
	ld_opts+=("-Wl,--section-start=bcm_$c=$(printf '0x%x' $addr)")
	addr=$((addr + 0x10000))
done
gcc -O1 -static -no-pie -o "$out/bcm-selftest" "${ld_opts[@]}" \
	"$TOP/bench/plugin/bcm-selftest.c" ||
	die "cannot build the branch-cost test binary"

# The plugin counts each case's section
args="$plugin,out=$out/selftest-counts.txt,prof=1"
for c in "${cases[@]}"; do
	range=$(readelf -SW "$out/bcm-selftest" | python3 -c '
import sys
name = sys.argv[1]
for line in sys.stdin:
    f = line.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == name:
        lo = int(f[3], 16); size = int(f[5], 16)
        print("%x:%x" % (lo, lo + size)); break
' "bcm_$c")
	[ -n "$range" ] || die "no section bcm_$c in the test binary"
	args+=",range=$range"
done
rm -f "$out/selftest-counts.txt"
VM_PLUGIN=$args "$TOP/scripts/vm.sh" --mode icount --timeout 300 --run "$out/vm" -- \
	"$out/bcm-selftest" >/dev/null || die "the test binary failed in the VM (logs in $out/vm)"
[ -s "$out/selftest-counts.txt" ] || die "the plugin wrote no counts"

# Expected counts, by hand (N = 1000 iterations; every case ends with one
# return to main(), whose call the model did not see: one more return,
# mispredicted). See bench/plugin/bcm-selftest.c for the sequences.
python3 - "$out/selftest-counts.txt" "${cases[@]}" <<'PY'
import sys
N = 1000
counts, cases = {}, sys.argv[2:]
ranges, prof = [], {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "range":
        if len(ranges) < len(cases):
            ranges.append((int(f[2], 16), int(f[3], 16)))
    elif f[0] == "prof":
        # The block profile (prof=1): its blocks' instructions, summed by
        # range, must be the range's instruction count
        va = int(f[1], 16)
        for i, (lo, hi) in enumerate(ranges):
            if lo <= va < hi:
                prof[cases[i]] = prof.get(cases[i], 0) + int(f[2])
    elif len(f) == 3:
        counts[(cases[int(f[1])], f[0])] = int(f[2])
for c in cases:
    counts[(c, "prof_insns")] = prof.get(c, 0)
want = {
    # call f; f: ret
    "callret":   dict(insns=4*N+2, calls=N, rets=N+1, ret_miss=1, ind_calls=0, ind_jmps=0, ind_miss=0),
    # call thunk; thunk: call 1f; 1f: ret to the target (miss); target: ret (hit)
    "retpoline": dict(insns=7*N+3, calls=2*N, rets=2*N+1, ret_miss=N+1, ind_calls=0, ind_jmps=0, ind_miss=0),
    # RET into the body (miss), the body's return to the trampoline (miss)
    "gtramp":    dict(insns=12*N+2, calls=4*N, rets=4*N+1, ret_miss=2*N+1, ind_calls=0, ind_jmps=0, ind_miss=0),
    # direct call of the body (hit), return past it to the parent (miss),
    # the parent's return, one entry off (miss)
    "ptramp":    dict(insns=10*N+2, calls=4*N, rets=3*N+1, ret_miss=2*N+1, ind_calls=0, ind_jmps=0, ind_miss=0),
    # one target: only the first call misses
    "indirect1": dict(insns=4*N+3, calls=N, rets=N+1, ret_miss=1, ind_calls=N, ind_jmps=0, ind_miss=1),
    # two targets in turn: every call misses
    "indirect2": dict(insns=5*N+4, calls=N, rets=N+1, ret_miss=1, ind_calls=N, ind_jmps=0, ind_miss=N),
    "jmp1":      dict(insns=3*N+3, calls=0, rets=1, ret_miss=1, ind_calls=0, ind_jmps=N, ind_miss=1),
}
p = f = 0
for c in cases:
    want[c]["prof_insns"] = want[c]["insns"]
    bad = ["%s = %s, expected %d" % (k, counts.get((c, k)), v)
           for k, v in want[c].items() if counts.get((c, k)) != v]
    if bad:
        print("FAIL %s: %s" % (c, "; ".join(bad))); f += 1
    else:
        print("ok %s: %s" % (c, " ".join("%s=%d" % kv for kv in want[c].items()))); p += 1
print("%d passed, %d failed" % (p, f))
sys.exit(1 if f else 0)
PY
