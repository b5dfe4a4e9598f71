"""What a release says about itself, read from its files (pure, but for reading bytes): the
version, the SHA-256 of the source the recipe downloads, each wheel's ``Requires-Dist`` and
``Requires-Python`` and tags, and the sdist's build requirements (``[build-system] requires``).

The recipe's run requirements follow the wheels' metadata; its host requirements follow the
sdist's build requirements (what ``pip`` needs to build the package from source in the conda
build)."""

from __future__ import annotations

import io
import re
import sys
import tarfile
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.parser import HeaderParser
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import parse_wheel_filename
from packaging.version import Version

from mlrelease.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


@dataclass(frozen=True)
class Wheel:
    """One wheel's metadata: its file name, tags, ``Requires-Dist`` and ``Requires-Python``."""

    name: str
    tags: tuple[str, ...]
    requires: tuple[str, ...]
    requires_python: str = ""


@dataclass(frozen=True)
class ReleaseFacts:
    """The facts of one release the feedstock change is generated from."""

    name: str
    """The PyPI project name."""
    version: Version
    source_sha256: str
    """SHA-256 of what the recipe downloads (the sdist, or the tag's archive)."""
    source_name: str
    """Where that hash comes from, for the page (``onnx-1.22.0.tar.gz``)."""
    requires: tuple[str, ...]
    """``Requires-Dist`` (of the sdist's PKG-INFO, checked equal across the wheels)."""
    requires_python: str = ""
    build_requires: tuple[str, ...] = ()
    """The sdist's ``[build-system] requires``."""
    wheels: tuple[Wheel, ...] = ()
    sources: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)
    """Path -> bytes of the sources the patches apply to (the sdist's or the archive's files,
    without the top folder)."""
    problems: tuple[str, ...] = ()
    """What disagrees inside the release (two wheels with different ``Requires-Dist``)."""
    cmake_packages: tuple[str, ...] = ()
    """The packages the sources' CMake files ``find_package``, when they have CMake files."""
    candidate: bool = False
    """A release candidate not promoted yet (under ``rc-model = "tag"`` its files carry the
    final version: the candidate is the tag, not the version)."""

    @property
    def is_rc(self) -> bool:
        return self.candidate or self.version.is_prerelease

    def run_requirements(self) -> list[Requirement]:
        """``Requires-Dist`` without the extras' requirements."""
        return [r for r in parse_all(self.requires) if not _extra_only(r)]

    def host_requirements(self) -> list[Requirement]:
        return parse_all(self.build_requires)


def parse_all(texts: Iterable[str]) -> list[Requirement]:
    found = []
    for text in texts:
        try:
            found.append(Requirement(text))
        except InvalidRequirement as exc:
            raise UserError(f"requirement {text!r}: not a PEP 508 requirement ({exc}).") from None
    return found


def _extra_only(requirement: Requirement) -> bool:
    return requirement.marker is not None and "extra" in str(requirement.marker)


def _headers(text: str) -> Any:
    return HeaderParser().parsestr(text)


def read_wheel(name: str, data: bytes) -> Wheel:
    """A wheel's METADATA, read from its bytes."""
    _, _, _, tags = parse_wheel_filename(name)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        member = next(
            (
                n
                for n in archive.namelist()
                if n.endswith(".dist-info/METADATA") and n.count("/") == 1
            ),
            None,
        )
        if member is None:
            raise UserError(f"{name}: no .dist-info/METADATA: not a wheel.")
        headers = _headers(archive.read(member).decode("utf-8", "replace"))
    return Wheel(
        name,
        tuple(sorted(str(t) for t in tags)),
        tuple(headers.get_all("Requires-Dist") or ()),
        str(headers.get("Requires-Python") or ""),
    )


def read_sdist(name: str, data: bytes) -> tuple[Any, tuple[str, ...], dict[str, bytes]]:
    """(PKG-INFO's headers, ``[build-system] requires``, the files without the top folder) of
    an sdist's bytes."""
    files = tar_files(data)
    if "PKG-INFO" not in files:
        raise UserError(f"{name}: no PKG-INFO at the top of the archive: not an sdist.")
    headers = _headers(files["PKG-INFO"].decode("utf-8", "replace"))
    return headers, build_requires(files.get("pyproject.toml")), files


_FIND = re.compile(r"find_package\s*\(\s*([A-Za-z0-9_.+-]+)", re.I)


def cmake_packages(files: dict[str, bytes]) -> tuple[str, ...]:
    """What the top-level ``CMakeLists.txt`` and ``cmake/*.cmake`` find (``find_package``)."""
    found: set[str] = set()
    for path, data in files.items():
        top = path == "CMakeLists.txt" or (path.startswith("cmake/") and path.endswith(".cmake"))
        if top:
            found |= set(_FIND.findall(data.decode("utf-8", "replace")))
    return tuple(sorted(found))


def tar_files(data: bytes) -> dict[str, bytes]:
    """The regular files of a ``.tar.gz`` (path without its top folder -> bytes)."""
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            if not member.isfile() or "/" not in member.name:
                continue
            handle = archive.extractfile(member)
            if handle is not None:
                files[member.name.split("/", 1)[1]] = handle.read()
    return files


def build_requires(pyproject: bytes | None) -> tuple[str, ...]:
    """``[build-system] requires`` of a pyproject.toml (PEP 518's default when absent)."""
    if pyproject is None:
        return ("setuptools>=40.8.0",)
    try:
        data = tomllib.loads(pyproject.decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"the sdist's pyproject.toml does not parse ({exc}).") from None
    requires = data.get("build-system", {}).get("requires", ["setuptools>=40.8.0"])
    return tuple(str(r) for r in requires)


def from_files(
    name: str,
    sdist: tuple[str, bytes],
    wheels: Iterable[tuple[str, bytes]] = (),
    *,
    source: tuple[str, str] | None = None,
    sources: dict[str, bytes] | None = None,
) -> ReleaseFacts:
    """A release from its sdist (and wheels): ``source`` is (file name, SHA-256) of what the
    recipe downloads when it is not the sdist, ``sources`` that archive's files."""
    import hashlib

    headers, requires_build, files = read_sdist(sdist[0], sdist[1])
    read = tuple(read_wheel(n, d) for n, d in wheels)
    requires = tuple(headers.get_all("Requires-Dist") or ())
    problems = tuple(
        f"{w.name}: Requires-Dist differs from the sdist's PKG-INFO"
        for w in read
        if sorted(w.requires) != sorted(requires)
    )
    source_name, digest = source or (sdist[0], hashlib.sha256(sdist[1]).hexdigest())
    return ReleaseFacts(
        name=name,
        version=Version(str(headers.get("Version"))),
        source_sha256=digest,
        source_name=source_name,
        requires=requires,
        requires_python=str(headers.get("Requires-Python") or ""),
        build_requires=requires_build,
        wheels=read,
        sources=files if sources is None else sources,
        problems=problems,
        cmake_packages=cmake_packages(files if sources is None else sources),
    )
