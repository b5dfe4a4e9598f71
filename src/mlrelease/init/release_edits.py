"""Release-only edits proposed from history, understood: every change of the newest release
branch that moves a line from the development line to the release (PyTorch's
``[RELEASE-ONLY CHANGES]``: ``@main`` -> ``@release/X.Y`` in the workflows, nightly indexes ->
test indexes, ``.dev`` pins -> released ones), in its first commit or a later one (torchaudio's
second); a fix picked from main, or a feature made on the branch, is none. Each changed line
becomes an exact search, widened to whole words, and to the whole line when the change is one
bare word (``test-infra-ref: main``: ``main`` alone matches ``branches: [main]`` too); a line
that is one word even so is left. The branch's name and series become ``{branch}`` and
``{series}``, and the series of the upstream project the release pairs with (PyTorch's
``release/2.2`` on torchvision's ``release/0.17``) becomes ``{upstream_series}``, asked at
``release cut`` or read from the branch. A pin of the upstream's series in a workflow is also
made in each workflow main added since the branch that holds its search: a release pins the
upstream's infrastructure wherever its workflows use it (executorch pinned test-infra in the
workflows main added since release/1.0 as release/1.0 pinned its own); an edit naming the branch
itself stays where the branch made it. An edit of a file main no longer has is left, with the
reason. Pure: the commits and the branch's workflows are read by
:mod:`mlrelease.init.branch_history`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from mlrelease.init.branch_history import CommitDiff
from mlrelease.init.version_source import is_version

_BOUNDARY = " \t\"'=,()[]{}<>"
_BARE = re.compile(r"[\w.-]+")
"""One word: as a search, it matches unrelated text of the file."""
_RELEASE_BRANCH = re.compile(r"(?<![\w.])release/(\d+\.\d+)(?![\w]|\.\d)", re.ASCII)
UPSTREAM = "{upstream_series}"
"""The placeholder of the upstream project's series in a proposed edit's ``replace``."""
PICKED = "(cherry picked from commit"
_LOCKS = (".lock", "-lock.json", "lock.yaml", "lock.yml")


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
    also: list[str] = field(default_factory=list)
    """Workflows main added since the branch that use the upstream it pinned: pinned too."""


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


_DEVELOPMENT = re.compile(r"\b(main|master|nightly|nightlies|viable/strict)\b|\d\.dev\d*")
"""What names the development line: main, PyTorch's green main ``viable/strict``, the nightly
channel, a ``.dev`` pin."""
_RELEASED = re.compile(r"\{branch\}|\{series\}|\{upstream_series\}|\btest\b|\brelease\b")
"""What names a release: its branch or series, the upstream's, the test (RC) channel."""


def _release_only(old: str, new: str, template: str) -> bool:
    """Whether a changed line moves from the development line to the release, as release-only
    edits do (``@main`` -> ``@release/2.2``, ``whl/nightly`` -> ``whl/test``, ``torch>=2.12.0.dev``
    -> ``torch>=2.12.0``), unlike a fix or a feature on the branch."""
    was = _DEVELOPMENT.search(old)
    if was is None or was[0] in new:
        return False
    return bool(_RELEASED.search(template)) or (".dev" in was[0] and ".dev" not in new)


def _commit_edits(
    commit: CommitDiff, branch: str, series: str, skip: Set[str]
) -> tuple[list[ProposedEdit], str | None]:
    """The release-only edits one commit made (:func:`_release_only`), and the upstream series
    they name."""
    edits: list[ProposedEdit] = []
    upstream = None
    for path, old, new in _pairs(commit.diff):
        if path in skip or path.endswith(_LOCKS):  # a lock file is regenerated, not edited
            continue
        search, replace = _widen(old, new)
        if not search or search == replace or (is_version(search) and is_version(replace)):
            continue
        template, paired = _template(replace, branch, series)
        if not _release_only(old, new, template):
            continue
        upstream = upstream or paired
        edit = ProposedEdit(path, search, template)
        if edit not in edits and search not in replace:  # a second cut must find it done
            edits.append(edit)
    return edits, upstream


_ONE_WORD = re.compile(r"\W*[\w.-]+\W*")
"""A line that is one word and its punctuation (``- main``): nothing on it says where it is."""


def _why_not(edit: ProposedEdit, main_files: Set[str]) -> str:
    """Why ``edit`` is not proposed for main (empty: it is): main no longer has its file, or
    its search is one bare word even as a whole line, which matches unrelated lines."""
    if edit.file not in main_files:
        return "main no longer has it"
    if _ONE_WORD.fullmatch(edit.search):
        return f"{edit.search!r} is one word on its line, and would match unrelated lines"
    return ""


def proposed_edits(
    commits: Sequence[CommitDiff],
    branch: str,
    series: str,
    skip: Set[str],
    main_files: Set[str],
) -> Found:
    """The edits the release-only commits of ``commits`` (the branch's, oldest first) made,
    as ``[tool.mlrelease.release] edits``: a version bump, the ``skip`` files and a pick from
    main left out; an edit of a file ``main_files`` lacks, or of one bare word, left with the
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
            why = _why_not(edit, main_files)
            note = f"{edit.file}: {commit.sha[:7]} of {branch} edited it, but {why}"
            if why and note not in found.left:
                found.left.append(note)
            elif not why and edit not in found.edits:
                found.edits.append(edit)
    return found


WORKFLOWS = ".github/workflows/"


def widened(
    edits: Sequence[ProposedEdit], texts: Mapping[str, str], had: Set[str]
) -> list[ProposedEdit]:
    """``edits``, and each pin of the upstream's series in a workflow (its ``replace`` names
    ``{upstream_series}``) made in every workflow of ``texts`` (main's files) that the branch
    never ``had`` and that holds its search: main added it since the branch was cut, and a
    release pins the upstream's infrastructure wherever it is used (executorch's cuda.yml
    beside release/1.0's pinned ``linux_job_v2.yml@main``). An edit naming the branch itself
    (``refs/heads/main`` -> ``refs/heads/{branch}``) is one workflow's choice, never spread; a
    workflow the branch had and left alone stays as it left it."""
    found = list(edits)
    for edit in edits:
        if not edit.file.startswith(WORKFLOWS) or UPSTREAM not in edit.replace:
            continue
        for path, text in sorted(texts.items()):
            other = ProposedEdit(path, edit.search, edit.replace)
            new = path.startswith(WORKFLOWS) and path not in had
            if new and edit.search in text and other not in found:
                found.append(other)
    return found
