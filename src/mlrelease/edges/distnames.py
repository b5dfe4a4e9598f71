"""Distribution file names, read with ``packaging``: the one notion of "a file of this release"
(pure; :mod:`mlrelease.edges.index` re-exports it for every reader of an index).

A file is of release V of project P when its name parses (a wheel by PEP 427, an sdist by PEP
625, a legacy archive or egg by the name-then-version convention installers use) to P's
normalised name and to a version equal to V under PEP 440 once local labels are set aside:
``demo-1.12.0+evil-py3-none-any.whl`` (``pip install demo==1.12.0`` installs it), a
build-tagged wheel ``demo-1.12.0-1-py3-none-any.whl``, ``Demo_Pkg-1.12.0.tar.gz`` for
``demo-pkg`` and ``demo-1.12.tar.gz`` (1.12 == 1.12.0) all are.
"""

from __future__ import annotations

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    NormalizedName,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

SDIST_EXTENSIONS = (".tar.gz", ".zip")
"""The sdist formats ``packaging`` parses (PEP 625 allows ``.tar.gz``; ``.zip`` is legacy)."""
ARCHIVE_EXTENSIONS = (
    ".tar.bz2",
    ".tbz",
    ".tar.xz",
    ".txz",
    ".tgz",
    ".tar",
    ".tar.lz",
    ".tlz",
    ".tar.lzma",
)
LEGACY_EXTENSIONS = (*ARCHIVE_EXTENSIONS, ".egg", ".exe", ".msi", ".rpm", ".dmg", ".deb")
"""Formats an index may still list: archives pip builds from (every format of pip's
``SUPPORTED_EXTENSIONS``), and old installers."""


def is_distribution(filename: str) -> bool:
    """Whether ``filename`` has the extension of a distribution file."""
    return filename.endswith((".whl", *SDIST_EXTENSIONS, *LEGACY_EXTENSIONS))


def _loose(stem: str, project: str | None) -> tuple[NormalizedName, Version] | None:
    """(name, version) of ``name-version[-more]``: the version is the first dash-separated
    part that parses after the name (after ``project``'s name, when given)."""
    parts = stem.split("-")
    for i in range(1, len(parts)):
        name = canonicalize_name("-".join(parts[:i]))
        if project is not None and name != canonicalize_name(project):
            continue
        try:
            return name, Version(parts[i])
        except InvalidVersion:
            continue
    return None


def distribution(
    filename: str, project: str | None = None
) -> tuple[NormalizedName, Version] | None:
    """(normalised project name, version) of a distribution file's name; None for a name
    that is no distribution. ``project`` resolves a legacy name's dashes."""
    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
            return name, version
        if filename.endswith(SDIST_EXTENSIONS):
            return parse_sdist_filename(filename)
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        pass
    known = (".whl", *SDIST_EXTENSIONS, *LEGACY_EXTENSIONS)
    ext = next((e for e in known if filename.endswith(e)), "")
    return _loose(filename[: -len(ext)], project) if ext else None


def same_release(found: Version, version: Version) -> bool:
    """Whether ``found`` is ``version`` to an installer pinning ``==version``: PEP 440
    equality (1.12 == 1.12.0), a local label (``+evil``) set aside."""
    return Version(found.public) == Version(version.public)


def of_release(filename: str, project: str, version: Version) -> bool:
    """Whether the file ``filename`` is a distribution of ``project`` at release ``version``."""
    found = distribution(filename, project)
    return bool(
        found and found[0] == canonicalize_name(project) and same_release(found[1], version)
    )
