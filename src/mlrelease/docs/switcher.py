"""The version switcher's ``switcher.json`` (pure): which versions the site lists, and how.

pydata-sphinx-theme reads a JSON list of ``{"name", "version", "url", "preferred"}``
entries. Here the list is derived, never edited by hand: the development docs come first as
``main``, then every frozen version from newest to oldest; the newest final release (not a
release candidate) is ``preferred``, which the theme uses for its "old version" banner.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from packaging.version import InvalidVersion, Version

from mlrelease.errors import UserError

DEV = "main"
"""The switcher version (and site folder) of the development docs."""

FILENAME = "switcher.json"

Entry = dict[str, Any]


def entries(versions: Iterable[str], base_url: str, *, dev: bool) -> list[Entry]:
    """The switcher entries for the frozen ``versions`` (plus ``main`` when ``dev``)."""
    ordered = sorted({Version(v) for v in versions}, reverse=True)
    stable = [v for v in ordered if not v.is_prerelease and not v.is_devrelease]
    preferred = stable[0] if stable else None
    result: list[Entry] = []
    if dev:
        result.append({"name": DEV, "version": DEV, "url": f"{base_url}{DEV}/"})
    for v in ordered:
        entry: Entry = {"name": str(v), "version": str(v), "url": f"{base_url}{v}/"}
        if v == preferred:
            entry["name"] = f"{v} (stable)"
            entry["preferred"] = True
        result.append(entry)
    return result


def versions(data: list[Entry]) -> list[str]:
    """The frozen versions an entry list names (``main`` excluded)."""
    return [str(e["version"]) for e in data if e.get("version") != DEV]


def has_dev(data: list[Entry]) -> bool:
    return any(e.get("version") == DEV for e in data)


def preferred(data: list[Entry]) -> str | None:
    """The version marked ``preferred``, if any."""
    return next((str(e["version"]) for e in data if e.get("preferred")), None)


def problems(data: Any) -> list[str]:
    """What is wrong with a parsed switcher.json (empty when it is valid)."""
    if not isinstance(data, list):
        return [f"expected a JSON list of entries, found {type(data).__name__}"]
    found: list[str] = []
    seen: set[str] = set()
    for i, entry in enumerate(data):
        if not isinstance(entry, Mapping):
            found.append(f"entry {i}: expected an object, found {type(entry).__name__}")
            continue
        for key in ("version", "url"):
            if not isinstance(entry.get(key), str) or not entry.get(key):
                found.append(
                    f"entry {i}: expected a non-empty string {key!r}, found {entry.get(key)!r}"
                )
        version = entry.get("version")
        if isinstance(version, str) and version:
            if version in seen:
                found.append(f"entry {i}: version {version!r} is listed twice")
            seen.add(version)
            if version != DEV:
                try:
                    Version(version)
                except InvalidVersion:
                    found.append(
                        f"entry {i}: version {version!r} is neither {DEV!r} nor a PEP 440 version"
                    )
        if "preferred" in entry and not isinstance(entry["preferred"], bool):
            found.append(f"entry {i}: 'preferred' must be true or false")
    marked = [e.get("version") for e in data if isinstance(e, Mapping) and e.get("preferred")]
    if len(marked) > 1:
        found.append(
            f"{len(marked)} entries are marked preferred ({', '.join(map(str, marked))}); "
            "expected at most one"
        )
    return found


def parse(text: str, source: str) -> list[Entry]:
    """Parse and validate switcher.json; raise a :class:`UserError` naming ``source``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{source}: expected JSON, found a syntax error ({exc}). Fix or delete the file; "
            "`mlrelease docs freeze` rewrites it from the frozen versions."
        ) from None
    found = problems(data)
    if found:
        raise UserError(
            f"{source}: not a valid version switcher file: {'; '.join(found)}. Fix or delete "
            "the file; `mlrelease docs freeze` rewrites it from the frozen versions."
        )
    return list(data)


def render(data: list[Entry]) -> str:
    """The file's text: stable key order, two-space indent, a final newline."""
    return json.dumps(data, indent=2) + "\n"


def redirect_page(data: list[Entry]) -> str:
    """The site's root ``index.html``: a redirect to the preferred version (else the first)."""
    target = preferred(data) or (str(data[0]["version"]) if data else DEV)
    return (
        "<!DOCTYPE html>\n"
        "<!-- Written by `mlrelease docs freeze`: the root goes to the preferred version. -->\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f"<title>Redirecting to {target}</title>\n"
        f'<meta http-equiv="refresh" content="0; url={target}/">\n'
        f'<link rel="canonical" href="{target}/">\n'
        f'</head><body><p><a href="{target}/">Go to the {target} documentation.</a></p>'
        "</body></html>\n"
    )
