"""What the ``wheels`` gate and the ``mlrelease wheels`` commands do: ask cibuildwheel what a
project builds on its declared architectures and group it into CI jobs; merge a CI run's
artifacts per project; find the release candidate a final tag promotes."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from mlrelease import versions
from mlrelease.edges import git
from mlrelease.errors import PreconditionError, UserError
from mlrelease.wheels import artifacts, build, matrix, platforms, promote
from mlrelease.wheels.artifacts import Finding
from mlrelease.wheels.config import WheelsConfig
from mlrelease.wheels.matrix import Identifier, Job
from mlrelease.wheels.project import Project


def jobs_of(
    label: str, root: Path, pyproject: Mapping[str, Any], name: str, wheels: WheelsConfig
) -> tuple[list[Job], list[Identifier]]:
    """The CI jobs of the project ``name`` at ``root`` (shown as ``label``), and the build
    identifiers cibuildwheel selects for it on the declared architectures (never this
    machine's: cibuildwheel's default ``archs = "auto"``)."""
    identifiers, _ = platforms.query(root, pyproject)
    jobs = matrix.make_jobs(label, name, wheels.kind, identifiers, wheels.runners)
    return jobs, identifiers


def verify_downloads(folders: Sequence[Path]) -> list[Finding]:
    """Each CI job's folder against its own SHA256SUMS."""
    return [
        Finding(f"{folder.name}/{f.file}", f.message)
        for folder in folders
        for f in artifacts.verify_sums(folder)
    ]


def merge(project: Project, folders: Sequence[Path], target: Path, version: str) -> list[Finding]:
    """Copy ``project``'s artifacts out of the CI jobs' ``folders`` into ``target``; what the
    audit and the required platforms find wrong with the set (nothing: it may be summed)."""
    target.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        for path in artifacts.collect(folder):
            if artifacts.identify(path).name == canonicalize_name(project.name):
                shutil.copy2(path, target / path.name)
    problems = build.check_folder(project, target, version)
    return problems + promote.completeness(
        project, [artifacts.identify(p) for p in artifacts.collect(target)]
    )


def newest_rc_tag(root: Path, final: str) -> str:
    """The newest ``vX.Y.Z-rcN`` tag of the final tag ``vX.Y.Z``: the release whose assets
    promotion publishes (a final release is never built from scratch)."""
    tagged = versions.tag_to_version(final)
    if tagged is None or tagged.is_prerelease:
        raise UserError(f"{final!r}: expected a final release tag such as v1.4.0.")
    candidates = []
    for tag in git.run(root, "tag", "--list", f"{final}-rc*").splitlines():
        version = versions.tag_to_version(tag)
        if version is not None and version.base_version == tagged.base_version:
            candidates.append((version, tag))
    if not candidates:
        raise PreconditionError(
            f"no release candidate tag {final}-rcN exists: a final release promotes an RC's "
            "files and is never built from scratch. Tag and release an RC first."
        )
    return max(candidates)[1]
