"""Replay a past release of an adopted project: what mlrelease's dry-run plan would have been at
each point (branch cut, each version bump, each cherry-pick, the final tag) against what the
project did. :func:`read_history` reads git once; :func:`replay` is pure."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from packaging.version import InvalidVersion, Version

from mlrelease.edges import git
from mlrelease.errors import PreconditionError, UserError
from mlrelease.naming import Names
from mlrelease.release.bump_model import next_version, subject
from mlrelease.release.config import series

PR = re.compile(r"#(\d+)\b")


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    body: str
    before: str
    """The version file's content at the parent."""
    after: str
    """The version file's content at this commit."""
    on_main: bool
    """``git cherry``: a commit with the same patch is on the main branch."""


@dataclass(frozen=True)
class History:
    """What a project did for one release, read from git."""

    version: Version
    branch: str
    start: str
    """Where the branch was cut: the fork point from main, or the previous release's tag."""
    start_version: str
    commits: list[Commit]
    tag: str | None
    tag_commit: str | None
    tag_version: str | None
    head: str
    main_bump: tuple[str, str, int, bool] | None
    """(subject, version, days after the branch point, made before the branch's first commit)
    of the first commit after ``start`` moving main's version on."""
    main_subjects: dict[str, str] = field(default_factory=dict)
    """PR number -> subject of the main commits since the release before (squash merges)."""


@dataclass(frozen=True)
class Step:
    step: str
    planned: str
    actual: str
    match: bool | None
    """None: not a release step (a commit made on the branch directly), not counted."""
    why: str = ""


def _version(root: Path, ref: str, path: str) -> str:
    return git.run(root, "show", f"{ref}:{path}", check=False).strip()


def _time(root: Path, ref: str) -> int:
    return int(git.run(root, "log", "-1", "--format=%ct", ref).strip())


def read_history(
    root: Path,
    version: Version,
    names: Names,
    *,
    main: str,
    version_file: str,
    previous_tag: str | None = None,
) -> History:
    """The release ``version`` as git records it (branch, bumps, picks, tag, main's bump).

    ``main`` may be a remote-tracking name (``origin/main``); release branches are looked up
    locally, then under ``origin/``. A patch release's branch starts at ``previous_tag``.
    """
    major, minor, patch = (*version.release, 0, 0)[:3]
    branch = names.branch_for((major, minor), patch)
    ref = next(
        (
            r
            for r in (branch, f"origin/{branch}")
            if git.run(root, "rev-parse", "-q", "--verify", r, check=False).strip()
        ),
        None,
    )
    if ref is None:
        raise UserError(f"replay {version}: no branch {branch} (nor origin/{branch}) in {root}.")
    if patch and previous_tag:
        start = git.run(root, "rev-list", "-n", "1", previous_tag).strip()
    else:
        start = git.run(root, "merge-base", main, ref).strip()
    on_main = {
        line[2:]: line.startswith("-")
        for line in git.run(root, "cherry", main, ref, start).splitlines()
    }
    commits = []
    for sha in git.run(root, "rev-list", "--reverse", f"{start}..{ref}").split():
        text = git.run(root, "log", "-1", "--format=%s%x00%b", sha)
        subj, _, body = text.partition("\0")
        commits.append(
            Commit(
                sha,
                subj.strip(),
                body.strip(),
                _version(root, f"{sha}^", version_file),
                _version(root, sha, version_file),
                on_main.get(sha, False),
            )
        )
    tag = names.final_tag(version)
    tag_commit = git.run(root, "rev-list", "-n", "1", tag, check=False).strip() or None
    bump = None
    moves = git.run(
        root, "log", "--reverse", "--format=%H %s", f"{start}..{main}", "--", version_file
    ).splitlines()
    if moves:
        sha, _, subj = moves[0].partition(" ")
        when = _time(root, sha)
        first = _time(root, commits[0].sha) if commits else when
        days = (when - _time(root, start)) // 86400
        bump = (subj, _version(root, sha, version_file), days, when <= first)
    main_subjects: dict[str, str] = {}
    # Squash-merged pull requests end their subject with (#N); the newest thousands suffice.
    for line in git.run(root, "log", "-n", "5000", "--format=%s", main).splitlines():
        numbers = PR.findall(line)
        if numbers:
            main_subjects.setdefault(numbers[-1], line)
    return History(
        version,
        branch,
        start,
        _version(root, start, version_file),
        commits,
        tag if tag_commit else None,
        tag_commit,
        _version(root, tag_commit, version_file) if tag_commit else None,
        git.run(root, "rev-parse", ref).strip(),
        bump,
        main_subjects,
    )


def _parse(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def replay(history: History, names: Names) -> list[Step]:
    """mlrelease's plan at each point of ``history`` under ``rc-model = "bump"``, step by step."""
    steps = _cut(history, names)
    final_bump: str | None = None
    for c in history.commits:
        if c.before != c.after:
            step = _bump(history, c)
            if step.step == "final bump":
                final_bump = c.sha
            steps.append(step)
        else:
            steps.append(_pick(history, c))
    steps.append(_final_tag(history, names, final_bump))
    return steps


def _cut(h: History, names: Names) -> list[Step]:
    """The branch cut, and main moving on to the next minor version."""
    steps = []
    major, minor = series(h.version)
    patch = (*h.version.release, 0, 0)[2]
    planned_branch = names.branch_for((major, minor), patch)
    if patch:
        # `release cut --version X.Y` cuts X.Y.0 from main; a patch release's own branch, cut
        # from the previous release's tag, has no command yet.
        steps.append(
            Step(
                "cut",
                f"no command: `release cut` cuts {names.branch_for((major, minor))} from main",
                f"branch {h.branch} at {h.start[:9]} (the previous release's tag)",
                False,
                f"the name rule gives {planned_branch}, but `release cut` takes a series "
                "and cuts from main; a patch branch from the last tag is done by hand",
            )
        )
    else:
        steps.append(
            Step(
                "cut",
                f"`release cut --version {major}.{minor}`: branch {planned_branch} at "
                f"{h.start[:9]} (carrying {h.start_version})",
                f"branch {h.branch} at {h.start[:9]}",
                planned_branch == h.branch,
            )
        )
    if h.version.micro == 0:
        planned_main = f"{major}.{minor + 1}.0"
        actual_main = h.main_bump[1] if h.main_bump else "none yet"
        steps.append(
            Step(
                "main moves on",
                f"`release cut`: set {planned_main} on main",
                f"{actual_main}: {h.main_bump[0]}" if h.main_bump else "no bump on main yet",
                actual_main == planned_main and h.main_bump is not None and h.main_bump[3],
                ""
                if h.main_bump is not None and h.main_bump[3]
                else f"the same version, but later: `release cut` bumps main when it cuts the "
                f"branch; onnx bumped it by its own pull request {h.main_bump[2]} day(s) after "
                "the branch point, once work on the branch had begun"
                if h.main_bump
                else "onnx has not moved main on yet",
            )
        )
    return steps


def _bump(h: History, c: Commit) -> Step:
    """A commit of the branch that changed the version: an RC or the final bump."""
    before, after = _parse(c.before), _parse(c.after)
    if before is None or after is None:
        return Step(
            "version bump",
            "?",
            f"{c.after}: {c.subject}",
            False,
            "the version file does not hold a PEP 440 version",
        )
    step: Literal["rc", "final"] = "final" if after.pre is None else "rc"
    try:
        planned = next_version(before, step, released=False, target=h.version)
        verb = "release rc" if step == "rc" else "release promote"
        shown = f"`{verb}`: {subject(planned)}"
    except PreconditionError as exc:
        planned, shown = None, f"refused: {exc}"
    return Step(
        f"{step} bump",
        shown,
        f"{after}: {c.subject}",
        planned == after,
        "" if planned == after else "a different version than the planner's",
    )


def _pick(h: History, c: Commit) -> Step:
    """Any other commit of the branch: a fix that should have landed on main first."""
    numbers = PR.findall(f"{c.subject}\n{c.body}")
    # The last number of a squash-merged subject is the branch PR itself.
    origins = sorted({n for n in numbers if n in h.main_subjects and n != numbers[-1]}, key=int)
    if c.on_main:
        how = "found on main by patch identity (git cherry)"
    elif origins:
        how = "found on main by title: " + ", ".join(f"#{n}" for n in origins)
    else:
        how = "not found on main"
    return Step(
        "cherry-pick",
        "pick the fixes that landed on main first",
        f"{c.subject} ({c.sha[:9]}): {how}",
        c.on_main or bool(origins),
        ""
        if c.on_main or origins
        else "a branch-only commit: mlrelease expects every fix on main first",
    )


def _final_tag(h: History, names: Names, final_bump: str | None) -> Step:
    """The final tag: `release promote` tags the commit it bumps, in the same run."""
    final = names.final_tag(h.version)
    carrying = h.tag_version == str(h.version)
    at = final_bump or h.head
    later = final_bump is not None and h.tag_commit != final_bump
    return Step(
        "final tag",
        f"`release promote`: tag {final} on {at[:9]}, the commit setting {h.version}",
        f"{h.tag} on {h.tag_commit[:9]} (carrying {h.tag_version}"
        + (", the branch head)" if h.tag_commit == h.head else ", not the branch head)")
        if h.tag and h.tag_commit
        else "not tagged",
        h.tag == final and carrying and h.tag_commit == at,
        "onnx committed after the final bump and tagged that commit; `release promote` "
        "tags the bump it makes, so with mlrelease the late fix goes in before `promote` "
        "(or the bump is made with `mlrelease bump --to`, and `promote` then only tags)"
        if later
        else "",
    )


def match_rate(steps: list[Step]) -> tuple[int, int]:
    """(steps matching what the project did, all steps)."""
    return sum(1 for s in steps if s.match), len(steps)
