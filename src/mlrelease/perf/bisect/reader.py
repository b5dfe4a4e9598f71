"""What a bisect reads once, before its first step: the two sides and the commits between them
(git), each commit's lock (git), and the versions the index holds of every package the two locks
pin differently (the index edge)."""

from __future__ import annotations

from pathlib import Path

from packaging.utils import canonicalize_name

from mlrelease.edges import git, index
from mlrelease.errors import UserError
from mlrelease.perf.bisect import lock
from mlrelease.perf.bisect.lock import Pins
from mlrelease.perf.bisect.state import BisectHistory
from mlrelease.perf.config import BisectConfig


def commit_of(root: Path, rev: str, option: str) -> str:
    """The full sha ``rev`` names, or an error naming the option."""
    found = git.run(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if not found.strip():
        raise UserError(
            f"perf bisect {option} {rev}: no such commit in {root}. Give a commit, tag or "
            "branch this clone has (`git fetch` first for one only origin has)."
        )
    return found.strip()


def read(root: Path, good_rev: str, bad_rev: str, settings: BisectConfig) -> BisectHistory:
    """The history between the two sides, read from git and the index."""
    good = commit_of(root, good_rev, "--good")
    bad = commit_of(root, bad_rev, "--bad")
    if good == bad:
        raise UserError(f"perf bisect: --good and --bad are the same commit ({good[:12]}).")
    ancestor = git.call_git(root, "merge-base", "--is-ancestor", good, bad)
    if ancestor.returncode != 0:
        raise UserError(
            f"perf bisect: --good {good_rev} ({good[:12]}) is not an ancestor of --bad {bad_rev} "
            f"({bad[:12]}). The good side must come first in the bad side's history."
        )
    listed = git.run(root, "rev-list", "--first-parent", "--reverse", f"{good}..{bad}")
    commits = tuple(listed.split())
    if not commits or commits[-1] != bad:
        raise UserError(
            f"perf bisect: {bad[:12]} is not reached from {good[:12]} along first parents; "
            "give a --good on the bad side's first-parent line (`git log --first-parent`)."
        )
    shown = git.run(root, "log", "--no-walk=unsorted", "--format=%H %s", good, *commits)
    titles = dict(line.split(" ", 1) for line in shown.splitlines() if " " in line)
    locks = tuple(_lock(root, sha, settings.lock) for sha in (good, *commits))
    versions = {
        change.name: _versions(change.name, settings)
        for change in lock.changes(locks[0], locks[-1])
        if change.old and change.new
    }
    return BisectHistory(good, bad, commits, titles, locks, versions)


def _lock(root: Path, commit: str, path: str) -> Pins:
    if not path:
        return {}
    data = git.blob_bytes(root, f"{commit}:{path}")
    if data is None:
        return {}
    return lock.parse(data.decode("utf-8", errors="replace"), f"{commit[:12]}:{path}")


def _versions(name: str, settings: BisectConfig) -> tuple[str, ...]:
    """Every version of ``name`` with a wheel on the configured indexes."""
    found: set[str] = set()
    for url in (settings.index_url, *settings.extra_index_urls):
        for file in index.files(name, index_url=url):
            parsed = index.distribution(file.filename, name)
            if parsed and parsed[0] == canonicalize_name(name) and file.filename.endswith(".whl"):
                found.add(str(parsed[1]))
    return tuple(sorted(found))
