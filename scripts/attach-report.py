#!/usr/bin/env python3
"""Table of the attach-time benchmark (serial_test_tracing_multi_bench_attach).

Usage: attach-report.py --name NAME --outdir DIR --mode MODE RAW_LOG
Reads the 'tracing_multi_bench: key=value ...' lines, prints a table and
writes DIR/NAME.txt and DIR/NAME.csv.
"""
import argparse
import os
import sys

import benchplot

ap = argparse.ArgumentParser()
ap.add_argument("--name", required=True)
ap.add_argument("--outdir", required=True)
ap.add_argument("--mode", required=True)
ap.add_argument("raw")
a = ap.parse_args()

rows, extra, one, sites, contend, sleep = {}, [], [], [], [], []
for line in open(a.raw, errors="replace"):
    if not line.startswith("tracing_multi_bench:"):
        continue
    kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
    if kv.get("kind") == "contend":
        contend.append(kv)
    elif kv.get("kind") == "sleepable":
        sleep.append(kv)
    elif "attach_ms" in kv and "kind" in kv:
        rows[(int(kv["n"]), kv["kind"])] = kv
    elif kv.get("kind") == "one_func":
        one.append(kv)
    elif line.split()[1] == "memsite":
        sites.append(kv)
    else:
        extra.append(line.split(":", 1)[1].strip())
if not rows:
    sys.exit("attach-report: no results in %s" % a.raw)

kinds = ["fentry_multi", "kprobe_multi", "fentry"]
ns = sorted({n for n, _ in rows})
out = ["attach/detach time of one no-op program (ms, %s mode)" % a.mode, ""]
hdr = "%8s" % "N"
for k in kinds:
    hdr += " %14s %14s" % (k + " att", k + " det")
hdr += " %12s" % "att fm/km"
out.append(hdr)
csv = ["n,kind,attach_ms,detach_ms"]
for n in ns:
    s = "%8d" % n
    for k in kinds:
        r = rows.get((n, k))
        if r:
            s += " %14s %14s" % (r["attach_ms"], r["detach_ms"])
            csv.append("%d,%s,%s,%s" % (n, k, r["attach_ms"], r["detach_ms"]))
        else:
            s += " %14s %14s" % ("-", "-")
    fm, km = rows.get((n, "fentry_multi")), rows.get((n, "kprobe_multi"))
    s += " %12s" % ("%.3f" % (float(fm["attach_ms"]) / float(km["attach_ms"]))
                    if fm and km and float(km["attach_ms"]) else "-")
    out.append(s)
last = sorted(n for n, k in rows if k == "fentry_multi_last")
if last:
    # the same kinds on the last N functions of the list (BTF order: late in
    # kallsyms), where resolving names by walking kallsyms costs the most
    out += ["", "the last N functions of the list (late in kallsyms)", ""]
    out.append("%8s %14s %14s %14s %14s %12s" % ("N", "fentry_multi att", "fentry_multi det",
                                                "kprobe_multi att", "kprobe_multi det",
                                                "att fm/km"))
    for n in last:
        fm, km = rows.get((n, "fentry_multi_last")), rows.get((n, "kprobe_multi_last"))
        s = "%8d" % n
        for k, r in (("fentry_multi_last", fm), ("kprobe_multi_last", km)):
            if r:
                s += " %14s %14s" % (r["attach_ms"], r["detach_ms"])
                csv.append("%d,%s,%s,%s" % (n, k, r["attach_ms"], r["detach_ms"]))
            else:
                s += " %14s %14s" % ("-", "-")
        s += " %12s" % ("%.3f" % (float(fm["attach_ms"]) / float(km["attach_ms"]))
                        if fm and km and float(km["attach_ms"]) else "-")
        out.append(s)
if extra:
    out.append("")
    out += extra
if one:
    out += ["", "a link on one function while a multi-link traces others (ms, mean of 5)", "",
            "%8s %14s %14s %14s %14s" % ("traced", "multi att", "multi det", "plain att", "plain det")]
    for kv in one:
        out.append("%8s %14s %14s %14s %14s" % (kv["traced"], kv["multi_attach_ms"],
                   kv["multi_detach_ms"], kv["plain_attach_ms"], kv["plain_detach_ms"]))
if contend:
    out += ["", "a plain fentry link on one function, alone (idle) and while another thread"
            " attaches and detaches a link", "on all %s other functions in a loop (ms, mean of 20;"
            " the plain side at SCHED_FIFO)" % contend[0]["funcs"], "",
            "%14s %7s %9s %9s %9s %9s %9s %9s" % ("with", "cycles", "idle att", "idle det",
                                                  "att", "det", "att max", "att/idle")]
    for kv in contend:
        out.append("%14s %7s %9s %9s %9s %9s %9s %9s" % (
            kv["with"], kv["cycles"], kv["idle_attach_ms"], kv["idle_detach_ms"],
            kv["attach_ms"], kv["detach_ms"], kv["attach_max_ms"], kv["attach_ratio"]))
if sleep:
    out += ["", "a sleepable fentry.multi.s link (on per-function trampolines) and a fentry.multi"
            " link", "on the system calls that allow sleepable programs (ms)", "",
            "%8s %14s %14s %14s %14s %12s" % ("N", "multi.s att", "multi.s det", "multi att",
                                              "multi det", "att s/multi")]
    for kv in sleep:
        att = float(kv["multi_attach_ms"])
        out.append("%8s %14s %14s %14s %14s %12s" % (
            kv["funcs"], kv["multi_s_attach_ms"], kv["multi_s_detach_ms"],
            kv["multi_attach_ms"], kv["multi_detach_ms"],
            "%.1f" % (float(kv["multi_s_attach_ms"]) / att) if att else "-"))
        csv.append("%s,sleepable_multi_s,%s,%s" % (kv["funcs"], kv["multi_s_attach_ms"],
                                                   kv["multi_s_detach_ms"]))
        csv.append("%s,sleepable_multi,%s,%s" % (kv["funcs"], kv["multi_attach_ms"],
                                                 kv["multi_detach_ms"]))
if sites:
    # the structure each allocation site allocates (of the sites seen so far)
    what = {
        "kfunc_md_prepare_add": "struct kfunc_md (programs of a function)",
        "kfunc_md_dup_add": "struct kfunc_md (programs of a function)",
        "kfunc_md_dup": "struct kfunc_md (programs of a function)",
        "__kvmalloc_node_noprof": "the kfunc_md table (a large kmalloc)",
        "add_hash_entry": "ftrace_func_entry (filter hash, direct_functions)",
        "alloc_ftrace_hash": "ftrace hash buckets",
    }
    s0 = sites[0]
    out += ["", "memory the fentry.multi link on %s functions holds, by allocation site"
            % s0["n"] + " (kmem events, scripts/attach-memtrace.py);",
            "mem_per_func_bytes above is the growth of Slab + VmallocUsed, which misses objects"
            " that reuse free slots of slab pages", "",
            "%-36s %9s %11s %9s  %s" % ("site", "objects", "bytes", "per func", "allocates")]
    for kv in sites:
        out.append("%-36s %9s %11s %9s  %s" % (kv["site"], kv["count"], kv["bytes"],
                   kv["per_func"], what.get(kv["site"], "")))
    # vmalloc is not in the kmem events: VmallocUsed's growth in the same
    # attach (what is past a page or a few: the kfunc_md table, the link's
    # arrays of sites, BTF ids and cookies)
    mem = [l for l in extra if "kind=fentry_multi" in l and "vmalloc_kb=" in l]
    tot = [kv for kv in sites if kv["site"] == "(total)"]
    if mem and tot:
        mkv = dict(w.split("=", 1) for w in mem[-1].split() if "=" in w)
        n = int(s0["n"])
        vb = int(mkv["vmalloc_kb"]) * 1024
        out.append("%-36s %9s %11d %9.1f  %s" % ("(vmalloc, VmallocUsed)", "-", vb, vb / n,
                   "kfunc_md table, the link's arrays"))
        out.append("%-36s %9s %11d %9.1f" % ("(slab + vmalloc)", "-", int(tot[0]["bytes"]) + vb,
                   (int(tot[0]["bytes"]) + vb) / n))
text = "\n".join(benchplot.kernel_lines() + out) + "\n"
os.makedirs(a.outdir, exist_ok=True)
p = os.path.join(a.outdir, a.name)
open(p + ".txt", "w").write(text)
open(p + ".csv", "w").write("\n".join(csv) + "\n")
print(text, end="")
print("bench: wrote %s.{txt,csv}" % p)
