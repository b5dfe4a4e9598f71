"""The one reader of the release world (the edge: git, files, the index): :func:`read`.

Read once per command, before any planner runs: local and origin refs, the checkout, and the
facts at the refs the command's arguments name (an *ask* per verb: :class:`Cut`,
:class:`Prepare`, :class:`Candidate`, :class:`Picks`, :class:`Bumped`, :class:`Release`). The
release a command is about is resolved here, once (:attr:`~.world.World.target`). ``release
status`` reads one world with every verb's ask.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from packaging.version import InvalidVersion, Version

from mlrelease import versions
from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.edges.journal import journal_path, read_journal
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.release import queries, rules, wanted
from mlrelease.release.config import (
    ReleaseConfig,
    is_glob,
    matching,
    parse_release,
    parse_series,
    release_branch,
)
from mlrelease.release.world import (
    BumpFacts,
    Journal,
    Target,
    WorkTree,
    World,
)


class Ask(Protocol):
    """What one verb's planner will look up; :meth:`gather` reads it into the world."""

    def gather(self, g: Gatherer) -> None: ...


@dataclass
class Gatherer:
    """The world while it is read (mutable); :meth:`freeze` makes the :class:`World`."""

    config: Config
    names: Names
    world: World
    tables: dict[str, dict[Any, Any]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.world.root

    def table(self, name: str) -> dict[Any, Any]:
        return self.tables.setdefault(name, dict(getattr(self.world, name)))

    def commit(self, ref: str) -> str | None:
        commits = self.table("commits")
        if ref not in commits:
            commits[ref] = queries.commit_of(self.root, ref)
        found: str | None = commits[ref]
        return found

    def version(self, ref: str) -> None:
        known, unreadable = self.table("versions"), self.table("unreadable")
        if ref in known or ref in unreadable:
            return
        try:
            known[ref] = queries.version_at(self.root, ref)
        except PreconditionError as exc:
            unreadable[ref] = str(exc)

    def file(self, ref: str, path: str) -> None:
        files = self.table("files")
        if (ref, path) not in files:
            files[(ref, path)] = queries.show(self.root, ref, path)

    def edited(self, ref: str, pattern: str) -> None:
        """The file (or each file a glob matches) a release-only edit reads at ``ref``."""
        if not is_glob(pattern):
            self.file(ref, pattern)
            return
        listings = self.table("listings")
        if (ref, pattern) not in listings:
            tree = queries.tree_entries(self.root, ref) if self.commit(ref) else {}
            listings[(ref, pattern)] = matching(pattern, tree)
        for path in listings[(ref, pattern)]:
            self.file(ref, path)

    def ancestry(self, a: str | None, b: str | None) -> None:
        known = self.table("ancestry")
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
        known = self.table("version_files")
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
        self.table("links")[ref] = links

    def _follow(self, ref: str, path: str, entries: dict[str, tuple[str, str]]) -> str | None:
        """The file ``path`` is, following symbolic links inside the tree at ``ref``."""
        seen = [path]
        while path in entries and entries[path][0] == "120000":
            data = git.blob_bytes(self.root, entries[path][1]) or b""
            path = posixpath.normpath(posixpath.join(posixpath.dirname(path), data.decode()))
            if path.startswith("../") or path in seen or len(seen) > 8:
                self.table("link_problems")[ref] = (
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
        changes: dict[str, Any] = {k: MappingProxyType(v) for k, v in self.tables.items()}
        return dataclasses.replace(self.world, **changes, **self.extra)


def read(config: Config, *asks: Ask) -> World:
    """The world the command's planners decide on: the base (refs, checkout, journal), then
    what each ask needs."""
    root = config.root
    if not git.is_repo(root):
        raise UserError(f"{root} is not a git repository; the release flow needs one.")
    g = Gatherer(config, config.names, _base(config))
    for ask in asks:
        ask.gather(g)
    return g.freeze()


def _base(config: Config) -> World:
    root = config.root
    git_dir = git.git_dir(root)
    lock = git_dir / "index.lock"
    try:
        remote, error = queries.read_origin(root, config.table(ReleaseConfig).remote), None
    except PreconditionError as exc:
        remote, error = None, str(exc)
    return World(
        root=root,
        local=queries.read_local(root),
        remote=remote,
        remote_error=error,
        branch=git.current_branch(root),
        head=git.head(root),
        dirty=tuple(git.dirty_files(root)),
        busy=queries.in_progress(git_dir),
        lock=str(lock) if lock.exists() else None,
        journal=journal(root),
    )


def journal(root: Path) -> Journal | None:
    """The edit journal and the SHA-256 of each file it names, as they are now."""
    path = journal_path(root)
    if not path.exists():
        return None
    data = read_journal(root)
    listed = data.get("files") if data else None
    names = list(listed) if isinstance(listed, (list, dict)) else []
    hashes = {}
    for name in (n for n in names if isinstance(n, str)):
        file = root / name
        hashes[name] = hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else None
    return Journal(str(path), data, hashes)


@dataclass(frozen=True)
class Cut:
    """``release cut --version X.Y [--from REF]``."""

    series: str
    from_ref: str | None = None

    def gather(self, g: Gatherer) -> None:
        rel, snap = g.config.table(ReleaseConfig), g.world
        main = rel.main_branch
        branch = g.names.branch_for(parse_series(self.series))
        start = self.from_ref or main
        g.commit(f"refs/heads/{main}")
        if self.from_ref:
            g.commit(self.from_ref)
        has_start = g.commit(start) is not None
        if has_start:
            g.version(start)
        if snap.local.heads.get(main):
            g.version(main)
            g.version_files(main)
        base = branch if branch in snap.local.heads else start
        if branch in snap.local.heads or has_start:
            for edit in rel.edits:
                g.edited(base, edit.file)
        theirs = snap.remote.heads.get(main) if snap.remote else None
        if theirs:
            g.version(theirs)
        g.current([main, branch])


@dataclass(frozen=True)
class Prepare:
    """``release prepare --version X.Y.Z``."""

    version: str

    def gather(self, g: Gatherer) -> None:
        branch = release_branch(g.config, parse_release(self.version))
        if branch in g.world.local.heads:
            g.version(branch)
            g.file(branch, g.config.changelog)
            g.version_files(branch)
        g.current([branch])


@dataclass(frozen=True)
class Candidate:
    """``release rc`` (tag model): the checked-out files and the RCs HEAD must contain."""

    def gather(self, g: Gatherer) -> None:
        config, snap = g.config, g.world
        source = str(config.pyproject_path)
        current = str(versions.bumpversion_table(config.pyproject, source)["current_version"])
        found, problems = versions.scan(config.root, config.pyproject, source)
        stale = [f"{p.file}: {p.message}" for p in problems]
        stale += [
            f"{o.file}:{o.line} carries {o.value}" for o in versions.mismatches(found, current)
        ]
        path = config.path(config.changelog)
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        g.extra["worktree"] = WorkTree(current, tuple(stale), text)
        try:
            version: Version | None = Version(current)
        except InvalidVersion:
            version = None
        tags = {n: t.commit or t.object for n, t in snap.local.tags.items()}
        if snap.remote:
            tags.update(snap.remote.tags)
        for name, commit in tags.items():
            parsed = g.names.parse_tag(name)
            # The RC's version is the files' (under version-source = "tag", one of their series).
            if version is not None and parsed and parsed[0].release[:2] == version.release[:2]:
                g.ancestry(commit, snap.head)
        if snap.branch:
            g.current([snap.branch])


@dataclass(frozen=True)
class Picks:
    """``release cherry-picks [--branch B]``: main's commits against the branch's."""

    branch: str | None = None

    def gather(self, g: Gatherer) -> None:
        from mlrelease.release.picks import OVERRIDE

        rel, snap = g.config.table(ReleaseConfig), g.world
        branch = self.branch or snap.branch
        if branch is None or branch not in snap.local.heads:
            return
        git.require_history(g.root, rel.remote, "release cherry-picks")
        # Fixes are main's as origin has it (origin is the truth), the branch's as here.
        theirs = snap.remote.heads.get(rel.main_branch) if snap.remote else None
        main = theirs or f"refs/heads/{rel.main_branch}"
        facts = queries.pick_facts(g.root, f"refs/heads/{branch}", main, rel.trailer, OVERRIDE)
        listed = wanted.read_milestone(g.config, branch) if rel.picks == "milestone" else None
        g.extra["picks"] = dataclasses.replace(facts, milestone=listed)
        g.current([branch])


@dataclass(frozen=True)
class Bumped:
    """``release rc`` and ``release promote`` under ``rc-model = "bump"``: the checked-out
    release branch, its version and version files, and whether a release candidate was made."""

    def gather(self, g: Gatherer) -> None:
        snap, main = g.world, g.config.table(ReleaseConfig).main_branch
        branch = snap.branch
        parsed = g.names.branch.parse(branch) if branch else None
        if branch is None or parsed is None:
            return
        g.version(branch)
        g.version_files(branch)
        g.current([branch])
        files = g.table("version_files").get(branch, ())
        since_main = f"refs/heads/{main}..HEAD"
        made = git.run(
            g.root, "log", "--format=%H", "-G", r"rc[0-9]", since_main, "--", *files, check=False
        )
        g.extra["bumps"] = BumpFacts(rc_made=bool(made.strip()))
        wanted = Version(f"{parsed['major']}.{parsed['minor']}.{parsed.get('patch', 0)}")
        try:
            carried = Version(Version(g.table("versions")[branch]).base_version)
        except (KeyError, InvalidVersion):
            carried = wanted
        version = max(wanted, carried)
        g.extra["target"] = Target(version, None, branch, g.names.final_tag(version))


@dataclass(frozen=True)
class Release:
    """``release bind``, ``publish`` and ``promote`` (tag model): the RC (given, or the newest
    of ``version``), resolved once, and the facts about it: its reachability, verdict,
    bindings, the artifacts offered, the store and (``index``) what an index holds."""

    rc: str | None = None
    version: str | None = None
    report: Path | None = None
    artifacts: str | None = None
    index: str | None = None

    def gather(self, g: Gatherer) -> None:
        from mlrelease.release.promotion import facts

        target = self.resolve(g)
        g.extra["target"] = target
        if target.rc is None:
            return
        tag = _rc_tag(g, target.rc)
        commit = tag.commit if tag else None
        side = g.world.remote.refs if g.world.remote else g.world.local
        if commit:
            g.ancestry(commit, side.heads.get(target.branch))
            g.version(commit)
        g.extra["promote"] = facts.read(g.config, g.world, target, commit, self)

    def resolve(self, g: Gatherer) -> Target:
        """The RC named, or the newest RC of ``version``; its version, branch and final tag."""
        names = g.names
        rc = self.rc
        if rc is None and self.version is not None and g.world.remote_error is None:
            wanted = parse_release(self.version)
            found = rules.rc_tags(g.world, names, wanted)
            rc = found[max(found)][0] if found else None
            if g.config.table(ReleaseConfig).rc_model == "bump":  # the final tag is bound
                final = names.final_tag(wanted)
                rc = final if final in g.world.tags() else None
        parsed = names.parse_tag(rc) if rc else None
        if parsed is None:
            version = parse_release(self.version) if self.version else Version("0")
        else:
            version = parsed[0]
        branch = release_branch(g.config, version)
        return Target(version, rc, branch, names.final_tag(version))


def _rc_tag(g: Gatherer, rc: str) -> Any:
    side = g.world.remote.refs if g.world.remote else g.world.local
    return side.tags.get(rc)
