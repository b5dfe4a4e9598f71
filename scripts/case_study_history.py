"""What Torch-TensorRT's maintainers did for one minor release, read from a mirror with plain
git (the ground truth the replay of ``case_study_replay.py`` is judged against; it uses none
of mlrelease's own rules, so that mlrelease is not graded by itself).

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
_TAG = re.compile(r"^v(\d+\.\d+\.\d+)(?:-rc(\d+))?$")


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


def _older(mirror: Path, version: Version, fork_date: int) -> tuple[dict[str, str], dict[str, str]]:
    """The release branches and tags of older versions, as they were at the fork point."""
    branches, tags = {}, {}
    for line in git(mirror, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads").split():
        m = re.fullmatch(r"release/(\d+)\.(\d+)", line)
        if m and (int(m[1]), int(m[2])) < (version.major, version.minor):
            sha = git(mirror, "rev-list", "-1", f"--before={fork_date}", line)
            if sha:
                branches[line] = sha
    fmt = "%(refname:strip=2) %(objectname) %(creatordate:unix)"
    for line in git(mirror, "for-each-ref", f"--format={fmt}", "refs/tags").splitlines():
        name, obj, when = line.split()
        m = _TAG.match(name)
        try:
            older = m is not None and Version(m[1]) < version
        except InvalidVersion:
            older = False
        if older and int(when) <= fork_date:
            tags[name] = obj
    return branches, tags


def _main_move(mirror: Path, fork: str, end: str) -> tuple[str, str, str, int, list[str]] | None:
    moves = git(
        mirror, "log", "--reverse", "--format=%H %ct %s", f"{fork}..{end}", "--", "version.txt"
    ).splitlines()
    if not moves:
        return None
    sha, when, subject = moves[0].split(" ", 2)
    began = int(git(mirror, "log", "-1", "--format=%ct", fork))
    files = git(mirror, "show", "--format=", "--name-only", sha).split()
    version = git(mirror, "show", f"{sha}:version.txt")
    return sha, subject, version, (int(when) - began) // 86400, files


def read(mirror: Path, release: str) -> History:
    """Release ``release`` (``X.Y.0``) as the mirror records it."""
    version = Version(release)
    branch = f"release/{version.major}.{version.minor}"
    fork = git(mirror, "merge-base", "main", branch)
    fork_date = int(git(mirror, "log", "-1", "--format=%ct", fork))
    final = f"v{version}"
    final_commit = git(mirror, "rev-parse", "-q", "--verify", f"{final}^{{commit}}") or None
    end = final_commit or branch
    main_line = [
        (int(d), s)
        for d, s in (
            x.split()
            for x in git(
                mirror, "log", "--reverse", "--first-parent", "--format=%ct %H", f"{fork}..main"
            ).splitlines()
        )
    ]
    main_prs: dict[str, str] = {}
    pr_dates: dict[str, int] = {}
    for line in git(mirror, "log", "--format=%H %ct %s", f"{fork}..main").splitlines():
        sha, when, subject = line.split(" ", 2)
        own = _OWN.search(subject)
        if own:
            main_prs.setdefault(own[1], sha)
            pr_dates.setdefault(own[1], int(when))
    on_main = {
        line[2:]: line.startswith("-")
        for line in git(mirror, "cherry", "main", end, fork).split("\n")
        if line
    }
    rcs: dict[str, list[tuple[int, str]]] = {}
    fmt = "%(refname:strip=2) %(*objectname) %(objectname)"
    for line in git(mirror, "for-each-ref", f"--format={fmt}", "refs/tags").splitlines():
        name, *objects = line.split()
        m = _TAG.match(name)
        if m and m[2] and Version(m[1]) == version:
            rcs.setdefault(objects[0], []).append((int(m[2]), name))
    commits: list[Commit] = []
    for sha in git(mirror, "rev-list", "--reverse", f"{fork}..{end}").split():
        subject, date, body = git(mirror, "log", "-1", "--format=%s%x00%ct%x00%b", sha).split(
            "\0", 2
        )
        own = _OWN.search(subject)
        named = sorted(
            n
            for n in _named(subject + "\n" + body)
            if n in main_prs and (own is None or n != own[1])
        )
        origins = (["same patch as a commit of main"] if on_main.get(sha) else []) + [
            f"#{n}" for n in sorted(named, key=int)
        ]
        commits.append(
            Commit(
                sha,
                subject,
                int(date),
                sorted(rcs.get(sha, [])),
                origins,
                _reverted(subject, body, commits),
            )
        )
    branches, tags = _older(mirror, version, fork_date)
    return History(
        version=version,
        branch=branch,
        fork=fork,
        fork_version=git(mirror, "show", f"{fork}:version.txt"),
        commits=commits,
        final_tag=final if final_commit else None,
        final_commit=final_commit,
        main_move=_main_move(mirror, fork, "main"),
        main_line=main_line,
        older_branches=branches,
        older_tags=tags,
        pr_dates=pr_dates,
    )
