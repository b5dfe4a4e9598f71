"""How a repository releases, read from a :class:`~mlrelease.init.snapshot.Snapshot` (pure):
its tag spelling, release branches, how release candidates are made, its changelog and commit
style. Each detector returns its conclusion with the evidence."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from packaging.version import Version

from mlrelease import naming
from mlrelease.init.branch_history import CommitDiff
from mlrelease.init.snapshot import CHANGELOG_NAMES, Snapshot
from mlrelease.release import publishers


@dataclass(frozen=True)
class TagScheme:
    tag: str
    rc_tag: str
    why: str
    latest: str | None = None
    """The newest final release tag, if any."""
    rc_first: int = 1
    """The number the project's newest RC series starts at (torchdata's ``-rc0``)."""


@dataclass(frozen=True)
class Model:
    name: Literal["branch", "trunk"]
    branch: str
    main_branch: str
    why: str
    newest: str = ""
    """The newest release branch (``branch`` model): its first commit shows the release-only
    edits (:mod:`mlrelease.init.release_edits`)."""


_TAG = naming.RELEASE_TAG


NEWEST = 3
"""A project's current convention (tag or branch spelling) is the one most of its newest this
many releases, by version, use: a spelling it gave up stays in its history, never in a proposal."""


def newest_convention(found: list[tuple[tuple[int, ...], str, str]]) -> tuple[str, list[str]]:
    """(the spelling, the names spelled so): ``found`` holds (version, spelling, name) of each
    release tag or branch; the spelling most of the :data:`NEWEST` newest by version use, a tie
    going to the newest. Tags and release branches are judged by this one rule."""
    newest = sorted(found, key=lambda f: f[0], reverse=True)[:NEWEST]
    counts = Counter(spelling for _, spelling, _ in newest)
    top = max(counts.values())
    chosen = next(spelling for _, spelling, _ in newest if counts[spelling] == top)
    return chosen, [name for _, spelling, name in newest if spelling == chosen]


def _older(found: list[tuple[tuple[int, ...], str, str]], chosen: str, shown: str) -> str:
    """``, 6 others spelled ...`` for the spellings ``found`` holds besides ``chosen``."""
    others = Counter(spelling for _, spelling, _ in found if spelling != chosen)
    return "".join(f", {n} other(s) spelled {shown.format(s)}" for s, n in others.most_common())


def tag_scheme(snap: Snapshot) -> TagScheme:
    """The tag spelling of the newest release tags, by version (``v1.2.3``, ``1.2.3``;
    ``-rc1``, ``rc1``): :func:`newest_convention`."""
    finals: list[tuple[tuple[int, ...], str, str]] = []
    rcs: list[tuple[tuple[int, ...], str, str]] = []
    for tag in snap.tags:
        m = _TAG.match(tag)
        if not m:
            continue
        # By version, not by date: tags made in one second have no order by date.
        release = Version(m["base"]).release
        if m["rc"] is None:
            finals.append((release, m["prefix"], tag))
        else:
            rcs.append(((*release, int(m["rc"])), m["prefix"] + "\0" + m["sep"], tag))
    if not finals and not rcs:
        return TagScheme(
            "v{major}.{minor}.{patch}",
            "v{major}.{minor}.{patch}rc{rc}",
            "no release tags yet: the common spelling v1.2.3 / v1.2.3rc1 is proposed",
        )
    if finals:
        prefix, named = newest_convention(finals)
        latest: str | None = max(finals, key=lambda f: f[0])[2]
        older = _older(finals, prefix, "{}X.Y.Z")
    else:
        prefix = newest_convention(rcs)[0].split("\0")[0]
        latest, named, older = None, [], ""
    first = 1
    if rcs:
        rc_prefix, sep = newest_convention(rcs)[0].split("\0")
        rc_why = f"{len(rcs)} RC tags, the newest spelled {rc_prefix}X.Y.Z{sep}N"
        first = _rc_first(rcs)
        rc_why += ", numbered from 0" if first == 0 else ""
    else:
        rc_prefix, sep, rc_why = _rc_of_workflows(snap, prefix)
    newest = f" ({', '.join(named)})" if named else ""
    return TagScheme(
        f"{prefix}{{major}}.{{minor}}.{{patch}}",
        f"{rc_prefix}{{major}}.{{minor}}.{{patch}}{sep}{{rc}}",
        f"{len(finals)} release tags, the newest{newest} spelled {prefix}X.Y.Z{older}; {rc_why}",
        latest,
        first,
    )


def _rc_of_workflows(snap: Snapshot, prefix: str) -> tuple[str, str, str]:
    """(prefix, separator, why) of the RC tags the project's workflows build, with no RC tag
    yet (tensordict's wheel workflows run on ``v[0-9]+.[0-9]+.[0-9]+-rc[0-9]+``); PEP 440's
    ``rcN`` when none names one."""
    texts = {p: t for p, t in snap.texts.items() if p.startswith(".github/workflows/")}
    for pattern, sample in publishers.tag_samples(texts).items():
        m = _TAG.match(sample)
        if m and m["rc"] is not None:
            why = f"no RC tags, but the workflows build RC tags {pattern}"
            return m["prefix"], m["sep"], why
    return prefix, "rc", "no RC tags: the PEP 440 spelling rcN is proposed"


def _rc_first(rcs: list[tuple[tuple[int, ...], str, str]]) -> int:
    """0 when the newest version with RC tags numbered them from 0 (torchdata's
    ``v0.10.0-rc0``), else 1."""
    newest = max(rc[0][:-1] for rc in rcs)
    return min(rc[0][-1] for rc in rcs if rc[0][:-1] == newest) and 1


_BRANCH = re.compile(
    r"^(?P<prefix>release/v?|releases/v?|release-v?|rel-v?|r|v)"
    r"(?P<major>\d+)\.(?P<minor>\d+)(?:(?P<patch>\.\d+)|(?P<suffix>\.x))?$"
)


def release_model(snap: Snapshot) -> Model:
    """``branch`` when release branches (release/X.Y, rel-X.Y.Z, rX.Y, ...) exist, else
    ``trunk``."""
    main = snap.main_branch
    found: list[tuple[tuple[int, ...], str, str]] = []
    for name in snap.branches:
        m = _BRANCH.match(name)
        if m:
            # rel-1.22.0: one branch per release, patch releases included (ONNX).
            tail = ".{patch}" if m["patch"] else m["suffix"] or ""
            template = f"{m['prefix']}{{major}}.{{minor}}{tail}"
            patch = int(m["patch"][1:]) if m["patch"] else 0
            found.append(((int(m["major"]), int(m["minor"]), patch), template, name))
    if found:
        template, named = newest_convention(found)
        older = _older(found, template, "{}")
        stopped = _branches_stopped(snap, found) or _branches_kept(snap, found)
        if stopped:
            return Model("trunk", template, main, stopped, named[0])
        return Model(
            "branch",
            template,
            main,
            f"{len(found)} release branch(es), the newest ({', '.join(named)}) spelled "
            f"{template}{older}: releases are cut from {main} and tagged on their branch",
            named[0],
        )
    return Model(
        "trunk",
        "release/{major}.{minor}",
        main,
        f"no release branches; releases are tagged on {main}",
    )


def _finals(snap: Snapshot) -> list[re.Match[str]]:
    """The final release tags, newest first, by version."""
    finals = (m for t in snap.tags if (m := _TAG.match(t)) and m["rc"] is None)
    return sorted(finals, key=lambda m: Version(m["base"]), reverse=True)


def _newest_release(snap: Snapshot) -> re.Match[str] | None:
    """The newest final release tag, by version."""
    return next(iter(_finals(snap)), None)


def _branches_kept(snap: Snapshot, found: list[tuple[tuple[int, ...], str, str]]) -> str:
    """Why the release branches that reach the newest release are markers, not practice (""
    when they are practice): main's history holds the two newest releases' tags and every
    branch that reaches the newest, so the releases were tagged on main and a branch kept
    beside each (tensorflow-onnx's r1.16 and r1.16.1 at v1.16.1, on main like v1.16.0). A
    release branch carries commits main lacks (its version, its picks), and its release tag
    one of them; one release alone on main is no practice (a branch cut at its tag)."""
    releases = _finals(snap)[:2]
    if len(releases) < 2 or any(m.group(0) not in snap.merged for m in releases):
        return ""
    newest = releases[0]
    released = Version(newest["base"]).release[:2]
    reaching = sorted(f[2] for f in found if f[0][:2] >= released)
    if not reaching or any(name not in snap.merged for name in reaching):
        return ""
    return (
        f"{len(found)} release branch(es), and those that reach the newest release, "
        f"{newest.group(0)} ({', '.join(reaching)}), hold no commit {snap.main_branch} lacks, "
        f"nor do the tags of it and {releases[1].group(0)}: releases are tagged on "
        f"{snap.main_branch}, a branch kept beside each"
    )


def _branches_stopped(snap: Snapshot, found: list[tuple[tuple[int, ...], str, str]]) -> str:
    """Why the release branches are history, not practice ("" when they are practice): none
    reaches the newest release's series (onnxmltools' r1.6 and r1.7 beside 1.14.0, tagged on
    main)."""
    newest = _newest_release(snap)
    if newest is None:
        return ""
    released = Version(newest["base"]).release[:2]
    if any(f[0][:2] >= released for f in found):
        return ""
    return (
        f"{len(found)} release branch(es), but none reaches the newest release, "
        f"{newest.group(0)} (the newest branch: {max(found)[2]}): releases are tagged on "
        f"{snap.main_branch}"
    )


KEPT_RELEASES = 3
"""A changelog that names none of the newest this many final releases is no longer kept."""


def changelog(snap: Snapshot) -> tuple[str | None, str, str | None]:
    """(the changelog the ``changelog`` gate checks, why, a changelog file the project stopped
    keeping): no gate for a file whose release notes stopped (they live elsewhere, e.g. on
    GitHub releases), nor when there is no file."""
    for name in CHANGELOG_NAMES:
        if name in snap.files:
            fmt = "reStructuredText" if name.endswith(".rst") else "Markdown"
            stale = _stale(snap.text(name), _releases(snap.tags)[:KEPT_RELEASES])
            if stale:
                why = (
                    f"{name} exists ({fmt}) but names none of the newest releases ({stale}) "
                    "and has no Unreleased section: the project keeps its release notes "
                    "elsewhere, so the `changelog` gate is not proposed (add an Unreleased "
                    "section, then add `changelog` to gates, to keep it again)"
                )
                return None, why, name
            return name, f"{name} exists ({fmt}); the `changelog` gate checks its sections", None
    return (
        None,
        "no changelog file: proposed new file CHANGELOG.md (`mlrelease changelog "
        "--execute` fills it); add `changelog` to gates once it exists",
        None,
    )


def _releases(tags: list[str]) -> list[str]:
    """The versions of the final release tags, newest first (each once)."""
    found: list[str] = []
    for tag in tags:
        m = _TAG.match(tag)
        if m and not m["rc"] and m["base"] not in found:
            found.append(m["base"])
    return found


def _stale(text: str | None, releases: list[str]) -> str:
    """The newest releases, as a phrase, when ``text`` records older releases but none of
    them, and has no Unreleased heading; empty when the changelog is kept, new (it records no
    release yet) or unreadable."""
    if text is None or not releases or re.search(r"^\W*unreleased\b", text, re.I | re.M):
        return ""
    if not re.search(r"\d+\.\d+\.\d+", text):
        return ""
    for version in releases:
        if re.search(rf"(?<![\d.]){re.escape(version)}(?![\d])", text):
            return ""
    return ", ".join(releases)


_CC = re.compile(
    r"^(feat|fix|perf|refactor|revert|docs|build|ci|deps|test|chore|style)"
    r"(\([^)]*\))?!?: "
)


def conventional(snap: Snapshot) -> tuple[int, int]:
    return sum(1 for s in snap.subjects if _CC.match(s)), len(snap.subjects)


@dataclass(frozen=True)
class RcModel:
    """How release candidates are made: ``tag`` (vX.Y.Z-rcN) or ``bump`` (X.Y.ZrcN commits)."""

    name: Literal["tag", "bump"]
    why: str
    tagged: bool = False
    """Under ``bump``: each candidate's bump is also tagged (``rc-tagged``), as a project whose
    workflow builds and publishes on tags needs (onnxoptimizer's ``v0.4.2rc1``)."""


# "Set version number to 1.22.0rc1", "Bump to rc2", "Update VERSION_NUMBER to rc4".
_RC = r"(?:\b|(?<=\d))rc\s?\d+\b"
_RC_BUMP = re.compile(rf"(?:version|bump).*{_RC}|{_RC}.*version", re.I)


def rc_model(snap: Snapshot, tags: TagScheme) -> RcModel:
    """``bump`` when no RC is tagged but commits set release-candidate versions (ONNX)."""
    rc_tags = [t for t in snap.tags if (m := _TAG.match(t)) and m["rc"] is not None]
    if rc_tags:
        return RcModel("tag", f"{len(rc_tags)} RC tags such as {rc_tags[0]}")
    bumps = [s for s in snap.rc_subjects if _RC_BUMP.search(s)]
    if bumps:
        return RcModel(
            "bump",
            f"no RC tags, but {len(bumps)} commit(s) set a release-candidate version, e.g. "
            f"{bumps[0]!r}: release candidates are version bumps on the release branch, "
            f"and only the final release is tagged ({tags.tag})",
        )
    return RcModel("tag", "no release candidates yet: RCs are tagged " + tags.rc_tag)


_PICK_SUBJECT = re.compile(r"^(\[release/|cherry[- ]?pick)", re.I)
"""A pick's subject: PyTorch's ``[release/2.13] Fix ...``, ``Cherry-pick ...``."""


def picks_mode(
    commits: Sequence[CommitDiff], branch: str, trailer: str = "Release-Target"
) -> tuple[Literal["trailer", "fixes"], str]:
    """How fixes reached the newest release branch: ``fixes`` when they were picked by hand
    (``(cherry picked from commit ...)``, a ``[release/X.Y]`` subject) and none carries the
    release trailer (the PyTorch family); ``trailer`` (the default) otherwise."""
    picked = [
        c
        for c in commits
        if "(cherry picked from commit" in c.body or _PICK_SUBJECT.match(c.subject)
    ]
    marked = [c for c in commits if re.search(rf"^{re.escape(trailer)}:", c.body, re.M | re.I)]
    if picked and not marked:
        return "fixes", (
            f"{len(picked)} fix(es) reached {branch} picked by hand (e.g. {picked[0].subject!r}), "
            f"none marked with a {trailer} trailer: every fix on main since the fork is a "
            "candidate (`release cherry-picks`)"
        )
    if marked:
        return "trailer", f"{len(marked)} commit(s) of {branch} carry the {trailer} trailer"
    return "trailer", f"no fix was picked onto {branch} yet: fixes on main carry {trailer}: X.Y"
