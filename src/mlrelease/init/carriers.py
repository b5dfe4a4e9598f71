"""Every other file that carries the version: the repository searched for the current version
string (Bazel's ``MODULE.bazel``, a C/C++ version macro, a Dockerfile, CMake, a conda recipe),
each place proposed as an exact bump-my-version search, or left with the reason (a changelog's
or the docs' history, a pin of another package). Pure: the texts are read by
:func:`mlrelease.init.snapshot.texts_containing`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from mlrelease.init.version_source import VersionFile

_PIN = re.compile(r"(==|>=|<=|~=|!=|===|<|>|@)\s*v?$")
"""Just before the version: a requirement's operator (``torch==2.13.0``): another package's."""
_HISTORY = re.compile(r"^(changelog|changes|history|news|release[-_]?notes)\b", re.I)
_DOCS = (".md", ".rst", ".txt.in", ".html")
_LOCKS = (".lock", "-lock.json", "lock.yaml", "lock.yml")


@dataclass(frozen=True)
class Carriers:
    """The places to bump with the version, and the ones left, each with its reason."""

    files: list[VersionFile] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def _why_left(path: str, before: str) -> str | None:
    """Why an occurrence of the version is not the project's own version, or None."""
    name = path.rsplit("/", 1)[-1]
    if _HISTORY.match(name):
        return "changelog history: released versions stay as written"
    if name.lower().endswith(_DOCS):
        return "documentation: it names versions as history or instructions; edit by hand"
    if name.lower().endswith(_LOCKS):
        return "a lock file: pins of other packages"
    if _PIN.search(before):
        return "a pin of another package that happens to share the number"
    return None


def _template(line: str, current: str, token: str) -> str:
    """The line as a bump-my-version search (``{`` and ``}`` escaped), the version a token."""
    escaped = line.strip().replace("{", "{{").replace("}", "}}")
    return escaped.replace(current.replace("{", "{{"), token)


def carriers(texts: Mapping[str, str], current: str, known: set[str]) -> Carriers:
    """The occurrences of ``current`` (a whole version, not a prefix of a longer one) in
    ``texts`` beyond the ``known`` version files: one exact search per line that carries it."""
    found = Carriers()
    token = re.compile(r"(?<![\w.])" + re.escape(current) + r"(?![\w]|\.\d)")
    for path in sorted(texts):
        if path in known:
            continue
        seen: set[str] = set()
        for number, line in enumerate(texts[path].splitlines(), 1):
            match = token.search(line)
            if match is None:
                continue
            why = _why_left(path, line[: match.start()])
            if why is not None:
                found.left.append(f"{path}:{number}: {why}")
                continue
            search = _template(line, current, "{current_version}")
            if search in seen:
                continue
            seen.add(search)
            found.files.append(
                VersionFile(path, search, _template(line, current, "{new_version}"), line=number)
            )
    return found
