"""What the ``wheels`` gate and ``mlrelease wheels plan`` both do: ask cibuildwheel what a
project builds on its declared architectures, and group it into CI jobs."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mlrelease.wheels import matrix, platforms
from mlrelease.wheels.config import WheelsConfig
from mlrelease.wheels.matrix import Identifier, Job


def jobs_of(
    label: str, root: Path, pyproject: Mapping[str, Any], name: str, wheels: WheelsConfig
) -> tuple[list[Job], list[Identifier]]:
    """The CI jobs of the project ``name`` at ``root`` (shown as ``label``), and the build
    identifiers cibuildwheel selects for it on the declared architectures (never this
    machine's: cibuildwheel's default ``archs = "auto"``)."""
    identifiers, _ = platforms.query(root, pyproject)
    jobs = matrix.make_jobs(label, name, wheels.kind, identifiers, wheels.runners)
    return jobs, identifiers
