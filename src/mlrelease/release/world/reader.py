"""The one reader of the release world (the edge: git, files, the index): :func:`read`.

Read once per command, before any planner runs: local and origin refs, the checkout, and the
facts at the refs the command's arguments name (an *ask* per verb, in
:mod:`mlrelease.release.asks`). The release a command is about is resolved while reading, once
(:attr:`~.snapshot.World.target`). ``release status`` reads one world with every verb's ask.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.edges.journal import JOURNAL, digest_if_present, read_journal
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.release.config import (
    ReleaseConfig,
    is_glob,
    matching,
)
from mlrelease.release.world import made, queries, refs
from mlrelease.release.world.snapshot import (
    BumpFacts,
    Journal,
    PickFacts,
    PromoteFacts,
    Target,
    WorkTree,
    World,
)


class Ask(Protocol):
    """What one verb's planner will look up; :meth:`gather` reads it into the world."""

    def gather(self, g: Gatherer) -> None: ...


@dataclass
class Gathered:
    """The facts gathered so far (mutable), each in a typed field named as the :class:`World`'s,
    so that every question a verb asks is typed."""

    commits: dict[str, str | None] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    files: dict[tuple[str, str], str | None] = field(default_factory=dict)
    listings: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    existed: dict[str, bool] = field(default_factory=dict)
    version_files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    links: dict[str, Mapping[str, str]] = field(default_factory=dict)
    hand_edits: dict[str, str | None] = field(default_factory=dict)
    link_problems: dict[str, str] = field(default_factory=dict)
    ancestry: dict[tuple[str, str], bool] = field(default_factory=dict)
    worktree: WorkTree | None = None
    picks: PickFacts | None = None
    promote: PromoteFacts | None = None
    bumps: BumpFacts | None = None
    target: Target | None = None


@dataclass
class Gatherer:
    """The world while it is read: :attr:`world` is the base (refs, checkout, journal),
    :attr:`found` what the asks gathered; :meth:`freeze` makes the :class:`World`."""

    config: Config
    names: Names
    world: World
    found: Gathered = field(default_factory=Gathered)

    @property
    def root(self) -> Path:
        return self.world.root

    def commit(self, ref: str) -> str | None:
        if ref not in self.found.commits:
            self.found.commits[ref] = queries.commit_of(self.root, ref)
        return self.found.commits[ref]

    def version(self, ref: str) -> None:
        known, unreadable = self.found.versions, self.found.unreadable
        if ref in known or ref in unreadable:
            return
        try:
            known[ref] = queries.version_at(self.root, ref)
        except PreconditionError as exc:
            unreadable[ref] = str(exc)

    def file(self, ref: str, path: str) -> None:
        if (ref, path) not in self.found.files:
            self.found.files[(ref, path)] = queries.show(self.root, ref, path)

    def edited(self, ref: str, pattern: str) -> None:
        """The file (or each file a glob matches) a release-only edit reads at ``ref``, and
        whether a file it lacks was ever in the history (deleted, or never there)."""
        if not is_glob(pattern):
            self.file(ref, pattern)
            if self.found.files[(ref, pattern)] is None and pattern not in self.found.existed:
                self.found.existed[pattern] = queries.ever_had(self.root, pattern)
            return
        listings = self.found.listings
        if (ref, pattern) not in listings:
            tree = queries.tree_entries(self.root, ref) if self.commit(ref) else {}
            listings[(ref, pattern)] = matching(pattern, tree)
        for path in listings[(ref, pattern)]:
            self.file(ref, path)

    def ancestry(self, a: str | None, b: str | None) -> None:
        known = self.found.ancestry
        if a and b and a != b and (a, b) not in known:
            if not known:  # once: a shallow clone answers "not an ancestor" wrongly
                remote = self.config.table(ReleaseConfig).remote
                git.require_history(self.root, remote, "a release command's ancestry check")
            known[(a, b)] = bool(queries.commit_of(self.root, a)) and queries.is_ancestor(
                self.root, a, b
            )

    def current(self, branches: list[str]) -> None:
        """Ancestry of origin's tip of each branch in the local one: may a commit on it, or
        its push, go ahead (invariant (h))?"""
        remote = self.world.remote
        for name in branches:
            theirs = remote.heads.get(name) if remote else None
            self.ancestry(theirs, self.world.local.heads.get(name))

    def version_files(self, ref: str) -> None:
        """pyproject.toml and every ``[[tool.bumpversion.files]]`` file at ``ref``, symbolic
        links followed to the file they point at inside the repository."""
        known = self.found.version_files
        if ref in known or self.commit(ref) is None:
            return
        try:
            table = queries.pyproject_at(self.root, ref).get("tool", {}).get("bumpversion", {})
        except PreconditionError:
            table = {}
        entries = queries.tree_entries(self.root, ref)
        listed = {"pyproject.toml"}
        for entry in table.get("files", []) if isinstance(table, Mapping) else []:
            if isinstance(entry.get("filename"), str):
                listed.add(entry["filename"])
            elif isinstance(entry.get("glob"), str):
                listed.update(fnmatch.filter(entries, entry["glob"]))
        links, actual = {}, set()
        for path in sorted(listed):
            target = self._follow(ref, path, entries)
            if target is None:
                return
            actual.add(target)
            if target != path:
                links[path] = target
        known[ref] = tuple(sorted(actual))
        self.found.links[ref] = links

    def hand_edit(self, ref: str) -> None:
        """Whether the version files committed at ``ref`` were edited by hand, the key left
        behind (:attr:`~.snapshot.World.hand_edits`)."""
        self.version_files(ref)
        known, files = self.found.hand_edits, self.found.version_files.get(ref)
        if ref not in known and files is not None:
            links = self.found.links.get(ref, {})
            known[ref] = queries.hand_edit_at(self.root, ref, {**{f: f for f in files}, **links})

    def _follow(self, ref: str, path: str, entries: dict[str, tuple[str, str]]) -> str | None:
        """The file ``path`` is, following symbolic links inside the tree at ``ref``."""
        seen = [path]
        while path in entries and entries[path][0] == "120000":
            data = git.blob_bytes(self.root, entries[path][1]) or b""
            path = posixpath.normpath(posixpath.join(posixpath.dirname(path), data.decode()))
            if path.startswith("../") or path in seen or len(seen) > 8:
                self.found.link_problems[ref] = (
                    f"the version file {seen[0]} at {ref} is a symbolic link leading to "
                    f"{' -> '.join([*seen[1:], path])}, outside the repository or in a loop: "
                    "a bump could not commit what it writes. Make it a file of the repository "
                    "(or a link to one)."
                )
                return None
            seen.append(path)
        return path

    def freeze(self) -> World:
        """The world, immutable."""
        found = self.found
        return dataclasses.replace(
            self.world,
            commits=MappingProxyType(found.commits),
            versions=MappingProxyType(found.versions),
            unreadable=MappingProxyType(found.unreadable),
            files=MappingProxyType(found.files),
            listings=MappingProxyType(found.listings),
            existed=MappingProxyType(found.existed),
            version_files=MappingProxyType(found.version_files),
            links=MappingProxyType(found.links),
            hand_edits=MappingProxyType(found.hand_edits),
            link_problems=MappingProxyType(found.link_problems),
            ancestry=MappingProxyType(found.ancestry),
            worktree=found.worktree,
            picks=found.picks,
            promote=found.promote,
            bumps=found.bumps,
            target=found.target,
        )


def read(config: Config, *asks: Ask) -> World:
    """The world the command's planners decide on: the base (refs, checkout, journal), then
    what each ask needs."""
    root = config.root
    folders = git.folders(root)
    if folders is None:
        raise UserError(f"{root} is not a git repository; the release flow needs one.")
    g = Gatherer(config, config.names, _base(config, folders))
    for ask in asks:
        ask.gather(g)
    return g.freeze()


def _base(config: Config, folders: git.Folders) -> World:
    root, git_dir = config.root, folders.git_dir
    lock = git_dir / "index.lock"
    seen: refs.Seen = {}  # the objects of both sides' tags, read once
    try:
        remote, error = refs.read_origin(root, config.table(ReleaseConfig).remote, seen), None
    except PreconditionError as exc:
        remote, error = None, str(exc)
    return World(
        root=root,
        local=refs.read_local(root, seen),
        remote=remote,
        remote_error=error,
        branch=git.current_branch(root),
        head=git.head_commit(root),
        dirty=tuple(git.dirty_files(root)),
        busy=queries.in_progress(git_dir),
        lock=str(lock) if lock.exists() else None,
        journal=journal(root, git_dir),
        made=made.read(folders.common_dir),
        common_dir=folders.common_dir,
    )


def journal(root: Path, git_dir: Path) -> Journal | None:
    """The edit journal and the SHA-256 of each file it names, as they are now (``git_dir``:
    the repository's git folder, asked of git once for the whole snapshot)."""
    path = git_dir / JOURNAL
    if not path.exists():
        return None
    data = read_journal(root, git_dir)
    listed = data.get("files") if data else None
    names = list(listed) if isinstance(listed, (list, dict)) else []
    hashes = {}
    for name in (n for n in names if isinstance(n, str)):
        hashes[name] = digest_if_present(root / name)
    return Journal(str(path), data, hashes)
