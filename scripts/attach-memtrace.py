#!/usr/bin/env python3
"""Break the memory of a tracing multi-link down by allocation site.

Usage: attach-memtrace.py [TRACE]   (default: /sys/kernel/tracing/trace)

Runs in the guest after `TRACING_MULTI_BENCH_MEMTRACE=1 test_progs -a
tracing_multi_bench_attach`, which attaches fentry.multi to every traceable
function with the kmem events kmalloc, kfree, kmem_cache_alloc and
kmem_cache_free on, between two trace markers (memtrace() in
prog_tests/tracing_multi_bench.c). An object allocated between the markers
and not freed before the second one is held by the link (or by something
else the kernel did meanwhile: the sites tell). Prints one line per site,
"tracing_multi_bench: memsite kind=K n=N site=S count=C bytes=B
per_func=P", and a total; attach-report.py turns them into a table.

Pointers in these events are hashed (%p), the same way for the same
pointer, which is all the matching needs. Slab only: what kvmalloc() gets
from vmalloc and pages from the page allocator are not in these events
(VmallocUsed in the report's meminfo figure covers the first).
"""
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "/sys/kernel/tracing/trace"
ev_re = re.compile(r"\s(kmalloc|kmem_cache_alloc|kfree|kmem_cache_free): "
                   r"call_site=(\S+) ptr=(\S+)(?: bytes_req=\d+ bytes_alloc=(\d+))?")
mark_re = re.compile(r"tracing_multi_bench memtrace (begin|end) kind=(\S+) n=(\d+)")

live, freed_before, kind, n, inside, found = {}, 0, None, 0, False, 0
for line in open(path, errors="replace"):
    m = mark_re.search(line)
    if m:
        if m.group(1) == "begin":
            live, freed_before, inside = {}, 0, True
            kind, n = m.group(2), int(m.group(3))
            continue
        if not inside:
            continue
        inside, found = False, found + 1
        sites = {}
        for site, size in live.values():
            c, b = sites.get(site, (0, 0))
            sites[site] = (c + 1, b + size)
        total = 0
        for site, (c, b) in sorted(sites.items(), key=lambda kv: -kv[1][1]):
            total += b
            # sites of less than one byte per function are noise, summed up
            if b >= n:
                print("tracing_multi_bench: memsite kind=%s n=%d site=%s count=%d bytes=%d per_func=%.1f"
                      % (kind, n, site, c, b, b / n))
        small = sum(b for c, b in sites.values() if b < n)
        print("tracing_multi_bench: memsite kind=%s n=%d site=(other) count=%d bytes=%d per_func=%.1f"
              % (kind, n, sum(c for c, b in sites.values() if b < n), small, small / n))
        print("tracing_multi_bench: memsite kind=%s n=%d site=(total) count=%d bytes=%d per_func=%.1f"
              " freed_earlier_objects=%d" % (kind, n, len(live), total, total / n, freed_before))
        continue
    if not inside:
        continue
    m = ev_re.search(line)
    if not m:
        continue
    ev, site, ptr, size = m.groups()
    if ev in ("kmalloc", "kmem_cache_alloc"):
        live[ptr] = (site.split("+")[0], int(size or 0))
    elif live.pop(ptr, None) is None:
        freed_before += 1

if inside:
    sys.exit("attach-memtrace: no end marker after the begin one in %s" % path)
if not found:
    sys.exit("attach-memtrace: no memtrace markers in %s (trace buffer too small? "
             "raise buffer_size_kb)" % path)
