#!/usr/bin/env python3
"""Move a patch of the series earlier, keeping every tree from its old
place on: the tool for putting fixes of the base first, or a patch before
the ones that build on it (issue 29).

Usage: scripts/series-reorder.py J K [TREE]
  J     the number of the patch to move (1 = first of base..HEAD)
  K     the number of the patch it is to follow (0: the first), K < J - 1
  TREE  the kernel tree (default build/linux); its HEAD branch is rewritten

Patch J's diff is applied to the tree of patch K (giving the moved patch)
and to the trees of patches K+1..J-1, with CONTEXT lines of context
(environment, default 3) or by a three-way merge that has no conflict;
the patches after J keep their trees. With EDIT=script.py in the
environment, the script is run on a checkout of each of those trees (its
one argument, the directory) instead, and makes the change itself. Messages and authors are kept. Refuses if the diff does not apply
to one of those trees, or if the final tree would differ. Prints the old
HEAD, to go back with `git reset --hard OLD`. Build patches K+1..J
afterwards (make build-each), as their trees changed.
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
        sys.exit(f"series-reorder: git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    try:
        j, k = int(sys.argv[1]), int(sys.argv[2])
    except ValueError:
        sys.exit("series-reorder: J and K are patch numbers")
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = sys.argv[3] if len(sys.argv) == 4 else os.path.join(
        top, "build", "linux")
    if git(tree, "status", "--porcelain", "--untracked-files=no").strip():
        sys.exit("series-reorder: the tree has uncommitted changes")
    commits = git(tree, "rev-list", "--reverse", "base..HEAD").split()
    if not 0 <= k < j - 1 or j > len(commits):
        sys.exit(f"series-reorder: need 0 <= K < J - 1, J <= {len(commits)}")
    old_head = commits[-1]
    moved = commits[j - 1]
    diff = git(tree, "diff", "--binary", f"{moved}^", moved)
    parent = git(tree, "rev-parse", f"{commits[0]}^").strip()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(tmp, "index"))
        dfile = os.path.join(tmp, "diff")
        with open(dfile, "w") as f:
            f.write(diff)

        edit = os.environ.get("EDIT")
        wt = os.path.join(tmp, "wt")
        if edit:
            git(tree, "worktree", "add", "-q", "--detach", wt, commits[0])

        def with_edit(base, n):
            git(wt, "checkout", "-q", "-f", "--detach", base)
            r = subprocess.run([sys.executable, os.path.abspath(edit), wt],
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"series-reorder: {edit} failed on the tree of "
                         f"patch {n}: {r.stderr.strip()}")
            git(wt, "add", "-A", "-f", ".")
            return git(wt, "write-tree").strip()

        def with_diff(base, n):
            if edit:
                return with_edit(base, n)
            git(tree, "read-tree", base, env=env)
            # With less context if need be (CONTEXT=1 in the environment),
            # for a hunk whose neighbour lines the patches in between
            # changed, or by a three-way merge without conflicts: then
            # build them all
            for ctx in (["-C3"], ["-C" + os.environ.get("CONTEXT", "3")],
                        ["-3"]):
                r = subprocess.run(["git", "-C", tree, "apply", "--cached",
                                    *ctx, dfile], capture_output=True,
                                   text=True, env=env)
                if not r.returncode:
                    break
            if r.returncode:
                sys.exit(f"series-reorder: patch {j} does not apply to "
                         f"the tree of patch {n}: {r.stderr.strip()}")
            return git(tree, "write-tree", env=env).strip()

        base_k = commits[k - 1] if k else f"{commits[0]}^"
        for n, c in enumerate(commits, 1):
            if n == j:
                continue
            if n <= k:
                t = git(tree, "rev-parse", f"{c}^{{tree}}").strip()
            elif n < j:
                t = with_diff(c, n)
            else:
                t = git(tree, "rev-parse", f"{c}^{{tree}}").strip()
            if n == k + 1:
                parent = recommit(tree, moved, with_diff(base_k, k), parent)
            parent = recommit(tree, c, t, parent)
        if edit:
            git(tree, "worktree", "remove", "--force", wt)
    if git(tree, "rev-parse", f"{parent}^{{tree}}") != \
            git(tree, "rev-parse", f"{old_head}^{{tree}}"):
        sys.exit("series-reorder: the final tree would differ; nothing "
                 "changed")
    git(tree, "reset", "-q", "--hard", parent)
    print(f"series-reorder: patch {j} now follows patch {k}; "
          f"old HEAD {old_head}")


if __name__ == "__main__":
    main()
