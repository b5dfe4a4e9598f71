"""``[tool.mlrelease.wheels]``: what the wheel commands build, check and require."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

DEFAULT_REQUIRED_PLATFORMS = [
    "manylinux_x86_64",
    "manylinux_aarch64",
    "win_amd64",
    "win_arm64",
    "macosx_arm64",
    "macosx_x86_64",
]
"""The platforms of the wheel workflow's native runners."""


@dataclass(frozen=True)
class Dropped:
    """One ``[[tool.mlrelease.wheels.dropped]]``: a recorded decision to stop shipping wheels
    for a Python version, a platform or one combination that the previous release had."""

    target: str
    """``cp38`` (a Python), ``win32`` (a platform) or ``cp38-win32`` (one combination)."""
    reason: str
    decision: str
    """Where it was decided: a link to the issue, the meeting notes or the announcement."""

    def covers(self, key: str) -> bool:
        """Whether this decision waives the artifact key ``cp38-win32`` (python-platform)."""
        python, _, platform = key.partition("-")
        return self.target in (key, python, platform)


@dataclass(frozen=True)
class FileSet:
    """``[tool.mlrelease.wheels.files]``: what one release ships, checked as a set
    (:mod:`mlrelease.wheels.fileset`); ``mlrelease init`` proposes it from the newest release."""

    sdist: bool = True
    """An sdist (``.tar.gz``)."""
    pure: bool = False
    """A ``py3-none-any`` wheel: a pure project's one wheel, or one beside the native wheels."""
    platforms: list[str] = field(default_factory=list)
    """Platforms (``manylinux_x86_64``, ``win_amd64``) with a native wheel for each Python."""
    pythons: list[str] = field(default_factory=list)
    """CPython versions (``3.10``) each platform has a wheel for (an abi3 wheel of an older one
    counts); empty: the classifiers'."""
    unserved_pythons: list[str] = field(default_factory=list)
    """CPython versions ``requires-python`` allows that no file serves, by decision."""


@dataclass(frozen=True)
class Accept:
    """``[tool.mlrelease.wheels.accept]``: the classes of allowed difference from the reference
    build of the RC's commit that the project accepts, each with the project's reason (a
    non-empty string accepts it; see :data:`mlrelease.wheels.differences.CLASSES`). Every
    other difference refuses the release."""

    compiled_normalised: str = ""
    """An extension rebuilt here equals the release's after normalising what compilers vary
    with the build folder (ELF: the build-id note, sections the loader never maps)."""
    provenance: str = ""
    """A member this machine cannot rebuild (compiled code of a wheel for another platform,
    Python or toolchain; on the metadata-only path, a file the build generates) is accepted
    with the provenance of the build that made its wheel."""
    metadata_only: str = ""
    """No wheel of the commit builds on this machine (CUDA, Bazel): the wheels' members are
    compared with the sdist's files and their METADATA with the metadata the sdist prepares."""
    generator: str = ""
    """The ``Generator`` line of ``.dist-info/WHEEL`` may name another version of the build
    backend than the reference's."""


@dataclass(frozen=True)
class WheelsConfig:
    """The ``[tool.mlrelease.wheels]`` table."""

    kind: Literal["pure", "native"] = "native"
    """``pure``: one ``py3-none-any`` wheel; ``native``: one wheel per platform (and Python)."""
    builder: Literal["cibuildwheel", "external"] = "cibuildwheel"
    """``cibuildwheel``: the ``wheels`` gate asks cibuildwheel what ``[tool.cibuildwheel]``
    builds and checks that plan; ``external``: the project's own workflow or script builds the
    wheels (``built-by``), and the gate audits the files it left in ``dist-dir`` (names,
    archives, the version in names and metadata, kind, contents, the required platforms)
    instead of planning a build."""
    built_by: str = ""
    """What builds the wheels when ``builder = "external"`` (workflows, a script), named in the
    gate's messages."""
    required_platforms: list[str] = field(default_factory=lambda: list(DEFAULT_REQUIRED_PLATFORMS))
    """Platform tags (``win_arm64``, ``manylinux_x86_64``, ...) that must have a build
    identifier in ``[tool.cibuildwheel]``, and a wheel among the artifacts of a promotion."""
    smoke_command: list[str] = field(default_factory=list)
    """Run in a fresh virtual environment holding only the wheel (and its dependencies), from
    an empty folder. ``python`` means that environment's interpreter. Default:
    ``python -c "import <package>"``."""
    wheel_files: list[str] = field(default_factory=list)
    """Glob patterns (``fnmatch``) that must each match a file inside every wheel."""
    sdist_files: list[str] = field(default_factory=list)
    """Glob patterns that must each match a file of the sdist (paths below its top folder)."""
    dist_dir: str = "dist"
    """Where the artifacts and ``SHA256SUMS`` are written, relative to the project root."""
    runners: dict[str, str] = field(default_factory=dict)
    """GitHub runner labels by ``platform/arch`` (``linux/aarch64``), overriding the defaults."""
    previous_artifacts: str = ""
    """The previous release's artifact file names: its ``SHA256SUMS`` (from the release's
    assets) or one file name per line, relative to the project root. When set, a Python
    version or platform it had and this release lacks is a finding unless ``dropped`` waives it."""
    dropped: list[Dropped] = field(default_factory=list)
    """Recorded decisions to drop a Python version or platform (each with reason and decision)."""
    files: FileSet | None = None
    """The release's file set (``[tool.mlrelease.wheels.files]``); absent: an sdist and a pure
    wheel, or a wheel per required platform and classifier Python."""
    accept: Accept = field(default_factory=Accept)
    """The classes of allowed difference from the reference build the project accepts
    (``[tool.mlrelease.wheels.accept]``); none by default."""


TABLES: dict[str, type] = {"wheels": WheelsConfig}
"""The ``[tool.mlrelease.<key>]`` tables this feature owns (see :mod:`mlrelease.registry`)."""
