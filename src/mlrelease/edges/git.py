"""The git edge: every git invocation of mlrelease goes through :func:`run`."""

from __future__ import annotations

from pathlib import Path

from mlrelease.edges.proc import call, call_bytes
from mlrelease.errors import UserError


class GitError(UserError):
    """A git command failed; the message carries git's own words."""

    exit_code = 1


def run(
    root: Path,
    *args: str,
    check: bool = True,
    strip: bool = True,
    input: str | None = None,
    errors: str | None = None,
) -> str:
    """Run ``git args`` in ``root`` (``input`` on its stdin) and return its stdout (stripped
    unless ``strip`` is False: some outputs' leading spaces carry meaning);
    ``errors="surrogateescape"`` carries bytes that are not UTF-8 through unchanged."""
    proc = call(["git", *args], cwd=root, input=input, errors=errors)
    if check and proc.returncode != 0:
        raise GitError(
            f"git {' '.join(args)} failed in {root} (exit {proc.returncode}): "
            f"{proc.stderr.strip() or proc.stdout.strip()}"
        )
    return proc.stdout.strip() if strip else proc.stdout


def is_repo(root: Path) -> bool:
    return run(root, "rev-parse", "--is-inside-work-tree", check=False) == "true"


def git_dir(root: Path) -> Path:
    """The repository's ``.git`` folder (a worktree's own, for a linked worktree)."""
    return (root / run(root, "rev-parse", "--git-dir")).resolve()


def head(root: Path) -> str | None:
    """The commit SHA of HEAD, or None outside a repository or before the first commit."""
    if not is_repo(root):
        return None
    return run(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False) or None


def tags_at(root: Path, ref: str = "HEAD") -> list[str]:
    """Tags pointing at ``ref``."""
    out = run(root, "tag", "--points-at", ref, check=False)
    return [t for t in out.splitlines() if t]


def dirty_files(root: Path) -> list[str]:
    """Paths with uncommitted changes, untracked files included (``git status -z``: exact
    names, whatever characters they hold)."""
    # Unstripped: the first entry's leading space is part of it.
    out = run(root, "status", "--porcelain", "-z", "--untracked-files=normal", strip=False)
    entries = out.split("\0")
    files: list[str] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        files.append(entry[3:])
        if entry[0] in "RC":  # a rename or copy is followed by its source path
            i += 1
    return files


def current_branch(root: Path) -> str | None:
    """The checked-out branch, or None for a detached HEAD."""
    return run(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False) or None


def hidden_files(root: Path) -> list[str]:
    """Tracked files whose changes ``git status`` does not show: marked ``--skip-worktree``
    (``S``) or ``--assume-unchanged`` (a lower-case status letter) in ``git ls-files -v``."""
    out = run(root, "ls-files", "-v", "-z", strip=False, check=False)
    return [e[2:] for e in out.split("\0") if len(e) > 2 and (e[0] == "S" or e[0].islower())]


def archive(root: Path, commit: str) -> bytes:
    """The tar of ``commit``'s tree as ``git archive`` exports it (``export-ignore`` and
    ``export-subst`` applied): what the commit holds, never the working tree."""
    proc = call_bytes(["git", "archive", "--format=tar", commit], cwd=root)
    if proc.returncode != 0:
        raise GitError(
            f"git archive {commit} failed in {root} (exit {proc.returncode}): "
            f"{proc.stderr.decode(errors='replace').strip()}"
        )
    return proc.stdout
