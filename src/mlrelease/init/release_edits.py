"""Release-only edits proposed from history: the first commit of the newest release branch is,
in the PyTorch family, the edit every branch starts with (``@main`` -> ``@release/X.Y`` in the
workflows, nightly indexes -> test indexes). Each changed line becomes an exact search, widened
to whole words so it matches nothing else, the branch's name and series made placeholders.
Pure: the diff is read by :func:`mlrelease.init.snapshot.first_commit_diff`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mlrelease.init.version_source import is_version

_BOUNDARY = " \t\"'=,()[]{}<>"


@dataclass(frozen=True)
class ProposedEdit:
    file: str
    search: str
    replace: str


def _widen(old: str, new: str) -> tuple[str, str]:
    """The changed part of a line, widened to the boundaries around it (spaces, quotes)."""
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
    return old[start : len(old) - end], new[start : len(new) - end]


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


def proposed_edits(diff: str, branch: str, series: str, skip: set[str]) -> list[ProposedEdit]:
    """The edits ``diff`` (``git show -U0`` of the branch's first commit) made, as
    ``[tool.mlrelease.release] edits``; a version bump and the ``skip`` files left out."""
    edits: list[ProposedEdit] = []
    for path, old, new in _pairs(diff):
        if path in skip:
            continue
        search, replace = _widen(old, new)
        if not search or search == replace or (is_version(search) and is_version(replace)):
            continue
        # The replacement is a format string (cut fills in the branch): literal braces doubled.
        template = replace.replace("{", "{{").replace("}", "}}").replace(branch, "{branch}")
        template = re.sub(rf"(?<![\w.]){re.escape(series)}(?![\w]|\.\d)", "{series}", template)
        edit = ProposedEdit(path, search, template)
        if edit not in edits and search not in replace:  # a second cut must find it done
            edits.append(edit)
    return edits
