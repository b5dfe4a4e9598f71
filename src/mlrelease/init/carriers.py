"""Every other file that carries the version: the repository searched for the current version
string (Bazel's ``MODULE.bazel``, a C/C++ version macro, a Dockerfile, CMake, a conda recipe),
each place proposed as an exact bump-my-version search, or left with the reason (a changelog's
or the docs' history, a pin of another package); and the version split into C preprocessor
macros, one per part (``#define X_MAJOR_VERSION 2``), each moved with bump-my-version's own part
of the version (``{current_minor}`` -> ``{new_minor}``). Pure: the texts are read by
:func:`mlrelease.init.snapshot.texts_containing`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from mlrelease.init.version_source import VersionFile

_PIN = re.compile(r"(==|>=|<=|~=|!=|===|<|>|@)\s*v?$")
"""Just before the version: a requirement's operator (``torch==2.13.0``): another package's."""
_HISTORY = re.compile(r"^(changelog|changes|history|news|release[-_]?notes)\b", re.I)
_DOCS = (".md", ".rst", ".txt.in", ".html", ".rst.txt", ".md.txt")
"""Documentation, and Sphinx's copies of its sources in a built site (``_sources/*.rst.txt``:
Torch-TensorRT commits its site, with a program listing of ``macros.h``)."""
_LOCKS = (".lock", "-lock.json", "lock.yaml", "lock.yml")


@dataclass(frozen=True)
class Carriers:
    """The places to bump with the version, and the ones left, each with its reason."""

    files: list[VersionFile] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    split: list[str] = field(default_factory=list)
    """What each set of split part macros is, and how it moves (the findings' reason)."""


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


_PART_MACRO = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+(?P<name>\w*?(?P<part>MAJOR|MINOR|PATCH|MICRO)\w*)"
    r"[ \t]+(?P<value>\d+)(?![\w.])",
    re.M | re.I,
)
"""A C preprocessor macro holding one part of a version (``#define TORCH_TENSORRT_MINOR_VERSION
13``): the part's word anywhere in the name."""
_PART_OF = {"major": "major", "minor": "minor", "patch": "patch", "micro": "patch"}
PARTS = ("major", "minor", "patch")
"""The release parts of the ``parse`` pattern ``init`` proposes (bump-my-version's context
names them ``current_<part>`` and ``new_<part>``)."""


def _release(current: str) -> tuple[int, int, int] | None:
    """The three release numbers of ``current``, or None when it has not exactly three."""
    try:
        release = Version(current).release
    except InvalidVersion:
        return None
    return (release[0], release[1], release[2]) if len(release) == 3 else None


def _macro_sets(text: str) -> dict[tuple[str, str], dict[str, re.Match[str]]]:
    """The part macros of ``text`` grouped by name around the part's word: (before, after) ->
    part -> the first macro of that part."""
    sets: dict[tuple[str, str], dict[str, re.Match[str]]] = {}
    for m in _PART_MACRO.finditer(text):
        name, at = m["name"], m.start("name")
        stem = (name[: m.start("part") - at], name[m.end("part") - at :])
        sets.setdefault(stem, {}).setdefault(_PART_OF[m["part"].lower()], m)
    return sets


def split_macros(texts: Mapping[str, str], current: str) -> Carriers:
    """The version written as one macro per part: every file whose major, minor and patch
    macros of one name (``X_{MAJOR,MINOR,PATCH}_VERSION``) hold the parts of ``current``, each
    macro proposed with its part as bump-my-version renders it; a complete set that holds
    another version is left with what it says (another package's, or stale)."""
    found = Carriers()
    release = _release(current)
    if release is None:
        return found
    for path in sorted(texts):
        text = texts[path]
        for (head, tail), macros in _macro_sets(text).items():
            if len(macros) < 3:
                continue
            names = f"{head}{{MAJOR,MINOR,PATCH}}{tail}"
            values = tuple(int(macros[p]["value"]) for p in PARTS)
            first = _line(text, macros["major"].start())
            why = _why_left(path, "")
            if why is not None:
                found.left.append(f"{path}:{first}: {why}")
                continue
            if values != release:
                said = ".".join(map(str, values))
                found.left.append(
                    f"{path}:{first}: split version macros {names} say {said}, not {current}: "
                    "another package's version, or stale (bump them by hand if they are ours)"
                )
                continue
            for part in PARTS:
                found.files.append(_part_entry(path, text, macros[part], part))
            found.split.append(
                f"{path}:{first} splits the version into macros {names}: each moves with its "
                "part ({current_major} -> {new_major}, and so on)"
            )
    return found


def _part_entry(path: str, text: str, m: re.Match[str], part: str) -> VersionFile:
    """The macro's line as a bump-my-version search, its value the part's token."""
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    line = text[start : end if end >= 0 else len(text)]
    head = line[: m.start("value") - start].lstrip().replace("{", "{{").replace("}", "}}")
    tail = line[m.end("value") - start :].rstrip().replace("{", "{{").replace("}", "}}")
    return VersionFile(
        path,
        f"{head}{{current_{part}}}{tail}",
        f"{head}{{new_{part}}}{tail}",
        line=_line(text, m.start()),
    )


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1
