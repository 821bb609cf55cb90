#!/usr/bin/env python3
"""Squash adjacent patches of the series into one, with a new message,
keeping every tree: the squashed patch has the tree of the last of them,
and the patches after keep theirs (issue 29: fewer patches, each with its
code in its final form).

Usage: scripts/series-squash.py FIRST LAST MSGFILE [TREE]
  FIRST, LAST  patch numbers (1 = first of base..HEAD), FIRST <= LAST
               (FIRST = LAST: a new message for that patch)
  MSGFILE      the message of the squashed patch (subject, body,
               Signed-off-by), as for git commit -F
  TREE         the kernel tree (default build/linux); its HEAD branch is
               rewritten

The author and dates are FIRST's. No patch needs building again: no tree
changes. Prints the old HEAD, to go back with `git reset --hard OLD`.
"""
import os
import subprocess
import sys

from series_lib import recommit


def git(tree, *args, env=None, inp=None):
    r = subprocess.run(["git", "-C", tree, *args], capture_output=True,
                       text=True, env=env, input=inp)
    if r.returncode:
        sys.exit(f"series-squash: git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    try:
        first, last = int(sys.argv[1]), int(sys.argv[2])
    except ValueError:
        sys.exit("series-squash: FIRST and LAST are patch numbers")
    try:
        with open(sys.argv[3]) as f:
            message = f.read().strip() + "\n"
    except OSError as e:
        sys.exit(f"series-squash: {e}")
    if "Signed-off-by:" not in message:
        sys.exit("series-squash: the message has no Signed-off-by")
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = sys.argv[4] if len(sys.argv) == 5 else os.path.join(
        top, "build", "linux")
    if git(tree, "status", "--porcelain", "--untracked-files=no"):
        sys.exit("series-squash: the tree has uncommitted changes")
    commits = git(tree, "rev-list", "--reverse", "base..HEAD").split()
    if not 1 <= first <= last <= len(commits):
        sys.exit(f"series-squash: need 1 <= FIRST <= LAST <= {len(commits)}")
    old_head = commits[-1]
    parent = git(tree, "rev-parse", f"{commits[0]}^")
    for n, c in enumerate(commits, 1):
        if first <= n < last:
            continue
        src = commits[first - 1] if n == last else c
        parent = recommit(tree, src, git(tree, "rev-parse", f"{c}^{{tree}}"),
                          parent, message if n == last else None)
    git(tree, "reset", "-q", "--hard", parent)
    print(f"series-squash: patches {first}-{last} squashed into patch "
          f"{first}; old HEAD {old_head}")


if __name__ == "__main__":
    main()
