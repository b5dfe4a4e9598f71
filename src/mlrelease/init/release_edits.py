"""Release-only edits proposed from history, understood: every commit of the newest release
branch that changes a line to name the release (PyTorch's ``[RELEASE-ONLY CHANGES]``: ``@main``
-> ``@release/X.Y`` in the workflows, nightly indexes -> test indexes) is one, the first commit
or a later one (torchaudio's second); a fix picked from main is not. Each changed line becomes
an exact search, widened to whole words, and to the whole line when the change is one bare word
(``test-infra-ref: main``: ``main`` alone matches ``branches: [main]`` too). The branch's name
and series become ``{branch}`` and ``{series}``, and the series of the upstream project the
release pairs with (PyTorch's ``release/2.2`` on torchvision's ``release/0.17``) becomes
``{upstream_series}``, asked at ``release cut`` or read from the branch. An edit of a file main
no longer has is left, with the reason. Pure: the commits are read by
:func:`mlrelease.init.snapshot.branch_commits`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from mlrelease.init.snapshot import CommitDiff
from mlrelease.init.version_source import is_version

_BOUNDARY = " \t\"'=,()[]{}<>"
_BARE = re.compile(r"[\w.-]+")
"""One word: as a search, it matches unrelated text of the file."""
_RELEASE_BRANCH = re.compile(r"(?<![\w.])release/(\d+\.\d+)(?![\w]|\.\d)")
UPSTREAM = "{upstream_series}"
"""The placeholder of the upstream project's series in a proposed edit's ``replace``."""
PICKED = "(cherry picked from commit"


@dataclass(frozen=True)
class ProposedEdit:
    file: str
    search: str
    replace: str


@dataclass
class Found:
    """The release-only edits of a branch, and what init says about them."""

    edits: list[ProposedEdit] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    """``abc1234 subject`` of each commit that made them."""
    upstream: str | None = None
    """The upstream series the branch paired with (``2.2``), when an edit names one."""
    left: list[str] = field(default_factory=list)
    """Edits not proposed, each with the reason (a file main no longer has)."""


def _widen(old: str, new: str) -> tuple[str, str]:
    """The changed part of a line, widened to the boundaries around it (spaces, quotes), and
    to the whole line when that part is one bare word."""
    start = 0
    while start < min(len(old), len(new)) and old[start] == new[start]:
        start += 1
    end = 0
    while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    while start > 0 and old[start - 1] not in _BOUNDARY:
        start -= 1
    while end > 0 and old[len(old) - end] not in _BOUNDARY:
        end -= 1
    search, replace = old[start : len(old) - end], new[start : len(new) - end]
    if _BARE.fullmatch(search):
        return old.strip(), new.strip()
    return search, replace


def _pairs(diff: str) -> list[tuple[str, str, str]]:
    """(file, removed line, added line) for each hunk that replaces as many lines as it adds."""
    found: list[tuple[str, str, str]] = []
    path = ""
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        if path and removed and len(removed) == len(added):
            found.extend((path, r, a) for r, a in zip(removed, added, strict=True))
        removed.clear()
        added.clear()

    for line in diff.splitlines():
        if line.startswith("+++ "):
            flush()
            path = line[6:] if line.startswith("+++ b/") else ""
        elif line.startswith("@@"):
            flush()
        elif line.startswith("-") and not line.startswith("--- "):
            removed.append(line[1:])
        elif line.startswith("+"):
            added.append(line[1:])
    flush()
    return found


def _template(replace: str, branch: str, series: str) -> tuple[str, str | None]:
    """``replace`` as a format string (cut fills it in): literal braces doubled, the branch,
    its series and an upstream release branch's series (``release/2.2`` on ``release/0.17``)
    made placeholders; and that upstream series."""
    text = replace.replace("{", "{{").replace("}", "}}")
    upstream = next((m[1] for m in _RELEASE_BRANCH.finditer(text) if m[1] != series), None)
    text = text.replace(branch, "{branch}")
    text = re.sub(rf"(?<![\w.]){re.escape(series)}(?![\w]|\.\d)", "{series}", text)
    if upstream is not None:
        text = re.sub(rf"(?<![\w.]){re.escape(upstream)}(?![\w]|\.\d)", UPSTREAM, text)
    return text, upstream


def _commit_edits(
    commit: CommitDiff, branch: str, series: str, skip: Set[str]
) -> tuple[list[ProposedEdit], str | None]:
    """The edits one commit made, when it is a release-only commit: one of its changed lines
    names the release (its branch, series, or the upstream release it pairs with)."""
    edits: list[ProposedEdit] = []
    upstream = None
    for path, old, new in _pairs(commit.diff):
        if path in skip:
            continue
        search, replace = _widen(old, new)
        if not search or search == replace or (is_version(search) and is_version(replace)):
            continue
        template, paired = _template(replace, branch, series)
        upstream = upstream or paired
        edit = ProposedEdit(path, search, template)
        if edit not in edits and search not in replace:  # a second cut must find it done
            edits.append(edit)
    names_release = any(p in e.replace for e in edits for p in ("{branch}", "{series}", UPSTREAM))
    return (edits, upstream) if names_release else ([], None)


def _why_not(edit: ProposedEdit, commit: CommitDiff, main: Mapping[str, str | None]) -> str:
    """Why ``edit`` is not proposed for main (empty: it is): main no longer has its file, or
    its search matches more of main's text than the lines the commit changed."""
    if edit.file not in main:
        return "main no longer has it"
    text = main[edit.file]
    if text is None:
        return ""  # not read: nothing to check it against
    changed = sum(edit.search in old for path, old, _ in _pairs(commit.diff) if path == edit.file)
    if text.count(edit.search) > changed:
        return f"{edit.search!r} also matches lines of main's copy that the release left alone"
    return ""


def proposed_edits(
    commits: Sequence[CommitDiff],
    branch: str,
    series: str,
    skip: Set[str],
    main: Mapping[str, str | None],
) -> Found:
    """The edits the release-only commits of ``commits`` (the branch's, oldest first) made,
    as ``[tool.mlrelease.release] edits``: a version bump, the ``skip`` files and a pick from
    main left out; ``main``: main's files (path -> text, None when not read), an edit of a file
    it lacks, or whose search matches more of it than the release changed, left with the
    reason."""
    found = Found()
    for commit in commits:
        if PICKED in commit.body:
            continue  # a fix from main, not a release-only edit
        edits, upstream = _commit_edits(commit, branch, series, skip)
        if not edits:
            continue
        found.commits.append(f"{commit.sha[:7]} {commit.subject!r}")
        found.upstream = found.upstream or upstream
        for edit in edits:
            why = _why_not(edit, commit, main)
            note = f"{edit.file}: {commit.sha[:7]} of {branch} edited it, but {why}"
            if why and note not in found.left:
                found.left.append(note)
            elif not why and edit not in found.edits:
                found.edits.append(edit)
    return found
