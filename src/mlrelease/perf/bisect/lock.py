"""The environment axis of a bisect: the dependency pins of each side, and how they differ (pure).

A side's environment is what its commit's lock file pins (``[tool.mlrelease.perf.bisect]
lock``): a requirements file of exact pins (``name==version``, as ``pip-compile`` or ``uv pip
compile`` write them: continuation lines, ``--hash`` options and comments allowed) or a PEP 751
``pylock.toml`` (its ``[[packages]]`` names and versions). Every other kind of requirement in a
lock is an error naming its line: a range is no environment. The pins are installed from the
configured index as prebuilt wheels only, never built (:mod:`~mlrelease.perf.bisect.envs`).

The texts are read from git by the caller; everything here is plain data.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from packaging.markers import InvalidMarker, Marker
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from mlrelease.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

Pins = Mapping[str, str]
"""Canonical distribution name -> exact version."""

_COMMENT = re.compile(r"(^|\s)#.*$")


def parse(text: str, where: str) -> dict[str, str]:
    """The pins of a lock file's ``text`` (``where``: ``REV:PATH``, for errors)."""
    if where.endswith(".toml"):
        return _pylock(text, where)
    pins: dict[str, str] = {}
    for number, line in _logical_lines(text):
        try:
            requirement = Requirement(line)
        except InvalidRequirement as exc:
            raise _refused(where, number, line, str(exc)) from None
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        exact = [s for s in requirement.specifier if s.operator in ("==", "===")]
        if len(exact) != 1 or len(requirement.specifier) != 1 or "*" in exact[0].version:
            raise _refused(where, number, line, "not one exact pin (name==version)")
        pins[canonicalize_name(requirement.name)] = exact[0].version
    return pins


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, requirement) of each logical line: continuations joined, comments
    and option lines (``-r``, ``--index-url``) dropped, a requirement's ``--hash`` options cut."""
    found, logical, start = [], "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        start = start if logical else number
        line = _COMMENT.sub("", raw).rstrip()
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        whole, logical = (logical + line).strip(), ""
        if whole and not whole.startswith("-"):
            found.append((start, whole.split(" --", 1)[0].strip()))
    return found


def _pylock(text: str, where: str) -> dict[str, str]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{where}: not valid TOML ({exc}); a PEP 751 lock was expected.") from None
    packages = data.get("packages")
    if not isinstance(packages, list):
        raise UserError(f"{where}: no [[packages]] array; a PEP 751 lock (pylock.toml) has one.")
    pins: dict[str, str] = {}
    for i, package in enumerate(packages):
        name, version = package.get("name"), package.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            raise UserError(
                f"{where}: packages[{i}] needs a name and a version (strings); found "
                f"{name!r} and {version!r}. A lock must pin every package it lists."
            )
        marker = package.get("marker")
        try:
            if isinstance(marker, str) and not Marker(marker).evaluate():
                continue
        except InvalidMarker as exc:
            raise UserError(f"{where}: packages[{i}].marker: {exc}") from None
        pins[canonicalize_name(name)] = version
    return pins


def _refused(where: str, number: int, line: str, why: str) -> UserError:
    return UserError(
        f"{where}:{number}: `{line}` is {why}. A bisect's lock file pins every package to one "
        "version (pip-compile or `uv pip compile` output, or a PEP 751 pylock.toml)."
    )


@dataclass(frozen=True)
class PinChange:
    """One package whose pin differs between the good and the bad side."""

    name: str
    old: str | None
    """The good side's version (None: the good side does not pin it)."""
    new: str | None

    def text(self) -> str:
        return f"{self.name} {self.old or '(none)'} -> {self.new or '(none)'}"


def changes(good: Pins, bad: Pins) -> list[PinChange]:
    """Every package pinned differently on the two sides, by name."""
    names = sorted(set(good) | set(bad))
    return [PinChange(n, good.get(n), bad.get(n)) for n in names if good.get(n) != bad.get(n)]


def applied(good: Pins, moved: Sequence[PinChange], version: tuple[str, str] | None = None) -> Pins:
    """The good side's pins with ``moved`` changes made (and ``version`` = (name, version)
    pinned last): the environment a dependency step installs."""
    pins = dict(good)
    for change in moved:
        if change.new is None:
            pins.pop(change.name, None)
        else:
            pins[change.name] = change.new
    if version is not None:
        pins[version[0]] = version[1]
    return pins


def between(change: PinChange, available: Sequence[str]) -> list[str]:
    """The versions a version bisect of ``change`` walks: those of ``available`` after the old
    pin up to the new one, in the direction of the change, the new one last (pre-releases only
    when a pin is one)."""
    if change.old is None or change.new is None:
        return [change.new] if change.new else []
    try:
        old, new = Version(change.old), Version(change.new)
    except InvalidVersion:
        return [change.new]
    pre = old.is_prerelease or new.is_prerelease
    low, high = sorted((old, new))
    found = set()
    for text in available:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if low < version < high and (pre or not version.is_prerelease):
            found.add(version)
    walk = sorted(found, reverse=new < old)
    return [str(v) for v in walk] + [change.new]


def first_pinning(locks: Sequence[Pins], name: str, version: str, old: str | None) -> int | None:
    """The index of the first lock in ``locks`` (oldest first) that pins ``name`` at
    ``version`` or beyond it, seen from ``old`` (the commit that brought that version in)."""
    target = Version(version)
    upward = old is None or Version(old) <= target
    for index, pins in enumerate(locks):
        pinned = pins.get(name)
        if pinned is None:
            continue
        try:
            found = Version(pinned)
        except InvalidVersion:
            continue
        if (found >= target) if upward else (found <= target):
            return index
    return None
