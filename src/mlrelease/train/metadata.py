"""What a distribution file says of its dependencies: the ``Requires-Dist`` of a wheel's
``METADATA`` (or an sdist's ``PKG-INFO``), read with ``packaging`` (pure but for opening the
file).
"""

from __future__ import annotations

import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.metadata import parse_email
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from mlrelease.errors import UserError


@dataclass(frozen=True)
class DistMetadata:
    """One file's name, version and requirements, as its metadata declares them."""

    filename: str
    name: str
    version: str
    requires: tuple[str, ...]
    requires_python: str = ""

    def on(self, project: str) -> list[Requirement]:
        """Its requirements on ``project`` (markers kept)."""
        wanted = canonicalize_name(project)
        found = []
        for text in self.requires:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if canonicalize_name(req.name) == wanted:
                found.append(req)
        return found

    def pins(self, project: str) -> set[str]:
        """The versions its requirements on ``project`` pin exactly (``torch==2.5.0``)."""
        found = set()
        for req in self.on(project):
            specs = list(req.specifier)
            if (
                len(specs) == 1
                and specs[0].operator in ("==", "===")
                and "*" not in specs[0].version
            ):
                found.add(specs[0].version)
        return found


def parse(filename: str, text: bytes) -> DistMetadata:
    """The declaration of ``filename`` from its metadata's bytes."""
    raw, _ = parse_email(text)
    return DistMetadata(
        filename,
        str(raw.get("name", "")),
        str(raw.get("version", "")),
        tuple(raw.get("requires_dist", [])),
        str(raw.get("requires_python", "")),
    )


def _metadata(path: Path) -> bytes:
    name = path.name
    if name.endswith(".whl"):
        with zipfile.ZipFile(path) as archive:
            found = [n for n in archive.namelist() if n.count("/") == 1]
            meta = [n for n in found if n.endswith(".dist-info/METADATA")]
            if len(meta) != 1:
                raise UserError(f"{name}: expected one .dist-info/METADATA, found {len(meta)}.")
            return archive.read(meta[0])
    with tarfile.open(path) as archive:
        info = [m for m in archive.getmembers() if m.name.count("/") == 1]
        pkg = [m for m in info if m.name.endswith("/PKG-INFO") and m.isfile()]
        handle = archive.extractfile(pkg[0]) if len(pkg) == 1 else None
        if handle is None:
            raise UserError(f"{name}: expected one PKG-INFO at the sdist's top, found none.")
        return handle.read()


def read(path: Path) -> DistMetadata:
    """The declaration of the wheel or sdist at ``path``; a :class:`UserError` naming the file
    when it is neither, or its metadata cannot be read."""
    try:
        return parse(path.name, _metadata(path))
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
        raise UserError(f"{path}: cannot read its metadata ({exc}).") from None
