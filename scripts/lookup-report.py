#!/usr/bin/env python3
"""Split the cost of trig-fentry-multi-all over trig-fentry-multi into what
each traced call pays and what each driver syscall pays.

Input: the output of `bench -a trig-<case> --trig-batch-iters <B>` runs, each
preceded by a line "== <case> <B>" (scripts/bench.sh writes it). In icount
mode the guest runs one instruction per ns, so 1000 / (M ops/s) is the
number of instructions per operation. With d(B) the extra instructions per
operation of fentry-multi-all at batch size B, the model
    d(B) = per_call + per_syscall / B
is solved from the two batch sizes: per_call is what finding the function
in the full kfunc_md table costs on each traced call, per_syscall what the
no-op program costs on the traced functions the bench driver's bpf()
syscall runs through (one syscall per batch).

Usage: lookup-report.py --name NAME --outdir DIR OUT_LOG
"""
import argparse
import os
import re
import sys

import benchplot

ap = argparse.ArgumentParser()
ap.add_argument("--name", required=True)
ap.add_argument("--outdir", required=True)
ap.add_argument("log")
args = ap.parse_args()

res = {}
cur = None
with open(args.log, errors="replace") as f:
    for line in f:
        m = re.match(r"== (\S+) (\d+)$", line.strip())
        if m:
            cur = (m.group(1), int(m.group(2)))
            continue
        m = re.search(r"Summary: hits\s+([\d.]+)", line)
        if m and cur:
            res[cur] = float(m.group(1))
            cur = None

need = [(c, b) for c in ("fentry-multi", "fentry-multi-all") for b in (100, 1000)]
missing = [k for k in need if k not in res]
if missing:
    sys.exit("lookup-report.py: error: no result for %s in %s" %
             (", ".join("%s batch %d" % k for k in missing), args.log))

ins = {k: 1000.0 / v for k, v in res.items()}
d100 = ins[("fentry-multi-all", 100)] - ins[("fentry-multi", 100)]
d1000 = ins[("fentry-multi-all", 1000)] - ins[("fentry-multi", 1000)]
per_syscall = (d100 - d1000) / (1 / 100 - 1 / 1000)
per_call = d1000 - per_syscall / 1000

out = []
out.append("fentry-multi-all vs fentry-multi by batch size (icount: M ops/s, instructions/op)")
out.append("")
out.append("%-8s %14s %14s %10s %10s %8s" % ("batch", "fentry-multi", "multi-all",
                                               "insn/op", "insn/op", "ratio"))
for b in (100, 1000):
    m, a = res[("fentry-multi", b)], res[("fentry-multi-all", b)]
    out.append("%-8d %14.3f %14.3f %10.2f %10.2f %8.3f" %
               (b, m, a, 1000 / m, 1000 / a, a / m))
out.append("")
out.append("extra instructions of multi-all: %.2f/op at batch 100, %.2f/op at batch 1000" %
           (d100, d1000))
out.append("  per traced call (lookup in the full table): %.2f instructions" % per_call)
out.append("  per driver syscall (no-op prog on the traced functions of bpf()): %.0f instructions"
           % per_syscall)
text = "\n".join(benchplot.kernel_lines() + out) + "\n"
sys.stdout.write(text)
os.makedirs(args.outdir, exist_ok=True)
path = os.path.join(args.outdir, args.name + ".txt")
with open(path, "w") as f:
    f.write(text)
print("bench: wrote %s" % path)
