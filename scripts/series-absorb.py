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


def origins(tree, number, path, start, count):
    """Patch numbers (0 for the base) of lines start..start+count-1 of HEAD"""
    if count <= 0:
        return []
    out = git(tree, "blame", "--porcelain", "-L", f"{start},+{count}",
              "HEAD", "--", path).stdout
    res, cur = [], None
    for bl in out.split("\n"):
        p = bl.split()
        if len(p) >= 3 and len(p[0]) == 40:
            cur = number.get(p[0], 0)
        elif bl.startswith("\t"):
            res.append(cur)
    return res


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
    else:
        lo = max(1, old_start - 1)
        hi = min(nlines, old_start + 1)
        got = origins(tree, number, path, lo, hi - lo + 1)
    return max(got) if got else 0


def main():
    args = sys.argv[1:]
    dry = "--dry-run" in args
    args = [a for a in args if a != "--dry-run"]
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
    diff = git(tree, "diff", "HEAD").stdout
    files = parse(diff)
    # (target, path, header, hunk)
    plan = []
    for path, hdr, hunks in files:
        nlines = int(git(tree, "show", f"HEAD:{path}").stdout.count("\n"))
        for h in hunks:
            t = target_of(tree, number, path, h, nlines)
            if t == 0:
                sys.exit(f"series-absorb: {path} {h[0]}: the base's lines "
                         "only; make it a patch of its own")
            plan.append((t, path, hdr, h))
    # A hunk whose context a later patch changed goes to the first patch
    # from which on it applies to every tree
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, "index"))
        for i, (t, path, hdr, h) in enumerate(plan):
            dfile = os.path.join(tmp, "hunk")
            with open(dfile, "w") as f:
                f.write("\n".join(hdr + h) + "\n")
            n = t
            while n < len(commits):
                git(tree, "read-tree", commits[n - 1], env=env)
                if git(tree, "apply", "--cached", "--check", dfile, env=env,
                       check=False).returncode:
                    t = n + 1
                n += 1
            if t != plan[i][0]:
                print(f"{path} {h[0].split('@@')[1].strip()}: its context "
                      f"changes up to patch {t - 1}")
            plan[i] = (t, path, hdr, h)
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

        def diff_upto(n):
            out = []
            for path, hdr, hunks in files:
                sel = [h for (t, p, _, h) in plan if p == path and t <= n]
                if sel:
                    out += hdr
                    for h in sel:
                        out += h
            return "\n".join(out) + "\n" if out else ""

        parent = git(tree, "rev-parse", f"{commits[0]}^").stdout.strip()
        for n, c in enumerate(commits, 1):
            t = git(tree, "rev-parse", f"{c}^{{tree}}").stdout.strip()
            d = diff_upto(n) if n >= first else ""
            if d:
                dfile = os.path.join(tmp, f"d{n}")
                with open(dfile, "w") as f:
                    f.write(d)
                git(tree, "read-tree", c, env=env)
                r = git(tree, "apply", "--cached", dfile, env=env,
                        check=False)
                if r.returncode:
                    sys.exit(f"series-absorb: the edits do not apply to the "
                             f"tree of patch {n}: {r.stderr.strip()}; "
                             "nothing changed")
                t = git(tree, "write-tree", env=env).stdout.strip()
            meta = git(tree, "log", "-1", "--format=%an%x00%ae%x00%aD%x00"
                       "%cn%x00%ce%x00%cD", c).stdout.strip().split("\0")
            cenv = dict(os.environ, GIT_AUTHOR_NAME=meta[0],
                        GIT_AUTHOR_EMAIL=meta[1], GIT_AUTHOR_DATE=meta[2],
                        GIT_COMMITTER_NAME=meta[3],
                        GIT_COMMITTER_EMAIL=meta[4],
                        GIT_COMMITTER_DATE=meta[5])
            msg = git(tree, "log", "-1", "--format=%B", c).stdout
            parent = git(tree, "commit-tree", t, "-p", parent, env=cenv,
                         inp=msg).stdout.strip()
        # The new HEAD must be the edited working tree
        git(tree, "read-tree", "HEAD", env=env)
        git(tree, "add", "-u", "-f", ".", env=env)
        want = git(tree, "write-tree", env=env).stdout.strip()
        got = git(tree, "rev-parse", f"{parent}^{{tree}}").stdout.strip()
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
