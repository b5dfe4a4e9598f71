"""Reusing a passing verdict: the same commit, working tree, inputs and environment give the
same verdict, so a warm ``release_verify`` need not run an expensive gate again.

A gate that opts in (``tests``, ``docs``, ``perf``) leaves a :class:`Stamp` beside its evidence
after a passing run and reuses it, saying so, only when every part of the fingerprint is equal:
the HEAD commit, the working tree's changes against it (untracked files included), the gate's
own inputs (its command, its profile, the machine's device key, the tags) and the environment
(the interpreter, the platform and every installed distribution with its version). A failing
run is never reused: its stamp is removed before the gate runs again.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import json
import platform
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mlrelease.edges import git
from mlrelease.edges.digests import sha256


@dataclass(frozen=True)
class Key:
    """What a run is: the HEAD commit and the fingerprint of everything its verdict depends on."""

    commit: str
    fingerprint: str


@dataclass(frozen=True)
class Stamp:
    """What a passing run was: its key, its one-line summary and the facts its report needs."""

    fingerprint: str
    commit: str
    summary: str
    finished: str
    facts: dict[str, object] = field(default_factory=dict)

    def note(self, key: Key, opt_out: str) -> str:
        """The words a reused verdict adds to its summary, with how to always run: ``opt_out``
        is a table (``[tool.mlrelease.gate-options.tests]``: set its ``reuse = false``) or, in
        backquotes, a command."""
        always = f"use {opt_out}" if opt_out.startswith("`") else f"set {opt_out} reuse = false"
        return (
            f"(reused: the run of {self.finished} passed on this commit {key.commit[:12]}, tree, "
            f"inputs and environment; {always} to always run)"
        )


def environment_digest() -> str:
    """The interpreter, the platform and every installed distribution with its version."""
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    text = "\n".join([sys.version, sys.executable, platform.platform(), *dists])
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
            digest.update(bytes.fromhex(sha256(path)))
    return commit, digest.hexdigest()


def key(root: Path, *inputs: str) -> Key | None:
    """The key of a run over ``root`` with the gate's own ``inputs``; None outside git."""
    tree = tree_digest(root)
    if tree is None:
        return None
    commit, tree_hash = tree
    parts = [tree_hash, json.dumps(list(inputs)), environment_digest()]
    return Key(commit, hashlib.sha256("\n".join(parts).encode()).hexdigest())


def load(path: Path) -> Stamp | None:
    """The stamp at ``path``; None when absent or unreadable (then the gate simply runs)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        facts = data.get("facts", {})
        if not isinstance(facts, dict):
            return None
        fields = {k: str(data[k]) for k in ("fingerprint", "commit", "summary", "finished")}
        return Stamp(**fields, facts=facts)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def recall(path: Path, now: Key | None) -> Stamp | None:
    """The stamp at ``path`` when it was left by a run with the key ``now``; else None, and a
    stale stamp is removed so that a failing run can never leave an old pass behind."""
    last = load(path) if now else None
    if now and last and last.fingerprint == now.fingerprint:
        return last
    path.unlink(missing_ok=True)
    return None


def remember(path: Path, now: Key | None, summary: str, **facts: object) -> None:
    """Record a passing run with the key ``now`` (nothing outside git)."""
    if now is None:
        return
    finished = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    stamp = Stamp(now.fingerprint, now.commit, summary, finished, dict(facts))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(asdict(stamp), indent=2) + "\n", encoding="utf-8")
    partial.replace(path)
