"""Whether a set of files is this release's, built from the RC's commit (invariant (c)).

Every file must be a wheel or a ``.tar.gz`` sdist (PEP 625) of the project at the release's
version, the set complete (``[tool.mlrelease.wheels]``), and built from the commit: each file
is compared whole with the reference build of the commit (:mod:`mlrelease.wheels.reference`,
:mod:`mlrelease.wheels.compare`), whatever the project's layout.
"""

from __future__ import annotations

import hashlib
import tarfile
import zipfile
from pathlib import Path

from packaging.version import Version

from mlrelease.config import Config
from mlrelease.release import queries
from mlrelease.wheels import artifacts, compare, reference
from mlrelease.wheels.project import from_config, restamp
from mlrelease.wheels.promote import completeness
from mlrelease.wheels.reference import Reference


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


def _members(name: str, path: Path) -> dict[str, bytes]:
    """path inside the archive -> bytes, of a wheel or sdist (an sdist's top folder dropped)."""
    found: dict[str, bytes] = {}
    if name.endswith(".whl"):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    found[info.filename] = archive.read(info)
        return found
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is not None and "/" in member.name:
                found[member.name.split("/", 1)[1]] = handle.read()
    return found


def built_from(reference: Reference, files: Named) -> list[str]:
    """Every difference of the files from the reference build of their commit, one line each
    (see :mod:`mlrelease.wheels.compare`)."""
    if reference.broken:
        return [f"the RC's commit is no release: {reference.broken}"]
    assert reference.sdist is not None  # a reference that is not broken has its sdist
    sdist_members = _members(reference.sdist.name, reference.sdist)
    wheel_members = _members(reference.wheel.name, reference.wheel) if reference.wheel else None
    fields = compare.json_fields(reference.metadata) if reference.metadata else None
    problems = []
    for file, path in files:
        try:
            ours = _members(file, path)
        except (OSError, zipfile.BadZipFile, tarfile.TarError) as exc:
            problems.append(f"{file}: cannot be read as an archive ({exc})")
            continue
        if not file.endswith(".whl"):
            problems += compare.sdist(file, ours, sdist_members)
            continue
        tags = artifacts.identify(Path(file)).tags
        if wheel_members is not None:
            problems += compare.wheel(file, tags, ours, wheel_members)
        else:
            assert fields is not None  # no reference wheel: its metadata was built instead
            problems += compare.against_sdist(file, tags, ours, sdist_members, fields)
    return problems


def findings(
    config: Config, version: Version, commit: str, files: Named, *, whole: bool = True
) -> list[str]:
    """Every reason the files are not this release's, built from ``commit`` (empty: they are)."""
    problems = identity(config, version, files, whole=whole)
    return problems or built_from(reference_of(config, commit, version), files)


def reference_of(config: Config, commit: str, version: Version) -> Reference:
    """The reference build of ``commit`` at ``version`` (written into the export first where
    the commit's files carry another: the version comes from the tag)."""
    project = from_config(config)
    if Version(queries.version_at(config.root, commit)) == version:
        return reference.build(config.root, commit)
    return reference.build(
        config.root, commit, str(version), lambda tree: restamp(project, tree, str(version))
    )


def unchecked(config: Config, commit: str, version: Version) -> tuple[str, ...]:
    """The comparisons the reference build of ``commit`` cannot make on this machine."""
    return reference_of(config, commit, version).notes
