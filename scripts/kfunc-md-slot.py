#!/usr/bin/env python3
"""Print the home slot of functions in the kfunc_md table (patch 18).

Usage: kfunc-md-slot.py [--count N] KBUILD_DIR FUNC...

The table has max(16, roundup_pow_of_two(2 * N)) slots for N traced
functions; a function's home slot is hash_64(ftrace site, log2(slots)),
i.e. (site * GOLDEN_RATIO_64) >> (64 - log2(slots)), and the site is the
function's address, plus 4 (the ENDBR) with CONFIG_X86_KERNEL_IBT.
Functions traced together that share a home slot collide: all but the
first inserted take a second probe on every lookup. The table's header is
in front of the slots, in no function's way (until 2026-11-25 it was
slot 0, which every function whose home slot is 0 collided with). The
bench prints this for the functions its multi-link cases trace.
"""
import argparse
import os
import sys

GOLDEN_RATIO_64 = 0x61C8864680B583EB
MIN_SLOTS = 16

ap = argparse.ArgumentParser()
ap.add_argument("--count", type=int, default=1, help="functions in the table")
ap.add_argument("kbuild")
ap.add_argument("funcs", nargs="+")
a = ap.parse_args()

smap = os.path.join(a.kbuild, "System.map")
config = os.path.join(a.kbuild, ".config")
try:
    addrs = {}
    for line in open(smap):
        f = line.split()
        if len(f) == 3 and f[1] in "tT":
            addrs.setdefault(f[2], int(f[0], 16))
    ibt = "CONFIG_X86_KERNEL_IBT=y\n" in open(config).readlines()
except OSError as e:
    sys.exit("kfunc-md-slot: %s (build the kernel first)" % e)

slots = MIN_SLOTS
while slots < 2 * a.count:
    slots *= 2
bits = slots.bit_length() - 1
homes = {}
for name in a.funcs:
    if name not in addrs:
        print("%s: not in %s" % (name, smap))
        continue
    site = addrs[name] + (4 if ibt else 0)
    homes[name] = (site, ((site * GOLDEN_RATIO_64) & (2**64 - 1)) >> (64 - bits))
for name, (site, home) in homes.items():
    others = [n for n, (_, h) in homes.items() if h == home and n != name]
    print("%s: site %#x, home slot %d of %d%s" % (
        name, site, home, slots,
        " (same as %s, if traced together)" % ", ".join(others) if others else ""))
