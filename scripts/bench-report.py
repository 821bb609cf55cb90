#!/usr/bin/env python3
"""Turn run_bench_trigger.sh output into a table (text + CSV) and a PNG chart.

Usage: bench-report.py --mode icount|wall --name NAME --outdir DIR RAW_LOG
Writes DIR/NAME.txt, DIR/NAME.csv, DIR/NAME.png and prints the table. In
icount mode the guest clock counts instructions (1 ns each), so 1000 / (M/s)
is guest instructions per operation.
"""
import argparse
import glob
import os
import re

import benchplot
import sys

RATIOS = [("fentry-multi", "fentry"), ("fentry-multi-all", "fentry-multi"),
          ("fexit-multi", "fexit"), ("fmodret-multi", "fmodret"),
          ("fentry-multi", "kprobe-multi"), ("fentry-multi-s", "fentry-s"),
          ("fsession-multi", "fentry-fexit-multi"),
          ("fsession-multi-2", "fentry-fexit-multi-2"), ("fexit-multi-s", "fexit-s")]
# Cases driven by a system call from user space: their hook cost is over
# syscall-count, not kernel-count
SYSCALL_CASES = {"fentry-s", "fentry-multi-s", "fexit-s", "fexit-multi-s"}

ap = argparse.ArgumentParser()
ap.add_argument("--mode", required=True, choices=["icount", "wall"])
ap.add_argument("--name", required=True)
ap.add_argument("--outdir", required=True)
ap.add_argument("raw")
a = ap.parse_args()

rows = []
line_re = re.compile(r"^(\S+)\s*:\s*([0-9.]+)\s*±\s*([0-9.]+)\s*M/s")
for line in open(a.raw, errors="replace"):
    m = line_re.match(line)
    if m:
        rows.append((m.group(1), float(m.group(2)), float(m.group(3))))
if not rows:
    sys.exit("bench-report: no results in %s (did bench fail? see that log)" % a.raw)
mops = {c: v for c, v, _ in rows}
fentry = mops.get("fentry")
base = mops.get("kernel-count")

out = []
hdr = "%-20s %10s %8s %8s" % ("case", "M/s", "±", "/fentry")
if a.mode == "icount":
    hdr += " %9s %9s" % ("insn/op", "hook")
out.append(hdr)
csv = ["case,mops,ratio_to_fentry,insn_per_op"]
for c, v, sd in rows:
    ratio = v / fentry if fentry else float("nan")
    s = "%-20s %10.3f %8.3f %8.3f" % (c, v, sd, ratio)
    insn = 1000.0 / v if v else float("nan")
    if a.mode == "icount":
        b = mops.get("syscall-count") if c in SYSCALL_CASES else base
        hook = insn - 1000.0 / b if b else float("nan")
        s += " %9.1f %9.1f" % (insn, hook)
    out.append(s)
    csv.append("%s,%.3f,%.4f,%s" % (c, v, ratio, "%.2f" % insn if a.mode == "icount" else ""))
pairs = [(x, y) for x, y in RATIOS if x in mops and y in mops]
if pairs:
    out.append("")
    for x, y in pairs:
        out.append("%-42s %.4f" % ("%s / %s" % (x, y), mops[x] / mops[y]))
if a.mode == "icount":
    out.append("")
    out.append("insn/op = 1000 / (M/s) under -icount shift=0 (guest instructions per "
               "operation); hook = insn/op - kernel-count's insn/op (syscall-count's for "
               "the sleepable cases: fentry-s, fexit-s and their -multi-s).")
else:
    out.append("")
    out.append("wall-clock TCG figures: noisy, report beside icount figures only.")

# Agreement with the previous run of the same kernel and series in this mode.
prefix = a.name.split("-", 2)[2]  # release-series-mode
prev = sorted(p for p in glob.glob(os.path.join(a.outdir, "*-%s.csv" % prefix))
              if not p.endswith(a.name + ".csv"))
if prev:
    old = {}
    for line in open(prev[-1]).read().splitlines()[1:]:
        f = line.split(",")
        old[f[0]] = float(f[1])
    devs = [abs(mops[c] - old[c]) / old[c] * 100 for c in mops if c in old and old[c]]
    if devs:
        out.append("max deviation from the previous %s run of this kernel (%s): %.3f%%"
                   % (a.mode, os.path.basename(prev[-1]), max(devs)))

text = "\n".join(benchplot.kernel_lines() + out) + "\n"
os.makedirs(a.outdir, exist_ok=True)
base_path = os.path.join(a.outdir, a.name)
open(base_path + ".txt", "w").write("mode: %s\n\n" % a.mode + text)
open(base_path + ".csv", "w").write("\n".join(csv) + "\n")
print("bench (%s mode):" % a.mode)
print(text, end="")

# PNG bar chart with gnuplot.
dat = base_path + ".dat"
with open(dat, "w") as f:
    for c, v, sd in rows:
        f.write('"%s" %f %f\n' % (c, v, sd))
gp = """set terminal pngcairo size 1000,560 font ",10"
set output "{png}"
set title "bench trig-* ({mode} mode), M ops/s, higher is better"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set xtics rotate by -35
set ylabel "M ops/s"
set yrange [0:*]
set grid ytics
unset key
plot "{dat}" using 2:xtic(1) lc rgb "#3a6ea5", \\
     "" using 0:2:(sprintf("%.2f",$2)) with labels offset 0,0.7 notitle
""".format(png=base_path + ".png", mode=a.mode, dat=dat)
benchplot.gnuplot(gp, base_path, dat)
