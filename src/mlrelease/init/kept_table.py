"""What an adopter's own ``[tool.bumpversion]`` lacks for the version init found (pure).

init never rewrites a table the project already has: it is the project's own truth. Two gaps
in it make a release say the wrong version, and each is read here from the table and the
text of ``pyproject.toml``:

- a file init found carrying the version (a Sphinx ``conf.py``'s ``release = "0.1.0.dev0"``)
  that no ``[[tool.bumpversion.files]]`` entry names. bump-my-version leaves that file as it
  is, and the release's docs site says the old version. The entry can be appended when the
  table's files are an array of tables (TOML lets one grow anywhere later in the file), and
  only named when they are an inline array, which cannot grow;
- a ``parse`` that reads only part of ``current_version`` (bump-my-version's default
  ``X.Y.Z`` against ``0.1.0.dev0``). A bump then looks for, and rewrites, the part it read.
  The ``versions`` gate refuses such a table (:func:`mlrelease.version_files.scan`); init
  names it before anything is written.

A project configured by another file (``.bumpversion.cfg``, ``.bumpversion.toml``, ``setup.cfg``'s
``[bumpversion]``) gets a table in pyproject.toml that carries that file's entries
(:func:`other_entries`): mlrelease writes by pyproject.toml's table alone, and the ``versions``
gate refuses the other file until it is gone (:func:`mlrelease.version_files.scan`).
"""

from __future__ import annotations

import configparser
import fnmatch
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from mlrelease import version_files
from mlrelease.init.version_source import VersionFile

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

DEFAULT_PARSE = r"(?P<major>\d+)\.(?P<minor>\d+)\.(?P<patch>\d+)"
"""bump-my-version's ``parse`` where the table gives none."""

_FILES_TABLES = re.compile(r"^\s*\[\[\s*tool\s*\.\s*bumpversion\s*\.\s*files\s*\]\]", re.M)


def unlisted(found: Sequence[VersionFile], table: Mapping[str, Any]) -> list[VersionFile]:
    """The version files init found that no entry of the table's ``files`` names, by
    ``filename`` or by ``glob``."""
    entries = table.get("files")
    entries = [e for e in entries if isinstance(e, Mapping)] if isinstance(entries, list) else []
    return [vf for vf in found if not any(_names(e, vf.filename) for e in entries)]


def _names(entry: Mapping[str, Any], filename: str) -> bool:
    name, pattern = entry.get("filename"), entry.get("glob")
    if isinstance(name, str) and name.removeprefix("./") == filename:
        return True
    return isinstance(pattern, str) and fnmatch.fnmatch(filename, pattern.removeprefix("./"))


def files_can_grow(table: Mapping[str, Any], text: str) -> bool:
    """Whether ``[[tool.bumpversion.files]]`` entries appended at the end of the file add to
    the table's files: it has none yet, or they are written as an array of tables."""
    return "files" not in table or bool(_FILES_TABLES.search(text))


def partial_parse(table: Mapping[str, Any]) -> str | None:
    """Why the table's ``parse`` does not read its whole ``current_version``, or None.

    bump-my-version searches with the parse pattern (``re.VERBOSE``); what it matches is the
    version it bumps. A pattern that does not compile is left to bump-my-version's own error.
    """
    current, parse = table.get("current_version"), table.get("parse", DEFAULT_PARSE)
    if not isinstance(current, str) or not isinstance(parse, str):
        return None
    try:
        found = re.compile(parse, re.VERBOSE).search(current)
    except re.error:
        return None
    if found is not None and found.group(0) == current:
        return None
    read = f"reads only {found.group(0)!r} of it" if found else "does not match it"
    given = "tool.bumpversion.parse" if "parse" in table else "bump-my-version's default parse"
    return f"{given} {read}"


OTHER_CONFIGS = version_files.OTHER_CONFIGS


def other_entries(name: str, text: str) -> list[dict[str, Any]] | None:
    """The ``[[tool.bumpversion.files]]`` entries that another bump-my-version configuration
    file lists (``filename`` or ``glob``, with its ``search`` and ``replace``), or None when
    the file does not configure bump-my-version."""
    if name.endswith(".toml"):
        try:
            table = tomllib.loads(text).get("tool", {}).get("bumpversion")
        except tomllib.TOMLDecodeError:
            return None
        files = table.get("files", []) if isinstance(table, Mapping) else None
        return [dict(f) for f in files if isinstance(f, Mapping)] if files is not None else None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if not parser.has_section("bumpversion"):
        return None
    entries = []
    for section in parser.sections():
        kind, _, where = section.partition(":")[2].partition(":")
        if not section.startswith("bumpversion:") or kind not in ("file", "glob") or not where:
            continue
        entry: dict[str, Any] = {"filename" if kind == "file" else "glob": where.strip()}
        for key in ("search", "replace"):
            if parser.has_option(section, key):
                entry[key] = parser.get(section, key)
        entries.append(entry)
    return entries


def globbed_copies(left: Sequence[str], table: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(path, glob) for each copy of another project that init left (``left``: its ``path:line:
    why`` notes) and a ``glob`` entry of the table still matches: a bump rewrites it."""
    entries = table.get("files")
    globs = [
        e["glob"]
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, Mapping) and isinstance(e.get("glob"), str)
    ]
    found = []
    for place in left:
        path, _, why = place.partition(":")
        if "a copy of another project" not in why:
            continue
        pattern = next((g for g in globs if fnmatch.fnmatch(path, g.removeprefix("./"))), None)
        if pattern is not None and (path, pattern) not in found:
            found.append((path, pattern))
    return found
