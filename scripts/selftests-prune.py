#!/usr/bin/env python3
"""Make a pruned copy of tools/testing/selftests/bpf that holds only the
prog_tests listed in selftests/tests.txt, the BPF programs they (and bench)
use, and everything else unchanged. Prints the make variable overrides
(LSKELS=..., etc.) that keep the upstream Makefile consistent with the copy.

Usage: selftests-prune.py TREE TESTS_TXT
"""
import os
import re
import shutil
import sys

tree, tests_txt = sys.argv[1], sys.argv[2]
src = os.path.join(tree, "tools/testing/selftests/bpf")
dst = os.path.join(tree, "tools/testing/selftests/bpf-harness")


def die(msg):
    sys.stderr.write("selftests-prune: error: %s\n" % msg)
    sys.exit(1)


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


# 1. Which prog_tests files.
names, extra = [], []
for line in read(tests_txt).splitlines():
    line = line.split("#", 1)[0].split()
    if not line or line[0].startswith("!"):
        continue
    names.append(line[0].lstrip("~").split("/")[0])
    extra += [w[1:] for w in line[1:] if w.startswith("+")]

pt_dir = os.path.join(src, "prog_tests")
pt_files = sorted(f for f in os.listdir(pt_dir) if f.endswith(".c"))
func_re = re.compile(r"^void (?:serial_)?test_(\w+)\s*\(", re.M)
owner = {}
own_dir = os.path.join(os.path.dirname(os.path.abspath(tests_txt)), "prog_tests")
own_files = sorted(f for f in os.listdir(own_dir) if f.endswith(".c")) if os.path.isdir(own_dir) else []
for d, files in ((pt_dir, pt_files), (own_dir, own_files)):
    for f in files:
        for m in func_re.finditer(read(os.path.join(d, f))):
            owner.setdefault(m.group(1), f)
keep_pt = set()
for n in names:
    if n not in owner:
        die("test '%s' from %s is not defined in any prog_tests/*.c" % (n, tests_txt))
    if owner[n] not in own_files:
        keep_pt.add(owner[n])
for e in extra:
    if not os.path.exists(os.path.join(pt_dir, e + ".c")):
        die("extra source prog_tests/%s.c (from %s) does not exist" % (e, tests_txt))
    keep_pt.add(e + ".c")

# 2. Which progs: every skeleton or object name referenced by kept sources,
#    followed through linked skeletons and #include "x.c".
mk = read(os.path.join(src, "Makefile"))
deps = {}
for m in re.finditer(r"^(\w+)\.skel\.h-deps\s*:=\s*(.*)$", mk, re.M):
    deps[m.group(1)] = [d.replace(".bpf.o", "") for d in m.group(2).split()]
progs_dir = os.path.join(src, "progs")
all_progs = {f[:-2] for f in os.listdir(progs_dir) if f.endswith(".c")}
# The project's own BPF programs (selftests/progs/*.c), for its own prog_tests
own_progs_dir = os.path.join(os.path.dirname(os.path.abspath(tests_txt)), "progs")
own_progs = {f[:-2] for f in os.listdir(own_progs_dir) if f.endswith(".c")} \
    if os.path.isdir(own_progs_dir) else set()
clash = own_progs & all_progs
if clash:
    die("selftests/progs/%s.c has the name of an upstream program" % sorted(clash)[0])

ref_re = re.compile(r"\b(\w+)\.(?:l?skel\.h|subskel\.h|bpf\.o)\b")
inc_re = re.compile(r'#include\s+"(\w+)\.c"')
scan = [os.path.join(pt_dir, f) for f in keep_pt]
scan += [os.path.join(own_dir, owner[n]) for n in names if owner[n] in own_files]
for d in ("", "benchs"):
    base = os.path.join(src, d)
    scan += [os.path.join(base, f) for f in os.listdir(base) if f.endswith((".c", ".h"))]
keep_progs, keep_own_progs, linked = set(), set(), set()
todo = list(scan)
seen = set()
while todo:
    path = todo.pop()
    if path in seen or not os.path.exists(path):
        continue
    seen.add(path)
    text = read(path)
    found = set(ref_re.findall(text))
    if path.startswith(progs_dir) or path.startswith(own_progs_dir):
        found |= set(inc_re.findall(text))
    for name in found:
        if name in deps:
            linked.add(name)
            found_deps = deps[name]
        else:
            found_deps = [name]
        for p in found_deps:
            if p in own_progs and p not in keep_own_progs:
                keep_own_progs.add(p)
                todo.append(os.path.join(own_progs_dir, p + ".c"))
            elif p in all_progs and p not in keep_progs:
                keep_progs.add(p)
                todo.append(os.path.join(progs_dir, p + ".c"))

# 3. Copy with rsync: mtimes follow the tree, so make rebuilds only what
#    changed there. Build products in the copy are excluded (and so kept).
import subprocess
import tempfile

excl = ["/harness.mk", "/.harness-prog-tests", "/tools/", "/no_alu32/", "/cpuv4/", "/bpf_gcc/", "/prog_tests/tests.h",
        "*.o", "*.ko", "*.mod", "*.mod.c", ".*.cmd", "modules.order",
        "Module.symvers", ".tmp_*"]
excl += ["/prog_tests/%s" % f for f in pt_files if f not in keep_pt]
excl += ["/prog_tests/%s" % f for f in own_files]
excl += ["/progs/%s.c" % p for p in sorted(all_progs - keep_progs)]
excl += ["/progs/%s.c" % p for p in sorted(own_progs)]
with tempfile.NamedTemporaryFile("w", suffix=".excl") as ex:
    ex.write("\n".join(excl) + "\n")
    ex.flush()
    subprocess.check_call(["rsync", "-a", "--delete", "--exclude-from", ex.name,
                           src + "/", dst + "/"])

# The project's own prog_tests (selftests/prog_tests/*.c, for harness checks)
# are copied in when the list names them.
own = os.path.join(os.path.dirname(os.path.abspath(tests_txt)), "prog_tests")
if os.path.isdir(own):
    for f in sorted(os.listdir(own)):
        d = os.path.join(dst, "prog_tests", f)
        if f.endswith(".c") and f in [owner.get(n) for n in names]:
            shutil.copy2(os.path.join(own, f), d)
        elif os.path.exists(d):
            os.unlink(d)

for p in sorted(own_progs):
    d = os.path.join(dst, "progs", p + ".c")
    if p in keep_own_progs:
        shutil.copy2(os.path.join(own_progs_dir, p + ".c"), d)
    elif os.path.exists(d):
        os.unlink(d)

# tests.h is generated from the prog_tests present; make does not notice a
# file that went away, so drop it when the set changed.
stamp = os.path.join(dst, ".harness-prog-tests")
now = "\n".join(sorted(os.listdir(os.path.join(dst, "prog_tests")))) + "\n"
if not os.path.exists(stamp) or open(stamp).read() != now:
    hdr = os.path.join(dst, "prog_tests", "tests.h")
    if os.path.exists(hdr):
        os.unlink(hdr)
    open(stamp, "w").write(now)

# The test objects' .d files name skeletons relative to OUTPUT, while make
# runs in the source dir: let make find them there on a rebuild.
with open(os.path.join(dst, "harness.mk"), "w") as f:
    f.write("# Written by the project's selftests-prune.py; not upstream.\n"
            "vpath %.skel.h $(OUTPUT)\nvpath %.lskel.h $(OUTPUT)\n"
            "vpath %.subskel.h $(OUTPUT)\ninclude Makefile\n")


def filt(var):
    m = re.search(r"^%s\s*:=\s*((?:.*\\\n)*.*)$" % var, mk, re.M)
    words = m.group(1).replace("\\\n", " ").split()
    return [w for w in words if w.replace(".c", "").replace(".skel.h", "") in
            (keep_progs | linked)]


print("LSKELS=%s" % " ".join(filt("LSKELS")))
print("LSKELS_EXTRA=%s" % " ".join(filt("LSKELS_EXTRA")))
print("LINKED_SKELS=%s" % " ".join(w for w in filt("LINKED_SKELS")))
sys.stderr.write("selftests-prune: %d prog_tests, %d progs in %s\n" %
                 (len(keep_pt), len(keep_progs), dst))
