"""The release machine's rules for the maintainer's own setup (#38): what a user's git
configuration, clone and fetched tags do to mlrelease's git commands. None of them runs
mlrelease; the invariants judge what mlrelease does after them.

- ``user_git_config``: ``push.followTags`` on with a hand-made final tag waiting at HEAD (a
  push must never carry it), or a ``pushurl`` to a fork (a push must never go there: the fork's
  refs are checked after every maintainer step), or both undone.
- ``clone_shape``: the clone made shallow (``git fetch --depth 1``), or deepened again.
- ``tag_like_branch``: a colleague's tag spelled ``release/1.4``, fetched here.
- ``fork_tags``: RC and final tags of a fork fetched into this clone only.
- ``bind_in_worktree``: the RC bound from a linked worktree, which is then removed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import rule

from helpers import release_oracle as oracle


def _sh(root: Path, *args: str) -> Any:
    from helpers.release_machine import sh

    return sh(root, *args)


def fork_of(self: Any) -> Path:
    """The maintainer's fork (a bare clone of origin, made once per example)."""
    fork = Path(self.base) / "fork.git"
    if not fork.exists():
        subprocess.run(["git", "clone", "-q", "--bare", str(self.origin), str(fork)], check=True)
    return fork


@rule(setting=st.sampled_from(["follow-tags", "push-url", "none"]))
def user_git_config(self: Any, setting: str) -> None:
    work = Path(self.work)
    if setting == "follow-tags":
        _sh(work, "config", "push.followTags", "true")
        if _sh(work, "rev-parse", "-q", "--verify", f"refs/tags/{oracle.FINAL}").returncode:
            _sh(work, "tag", "-a", oracle.FINAL, "-m", "by hand: no manifest, no report")
    elif setting == "push-url":
        _sh(work, "config", "remote.origin.pushurl", str(fork_of(self)))
    else:
        _sh(work, "config", "--unset", "push.followTags")
        _sh(work, "config", "--unset", "remote.origin.pushurl")


@rule(shallow=st.booleans())
def clone_shape(self: Any, shallow: bool) -> None:
    if shallow:
        _sh(Path(self.work), "fetch", "-q", "--depth", "1", "origin")
    else:
        _sh(Path(self.work), "fetch", "-q", "--unshallow", "origin")


@rule()
def tag_like_branch(self: Any) -> None:
    clone = Path(self.colleague)
    root = oracle.git(clone, "rev-list", "--max-parents=0", "HEAD").split()[0]
    _sh(clone, "tag", "-f", "release/1.4", root)
    _sh(clone, "push", "-q", "-f", "origin", "refs/tags/release/1.4:refs/tags/release/1.4")
    _sh(Path(self.work), "fetch", "-q", "origin", "+refs/tags/release/1.4:refs/tags/release/1.4")


@rule(final=st.booleans())
def fork_tags(self: Any, final: bool) -> None:
    """Tags a fork has, fetched here (never on origin): an RC numbered far ahead, a final."""
    work = Path(self.work)
    name = oracle.FINAL if final else "v1.4.0-rc9"
    if _sh(work, "rev-parse", "-q", "--verify", f"refs/tags/{name}").returncode:
        _sh(work, "tag", "-a", name, "-m", "a fork's tag", "HEAD")


@rule()
def bind_in_worktree(self: Any) -> None:
    """The maintainer binds the newest RC from a linked worktree, then removes it."""
    rc = self.newest_rc()
    worktree = Path(self.base) / "worktree"
    if _sh(Path(self.work), "worktree", "add", "-q", "--detach", str(worktree), rc).returncode:
        return
    try:
        dist = Path(self.work) / "dist"
        if dist.is_dir():
            shutil.copytree(dist, worktree / "dist")
        self.maintainer_in(worktree, "release", "bind", "--rc", rc, "--execute", "--push")
    finally:
        _sh(Path(self.work), "worktree", "remove", "--force", str(worktree))
