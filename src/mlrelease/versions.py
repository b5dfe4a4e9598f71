"""Version consistency (pure): which version each file listed for bump-my-version carries.

bump-my-version rewrites the files; this module only reads them, with the same ``search``
patterns, so that the ``versions`` gate checks exactly what a bump would touch.
"""

from __future__ import annotations

import glob
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from mlrelease.errors import ConfigError

# A PEP 440 public version, as it appears in files (permissive: normalisation happens later).
VERSION_PATTERN = (
    r"[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta)[0-9]*)?"
    r"(?:\.?post[0-9]+)?(?:\.?dev[0-9]*)?"
)

# Release tags: v1.4.0 for a final release, v1.4.0-rc2 for its second release candidate.
TAG_RE = re.compile(r"^v(?P<base>\d+\.\d+\.\d+)(?:-rc(?P<rc>\d+))?$")


@dataclass(frozen=True)
class Occurrence:
    """A version string found in a file."""

    file: str
    line: int
    value: str


@dataclass(frozen=True)
class Problem:
    """A listed file where the version could not be found."""

    file: str
    message: str


def parse(version: str, *, key: str = "version", source: str = "pyproject.toml") -> Version:
    """Parse a PEP 440 version; an invalid one is a :class:`ConfigError` naming ``key``."""
    try:
        return Version(version)
    except InvalidVersion:
        raise ConfigError(
            key,
            "a PEP 440 version such as 1.4.0, 1.4.0rc2 or 1.5.0.dev0",
            repr(version),
            source=source,
        ) from None


def version_to_tag(version: str | Version) -> str:
    """``1.4.0`` -> ``v1.4.0``; ``1.4.0rc2`` -> ``v1.4.0-rc2``."""
    v = version if isinstance(version, Version) else Version(version)
    if v.pre is not None:
        if v.pre[0] != "rc" or v.dev is not None or v.post is not None:
            raise ValueError(f"{v} is not a release or a release candidate; it has no tag")
        return f"v{v.base_version}-rc{v.pre[1]}"
    if v.dev is not None or v.post is not None or v.local is not None:
        raise ValueError(f"{v} is not a release or a release candidate; it has no tag")
    return f"v{v.base_version}"


def tag_to_version(tag: str) -> Version | None:
    """``v1.4.0-rc2`` -> ``1.4.0rc2``; None when ``tag`` is not a release tag."""
    match = TAG_RE.match(tag)
    if not match:
        return None
    rc = match["rc"]
    return Version(match["base"] + (f"rc{rc}" if rc is not None else ""))


def bumpversion_table(pyproject: Mapping[str, Any], source: str) -> Mapping[str, Any]:
    table = pyproject.get("tool", {}).get("bumpversion")
    if not isinstance(table, Mapping) or "current_version" not in table:
        raise ConfigError(
            "tool.bumpversion.current_version",
            "the project version (bump-my-version's table)",
            "no [tool.bumpversion] table with current_version",
            source=source,
            hint="Add [tool.bumpversion] with current_version and one [[tool.bumpversion.files]] "
            "entry per file that carries the version.",
        )
    return table


def search_regex(search: str, is_regex: bool) -> re.Pattern[str]:
    """Compile a bump-my-version ``search`` template into a regex capturing the version."""
    placeholder = "{current_version}"
    if placeholder not in search:
        raise ValueError(f"search pattern {search!r} does not contain {placeholder}")
    parts = search.split(placeholder)
    if is_regex:
        pieces = [p.replace("{{", "{").replace("}}", "}") for p in parts]
    else:
        pieces = [re.escape(p) for p in parts]
    group = f"(?P<version>{VERSION_PATTERN})"
    # The first {current_version} captures; any later one must repeat the same value.
    pattern = pieces[0] + group + pieces[1] + "".join(f"(?P=version){p}" for p in pieces[2:])
    return re.compile(pattern, re.MULTILINE)


def scan(
    root: Path, pyproject: Mapping[str, Any], source: str
) -> tuple[list[Occurrence], list[Problem]]:
    """Every version string in the files listed under ``[[tool.bumpversion.files]]``."""
    table = bumpversion_table(pyproject, source)
    default_search = table.get("search", "{current_version}")
    default_regex = bool(table.get("regex", False))
    found: list[Occurrence] = []
    problems: list[Problem] = []
    for i, entry in enumerate(table.get("files", [])):
        pattern = entry.get("filename") or entry.get("glob")
        if not isinstance(pattern, str):
            raise ConfigError(
                f"tool.bumpversion.files[{i}].filename",
                "a file name or glob",
                repr(pattern),
                source=source,
            )
        search = entry.get("search", default_search)
        try:
            regex = search_regex(search, bool(entry.get("regex", default_regex)))
        except (ValueError, re.error) as exc:
            raise ConfigError(
                f"tool.bumpversion.files[{i}].search",
                "a pattern containing {current_version}",
                f"{search!r} ({exc})",
                source=source,
            ) from None
        paths = (
            sorted(Path(p) for p in glob.glob(str(root / pattern), recursive=True))
            if "glob" in entry
            else [root / pattern]
        )
        if not paths:
            problems.append(Problem(pattern, "the glob matches no file"))
        for path in paths:
            rel = path.relative_to(root).as_posix()
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                problems.append(Problem(rel, "the file does not exist"))
                continue
            matches = list(regex.finditer(text))
            if not matches:
                problems.append(Problem(rel, f"no line matches the search pattern {search!r}"))
            for m in matches:
                line = text.count("\n", 0, m.start("version")) + 1
                found.append(Occurrence(rel, line, m["version"]))
    return found, problems


def mismatches(occurrences: list[Occurrence], expected: str) -> list[Occurrence]:
    """Occurrences whose value differs from ``expected`` (compared as written, not normalised:
    bump-my-version searches for the exact string)."""
    return [o for o in occurrences if o.value != expected]
