"""Reusing a test-suite result: the same commit, working tree, command and environment give the
same verdict, so a warm ``release_verify`` need not run the whole suite again.

A passing run of the ``tests`` gate leaves a stamp beside its evidence; the next run reuses it
(and says so) only when every part of the fingerprint is equal. A failing run is never reused.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from mlrelease.edges import git


@dataclass(frozen=True)
class Stamp:
    """What a passing run was: its fingerprint and its one-line summary."""

    fingerprint: str
    commit: str
    summary: str
    finished: str


def environment_digest() -> str:
    """The interpreter, the platform and every installed distribution with its version."""
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    text = "\n".join([sys.version, platform.platform(), *dists])
    return hashlib.sha256(text.encode()).hexdigest()


def tree_digest(root: Path) -> tuple[str, str] | None:
    """(HEAD commit, digest of the working tree's changes against it); None outside git."""
    commit = git.head(root)
    if commit is None:
        return None
    digest = hashlib.sha256(commit.encode())
    digest.update(git.run(root, "diff", "HEAD", "--binary", check=False).encode())
    for name in sorted(git.dirty_files(root)):
        path = root / name
        digest.update(name.encode())
        if path.is_file() and not path.is_symlink():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return commit, digest.hexdigest()


def fingerprint(root: Path, command: Sequence[str]) -> tuple[str, str] | None:
    """(commit, fingerprint of commit + tree + command + environment); None outside git."""
    tree = tree_digest(root)
    if tree is None:
        return None
    commit, tree_hash = tree
    parts = [tree_hash, json.dumps(list(command)), environment_digest()]
    return commit, hashlib.sha256("\n".join(parts).encode()).hexdigest()


def load(path: Path) -> Stamp | None:
    """The stamp at ``path``; None when absent or unreadable (then the suite simply runs)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Stamp(**{k: str(data[k]) for k in ("fingerprint", "commit", "summary", "finished")})
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(path: Path, stamp: Stamp) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(asdict(stamp), indent=2) + "\n", encoding="utf-8")
    partial.replace(path)
