"""The newest release branch of a project, read for ``mlrelease init`` with git: its commits
since it left main, each with its diff (where the release-only edits and the picks are), and the
files it has (a workflow main added since the branch is one it never had)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mlrelease.edges import git


@dataclass(frozen=True)
class CommitDiff:
    """A commit of a release branch since it left main, as ``git show -U0`` gives it."""

    sha: str
    subject: str
    body: str
    diff: str


BRANCH_COMMITS = 200
"""How many of a release branch's commits (oldest first) :func:`branch_commits` reads."""

_MARK = "\x1e@@mlrelease-commit@@\x1f"


def _branch_ref(root: Path, branch: str) -> str | None:
    """``branch`` here, else on origin (None: neither has it)."""
    refs = (f"refs/heads/{branch}", f"refs/remotes/origin/{branch}")
    return next(
        (r for r in refs if git.run(root, "rev-parse", "-q", "--verify", r, check=False)), None
    )


def branch_commits(root: Path, main: str, branch: str) -> list[CommitDiff]:
    """The commits of ``branch`` (here or on origin) since it left ``main``, oldest first,
    each with its ``-U0`` diff: where the release-only edits were made (in PyTorch's
    libraries the first commit, or a later one: torchaudio's second), and how fixes reached
    the branch (picked by hand, or marked with a trailer)."""
    ref = _branch_ref(root, branch)
    if ref is None:
        return []
    shown = git.run(
        root,
        *("log", "--reverse", f"--max-count={BRANCH_COMMITS}", "-p", "-U0", "--no-color"),
        *(f"--format={_MARK}%H%x1f%s%x1f%b%x1f", "--no-merges", f"refs/heads/{main}..{ref}"),
        check=False,
        strip=False,
    )
    found = []
    for chunk in shown.split(_MARK)[1:]:
        sha, subject, body, diff = [*chunk.split("\x1f", 3), "", "", ""][:4]
        found.append(CommitDiff(sha, subject, body, diff))
    return found


def branch_files(root: Path, branch: str, folder: str) -> set[str]:
    """The files under ``folder`` that ``branch`` (here or on origin) has."""
    ref = _branch_ref(root, branch)
    listed = git.run(root, "ls-tree", "-r", "--name-only", ref, "--", folder) if ref else ""
    return set(listed.splitlines())
