"""What the series-*.py tools share: a commit of the series made again on
another parent, with another tree or message, keeping its author and
dates (so that a reshaped series differs only where it was reshaped)."""
import os
import subprocess
import sys


def _git(tree, *args, env=None, inp=None):
    r = subprocess.run(["git", "-C", tree, *args], capture_output=True,
                       text=True, env=env, input=inp)
    if r.returncode:
        sys.exit(f"{os.path.basename(sys.argv[0])}: git {' '.join(args)}: "
                 f"{r.stderr.strip()}")
    return r.stdout


def recommit(tree, src, tree_id, parent, message=None):
    """Commit @tree_id on @parent as @src was (author, dates), with @src's
    message or @message; return the new commit's id"""
    meta = _git(tree, "log", "-1", "--format=%an%x00%ae%x00%aD%x00%cn%x00"
                "%ce%x00%cD", src).strip().split("\0")
    env = dict(os.environ, GIT_AUTHOR_NAME=meta[0], GIT_AUTHOR_EMAIL=meta[1],
               GIT_AUTHOR_DATE=meta[2], GIT_COMMITTER_NAME=meta[3],
               GIT_COMMITTER_EMAIL=meta[4], GIT_COMMITTER_DATE=meta[5])
    if message is None:
        message = _git(tree, "log", "-1", "--format=%B", src)
    # %B ends with a blank line that the commit did not have
    message = message.rstrip("\n") + "\n"
    return _git(tree, "commit-tree", tree_id, "-p", parent, env=env,
                inp=message).strip()
