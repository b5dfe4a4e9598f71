"""What an ``mlrelease wheels`` command was asked: one frozen value, built once from the command
line by :mod:`mlrelease.wheels.cli` (as cibuildwheel's ``CommandLineArguments``). The commands'
decisions (:mod:`mlrelease.wheels.verbs`) read this value, never argparse's namespace; each verb
fills the options it has and leaves the others at their defaults. The projects a command names
are read by the command line too, as configurations (:func:`mlrelease.config.of_command`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WheelsArguments:
    """The options of one ``mlrelease wheels`` command."""

    release_tag: str = ""
    """The release tag the artifacts are (or were) built for; empty: the files' version."""
    folder: Path | None = None
    """``audit``, ``smoke``, ``sums``: the folder of artifacts."""
    version: str | None = None
    """``audit``: the version the artifacts carry; ``promote``: the final version."""
    builder: str = "build"
    """``build``: ``build``, ``sdist`` or ``cibuildwheel``."""
    platform: str = ""
    """``build --builder cibuildwheel``: cibuildwheel's ``--platform``."""
    archs: str = ""
    """``build --builder cibuildwheel``: cibuildwheel's ``--archs``."""
    smoke: bool = True
    """``build``: smoke-test the wheels in fresh virtual environments."""
    downloads: Path | None = None
    """``collect``: the CI run's downloaded artifacts, one folder per job."""
    output: Path = Path("dist")
    """``collect``: where the merged artifacts go, one folder per project."""
    check: bool = False
    """``sums``: verify the folder against its SHA256SUMS instead of writing it."""
    artifacts: Path | None = None
    """``promote``: the folder of the release candidate's artifacts."""
