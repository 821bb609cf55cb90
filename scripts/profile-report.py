#!/usr/bin/env python3
"""Kernel instructions per operation by symbol, from a branchcost plugin run
with prof=1 (PROF=1 scripts/bench-branches.sh): OUT is the guest's output
(== case, the bench summaries of its 1 s and 3 s runs; after the cases,
'%% kallsyms' and the guest's /proc/kallsyms lines of BPF programs and
modules), COUNTS the plugin's marks, SYSTEM_MAP the kernel's. Each block's
instructions go to the symbol its start address is in. As in
branches-report.py, a case's figure is the 3 s run's minus the 1 s run's,
over the operations between them. Prints each case's symbols, largest
first, then the difference of each case from the one before it.

--attach: OUT is not a bench's: the marks alternate, a first one, then one
after each attach and one after each detach, ROUNDS rounds for each kind
of link (TRACING_MULTI_BENCH_ONLY=one_func_marks of the attach bench, whose
closing line gives rounds=ROUNDS links=KIND,...; scripts/profile-attach.sh);
prints the kernel instructions of an attach and of a detach of each kind by
symbol, the mean over the rounds."""
import bisect
import re
import sys

import benchplot

args = sys.argv[1:]
blocks_of = None
attach = False
if args and args[0] == "--attach":
    attach = True
    args = args[1:]
if len(args) == 5 and args[0] == "--blocks":
    # --blocks SYMBOL: that symbol's blocks, by start address, instead
    blocks_of = args[1]
    args = args[2:]
if len(args) != 3:
    sys.exit("usage: profile-report.py [--attach] [--blocks SYMBOL] OUT COUNTS SYSTEM_MAP")
out_path, counts_path, map_path = args

bench, syms = benchplot.CaseRates(), []
in_kallsyms = False
for line in open(out_path, errors="replace"):
    if line.startswith("%% kallsyms"):
        in_kallsyms = True
        continue
    f = line.split()
    if in_kallsyms:
        if len(f) >= 4 and re.fullmatch(r"[0-9a-f]{16}", f[0]):
            syms.append((int(f[0], 16), f[2] + " " + f[3]))
        continue
    bench.feed(line)
rates, cases = bench.rates, bench.cases

for line in open(map_path):
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), f[2]))
    elif len(f) == 3 and f[2] == "_end":
        # BPF programs and trampolines are gone from kallsyms when the bench
        # ends: what no symbol names past the kernel image is theirs
        syms.append((int(f[0], 16), "[past _end: BPF programs, trampolines]"))
syms.sort()
addrs = [a for a, _ in syms]


def sym_of(va):
    i = bisect.bisect_right(addrs, va) - 1
    return syms[i][1] if i >= 0 else "?"


# The blocks' cumulative instructions at each mark, by symbol
marks, m = [], None
for line in open(counts_path):
    f = line.split()
    if f[0] == "mark" or (f[0] == "exit" and not attach):
        m = {}
        marks.append(m)
    elif f[0] == "exit":
        m = None
    elif f[0] == "prof" and m is not None:
        s = sym_of(int(f[1], 16))
        if blocks_of is not None:
            if s != blocks_of:
                continue
            s = f[1]
        m[s] = m.get(s, 0) + int(f[2])
if attach:
    m = re.search(r"kind=one_func_marks rounds=(\d+) funcs=(\d+)(?: busy=(\d+))? links=(\S+)",
                  open(out_path, errors="replace").read())
    if not m:
        sys.exit("profile-report: no 'kind=one_func_marks rounds=R funcs=N links=...' line in %s"
                 % out_path)
    rounds, nfuncs, kinds = int(m.group(1)), int(m.group(2)), m.group(4).split(",")
    busy = int(m.group(3) or 0)
    if busy:
        print("(another fentry.multi link traces %d functions meanwhile)\n" % busy)
    if len(marks) < 1 + 2 * rounds * len(kinds):
        sys.exit("profile-report: %d marks for %d rounds of %d links" % (len(marks), rounds, len(kinds)))
    totals = []
    for k, kind in enumerate(kinds):
        for name, first in (("attach", 0), ("detach", 1)):
            per = {}
            for r in range(rounds):
                i = 2 * (k * rounds + r) + first
                a, b = marks[i], marks[i + 1]
                for s in set(a) | set(b):
                    per[s] = per.get(s, 0) + (b.get(s, 0) - a.get(s, 0)) / rounds
            totals.append("%s %s %.0f" % (kind, name, sum(per.values())))
            print("== %s of a %s link on %d function(s): %.0f kernel insns (mean of %d)"
                  % (name, kind, nfuncs, sum(per.values()), rounds))
            for s, v in sorted(per.items(), key=lambda kv: -kv[1]):
                if v >= 0.5:
                    print("%9.0f  %s" % (v, s))
            print()
    print("== kernel instructions per link operation, %d function(s)" % nfuncs)
    for t in totals:
        print("   " + t)
    sys.exit(0)
if len(marks) < 3 * len(cases):
    sys.exit("profile-report: %d marks for %d cases (was the run made with prof=1?)"
             % (len(marks), len(cases)))

per_case = {}
for i, c in enumerate(cases):
    if len(rates[c]) != 2:
        sys.exit("profile-report: no bench summary for %s" % c)
    m0, m1, m2 = marks[3 * i], marks[3 * i + 1], marks[3 * i + 2]
    ops = (3 * rates[c][1] - 1 * rates[c][0]) * 1e6
    per = {}
    for s in set(m0) | set(m1) | set(m2):
        v = ((m2.get(s, 0) - m1.get(s, 0)) - (m1.get(s, 0) - m0.get(s, 0))) / ops
        if abs(v) >= 0.05:
            per[s] = v
    per_case[c] = per

for c in cases:
    per = per_case[c]
    print("== %s: %.1f kernel insn/op" % (c, sum(per.values())))
    order = sorted(per.items(), key=lambda kv: -kv[1])
    if blocks_of is not None:
        order = sorted(per.items())
    for s, v in order:
        print("%9.1f  %s" % (v, s))
    print()
for a, b in zip(cases, cases[1:]):
    pa, pb = per_case[a], per_case[b]
    print("== %s - %s: %+.1f kernel insn/op" % (b, a, sum(pb.values()) - sum(pa.values())))
    diff = {s: pb.get(s, 0) - pa.get(s, 0) for s in set(pa) | set(pb)}
    for s, v in sorted(diff.items(), key=lambda kv: -abs(kv[1])):
        if abs(v) >= 0.5:
            print("%+9.1f  %s" % (v, s))
    print()
