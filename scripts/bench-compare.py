#!/usr/bin/env python3
"""Compare bench runs: for every case present in all the given CSV files
(written by bench-report.py), print each run's M/s and the largest relative
deviation from the first run; then the largest over all cases.

Usage: scripts/bench-compare.py RUN1.csv RUN2.csv [RUN3.csv ...]
"""
import csv
import os
import sys

if len(sys.argv) < 3:
    sys.exit("usage: bench-compare.py RUN1.csv RUN2.csv [...]")
runs = []
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            runs.append({r["case"]: float(r["mops"]) for r in csv.DictReader(f)})
    except (OSError, KeyError, ValueError) as e:
        sys.exit("bench-compare.py: error: cannot read %s: %s" % (path, e))

cases = [c for c in runs[0] if all(c in r for r in runs[1:])]
if not cases:
    sys.exit("bench-compare.py: error: the runs have no case in common")
print("%-20s %s %10s" % ("case", " ".join("%10s" % ("run%d" % (i + 1)) for i in range(len(runs))),
                         "max dev"))
worst = 0.0
for c in cases:
    base = runs[0][c]
    dev = max(abs(r[c] / base - 1) for r in runs[1:]) if base else float("nan")
    worst = max(worst, dev)
    print("%-20s %s %9.3f%%" % (c, " ".join("%10.3f" % r[c] for r in runs), dev * 100))
print("largest deviation from run1: %.3f%% (%s)" %
      (worst * 100, ", ".join(os.path.basename(p) for p in sys.argv[1:])))
