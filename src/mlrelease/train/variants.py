"""Variants: the Python x platform x accelerator a wheel serves, read from its name (pure).

A variant is named ``{python}-{platform}-{accelerator}``: ``3.12-linux-x86_64-cu124``. The
Python comes from the wheel's tags (``cp312`` is 3.12, ``cp313t`` the free-threaded 3.13t, a
``py3`` or ``abi3`` wheel serves every Python it allows); the platform is the operating system
and machine, whatever the tag's policy (``manylinux1_x86_64`` and ``manylinux_2_28_x86_64`` are
both ``linux-x86_64``; ``musllinux`` is ``linux-musl``; ``universal2`` serves ``macos-x86_64``
and ``macos-arm64``); the accelerator is the version's local label (``+cu124``), or, for a file
without one, the member's declared accelerator of that platform (``cpu`` by default).

A member must ship every variant its upstream ships (:func:`missing`): a pure upstream wheel
asks nothing, and a pure member wheel serves everything.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from packaging.tags import Tag
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename

from mlrelease.train.declaration import Gap

ANY = "any"
_MANY = re.compile(r"(?:many|musl)?linux(?:1|2010|2014|_\d+_\d+)?_(.+)")
_MAC = re.compile(r"macosx_\d+_\d+_(.+)")
_WINDOWS = {"win32": "windows-x86", "win_amd64": "windows-amd64", "win_arm64": "windows-arm64"}


@dataclass(frozen=True, order=True)
class Variant:
    """One Python x platform x accelerator a wheel serves (``any``: every one)."""

    python: str
    platform: str
    accelerator: str

    @property
    def name(self) -> str:
        return f"{self.python}-{self.platform}-{self.accelerator}"


@dataclass(frozen=True)
class Serves:
    """What one tag of a wheel serves: an exact Python (``3.12``), every Python from one on
    (``abi3``), or every one (``py3``); a platform or every one; an accelerator."""

    python: str
    at_least: bool
    platform: str
    accelerator: str

    def covers(self, wanted: Variant) -> bool:
        if self.platform == ANY:
            return True
        if self.platform != wanted.platform or self.accelerator != wanted.accelerator:
            return False
        if self.python == ANY or wanted.python == ANY:
            return True
        if self.at_least:
            return _python_key(wanted.python) >= _python_key(self.python)
        return self.python == wanted.python


def _python_key(python: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", python))


def platforms(tag: str) -> list[str]:
    """The ``os-machine`` names a platform tag serves."""
    if tag == ANY:
        return [ANY]
    if tag in _WINDOWS:
        return [_WINDOWS[tag]]
    linux = _MANY.fullmatch(tag)
    if linux:
        return [f"linux-musl-{linux[1]}" if tag.startswith("musl") else f"linux-{linux[1]}"]
    mac = _MAC.fullmatch(tag)
    if mac:
        machine = mac[1]
        if machine in ("universal2", "universal"):
            return ["macos-x86_64", "macos-arm64"]
        return [f"macos-{machine}"]
    return [tag]


def _python(tag: Tag) -> tuple[str, bool]:
    """(the Python a tag serves, whether every later one too)."""
    interpreter, abi = tag.interpreter, tag.abi
    digits = interpreter[2:]
    if interpreter.startswith("py") or not digits.isdigit():
        return ANY, False
    version = f"{digits[0]}.{digits[1:]}" if len(digits) > 1 else digits
    prefix = "" if interpreter.startswith("cp") else interpreter[:2]
    if abi == "abi3":
        return prefix + version, True
    return prefix + version + ("t" if abi.endswith("t") else ""), False


def served(filename: str, accelerators: Mapping[str, str]) -> list[Serves]:
    """What the wheel ``filename`` serves (an sdist or another file: nothing)."""
    try:
        _, version, _, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return []
    found = []
    for tag in sorted(tags, key=str):
        python, at_least = _python(tag)
        for platform in platforms(tag.platform):
            label = version.local or accelerators.get(platform, "cpu")
            found.append(Serves(python, at_least, platform, label if platform != ANY else ANY))
    return found


def shipped(filenames: Iterable[str], accelerators: Mapping[str, str]) -> set[Variant]:
    """The variants the files ship, as an upstream asks them of its members (a pure wheel
    asks nothing)."""
    return {
        Variant(s.python, s.platform, s.accelerator)
        for name in filenames
        for s in served(name, accelerators)
        if s.platform != ANY
    }


def missing(
    upstream: set[Variant],
    member_files: Iterable[str],
    accelerators: Mapping[str, str],
    gaps: Iterable[Gap],
    upstream_name: str,
) -> tuple[list[Variant], list[tuple[Variant, Gap]]]:
    """(the upstream's variants no member file serves and no gap declares, those a gap
    declares with it)."""
    serving = [s for name in member_files for s in served(name, accelerators)]
    lacking, declared = [], []
    for variant in sorted(upstream):
        if any(s.covers(variant) for s in serving):
            continue
        gap = next(
            (
                g
                for g in gaps
                if fnmatch.fnmatchcase(variant.name, g.variant)
                and (not g.upstream or canonicalize_name(g.upstream) == upstream_name)
            ),
            None,
        )
        if gap is None:
            lacking.append(variant)
        else:
            declared.append((variant, gap))
    return lacking, declared
