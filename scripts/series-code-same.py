#!/usr/bin/env python3
"""Check that a change of the kernel tree touches comments only, so that it
needs no build: C comments are stripped and white space collapsed on both
sides before comparing.

Usage: scripts/series-code-same.py [TREE]           the uncommitted edits
       scripts/series-code-same.py [TREE] OLD NEW   two versions of the series
  TREE  the kernel tree (default build/linux)
  With OLD and NEW (refs of TREE, each base..REF with as many patches), every
  patch's tree is compared with its counterpart: each then builds as before.
Prints a line per file (edits) or per patch (versions), CODE where code
differs; exits 1 if any does.
"""
import os
import re
import subprocess
import sys


def strip(s):
    """@s without C comments, string literals kept, white space collapsed"""
    out, i, n = [], 0, len(s)
    while i < n:
        if s.startswith("/*", i):
            j = s.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif s.startswith("//", i):
            j = s.find("\n", i)
            i = n if j < 0 else j
        elif s[i] in "\"'":
            q, j = s[i], i + 1
            while j < n and s[j] != q:
                j += 2 if s[j] == "\\" else 1
            out.append(s[i:j + 1])
            i = j + 1
        else:
            out.append(s[i])
            i += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()


def git(tree, *args, check=True):
    return subprocess.run(["git", "-C", tree, *args], capture_output=True,
                          text=True, check=check).stdout


def show(tree, rev, path):
    r = subprocess.run(["git", "-C", tree, "show", f"{rev}:{path}"],
                       capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def edits(tree):
    bad = 0
    for f in git(tree, "diff", "--name-only", "HEAD").split():
        old = show(tree, "HEAD", f)
        path = os.path.join(tree, f)
        new = open(path).read() if os.path.exists(path) else None
        same = old is not None and new is not None and strip(old) == strip(new)
        print(f"{'ok  ' if same else 'CODE'} {f}")
        bad |= not same
    return bad


def versions(tree, old, new):
    o = git(tree, "rev-list", "--reverse", f"base..{old}").split()
    n = git(tree, "rev-list", "--reverse", f"base..{new}").split()
    if len(o) != len(n):
        sys.exit(f"series-code-same: {old} has {len(o)} patches, {new} {len(n)}")
    bad = 0
    for i, (a, b) in enumerate(zip(o, n), 1):
        files = git(tree, "diff", "--name-only", a, b).split()
        code = []
        for f in files:
            x, y = show(tree, a, f), show(tree, b, f)
            if x is None or y is None or strip(x) != strip(y):
                code.append(f)
        print(f"{i:2d} {len(files):3d} files differ"
              + (f"; CODE: {' '.join(code)}" if code else ""))
        bad |= bool(code)
    return bad


def main():
    args = sys.argv[1:]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = os.path.join(top, "build", "linux")
    if len(args) in (1, 3):
        tree = args.pop(0)
    if len(args) == 2:
        sys.exit(versions(tree, *args))
    if args:
        sys.exit(__doc__)
    sys.exit(edits(tree))


if __name__ == "__main__":
    main()
