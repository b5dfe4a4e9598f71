"""The release's file set, declared once (``[tool.mlrelease.wheels.files]``) and checked as a set
by the wheels gate, ``wheels promote``, and ``release bind``/``publish``/``promote`` (pure).

A declaration says what a release ships: an sdist or not, a ``py3-none-any`` wheel (the one wheel
of a pure project, or beside the native ones, as torchao ships), native wheels per platform and
CPython. Without one, the set is derived as before: an sdist, and a pure wheel (``kind =
"pure"``) or a wheel per required platform and classifier Python. The set is checked both ways:
a file it lacks and a file it does not declare (a second sdist, a native wheel in a pure
release, a wheel for a platform or Python not declared, two wheels of one tag) are refused
alike. A CPython that the release's ``Requires-Python`` allows (its metadata's; pyproject's where
the metadata says none), with no wheel on a required platform and no pure wheel to fall back
on, is refused unless ``files.unserved-pythons`` declares it; an sdist does not serve it (the
torch 2.5.0 incident: ``>=3.8``, an sdist, and no cp38 wheel: pip built from source or
failed).

:func:`propose` reads a release's file names (the newest release's files on the index) and the
project's ``requires-python``, classifiers and cibuildwheel build selector, and says the
declaration ``mlrelease init`` writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import parse_sdist_filename, parse_wheel_filename

from mlrelease.wheels import artifacts
from mlrelease.wheels.artifacts import Artifact
from mlrelease.wheels.config import FileSet, WheelsConfig

KNOWN_PYTHONS = tuple(f"3.{minor}" for minor in range(6, 16))
"""CPython versions a ``requires-python`` is read against."""


@dataclass(frozen=True)
class Missing:
    """One file the set lacks: what (``(sdist)``, ``(cp39-manylinux_x86_64)``) and why."""

    what: str
    message: str


def declared(wheels: WheelsConfig, classifiers: Sequence[str]) -> FileSet:
    """The file set ``[tool.mlrelease.wheels]`` declares, or the one derived from it."""
    if wheels.files is not None:
        files = wheels.files
        if files.platforms and not files.pythons:
            pythons = list(classifiers)
            return FileSet(
                files.sdist, files.pure, files.platforms, pythons, files.unserved_pythons
            )
        return files
    if wheels.kind == "pure":
        return FileSet(sdist=True, pure=True)
    return FileSet(True, False, list(wheels.required_platforms), list(classifiers))


def missing(
    files: FileSet, found: Sequence[Artifact], requires_python: str | None
) -> list[Missing]:
    """What ``found`` lacks of ``files``; and each CPython ``requires_python`` allows that no file
    serves on a required platform, unless declared unserved."""
    out = []
    if files.sdist and not any(a.kind == "sdist" for a in found):
        out.append(Missing("(sdist)", "no sdist among the artifacts (files.sdist = true)"))
    wheels = [a for a in found if a.kind == "wheel"]
    if files.pure and not any(a.pure for a in wheels):
        out.append(Missing("(py3-none-any)", "no py3-none-any wheel among the artifacts"))
    covered = {p for a in wheels for p in a.platforms}
    for platform in files.platforms:
        if platform not in covered:
            out.append(Missing(f"({platform})", f"no wheel for the required platform {platform}"))
            continue
        for python in files.pythons:
            if not has_python(wheels, platform, python):
                out.append(
                    Missing(
                        f"(cp{python.replace('.', '')}-{platform})",
                        f"no wheel for CPython {python} on the required platform {platform}",
                    )
                )
    if files.platforms and not any(a.pure for a in wheels):
        out += _unserved(files, wheels, requires_python)
    return out


def extra(files: FileSet, found: Sequence[Artifact]) -> list[Missing]:
    """Files of ``found`` the set does not declare: refused like missing ones."""
    out = []
    sdists = [a for a in found if a.kind == "sdist"]
    for sdist in sdists if not files.sdist else sdists[1:]:
        why = "a second sdist" if files.sdist else "an sdist, and files.sdist = false"
        out.append(Missing(sdist.filename, f"not in the release's file set ({why})"))
    seen: dict[frozenset[object], str] = {}
    for wheel in (a for a in found if a.kind == "wheel"):
        if wheel.tags in seen:
            out.append(
                Missing(
                    wheel.filename,
                    f"not in the release's file set: a second wheel of {seen[wheel.tags]}'s tags "
                    "(installers pick one of them)",
                )
            )
            continue
        seen[wheel.tags] = wheel.filename
        if not _declared(files, wheel):
            kind = "a pure wheel" if wheel.pure else "a native wheel"
            out.append(
                Missing(
                    wheel.filename,
                    f"not in the release's file set: {kind} the set does not declare ("
                    f"files.pure = {str(files.pure).lower()}, files.platforms = "
                    f"{files.platforms}, files.pythons = {files.pythons}); installers would "
                    "pick it. Remove it, or declare it in [tool.mlrelease.wheels.files]",
                )
            )
    return out


def _declared(files: FileSet, wheel: Artifact) -> bool:
    """Whether ``wheel`` serves a Python on a platform the set declares (a pure wheel: when
    the set has one; any Python, when the set names none)."""
    if wheel.pure:
        return files.pure
    if not files.pythons:  # no Python named (no classifier): any on a declared platform
        return bool(wheel.platforms & set(files.platforms))
    return any(
        has_python([wheel], platform, python)
        for platform in files.platforms
        for python in files.pythons
    )


def _unserved(
    files: FileSet, wheels: Sequence[Artifact], requires_python: str | None
) -> list[Missing]:
    try:
        allowed = SpecifierSet(requires_python or "")
    except InvalidSpecifier:
        return [Missing("(requires-python)", f"requires-python {requires_python!r} is not PEP 440")]
    out = []
    newest = max((_minor(p) for p in files.pythons), default=0)
    for python in KNOWN_PYTHONS:
        if python in files.unserved_pythons or _minor(python) > newest:
            continue
        if not allowed.contains(f"{python}.0"):
            continue
        bare = [p for p in files.platforms if not has_python(wheels, p, python)]
        if bare:
            out.append(
                Missing(
                    f"(cp{python.replace('.', '')})",
                    f"requires-python {requires_python!r} allows CPython {python}, but no wheel "
                    f"serves it on {', '.join(bare)} (an sdist does not: pip would build it from "
                    "source, or fail): raise requires-python, build the wheels, or declare it "
                    "in files.unserved-pythons",
                )
            )
    return out


def _minor(python: str) -> int:
    return int(python.split(".")[1])


def has_python(wheels: Sequence[Artifact], platform: str, python: str) -> bool:
    """A wheel of CPython ``python`` on ``platform`` (an abi3 wheel of an older one counts)."""
    minor = _minor(python)
    for tag in (t for a in wheels for t in a.tags):
        found = re.fullmatch(r"cp3(\d+)", tag.interpreter)
        if artifacts.platform_family(tag.platform) != platform or not found:
            continue
        if int(found[1]) == minor or (tag.abi == "abi3" and int(found[1]) <= minor):
            return True
    return False


def propose(
    names: Iterable[str],
    requires_python: str | None,
    classifiers: Sequence[str],
    selector: str = "",
) -> tuple[dict[str, Any], list[str]]:
    """The ``[tool.mlrelease.wheels.files]`` table that ``names`` (one release's files) ship,
    and the reasons; ``selector``: cibuildwheel's ``build`` (``cp310-* cp311-*``)."""
    listed = [n for n in names if n.endswith((".whl", ".tar.gz"))]
    wheels = [_wheel(n) for n in listed if n.endswith(".whl")]
    sdist = any(n.endswith(".tar.gz") and parse_sdist_filename(n) for n in listed)
    native = [a for a in wheels if not a.pure]
    platforms = sorted({p for a in native for p in a.platforms})
    pythons = _pythons(native, platforms, classifiers, selector)
    table: dict[str, Any] = {"sdist": sdist, "pure": any(a.pure for a in wheels)}
    if platforms:
        table["platforms"] = platforms
        table["pythons"] = pythons
    on = ", ".join(platforms) or "no platform"
    has = "with" if sdist else "no"
    why = [
        f"files: from {len(listed)} files of the newest release ({has} sdist; {len(native)} "
        f"native wheels on {on})"
    ]
    unserved = []
    if platforms and not sdist and not table["pure"]:
        unserved = _unserved(FileSet(sdist, False, platforms, pythons), native, requires_python)
    if unserved:
        table["unserved-pythons"] = [m.what.strip("()").replace("cp3", "3.") for m in unserved]
        why.append(
            f"files.unserved-pythons: requires-python {requires_python!r} allows them and the "
            "newest release has no wheel for them; raise requires-python rather than keep this"
        )
    return table, why


def _pythons(
    native: Sequence[Artifact], platforms: Sequence[str], classifiers: Sequence[str], selector: str
) -> list[str]:
    """CPython versions every platform had a wheel for (abi3 counts up to the newest
    classifier), or what the build selector or the classifiers name."""
    if selector:
        picked = sorted({f"3.{m}" for m in re.findall(r"cp3(\d+)", selector)}, key=_minor)
        if picked:
            return picked
    tagged = {
        f"3.{m}" for a in native for t in a.tags for m in re.findall(r"^cp3(\d+)$", t.interpreter)
    }
    candidates = sorted({*classifiers, *tagged}, key=_minor)
    return [p for p in candidates if all(has_python(native, pl, p) for pl in platforms)]


def _wheel(name: str) -> Artifact:
    project, version, _, tags = parse_wheel_filename(name)
    return Artifact(Path(name), "wheel", str(project), version, tags)


def requires_python(pyproject: Mapping[str, Any]) -> str | None:
    value = pyproject.get("project", {}).get("requires-python")
    return str(value) if value is not None else None
