"""What a project's maintainers did for one release, read from a mirror with plain git (the
ground truth the replay of ``case_study_replay.py`` is judged against; it uses none of
mlrelease's own rules, so that mlrelease is not graded by itself). Torch-TensorRT's shape is
the default (:class:`Shape`); the adoption corpus (``adoption_corpus.py``) names each
project's own: its main branch, release branch, tag spellings and version file.

A branch commit is a **pick** in the history when main has a commit with the same patch
(``git cherry``) or when its subject or message names a pull request merged on main since the
fork (``#4321``, ``cherry pick 4247 4256``) other than its own; otherwise it is **direct** (made
on the branch only).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path

from case_study_lib import git
from packaging.version import InvalidVersion, Version

_OWN = re.compile(r"\(#(\d+)\)\s*$")
_NAMED = re.compile(r"#(\d+)\b|\bcherry[- ]?picks?\b((?:[\s,&]+(?:and\s+)?\d{3,}\b)+)", re.I)
_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{40})")


@dataclass(frozen=True)
class Shape:
    """How a project names its release refs and where it keeps its version: Torch-TensorRT's by
    default. The patterns are matched whole; their first group is a version."""

    main: str = "main"
    branch: str = "release/{major}.{minor}"
    """The release's branch (``{major}``, ``{minor}``, ``{patch}``); "" when the release was made
    on main itself (its commits are main's first-parent line, none a pick)."""
    tags: str = r"v(\d+\.\d+\.\d+)(?:-rc(\d+))?"
    """The project's release and RC tags: group 1 the version, group 2 the RC number."""
    final: str = "v{version}"
    older: str = r"release/(\d+\.\d+)"
    """Release branches; those of older versions are on origin when the release starts."""
    version_file: str = "version.txt"
    start: str = ""
    """The commit the release started from; "" for where the branch forks from main."""
    end: str = ""
    """The last commit of the release; "" for the final tag's commit (else the branch's head)."""
    upstream: str = ""
    """The series of the upstream project the release paired with (executorch 1.1 with torch
    2.10, its `Update torch pins to 2.10`): what a user gives ``release cut --upstream`` when
    the adopted release-only edits name ``{upstream_series}``; "" for none."""
    own_pr: bool = True
    """A branch commit ending with the number of a pull request merged on main is that pull
    request picked (a project that picks keeps the number). Torch-TensorRT's key, made before
    this rule, leaves a commit's own number out; its page judges those picks by hand."""

    def branch_of(self, version: Version) -> str:
        return self.branch.format(major=version.major, minor=version.minor, patch=version.micro)

    def tag_version(self, name: str) -> tuple[Version, int | None] | None:
        """The version and RC number of a tag of this spelling; None for another tag."""
        m = re.fullmatch(self.tags, name)
        rc = m[2] if m is not None and m.re.groups >= 2 else None
        try:
            return (Version(m[1]), int(rc) if rc is not None else None) if m else None
        except InvalidVersion:
            return None


TENSORRT = Shape(own_pr=False)


@dataclass
class Commit:
    sha: str
    subject: str
    date: int
    rc_tags: list[tuple[int, str]] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    """What the history shows it picks: the same patch as main's, ``#N`` of main."""
    reverts: str | None = None
    """The branch commit it reverts (``This reverts commit ...``), when it is a revert."""

    @property
    def pick(self) -> bool:
        return bool(self.origins) and self.reverts is None


@dataclass
class History:
    version: Version
    branch: str
    fork: str
    fork_version: str
    commits: list[Commit]
    final_tag: str | None
    final_commit: str | None
    main_move: tuple[str, str, str, int, list[str]] | None
    """(commit, subject, version.txt, days after the fork point, files it changed)."""
    main_line: list[tuple[int, str]]
    """(committer date, commit) of main since the fork, oldest first."""
    older_branches: dict[str, str]
    older_tags: dict[str, str]
    pr_dates: dict[str, int] = field(default_factory=dict)
    """Pull request number -> the date its commit reached main (since the fork)."""
    main: str = "main"
    """The project's development branch."""
    fork_rc_tags: list[tuple[int, str]] = field(default_factory=list)
    """RC tags of the release on the fork point itself (before any commit of the branch)."""

    @property
    def series(self) -> str:
        return f"{self.version.major}.{self.version.minor}"

    def main_at(self, date: int) -> str:
        """Main's commit at ``date`` (the fork point before main's first commit after it)."""
        at = bisect_right([d for d, _ in self.main_line], date)
        return self.main_line[at - 1][1] if at else self.fork


def _named(text: str) -> set[str]:
    found: set[str] = set()
    for m in _NAMED.finditer(text):
        found |= {m[1]} if m[1] else set(re.findall(r"\d{3,}", m[2]))
    return found


def _reverted(subject: str, body: str, earlier: list[Commit]) -> str | None:
    """The branch commit a revert undoes: named by its ``This reverts commit`` line, or, for a
    squash-merged revert without one (``Revert "cherry pick 4203 ..." (#4275)``), the earlier
    commit whose subject (without its ``(#N)``) the revert quotes."""
    if not subject.startswith('Revert "'):
        return None
    named = _REVERTS.search(body)
    if named:
        return named[1]
    quoted = subject[len('Revert "') :].rsplit('"', 1)[0]
    alike = [c.sha for c in earlier if _OWN.sub("", c.subject).strip() == quoted.strip()]
    return alike[-1] if alike else None


def _older(
    mirror: Path, version: Version, fork_date: int, shape: Shape
) -> tuple[dict[str, str], dict[str, str]]:
    """The release branches and tags of older versions, as they were at the fork point."""
    branches, tags = {}, {}
    for line in git(mirror, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads").split():
        m = re.fullmatch(shape.older, line)
        try:
            older = m is not None and Version(m[1]) < version
        except InvalidVersion:
            older = False
        if older:
            sha = git(mirror, "rev-list", "-1", f"--before={fork_date}", f"refs/heads/{line}")
            if sha:
                branches[line] = sha
    fmt = "%(refname:strip=2) %(objectname) %(creatordate:unix)"
    for line in git(mirror, "for-each-ref", f"--format={fmt}", "refs/tags").splitlines():
        name, obj, when = line.split()
        found = shape.tag_version(name)
        if found is not None and found[0] < version and int(when) <= fork_date:
            tags[name] = obj
    return branches, tags


def _main_move(
    mirror: Path, fork: str, main: str, file: str
) -> tuple[str, str, str, int, list[str]] | None:
    moves = git(
        mirror, "log", "--reverse", "--format=%H %ct %s", f"{fork}..{main}", "--", file
    ).splitlines()
    if not moves:
        return None
    sha, when, subject = moves[0].split(" ", 2)
    began = int(git(mirror, "log", "-1", "--format=%ct", fork))
    files = git(mirror, "show", "--format=", "--name-only", sha).split()
    version = _file_at(mirror, sha, file)
    return sha, subject, version, (int(when) - began) // 86400, files


def _file_at(mirror: Path, commit: str, file: str) -> str:
    """The text of ``file`` at ``commit``, stripped ("" when the commit has no such file)."""
    if not git(mirror, "ls-tree", commit, "--", file):
        return ""
    return git(mirror, "show", f"{commit}:{file}")


def _main_prs(mirror: Path, fork: str, main: str) -> tuple[dict[str, str], dict[str, int]]:
    """The pull requests merged on main since the fork (``(#N)`` ending a subject): number ->
    commit, and number -> date."""
    main_prs: dict[str, str] = {}
    pr_dates: dict[str, int] = {}
    for line in git(mirror, "log", "--format=%H %ct %s", f"{fork}..{main}").splitlines():
        sha, when, subject = line.split(" ", 2)
        own = _OWN.search(subject)
        if own:
            main_prs.setdefault(own[1], sha)
            pr_dates.setdefault(own[1], int(when))
    return main_prs, pr_dates


def _rc_tags(mirror: Path, version: Version, shape: Shape) -> dict[str, list[tuple[int, str]]]:
    """Commit -> the RC tags of ``version`` on it, (number, name)."""
    rcs: dict[str, list[tuple[int, str]]] = {}
    fmt = "%(refname:strip=2) %(*objectname) %(objectname)"
    for line in git(mirror, "for-each-ref", f"--format={fmt}", "refs/tags").splitlines():
        name, *objects = line.split()
        found = shape.tag_version(name)
        if found is not None and found[1] is not None and found[0] == version:
            rcs.setdefault(objects[0], []).append((found[1], name))
    return rcs


def _commits(
    mirror: Path,
    fork: str,
    end: str,
    main: str,
    shape: Shape,
    rcs: dict[str, list[tuple[int, str]]],
) -> tuple[list[Commit], dict[str, int]]:
    """The release's commits from the fork to ``end``, oldest first, each with what it picks
    (on a branch), and the dates of main's pull requests."""
    main_prs, pr_dates = _main_prs(mirror, fork, main)
    trunk = not shape.branch
    on_main = (
        {}
        if trunk
        else {
            line[2:]: line.startswith("-")
            for line in git(mirror, "cherry", main, end, fork).split("\n")
            if line
        }
    )
    commits: list[Commit] = []
    line = ["--first-parent"] if trunk else []
    for sha in git(mirror, "rev-list", "--reverse", *line, f"{fork}..{end}").split():
        subject, date, body = git(mirror, "log", "-1", "--format=%s%x00%ct%x00%b", sha).split(
            "\0", 2
        )
        own = _OWN.search(subject)
        named = sorted(
            n
            for n in _named(subject + "\n" + body)
            if not trunk and n in main_prs and (shape.own_pr or own is None or n != own[1])
        )
        origins = (["same patch as a commit of main"] if on_main.get(sha) else []) + [
            f"#{n}" for n in sorted(named, key=int)
        ]
        reverts = None if trunk else _reverted(subject, body, commits)
        commits.append(Commit(sha, subject, int(date), sorted(rcs.get(sha, [])), origins, reverts))
    return commits, pr_dates


def read(mirror: Path, release: str, shape: Shape = TENSORRT) -> History:
    """Release ``release`` (``X.Y.Z``) as the mirror records it, in the project's ``shape``."""
    version = Version(release)
    main = f"refs/heads/{shape.main}"
    branch = shape.branch_of(version) if shape.branch else shape.main
    fork = git(mirror, "rev-parse", f"{shape.start}^{{commit}}") if shape.start else ""
    fork = fork or git(mirror, "merge-base", main, f"refs/heads/{branch}")
    fork_date = int(git(mirror, "log", "-1", "--format=%ct", fork))
    final = shape.final.format(version=version)
    final_commit = git(mirror, "rev-parse", "-q", "--verify", f"{final}^{{commit}}") or None
    end = shape.end or final_commit or f"refs/heads/{branch}"
    main_line = [
        (int(d), s)
        for d, s in (
            x.split()
            for x in git(
                mirror, "log", "--reverse", "--first-parent", "--format=%ct %H", f"{fork}..{main}"
            ).splitlines()
        )
    ]
    rcs = _rc_tags(mirror, version, shape)
    commits, pr_dates = _commits(mirror, fork, end, main, shape, rcs)
    branches, tags = _older(mirror, version, fork_date, shape)
    return History(
        version=version,
        branch=branch,
        fork=fork,
        fork_version=_file_at(mirror, fork, shape.version_file),
        commits=commits,
        final_tag=final if final_commit else None,
        final_commit=final_commit,
        main_move=None if not shape.branch else _main_move(mirror, fork, main, shape.version_file),
        main_line=main_line,
        older_branches=branches,
        older_tags=tags,
        pr_dates=pr_dates,
        main=shape.main,
        fork_rc_tags=sorted(rcs.get(fork, [])),
    )
