"""What each release verb asks the reader to gather (:class:`~.world.reader.Ask`): one class per
verb, naming the refs, files and facts its planner will look up. ``release status`` reads one
world with every verb's ask."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from mlrelease import version_files
from mlrelease.edges import git
from mlrelease.naming import Names
from mlrelease.release import pins, publishers, rules, wanted
from mlrelease.release.config import ReleaseConfig, parse_release, parse_series, release_branch
from mlrelease.release.promotion.manifest import Upstream
from mlrelease.release.world import queries
from mlrelease.release.world.reader import Gatherer
from mlrelease.release.world.snapshot import BumpFacts, Target, WorkTree, World


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
            g.hand_edit(branch)
            g.edited(branch, publishers.WORKFLOWS)  # what the release's RC tags would publish
        g.current([branch])


def worktree(g: Gatherer) -> WorkTree:
    """The checked-out version files and changelog, gathered into the world."""
    config = g.config
    source = str(config.pyproject_path)
    current = str(version_files.bumpversion_table(config.pyproject, source)["current_version"])
    found, problems = version_files.scan(config.root, config.pyproject, source)
    stale = [f"{p.file}: {p.message}" for p in problems]
    stale += [
        f"{o.file}:{o.line} carries {o.value}" for o in version_files.mismatches(found, current)
    ]
    path = config.path(config.changelog)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    carried = version_files.hand_edit(found, problems, current)
    tree = WorkTree(current, tuple(stale), text, carried)
    g.found.worktree = tree
    return tree


@dataclass(frozen=True)
class Candidate:
    """``release rc`` (tag model): the checked-out files and the RCs HEAD must contain."""

    def gather(self, g: Gatherer) -> None:
        snap = g.world
        current = worktree(g).current
        try:
            version: Version | None = Version(current)
        except InvalidVersion:
            version = None
        tags = {n: t.commit or t.tag_object for n, t in snap.local.tags.items()}
        if snap.remote:
            tags.update(snap.remote.tags)
        for name, commit in tags.items():
            parsed = g.names.parse_tag(name)
            # The RC's version is the files' (under version-source = "tag", one of their series).
            if version is not None and parsed and parsed[0].release[:2] == version.release[:2]:
                g.ancestry(commit, snap.head)
        if snap.branch:
            g.current([snap.branch])
        if snap.head:  # the files that declare dependencies, at the commit to be tagged
            for pattern in pins.PIN_FILES:
                g.edited(snap.head, pattern)
            g.edited(snap.head, publishers.WORKFLOWS)  # what the RC tag would publish


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
        g.found.picks = dataclasses.replace(facts, milestone=listed)
        g.current([branch])


@dataclass(frozen=True)
class Bumped:
    """``release rc`` and ``release promote`` under ``rc-model = "bump"``: the checked-out
    release branch (main, under the trunk model), its version and version files, and whether a
    release candidate was made (since main, or under the trunk model since the newest final
    release)."""

    def gather(self, g: Gatherer) -> None:
        snap, rel = g.world, g.config.table(ReleaseConfig)
        branch = snap.branch
        parsed = g.names.branch.parse(branch) if branch else None
        trunk = rel.model == "trunk" and branch == rel.main_branch
        if branch is None or (parsed is None and not trunk):
            return
        worktree(g)
        g.version(branch)
        g.version_files(branch)
        g.current([branch])
        files = g.found.version_files.get(branch, ())
        since = f"refs/heads/{rel.main_branch}..HEAD"
        if trunk:
            tags = {} if snap.remote_error else snap.tags()
            newest = g.names.newest_final(tags)
            last = g.names.release_tag(newest, tags) if newest else None
            since = f"refs/tags/{last}..HEAD" if last else "HEAD"
        made = git.run(
            g.root, "log", "--format=%H", "-G", r"rc[0-9]", since, "--", *files, check=False
        )
        g.found.bumps = BumpFacts(rc_made=bool(made.strip()))
        try:
            carried = Version(Version(g.found.versions[branch]).base_version)
        except (KeyError, InvalidVersion):
            carried = None
        if parsed is not None:
            wanted = Version(f"{parsed['major']}.{parsed['minor']}.{parsed.get('patch', 0)}")
            version = max(wanted, carried or wanted)
        elif carried is not None:  # trunk: main carries the release
            version = carried
        else:
            return
        g.found.target = Target(version, None, branch, g.names.final_tag(version))
        if rel.rc_tagged:  # its RC tags, to tag the next candidate on a commit after them
            for commit in _rc_commits(snap, g.names, version):
                g.ancestry(commit, snap.head)
        if snap.head:  # the files that declare dependencies, at the commit to be released
            for pattern in pins.PIN_FILES:
                g.edited(snap.head, pattern)


def _rc_commits(snap: World, names: Names, version: Version) -> list[str]:
    """The commits of ``version``'s RC tags, here and on origin."""
    tags = {n: t.commit or t.tag_object for n, t in snap.local.tags.items()}
    if snap.remote:
        tags.update(snap.remote.tags)
    return [
        commit
        for name, commit in tags.items()
        if (parsed := names.read_tag(name)) and parsed[0] == version and parsed[1] is not None
    ]


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
    known_index: bool = False
    """Without ``index``: read the index the RC was published to (recorded, or configured)."""
    proven: bool = False
    """Download the bound files the index lists, from the URLs installers use, and hash them
    (publish and promote decide on their bytes, never on the index's word)."""
    upstream: tuple[Upstream, ...] = ()
    """The upstream records ``release bind`` writes into the manifest (a train member's): their
    origins are read too."""

    def gather(self, g: Gatherer) -> None:
        from mlrelease.release.promotion import facts

        target = self.resolve(g)
        g.found.target = target
        if target.rc is None:
            return
        tag = _rc_tag(g, target.rc)
        commit = tag.commit if tag else None
        side = g.world.remote.refs if g.world.remote else g.world.local
        if commit:
            g.ancestry(commit, side.heads.get(target.branch))
            g.version(commit)
        g.found.promote = facts.read(g.config, g.world, target, commit, self)

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
        parsed = rules.rc_named(g.world, names, rc) if rc else None
        if parsed is None:
            version = parse_release(self.version) if self.version else Version("0")
        else:
            version = parsed[0]
        branch = release_branch(g.config, version)
        return Target(version, rc, branch, names.final_tag(version))


def _rc_tag(g: Gatherer, rc: str) -> Any:
    side = g.world.remote.refs if g.world.remote else g.world.local
    return side.tags.get(rc)
