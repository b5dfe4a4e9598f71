"""Git queries of the release flow (read-only; every mutation is a planned action).

Queries use plumbing (``for-each-ref``, ``rev-parse``, ``show``, ``ls-remote``, ``cherry``,
``patch-id``), never ``git branch`` or ``git tag``, so a trace of the git commands a release
command ran tells its mutations apart from its reads.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mlrelease.edges import git
from mlrelease.edges.git import git_dir as git_dir
from mlrelease.errors import PreconditionError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


def commit_of(root: Path, ref: str) -> str | None:
    """The commit a ref (branch, tag, SHA) points at, peeled; None when it does not exist."""
    return (
        git.run(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False) or None
    )


def branch_exists(root: Path, name: str) -> bool:
    return commit_of(root, f"refs/heads/{name}") is not None


def tags(root: Path) -> dict[str, str]:
    """Every local tag and the commit it points at (annotated tags peeled)."""
    out = git.run(
        root,
        "for-each-ref",
        "--format=%(refname:strip=2) %(objectname) %(*objectname)",
        "refs/tags",
    )
    result: dict[str, str] = {}
    for line in out.splitlines():
        name, obj, *peeled = line.split(" ")
        result[name] = peeled[0] if peeled and peeled[0] else obj
    return result


def show(root: Path, ref: str, path: str) -> str | None:
    """A file's text at ``ref`` (its last newline restored); None when the file or the ref does
    not exist."""
    try:
        text = git.run(root, "show", f"{ref}:{path}")
    except git.GitError:
        return None
    return text + "\n" if text else text


def pyproject_at(root: Path, ref: str) -> Mapping[str, Any]:
    text = show(root, ref, "pyproject.toml")
    if text is None:
        raise PreconditionError(f"{ref} has no pyproject.toml; is it a commit of this project?")
    data: dict[str, Any] = tomllib.loads(text)
    return data


def version_at(root: Path, ref: str) -> str:
    """``[tool.bumpversion] current_version`` as committed at ``ref``."""
    table = pyproject_at(root, ref).get("tool", {}).get("bumpversion", {})
    version = table.get("current_version") if isinstance(table, Mapping) else None
    if not isinstance(version, str):
        raise PreconditionError(
            f"pyproject.toml at {ref} has no [tool.bumpversion] current_version; add it (the "
            "release flow reads the version from there)."
        )
    return version


def is_ancestor(root: Path, ancestor: str, descendant: str) -> bool:
    try:
        git.run(root, "merge-base", "--is-ancestor", ancestor, descendant)
    except git.GitError:  # exit 1: not an ancestor (or not a commit here)
        return False
    return True


def tag_object(root: Path, name: str) -> str | None:
    return (
        git.run(root, "rev-parse", "--verify", "--quiet", f"refs/tags/{name}", check=False) or None
    )


def cherry(root: Path, upstream: str, head: str) -> list[tuple[bool, str]]:
    """``git cherry upstream head``: commits of ``head`` not in ``upstream``; True when an
    equivalent patch (same patch id) is already in ``upstream``."""
    out = git.run(root, "cherry", upstream, head)
    return [(line[0] == "-", line[2:].strip()) for line in out.splitlines() if line]


def patch_ids(root: Path, revisions: str) -> dict[str, str]:
    """patch id -> commit for the commits in ``revisions`` (``git patch-id --stable``)."""
    # A patch's bytes need not be UTF-8: carried through as they are, or its id would change.
    raw = "surrogateescape"
    log = git.run(root, "log", "-p", "--no-color", "--format=commit %H", revisions, errors=raw)
    result: dict[str, str] = {}
    for line in git.run(root, "patch-id", "--stable", input=log + "\n", errors=raw).splitlines():
        patch, _, sha = line.partition(" ")
        result.setdefault(patch, sha)
    return result


def commit_info(root: Path, sha: str, trailer: str) -> tuple[str, list[str]]:
    """(subject, values of ``trailer``) of a commit."""
    out = git.run(
        root, "log", "-1", f"--format=%s%x00%(trailers:key={trailer},valueonly,separator=%x01)", sha
    )
    subject, _, values = out.partition("\x00")
    return subject, [v.strip() for v in values.split("\x01") if v.strip()]


def merge_base(root: Path, a: str, b: str) -> str | None:
    return git.run(root, "merge-base", a, b, check=False) or None


def picked_from(root: Path, revisions: str) -> dict[str, str]:
    """source commit -> commit of ``revisions`` whose message says ``(cherry picked from
    commit SOURCE)`` (``git cherry-pick -x``), adapted or not."""
    out = git.run(root, "log", "--format=%H%x00%B%x01", revisions)
    found: dict[str, str] = {}
    for entry in out.split("\x01"):
        sha, _, body = entry.strip().partition("\x00")
        for match in re.finditer(r"\(cherry picked from commit ([0-9a-f]{7,40})\)", body):
            found.setdefault(match[1], sha)
    return found


def overrides(root: Path, revisions: str, key: str) -> dict[str, tuple[str, str]]:
    """source commit -> (state, reason) from ``key: <sha> <state>`` and ``Reason:`` trailers of
    the commits in ``revisions`` (the newest record of a commit wins)."""
    fmt = f"%(trailers:key={key},valueonly,separator=%x01)%x00%(trailers:key=Reason,valueonly)%x02"
    found: dict[str, tuple[str, str]] = {}
    for entry in git.run(root, "log", f"--format={fmt}", revisions).split("\x02"):
        values, _, reason = entry.strip().partition("\x00")
        for value in values.split("\x01"):
            sha, _, state = value.strip().partition(" ")
            if sha and state:
                found.setdefault(sha, (state.strip(), reason.strip()))
    return found
