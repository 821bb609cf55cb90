#!/usr/bin/env python3
"""Count, per patch of the series, the lines it deletes (or changes) that an
earlier patch of the series added: the lines of each hunk's old side are
blamed on the patch's parent commit, and those whose origin is a commit of
the series count. A series that introduces its code in its final form has
none outside its performance part (issue 29).

Usage: scripts/series-rewrites.py [TREE] [--perf-from N] [--check] [--max N] [--lines]
  TREE         the kernel tree (default build/linux), series = base..HEAD
  --perf-from  the number of the first patch of the performance part,
               whose patches may rewrite earlier code (default: the
               patches whose message says "Performance part of the
               series", which come last)
  --check      exit 1 if a patch before the performance part rewrites any
  --max N      exit 1 if those patches rewrite more than N lines in all (a
               ceiling that make check holds, so that the count only falls)
  --lines      also print each such line outside the performance part:
               "J <- K path:line: text" (patch J changes the line of the
               parent's tree at path:line, which patch K added)
Prints one line per patch that rewrites lines: its number, the count, and
the patches the lines came from; then a total.
"""
import collections
import os
import re
import subprocess
import sys


PERF_MARK = "Performance part of the series"


def git(tree, *args):
    return subprocess.run(["git", "-C", tree, *args], check=True,
                          capture_output=True, text=True).stdout


def int_option(args, flag, what, default):
    """The number after @flag in @args, both taken out; else @default"""
    if flag not in args:
        return default
    i = args.index(flag)
    try:
        value = int(args[i + 1])
    except (IndexError, ValueError):
        sys.exit(f"series-rewrites: {flag} needs {what}")
    del args[i:i + 2]
    return value


def main():
    args = sys.argv[1:]
    check = "--check" in args
    show = "--lines" in args
    perf_from = int_option(args, "--perf-from", "a patch number", None)
    limit = int_option(args, "--max", "a number of lines", 0 if check else None)
    args = [a for a in args if a not in ("--check", "--lines")]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = args[0] if args else os.path.join(top, "build", "linux")
    if not os.path.isdir(os.path.join(tree, ".git")):
        sys.exit(f"series-rewrites: no git tree at {tree}")

    commits = git(tree, "rev-list", "--reverse", "base..HEAD").split()
    perf = set()
    if perf_from is None:
        for c in commits:
            if PERF_MARK in git(tree, "log", "-1", "--format=%B", c):
                perf.add(c)
    number = {c: i + 1 for i, c in enumerate(commits)}
    hunk = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+")
    total = bad = 0
    for c in commits:
        n = number[c]
        origins = collections.Counter()
        lines = []
        diff = git(tree, "diff", "-U0", "--no-renames", f"{c}^", c)
        path = None
        for line in diff.splitlines():
            if line.startswith("--- "):
                path = line[6:] if line.startswith("--- a/") else None
                continue
            m = hunk.match(line)
            if not m or path is None:
                continue
            start, count = int(m.group(1)), int(m.group(2) or "1")
            if count == 0:
                continue
            blame = git(tree, "blame", "--porcelain", "-L",
                        f"{start},+{count}", f"{c}^", "--", path)
            origin = lineno = None
            for bl in blame.splitlines():
                if bl.startswith("\t"):
                    if origin is not None:
                        lines.append(f"{n} <- {origin} {path}:{lineno}: {bl[1:]}")
                    continue
                parts = bl.split()
                if len(parts) >= 3 and len(parts[0]) == 40:
                    origin = number.get(parts[0])
                    lineno = parts[2]
                    if origin is not None:
                        origins[origin] += 1
        cnt = sum(origins.values())
        if not cnt:
            continue
        total += cnt
        if perf_from is not None:
            in_perf = n >= perf_from
        else:
            in_perf = c in perf
        if not in_perf:
            bad += cnt
        subject = git(tree, "log", "-1", "--format=%s", c).strip()
        frm = ", ".join(f"{o}: {k}" for o, k in sorted(origins.items()))
        tag = " (performance part)" if in_perf else ""
        print(f"{n:3d} {cnt:5d} lines of earlier patches{tag}  {subject}")
        print(f"            from patch (lines): {frm}")
        if show and not in_perf:
            for line in lines:
                print(f"            {line}")
    print(f"series-rewrites: {total} lines deleted or changed that the series "
          f"added, {bad} outside the performance part")
    if limit is not None and bad > limit:
        sys.exit(f"series-rewrites: {bad} lines rewritten outside the "
                 f"performance part, more than {limit}")


if __name__ == "__main__":
    main()
