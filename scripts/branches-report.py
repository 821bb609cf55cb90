#!/usr/bin/env python3
"""Per-operation branch costs of the bench cases from a branchcost plugin run
(scripts/bench-branches.sh): OUT is the guest's output (== case, then the
bench summary of the 1 s and the 3 s run), COUNTS the plugin's marks.
Writes DIR/NAME.txt, DIR/NAME.csv, DIR/NAME.png and prints the table."""
import argparse
import os

import benchplot

ap = argparse.ArgumentParser()
ap.add_argument("--name", required=True)
ap.add_argument("--outdir", required=True)
ap.add_argument("out")
ap.add_argument("counts")
a = ap.parse_args()

# The bench's rates, per case: [1 s run, 3 s run]
bench = benchplot.CaseRates()
for line in open(a.out, errors="replace"):
    bench.feed(line)
rates, cases = bench.rates, bench.cases

# The plugin's counts at each mark (range 0: the kernel)
marks, m = [], None
for line in open(a.counts):
    f = line.split()
    if f[0] in ("mark", "exit"):
        m = {}
        marks.append(m)
    elif len(f) == 3 and f[1] == "0":
        m[f[0]] = int(f[2])
keys = ["insns", "calls", "rets", "ret_miss", "ind_calls", "ind_jmps", "ind_miss"]
marks = [m for m in marks if m]
if len(marks) < 3 * len(cases):
    raise SystemExit("branches-report: %d marks for %d cases" % (len(marks), len(cases)))

rows = {}
for i, c in enumerate(cases):
    if len(rates[c]) != 2:
        raise SystemExit("branches-report: no bench summary for %s" % c)
    m0, m1, m2 = marks[3 * i], marks[3 * i + 1], marks[3 * i + 2]
    # ops in the 3 s run's measurement minus the 1 s run's (M ops)
    ops = (3 * rates[c][1] - 1 * rates[c][0]) * 1e6
    per = {k: ((m2[k] - m1[k]) - (m1[k] - m0[k])) / ops for k in keys}
    per["ind"] = per["ind_calls"] + per["ind_jmps"]
    per["mops"] = rates[c][1]
    per["insn"] = 1000.0 / rates[c][1]
    rows[c] = per

cols = [("M/s", "mops", "%8.3f"), ("insn/op", "insn", "%8.1f"), ("kinsn/op", "insns", "%9.1f"),
        ("calls/op", "calls", "%9.2f"), ("rets/op", "rets", "%8.2f"),
        ("retmiss/op", "ret_miss", "%11.2f"), ("ind/op", "ind", "%7.2f"),
        ("indmiss/op", "ind_miss", "%11.2f")]
out = ["%-20s" % "case" + "".join("%*s" % (len(f % 0), h) for h, k, f in cols)]
csv = ["case," + ",".join(k for h, k, f in cols)]
for c in cases:
    out.append("%-20s" % c + "".join(f % rows[c][k] for h, k, f in cols))
    csv.append(c + "," + ",".join("%.4f" % rows[c][k] for h, k, f in cols))
out.append("")
pairs = [("fentry-multi", "fentry"), ("fexit-multi", "fexit"), ("fmodret-multi", "fmodret"),
         ("fentry-multi-all", "fentry"), ("fentry-multi-s", "fentry-s"),
         ("fsession-multi", "fentry-fexit-multi"),
         ("fsession-multi-2", "fentry-fexit-multi-2"), ("fexit-multi-s", "fexit-s")]
out.append("%-42s %9s %9s %9s %9s" % ("multi vs plain (difference per op)", "insn", "retmiss",
                                       "ind", "indmiss"))
for m, p in pairs:
    if m in rows and p in rows:
        out.append("%-42s %+9.2f %+9.2f %+9.2f %+9.2f" % (
            "%s - %s" % (m, p), rows[m]["insn"] - rows[p]["insn"],
            rows[m]["ret_miss"] - rows[p]["ret_miss"], rows[m]["ind"] - rows[p]["ind"],
            rows[m]["ind_miss"] - rows[p]["ind_miss"]))
out.append("")
out.append("Per operation, guest kernel only (kinsn/op: the plugin's kernel instruction count;")
out.append("insn/op: 1000 / M/s, all guest instructions). retmiss: returns a 32-entry return")
out.append("stack buffer mispredicts; ind: indirect calls and jumps; indmiss: those whose target")
out.append("differs from the last one at the same site. From 2 s of steady state: a 3 s run minus")
out.append("a 1 s run of each case, in one icount VM (scripts/bench-branches.sh).")
text = "\n".join(benchplot.kernel_lines() + out) + "\n"
os.makedirs(a.outdir, exist_ok=True)
base = os.path.join(a.outdir, a.name)
open(base + ".txt", "w").write(text)
open(base + ".csv", "w").write("\n".join(csv) + "\n")
print("bench (branch costs, icount):")
print(text, end="")

dat = base + ".dat"
with open(dat, "w") as f:
    for c in cases:
        f.write('"%s" %f %f %f\n' % (c, rows[c]["ret_miss"], rows[c]["ind"], rows[c]["ind_miss"]))
gp = """set terminal pngcairo size 1000,560 font ",10"
set output "{png}"
set title "bench trig-*: branch costs per operation (guest kernel, branchcost model), lower is better"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -35
set ylabel "per operation"
set yrange [0:*]
set grid ytics
plot "{dat}" using 2:xtic(1) title "mispredicted returns" lc rgb "#c0504d", \\
     "" using 3 title "indirect branches" lc rgb "#3a6ea5", \\
     "" using 4 title "mispredicted indirect" lc rgb "#9bbb59"
""".format(png=base + ".png", dat=dat)
benchplot.gnuplot(gp, base, dat)
