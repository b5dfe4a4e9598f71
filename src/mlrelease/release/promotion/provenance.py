"""Whether a set of files is this release's, built from the RC's commit (invariant (c)).

Every file must be a wheel or a ``.tar.gz`` sdist (PEP 625) of the project at the release's
version, the set complete (``[tool.mlrelease.wheels]``), and built from the commit: every file
of the sdist that the commit's tree has is byte-identical to it, and so is every Python module
of a wheel found in the tree (as ``pkg/mod.py`` or ``src/pkg/mod.py``). A file's content is
compared by its git blob id first (no process); only a difference is checked again through
git's checkout filters (a line-ending conversion is no difference).
"""

from __future__ import annotations

import hashlib
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.edges import git
from mlrelease.release import queries
from mlrelease.wheels import artifacts
from mlrelease.wheels.project import from_config
from mlrelease.wheels.promote import completeness


def blob_id(data: bytes) -> str:
    """The SHA-1 git gives a blob of ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


Named = list[tuple[str, Path]]
"""(file name, where its bytes are): a file of dist/, or a store object named by its hash."""


def identity(config: Config, version: Version, files: Named, *, whole: bool = True) -> list[str]:
    """Files that are not a wheel or ``.tar.gz`` sdist of the project at ``version``, and (a
    ``whole`` set) what the set lacks; one line each, naming the file."""
    project = from_config(config)
    problems, found = [], []
    for name, _ in files:
        if name.endswith(".zip"):
            problems.append(f"{name}: a .zip sdist; an sdist is a .tar.gz (PEP 625)")
            continue
        try:
            artifact = artifacts.identify(Path(name))
        except ValueError as exc:
            problems.append(str(exc))
            continue
        problems += [str(f) for f in artifacts.check_identity(artifact, project.name, str(version))]
        found.append(artifact)
    if whole and not problems:
        problems += [str(f) for f in completeness(project, found)]
    return problems


def _members(name: str, path: Path) -> Iterator[tuple[str, bytes]]:
    """(path inside the archive, bytes) of a wheel or sdist (an sdist's top folder dropped)."""
    if name.endswith(".whl"):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield info.filename, archive.read(info)
        return
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None and "/" in member.name:
                yield member.name.split("/", 1)[1], handle.read()


def built_from(root: Path, commit: str, files: Named) -> list[str]:
    """Files of the archives that differ from the commit's tree, one line each."""
    entries = queries.tree_entries(root, commit)
    tree = {p: sha for p, (mode, sha) in entries.items() if mode.startswith("100")}
    problems = []
    for file, path in files:
        wheel = file.endswith(".whl")
        try:
            members = list(_members(file, path))
        except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
            problems.append(f"{file}: cannot be read as an archive ({exc})")
            continue
        for name, data in members:
            if wheel and (not name.endswith(".py") or ".dist-info/" in name or ".data/" in name):
                continue
            where = next((p for p in (name, f"src/{name}") if p in tree), None)
            if where is None or blob_id(data) == tree[where]:
                continue
            checked_out = git.blob_bytes(root, f"{commit}:{where}", filters=True)
            if checked_out != data:
                problems.append(
                    f"{file}: {name} differs from {where} at {commit[:12]}: the file was not "
                    "built from this commit (built from another checkout, or changed after)"
                )
    return problems


def findings(
    config: Config, version: Version, commit: str, files: Named, *, whole: bool = True
) -> list[str]:
    """Every reason the files are not this release's, built from ``commit`` (empty: they are)."""
    problems = identity(config, version, files, whole=whole)
    return problems or built_from(config.root, commit, files)
