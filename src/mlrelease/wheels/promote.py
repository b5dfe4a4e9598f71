"""Promotion of a release candidate to the final release: publish the RC's files, never a
rebuild (PyTorch's promote-by-copy).

The wheel workflow built the RC with the final version string (``v1.4.0-rc2`` -> files named
``1.4.0``) and stored them, with their ``SHA256SUMS``, as assets of the RC's GitHub
pre-release. On the final tag the workflow downloads exactly those assets into a folder and
runs ``mlrelease wheels promote --artifacts DIR --execute``, which refuses unless:

1. every file matches ``DIR/SHA256SUMS`` (a tampered, missing or extra file is named);
2. every file is a wheel or sdist of this project carrying the final version;
3. the set is complete: an sdist, and a wheel for every required platform (one
   ``py3-none-any`` wheel for a pure project).

Then it uploads them with ``twine upload`` (trusted publishing on GitHub Actions: twine
exchanges the job's OIDC token, no password exists). Without ``--execute`` it prints the exact
command and uploads nothing. On PyPI, ``--skip-existing`` makes a re-run after a partial upload
finish the job instead of failing on the files PyPI already has.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from packaging.version import Version

from mlrelease.errors import PreconditionError, UserError
from mlrelease.release.plan import fault_point
from mlrelease.wheels import artifacts, published
from mlrelease.wheels.artifacts import Artifact, Finding
from mlrelease.wheels.project import Project

PYPI_UPLOAD_URL = "https://upload.pypi.org/legacy/"


@dataclass
class Promotion:
    """What would be (or was) published, and why not if anything is wrong."""

    version: str
    files: list[Path] = field(default_factory=list)
    """Upload order: wheels first, the sdist last (so no installer falls back to building
    from the sdist while the wheels are still arriving)."""
    findings: list[Finding] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    project: str = ""
    repository_url: str = PYPI_UPLOAD_URL

    @property
    def ok(self) -> bool:
        return not self.findings


def final_version(project: Project, version: str | None) -> str:
    """The version being released; promotion only publishes final releases."""
    chosen = version or project.version
    parsed = Version(chosen)
    if parsed.is_prerelease or parsed.is_postrelease or parsed.local or parsed.is_devrelease:
        raise PreconditionError(
            f"promote publishes a final release, but the version is {chosen}. Check out the "
            f"final tag (invoke release.promote makes it) or pass --version X.Y.Z."
        )
    return chosen


def completeness(project: Project, found: Sequence[Artifact]) -> list[Finding]:
    """An sdist, and a wheel for every required platform (any wheel, for a pure project)."""
    findings = []
    if not any(a.kind == "sdist" for a in found):
        findings.append(Finding("(sdist)", "no sdist among the artifacts"))
    wheels = [a for a in found if a.kind == "wheel"]
    if project.wheels.kind == "pure":
        if not any(a.pure for a in wheels):
            findings.append(Finding("(wheel)", "no py3-none-any wheel among the artifacts"))
        return findings
    covered = set().union(*(a.platforms for a in wheels)) if wheels else set()
    for tag in project.wheels.required_platforms:
        if tag not in covered:
            findings.append(
                Finding(f"({tag})", f"no wheel for the required platform {tag} among the artifacts")
            )
    return findings


def upload_command(files: Sequence[Path], repository_url: str) -> list[str]:
    """The twine invocation promotion runs: the same argv in a dry run and for real.

    ``--skip-existing`` (re-runs skip what PyPI already has) is only for PyPI and TestPyPI:
    twine refuses it for other indexes, which answer a repeated file with an error instead.
    """
    skip = urlparse(repository_url).hostname in ("upload.pypi.org", "test.pypi.org")
    return [
        sys.executable, "-m", "twine", "upload", "--non-interactive",
        *(["--skip-existing"] if skip else []),
        "--disable-progress-bar", "--repository-url", repository_url,
        *(str(f) for f in files),
    ]  # fmt: skip


def prepare(
    project: Project,
    folder: Path,
    *,
    version: str | None = None,
    repository_url: str = PYPI_UPLOAD_URL,
) -> Promotion:
    """Verify ``folder`` and work out the upload; changes nothing."""
    if not folder.is_dir():
        raise UserError(
            f"--artifacts {folder}: no such folder. Download the RC's assets "
            "into it first (the release workflow does)."
        )
    promotion = Promotion(
        final_version(project, version), project=project.name, repository_url=repository_url
    )
    promotion.findings += artifacts.verify_sums(folder)
    found: list[Artifact] = []
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name == artifacts.SUMS or path.name.startswith("."):
            continue
        try:
            artifact = artifacts.identify(path)
        except ValueError as exc:
            promotion.findings.append(Finding(path.name, str(exc).split(": ", 1)[-1]))
            continue
        promotion.findings += artifacts.check_identity(artifact, project.name, promotion.version)
        found.append(artifact)
    promotion.findings += completeness(project, found)
    order = sorted(found, key=lambda a: (a.kind == "sdist", a.filename))
    promotion.files = [a.path for a in order]
    promotion.command = upload_command(promotion.files, repository_url)
    return promotion


def publish(promotion: Promotion) -> None:
    """Run the upload (only after :func:`prepare` found nothing)."""
    if not promotion.ok:
        raise PreconditionError("promote: refusing to upload artifacts that failed verification")
    # Idempotent by asking the index: a re-run after a partial upload sends only what is
    # missing, on any index (twine's --skip-existing is PyPI's only).
    for path in published.pending(promotion.files, promotion.repository_url, promotion.project):
        proc = subprocess.run(upload_command([path], promotion.repository_url), check=False)
        if proc.returncode != 0:
            raise UserError(
                f"twine upload of {path.name} failed (exit {proc.returncode}). Files the index "
                "already holds are not sent again: fix the cause and run the same command again."
            )
        fault_point(f"publish:after:{path.name}")
