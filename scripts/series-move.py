#!/usr/bin/env python3
"""Move a change into an earlier patch of the series, keeping every later
tree: the tool for taking rewrites out of the series (issue 29).

Usage: scripts/series-move.py K J DIFF [TREE]
  K     the number of the patch that takes the change (1 = first of
        base..HEAD)
  J     the number of the later patch that makes the change today (K < J)
  DIFF  the change, a diff that applies to the tree of patch J-1 (often a
        part of patch J's own diff: its hunks that rewrite patch K's code)
  TREE  the kernel tree (default build/linux); its HEAD branch is rewritten

The change is applied to the trees of patches K..J-1 (so patch K adds it,
and patches K+1..J-1 carry it along); patches J.. keep their trees, so
patch J no longer makes the change and the final tree is the same.
Messages and authors are kept. Refuses if the change does not apply to one
of those trees, or if the final tree would differ. Prints the old HEAD, to
go back with `git reset --hard OLD`. Build patches K..J-1 afterwards
(make build-each), as their trees changed.
"""
import os
import subprocess
import sys
import tempfile

from series_lib import recommit


def git(tree, *args, env=None, inp=None):
    r = subprocess.run(["git", "-C", tree, *args], capture_output=True,
                       text=True, env=env, input=inp)
    if r.returncode:
        sys.exit(f"series-move: git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    try:
        k, j = int(sys.argv[1]), int(sys.argv[2])
    except ValueError:
        sys.exit("series-move: K and J are patch numbers")
    diff = os.path.abspath(sys.argv[3])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = sys.argv[4] if len(sys.argv) == 5 else os.path.join(
        top, "build", "linux")
    if not os.path.isfile(diff):
        sys.exit(f"series-move: no diff file {diff}")
    if git(tree, "status", "--porcelain", "--untracked-files=no"):
        sys.exit("series-move: the tree has uncommitted changes")
    commits = git(tree, "rev-list", "--reverse", "base..HEAD").split()
    if not 1 <= k < j <= len(commits):
        sys.exit(f"series-move: need 1 <= K < J <= {len(commits)}")
    old_head = commits[-1]
    parent = git(tree, "rev-parse", f"{commits[0]}^")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, "index"))
        for n, c in enumerate(commits, 1):
            if k <= n < j:
                git(tree, "read-tree", c, env=env)
                r = subprocess.run(["git", "-C", tree, "apply", "--cached",
                                    diff], capture_output=True, text=True,
                                   env=env)
                if r.returncode:
                    sys.exit(f"series-move: the change does not apply to "
                             f"patch {n}: {r.stderr.strip()}")
                t = git(tree, "write-tree", env=env)
            else:
                t = git(tree, "rev-parse", f"{c}^{{tree}}")
            parent = recommit(tree, c, t, parent)
    if git(tree, "rev-parse", f"{parent}^{{tree}}") != \
            git(tree, "rev-parse", f"{old_head}^{{tree}}"):
        sys.exit("series-move: the final tree would differ; nothing changed")
    git(tree, "reset", "-q", "--hard", parent)
    print(f"series-move: patch {j}'s change moved into patch {k}; "
          f"old HEAD {old_head}")


if __name__ == "__main__":
    main()
