#!/usr/bin/env python3
"""Fold the uncommitted edits of the kernel tree into the patches that
introduced the lines they change, keeping the series' final form: each
hunk goes to the last patch that touched the lines it removes (for a hunk
that only adds lines, the lines around it), and is carried by every later
tree. So a comment reworded or a bug fixed in the final tree lands where
the code was born, and no later patch rewrites it (issue 29).

Usage: scripts/series-absorb.py [--dry-run] [TREE]
  TREE       the kernel tree (default build/linux); its HEAD branch is
             rewritten and the edits are then committed in it
  --dry-run  print where each hunk would go, change nothing
  --pure     leave out (in the working tree) the hunks that would make a
             patch change lines of an earlier one: those whose removed
             lines come from several patches, and those whose context a
             later patch changed

A hunk whose lines are all of the base (not of the series) is refused. A
hunk that does not apply to one of the trees it would go through (a later
patch changed its context) goes to the first patch from which on it
applies, and says so: `make rewrites` then counts it. New and deleted files are refused. Prints the old HEAD, to go
back with `git reset --hard OLD`; build the patches whose trees changed
(make build-each FIRST) and export.
"""
import os
import re
import subprocess
import sys
import tempfile

from series_lib import recommit

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def git(tree, *args, env=None, inp=None, check=True):
    r = subprocess.run(["git", "-C", tree, *args], capture_output=True,
                       text=True, env=env, input=inp)
    if check and r.returncode:
        sys.exit(f"series-absorb: git {' '.join(args)}: {r.stderr.strip()}")
    return r


def parse(diff):
    """[(path, header lines, [hunk lines])...] of a git diff"""
    files, cur = [], None
    for line in diff.split("\n"):
        if line.startswith("diff --git"):
            cur = [line.split(" b/")[-1], [line], []]
            files.append(cur)
        elif cur is None:
            continue
        elif line.startswith("@@"):
            cur[2].append([line])
        elif cur[2]:
            cur[2][-1].append(line)
        else:
            cur[1].append(line)
    for f in files:
        for h in f[2]:
            while h and h[-1] == "":
                h.pop()
    return files


BLAME = {}
# Context lines a hunk is applied with: fewer for one whose context a later
# patch changed; CTX[i] is the index for hunk i
CONTEXTS = ["-C3", "-C2", "-C1"]
CTX = {}


def origins(tree, number, path, start, count):
    """Patch numbers (0 for the base) of lines start..start+count-1 of HEAD"""
    if count <= 0:
        return []
    if path not in BLAME:
        out = git(tree, "blame", "--porcelain", "HEAD", "--", path).stdout
        res, cur = [], None
        for bl in out.split("\n"):
            p = bl.split()
            if len(p) >= 3 and len(p[0]) == 40:
                cur = number.get(p[0], 0)
            elif bl.startswith("\t"):
                res.append(cur)
        BLAME[path] = res
    return BLAME[path][start - 1:start - 1 + count]


def target_of(tree, number, path, hunk, nlines):
    """The patch a hunk goes to: the last that touched its removed lines,
    or, for a pure addition, the lines around it"""
    m = HUNK.match(hunk[0])
    old_start = int(m.group(1))
    body = hunk[1:]
    removed, line = [], old_start
    for b in body:
        if b.startswith("-"):
            removed.append(line)
            line += 1
        elif b.startswith(" "):
            line += 1
    if removed:
        got = []
        for ln in removed:
            got += origins(tree, number, path, ln, 1)
        mixed = len(set(g for g in got if g)) > 1
    else:
        # The lines around the insertion point, not the hunk's context
        before = 0
        for b in body:
            if b.startswith("+"):
                break
            before += 1
        at = old_start + before - 1
        lo = max(1, at)
        hi = min(nlines, at + 1)
        got = origins(tree, number, path, lo, hi - lo + 1)
        mixed = False
    return (max(got) if got else 0), mixed


def main():
    args = sys.argv[1:]
    dry = "--dry-run" in args
    pure = "--pure" in args
    args = [a for a in args if a not in ("--dry-run", "--pure")]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = args[0] if args else os.path.join(top, "build", "linux")
    commits = git(tree, "rev-list", "--reverse", "base..HEAD").stdout.split()
    if not commits:
        sys.exit("series-absorb: no series in base..HEAD")
    number = {c: i + 1 for i, c in enumerate(commits)}
    status = git(tree, "status", "--porcelain", "--untracked-files=no").stdout
    if not status.strip():
        sys.exit("series-absorb: nothing to absorb (no uncommitted edits)")
    for st in status.splitlines():
        if st[:2].strip() not in ("M",):
            sys.exit(f"series-absorb: only edits of existing files: {st}")
    # ABSORB_CONTEXT=1: smaller hunks, each more often of one patch
    diff = git(tree, "diff", f"-U{os.environ.get('ABSORB_CONTEXT', '3')}",
               "HEAD").stdout
    files = parse(diff)
    # (target, path, header, hunk)
    plan, out = [], []
    for path, hdr, hunks in files:
        nlines = int(git(tree, "show", f"HEAD:{path}").stdout.count("\n"))
        for h in hunks:
            t, mixed = target_of(tree, number, path, h, nlines)
            if t == 0:
                sys.exit(f"series-absorb: {path} {h[0]}: the base's lines "
                         "only; make it a patch of its own")
            if pure and mixed:
                print(f"{path} {h[0].split('@@')[1].strip()}: lines of "
                      "several patches, left out")
                out.append((path, hdr, h))
                continue
            plan.append((t, path, hdr, h))
    # A hunk whose context a later patch changed goes to the first patch
    # from which on it applies to every tree
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, "index"))
        first0 = min(t for t, *_ in plan)
        target = [t for t, *_ in plan]
        for i, (t, path, hdr, h) in enumerate(plan):
            with open(os.path.join(tmp, f"hunk{i}"), "w") as f:
                f.write("\n".join(hdr + h) + "\n")
        for n in range(first0, len(commits)):
            git(tree, "read-tree", commits[n - 1], env=env)
            for i, (t, path, hdr, h) in enumerate(plan):
                if t > n or target[i] > n:
                    continue
                for c in CONTEXTS[CTX.get(i, 0):]:
                    if not git(tree, "apply", "--cached", "--check", c,
                               os.path.join(tmp, f"hunk{i}"), env=env,
                               check=False).returncode:
                        break
                    # Less context from here on, for every tree
                    CTX[i] = CTX.get(i, 0) + 1
                else:
                    target[i] = n + 1
                    CTX[i] = 0
        kept, kctx = [], {}
        for i, (t, path, hdr, h) in enumerate(plan):
            if target[i] != t:
                print(f"{path} {h[0].split('@@')[1].strip()}: its context "
                      f"changes up to patch {target[i] - 1}"
                      + (", left out" if pure else ""))
                if pure:
                    out.append((path, hdr, h))
                    continue
            kctx[len(kept)] = CTX.get(i, 0)
            kept.append((target[i], path, hdr, h))
        plan[:] = kept
        CTX.clear()
        CTX.update(kctx)
    for t, path, _, h in plan:
        subj = git(tree, "log", "-1", "--format=%s",
                   commits[t - 1]).stdout.strip()
        print(f"{path} {h[0].split('@@')[1].strip()} -> {t} {subj[:60]}")
    if dry:
        return
    old_head = commits[-1]
    first = min(t for t, *_ in plan)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, "index"))

        for i, (t, path, hdr, h) in enumerate(plan):
            with open(os.path.join(tmp, f"hunk{i}"), "w") as f:
                f.write("\n".join(hdr + h) + "\n")
        parent = git(tree, "rev-parse", f"{commits[0]}^").stdout.strip()
        for n, c in enumerate(commits, 1):
            t = git(tree, "rev-parse", f"{c}^{{tree}}").stdout.strip()
            todo = [i for i, p in enumerate(plan) if p[0] <= n]
            if todo:
                git(tree, "read-tree", c, env=env)
                for i in todo:
                    r = git(tree, "apply", "--cached",
                            CONTEXTS[CTX.get(i, 0)],
                            os.path.join(tmp, f"hunk{i}"), env=env,
                            check=False)
                    if r.returncode:
                        sys.exit(f"series-absorb: the edits do not apply to "
                                 f"the tree of patch {n}: "
                                 f"{r.stderr.strip()}; nothing changed")
                t = git(tree, "write-tree", env=env).stdout.strip()
            parent = recommit(tree, c, t, parent)
        # The new HEAD must be the edited working tree, but for the hunks
        # left out
        git(tree, "read-tree", "HEAD", env=env)
        git(tree, "add", "-u", "-f", ".", env=env)
        want = git(tree, "write-tree", env=env).stdout.strip()
        got = git(tree, "rev-parse", f"{parent}^{{tree}}").stdout.strip()
        if out:
            dfile = os.path.join(tmp, "out")
            with open(dfile, "w") as f:
                f.write("\n".join(sum((hdr + h for _, hdr, h in out), []))
                        + "\n")
            git(tree, "read-tree", got, env=env)
            git(tree, "apply", "--cached", dfile, env=env)
            got = git(tree, "write-tree", env=env).stdout.strip()
        if want != got:
            sys.exit("series-absorb: the result differs from the edited "
                     "tree; nothing changed")
    git(tree, "reset", "-q", "--soft", parent)
    git(tree, "reset", "-q")
    print(f"series-absorb: absorbed into patches "
          f"{sorted(set(t for t, *_ in plan))}; first changed tree: patch "
          f"{first}; old HEAD {old_head}")


if __name__ == "__main__":
    main()
