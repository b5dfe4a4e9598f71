"""What the ``wheels`` gate and the ``mlrelease wheels`` commands do: ask cibuildwheel what a
project builds on its declared architectures and group it into CI jobs; merge a CI run's
artifacts per project; audit what a build other than cibuildwheel left in ``dist/``. (The
release candidate a final tag promoted is the release's to say: ``release promoted-rc``.)"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name
from packaging.version import Version

from mlrelease import versions
from mlrelease.wheels import artifacts, audit, build, evidence, matrix, platforms, promote
from mlrelease.wheels.artifacts import Artifact, FileProblem
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


def verify_downloads(folders: Sequence[Path]) -> list[FileProblem]:
    """Each CI job's folder against its own SHA256SUMS."""
    return [
        FileProblem(f"{folder.name}/{f.file}", f.message)
        for folder in folders
        for f in artifacts.verify_sums(folder)
    ]


def merge(
    project: Project, folders: Sequence[Path], target: Path, version: str
) -> list[FileProblem]:
    """Copy ``project``'s artifacts, and the provenance statements of its wheels' builds, out
    of the CI jobs' ``folders`` into ``target``; what the statements, the audit and the
    required platforms find wrong with the set (nothing: it may be summed)."""
    target.mkdir(parents=True, exist_ok=True)
    problems: list[FileProblem] = []
    for folder in folders:
        for path in artifacts.collect(folder):
            if artifacts.identify(path).name == canonicalize_name(project.name):
                shutil.copy2(path, target / path.name)
        for path in statements_of(project, folder, problems):
            shutil.copy2(path, target / path.name)
    problems += build.check_folder(project, target, version)
    return problems + promote.completeness(
        project, [artifacts.identify(p) for p in artifacts.collect(target)]
    )


def statements_of(project: Project, folder: Path, problems: list[FileProblem]) -> list[Path]:
    """The statements of ``folder`` that vouch for a wheel of ``project`` (one that cannot be
    read is added to ``problems``, naming its job's folder)."""
    found, unreadable = evidence.read(folder)
    for why in unreadable:
        name, _, message = why.partition(": ")
        problems.append(FileProblem(f"{folder.name}/{name}", message))
    names = set()
    for provenance in found.values():
        with contextlib.suppress(ValueError):  # a subject that is no wheel of any project
            if artifacts.identify(Path(provenance.wheel)).name == canonicalize_name(project.name):
                names.add(provenance.statement)
    return [folder / name for name in sorted(names)]


def built_version(project: Project, released: Version | None, found: Sequence[Artifact]) -> str:
    """The version the artifacts of an external build must carry: the files' version; under
    ``version-source = "tag"`` the release tag's on HEAD (``released``; an RC tag's base
    version, as an RC is built with the final version), and on an untagged commit the one
    version of the files' series the build gave them (it adds its own ``.dev``/local suffix)."""
    if not versions.VersionModel(project.config.version_source).from_tag:
        return project.version
    if released is not None:
        return str(released)
    carried = {a.version for a in found}
    if (
        len(carried) == 1
        and next(iter(carried)).release[:2] == Version(project.version).release[:2]
    ):
        return str(next(iter(carried)))
    return project.version


def audit_built(
    project: Project, released: Version | None
) -> tuple[list[Path], str, list[FileProblem]]:
    """Audit what an external build (``builder = "external"``) left in ``dist-dir``: every file
    (name, archive, version in name and metadata, kind, contents, tools) and the set (an sdist,
    the required platforms); the files, the version they must carry, and what is wrong
    (nothing: the set may ship)."""
    files = artifacts.collect(project.dist) if project.dist.is_dir() else []
    found = []
    for path in files:
        with contextlib.suppress(ValueError):  # audit() reports the name it cannot parse
            found.append(artifacts.identify(path))
    version = built_version(project, released, found)
    problems = audit.audit(project, files, version, require=())
    return files, version, problems + promote.completeness(project, found)
