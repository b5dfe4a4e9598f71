"""The files of core metadata compared field by field with the reference's (pure): every field
of METADATA and PKG-INFO (the description too), of ``.dist-info/WHEEL`` and of
``entry_points.txt``, none left out; each difference names the field and both values."""

from __future__ import annotations

import json
from collections.abc import Mapping
from email.parser import HeaderParser
from typing import Any

from packaging.metadata import parse_email
from packaging.tags import Tag

HEADERS = {
    "project_urls": "Project-URL",
    "description": "description (the body)",
    "home_page": "Home-page",
    "download_url": "Download-URL",
    "author_email": "Author-email",
    "maintainer_email": "Maintainer-email",
    "classifiers": "Classifier",
    "platforms": "Platform",
    "supported_platforms": "Supported-Platform",
    "license_files": "License-File",
}
"""Core metadata fields whose header is not the key's title case."""
WHEEL_VERSION = "1.0"
"""The ``Wheel-Version`` installers read (PEP 427)."""


def _header(key: str) -> str:
    if key.startswith("?"):
        return key[1:]
    return HEADERS.get(key) or "-".join(p.capitalize() for p in key.split("_")).replace(
        "Url", "URL"
    )


def raw(text: str) -> dict[str, Any]:
    """Every field of a METADATA or PKG-INFO, as ``packaging.metadata`` reads them (lists in
    their order; fields it does not know as ``?Name``), JSON-ready."""
    known, unknown = parse_email(text)
    fields: dict[str, Any] = json.loads(json.dumps(known))
    fields.update({f"?{name}": value for name, value in unknown.items()})
    return fields


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


def metadata_differ(
    file: str, member: str, ours: bytes, ref: Mapping[str, Any], what: str = "the reference build"
) -> list[str]:
    """Each field of ``ours`` (a METADATA or PKG-INFO) that is not ``ref``'s (:func:`raw`)."""
    mine = raw(ours.decode("utf-8", errors="replace"))
    return [
        f"{file}: {member} {_header(key)} is {_shown(mine.get(key))}, {what} of the commit "
        f"has {_shown(ref.get(key))}"
        for key in sorted(set(mine) | set(ref))
        if mine.get(key) != ref.get(key)
    ]


def headers(data: bytes) -> dict[str, list[str]]:
    """The header lines of a ``.dist-info/WHEEL``: name -> values, in order."""
    message = HeaderParser().parsestr(data.decode("utf-8", errors="replace"))
    found: dict[str, list[str]] = {}
    for name, value in message.items():
        found.setdefault(name, []).append(value.strip())
    return found


def wheel_differ(
    file: str, member: str, ours: bytes, ref: bytes | None, tags: frozenset[Tag], pure: bool
) -> tuple[list[str], bool]:
    """``.dist-info/WHEEL`` against the reference wheel's (``ref``; None where no wheel builds
    here: against what a wheel of these tags says) and its file name's tags. Returns the
    differences, and whether ``Generator`` differs (an allowed class, when accepted)."""
    mine = headers(ours)
    said = sorted(str(t) for t in tags)
    problems = []
    if sorted(mine.get("Tag", [])) != said:
        problems.append(
            f"{file}: {member} gives the tags {_shown(sorted(mine.get('Tag', [])))}, the file "
            f"name {_shown(said)}"
        )
    expected = headers(ref) if ref is not None else {}
    if ref is None:
        expected = {"Wheel-Version": [WHEEL_VERSION], "Root-Is-Purelib": [str(pure).lower()]}
    generator = False
    for name in sorted(set(mine) | set(expected)):
        if name == "Tag" or (ref is None and name == "Generator"):
            continue
        if mine.get(name) == expected.get(name):
            continue
        if name == "Generator" and mine.get(name) and expected.get(name):
            generator = True
            continue
        mine_shown = _shown(mine[name][0] if len(mine.get(name, [])) == 1 else mine.get(name))
        want = expected.get(name)
        want_shown = _shown(want[0] if want and len(want) == 1 else want)
        problems.append(f"{file}: {member} {name} is {mine_shown}, the reference says {want_shown}")
    return problems, generator


def entry_points_differ(file: str, member: str, ours: bytes, ref: bytes) -> list[str]:
    """The entries of an ``entry_points.txt`` (or any ``[section]`` / ``name = value`` file)
    that are not the reference's."""
    mine, theirs = _entries(ours), _entries(ref)
    out = [
        f"{file}: {member} has {entry!r}, which the reference build of the commit does not"
        for entry in mine
        if entry not in theirs
    ]
    out += [
        f"{file}: {member} lacks {entry!r}, which the reference build of the commit has"
        for entry in theirs
        if entry not in mine
    ]
    return out or [f"{file}: {member} differs from the reference build of the commit (layout)"]


def _entries(data: bytes) -> list[str]:
    section, found = "", []
    for line in data.decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = line
        elif line:
            found.append(f"{section} {' '.join(line.split())}")
    return found
