"""Replay a past release of a project under ``version-source = "tag"`` (the PyTorch family):
the branch cut, main moving on, every cherry-pick onto the branch, every RC tag (no version
bump: the build takes the version from the tag) and the final tag on the last RC's commit,
each against what mlrelease's dry-run planners would do from the state just before it.
:func:`read_history` reads git once; :func:`replay` is pure."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from mlrelease.edges import git
from mlrelease.errors import UserError
from mlrelease.init.replay import Step
from mlrelease.naming import Names
from mlrelease.release.commit_subjects import named_prs, normalised, pr_number
from mlrelease.release.queries import PICKED
from mlrelease.versions import VersionModel


@dataclass(frozen=True)
class ReplayBranchCommit:
    sha: str
    subject: str
    body: str
    on_main: bool
    """``git cherry``: a commit with the same patch is on main."""
    rc_tags: tuple[tuple[int, str], ...] = ()
    """(number, name) of the release's RC tags on this commit."""


@dataclass(frozen=True)
class MainCommit:
    sha: str
    subject: str


@dataclass(frozen=True)
class TagHistory:
    """What a project did for one release under the tag model, read from git."""

    version: Version
    branch: str
    start: str
    """The fork point of the branch from main."""
    start_version: str
    commits: list[ReplayBranchCommit]
    """The branch's commits from the fork point up to the final tag (or the branch head)."""
    final_tag: str | None
    final_commit: str | None
    main_move: tuple[str, str, int] | None
    """(subject, version, days after the fork point) of main's first version change after it."""
    main_prs: dict[str, MainCommit] = field(default_factory=dict)
    """Pull request number -> the main commit whose subject ends with it (squash merges)."""
    versions: dict[str, str] = field(default_factory=dict)
    """Commit -> its version file's text (the RC commits and the fork point)."""


def _show(root: Path, ref: str, path: str) -> str:
    return git.run(root, "show", f"{ref}:{path}", check=False).strip()


def _ref(root: Path, branch: str) -> str:
    for ref in (branch, f"origin/{branch}"):
        if git.run(root, "rev-parse", "-q", "--verify", ref, check=False).strip():
            return ref
    raise UserError(f"replay: no branch {branch} (nor origin/{branch}) in {root}.")


def _tags(root: Path, names: Names, version: Version) -> dict[str, list[tuple[int, str]]]:
    """Commit -> (number, name) of ``version``'s RC tags on it."""
    found: dict[str, list[tuple[int, str]]] = {}
    lines = git.run(
        root,
        "for-each-ref",
        "refs/tags",
        "--format=%(refname:strip=2) %(*objectname) %(objectname)",
    ).splitlines()
    for line in lines:
        name, *objects = line.split()
        parsed = names.parse_tag(name)
        if parsed and parsed[0] == version and parsed[1] is not None:
            found.setdefault(objects[0], []).append((parsed[1], name))
    return {c: sorted(t) for c, t in found.items()}


def read_history(
    root: Path, version: Version, names: Names, *, main: str, version_file: str
) -> TagHistory:
    """Release ``version`` (``X.Y.0``) as git records it: the branch from its fork point to the
    final tag, its RC tags, its picks' origins on ``main`` and main's version move."""
    branch = names.branch_for((version.major, version.minor))
    ref = _ref(root, branch)
    start = git.run(root, "merge-base", main, ref).strip()
    final = names.final_tag(version)
    final_commit = git.run(root, "rev-list", "-n", "1", final, check=False).strip() or None
    end = final_commit or ref
    on_main = {
        line[2:]: line.startswith("-")
        for line in git.run(root, "cherry", main, end, start).splitlines()
    }
    tags = _tags(root, names, version)
    commits = []
    for sha in git.run(root, "rev-list", "--reverse", f"{start}..{end}").split():
        subject, _, body = git.run(root, "log", "-1", "--format=%s%x00%b", sha).partition("\0")
        rcs = tuple(tags.get(sha, ()))
        commits.append(ReplayBranchCommit(sha, subject.strip(), body.strip(), on_main[sha], rcs))
    move = None
    moves = git.run(
        root, "log", "--reverse", "--format=%H %ct %s", f"{start}..{main}", "--", version_file
    ).splitlines()
    if moves:
        sha, when, subject = moves[0].split(" ", 2)
        began = int(git.run(root, "log", "-1", "--format=%ct", start))
        move = (subject, _show(root, sha, version_file), (int(when) - began) // 86400)
    prs: dict[str, MainCommit] = {}
    for line in git.run(root, "log", "-n", "3000", "--format=%H %s", main).splitlines():
        sha, _, subject = line.partition(" ")
        number = pr_number(subject)
        if number:
            prs.setdefault(number, MainCommit(sha, subject))
    wanted = [start, *(c.sha for c in commits if c.rc_tags), *([final_commit] * bool(final_commit))]
    return TagHistory(
        version,
        branch,
        start,
        _show(root, start, version_file),
        commits,
        final if final_commit else None,
        final_commit,
        move,
        prs,
        {sha: _show(root, sha, version_file) for sha in wanted if sha},
    )


def _parse(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def replay(history: TagHistory, names: Names, model: VersionModel) -> list[Step]:
    """mlrelease's plan at each point of ``history``, step by step. A commit made directly on
    the branch (no origin on main) is a step with ``match`` None: no release command makes or
    refuses it; the next ``release rc`` tags it with the rest."""
    steps = _cut(history, names, model)
    last: tuple[str, str, int] | None = None
    for commit in history.commits:
        steps.append(_commit(history, commit))
        for number, name in commit.rc_tags:
            steps.append(_rc(history, names, model, commit, (number, name), last))
            last = (name, commit.sha, number)
    steps.append(_final(history, names, model, last))
    return steps


def _cut(h: TagHistory, names: Names, model: VersionModel) -> list[Step]:
    planned = names.branch_for((h.version.major, h.version.minor))
    cut = Step(
        "cut",
        f"`release cut --version {h.version.major}.{h.version.minor}`: branch {planned} at "
        f"{h.start[:9]} (main's head then, carrying {h.start_version}; no file edited)",
        f"branch {h.branch} forks from main at {h.start[:9]}",
        planned == h.branch,
    )
    current = _parse(h.start_version)
    moved = model.next_development(current, h.version.major, h.version.minor) if current else "?"
    actual = f"{h.main_move[1]}: {h.main_move[0]}" if h.main_move else "main not moved on yet"
    same = h.main_move is not None and h.main_move[1] == moved
    days = h.main_move[2] if h.main_move else 0
    return [
        cut,
        Step(
            "main moves on",
            f"`release cut` commits {moved} on main, in the same run",
            actual + (f" ({days} day(s) after the fork point)" if h.main_move else ""),
            same,
            ""
            if same and not days
            else f"the same version, by the project's own pull request {days} day(s) later: "
            "`release cut` moves main in the run that cuts the branch"
            if same
            else "a different version than the cut plans",
        ),
    ]


def _origins(h: TagHistory, c: ReplayBranchCommit) -> list[str]:
    """The main pull requests a branch commit names in its subject or message (the history's
    view: ``#N`` anywhere, numbers after ``cherry pick``), not its own pull request."""
    own = pr_number(c.subject)
    named = named_prs(c.subject) | named_prs(c.body)
    return sorted((n for n in named if n in h.main_prs and n != own), key=int)


def _commit(h: TagHistory, c: ReplayBranchCommit) -> Step:
    """A commit of the branch: a cherry-pick of main (as the history shows it) and whether
    ``release cherry-picks`` recognises it (patch, -x line, pull requests its subject names),
    a revert of a pick, or a direct commit (not counted)."""
    origins = _origins(h, c)
    shown = f"{c.subject} ({c.sha[:9]})"
    if c.subject.startswith("Revert ") and "This reverts commit" in c.body:
        return Step(
            "revert",
            "`release cherry-picks`: the pick is shown reverted on the branch, not picked again",
            shown,
            True,
        )
    recognised = (
        c.on_main or PICKED.search(c.body) or any(n in named_prs(c.subject) for n in origins)
    )
    if not (origins or recognised):
        return Step(
            "direct commit",
            "no plan: a commit made on the branch; the next `release rc` tags it",
            shown + ": not found on main",
            None,
        )
    how = (
        "the same patch (git cherry)"
        if c.on_main
        else "its (cherry picked from) line"
        if PICKED.search(c.body)
        else "the pull request(s) its subject names: " + ", ".join(f"#{n}" for n in origins)
    )
    if recognised:
        return Step("cherry-pick", f"`release cherry-picks`: picked, by {how}", shown, True)
    alike = [n for n in origins if normalised(h.main_prs[n].subject) == normalised(c.subject)]
    named = ", ".join(f"#{n}" for n in origins)
    return Step(
        "cherry-pick",
        f"`release cherry-picks`: maybe picked (same subject as #{alike[0]})"
        if alike
        else f"`release cherry-picks`: {named} missing",
        f"{shown}: names {named} of main in its message only",
        False,
        "mlrelease recognises a pick by its patch, its `(cherry picked from commit ...)` line "
        "or the pull requests its subject names; this commit names them in its message only",
    )


def _rc(
    h: TagHistory,
    names: Names,
    model: VersionModel,
    c: ReplayBranchCommit,
    tag: tuple[int, str],
    last: tuple[str, str, int] | None,
) -> Step:
    _, name = tag
    files = _parse(h.versions.get(c.sha, ""))
    actual = f"{name} on {c.sha[:9]} (files carry {h.versions.get(c.sha, '?')})"
    if last is not None and last[1] == c.sha:
        return Step(
            "rc tag",
            f"`release rc`: nothing to do, HEAD is already {last[0]}",
            actual,
            False,
            f"a second RC tag on the commit of {last[0]} (a rebuild of the same source): "
            "`release rc` tags each commit once; a rebuild re-runs the build of the same tag",
        )
    if files is None or not model.releasable(files) or not model.agrees(h.version, files):
        return Step("rc tag", f"`release rc`: refused (files carry {files})", actual, False)
    planned = names.rc_tag_for(h.version, last[2] + 1 if last else 1)
    return Step(
        "rc tag",
        f"`release rc`: tag {planned} on HEAD {c.sha[:9]}, no version bump",
        actual,
        planned == name,
        "" if planned == name else "the project skipped or reused an RC number",
    )


def _final(
    h: TagHistory, names: Names, model: VersionModel, last: tuple[str, str, int] | None
) -> Step:
    final = names.final_tag(h.version)
    if last is None:
        return Step("final tag", "`release promote`: refused, no RC", f"{h.final_tag}", False)
    planned = f"`release promote --rc {last[0]}`: tag {final} on {last[1][:9]}, the RC's commit"
    if h.final_commit is None:
        return Step("final tag", planned, "not tagged yet", False, "the release is not final")
    on = h.final_commit == last[1]
    after = [c.subject for c in h.commits if c.sha == h.final_commit]
    return Step(
        "final tag",
        planned,
        f"{h.final_tag} on {h.final_commit[:9]} (files carry {h.versions[h.final_commit]})",
        on and h.final_tag == final,
        ""
        if on
        else f"the final tag sits on a commit after {last[0]} that no RC built"
        + (f" ({after[0]})" if after else "")
        + ": `release promote` tags only a candidate's commit, so with mlrelease that "
        "commit becomes one more RC first",
    )


def match_rate(steps: list[Step]) -> tuple[int, int]:
    """(steps matching, steps counted): direct commits (``match`` None) are not counted."""
    counted = [s for s in steps if s.match is not None]
    return sum(1 for s in counted if s.match), len(counted)
