"""Promotion of a release candidate to the final release: publish the RC's files, never a
rebuild (PyTorch's promote-by-copy).

The wheel workflow built the RC with the final version string (``v1.4.0-rc2`` -> files named
``1.4.0``) and stored them, with their ``SHA256SUMS``, as assets of the RC's GitHub
pre-release. On the final tag the workflow downloads exactly those assets into a folder and
runs ``mlrelease wheels promote --artifacts DIR --execute``, which refuses unless:

1. every file matches ``DIR/SHA256SUMS`` (a tampered, missing or extra file is named);
2. every file is a wheel or sdist of this project carrying the final version;
3. the set is complete: an sdist, and a wheel for every required platform and every CPython
   version of the classifiers (one ``py3-none-any`` wheel for a pure project);
4. nothing the previous release shipped is missing (``previous-artifacts``): a dropped
   platform or Python version passes only with a recorded decision (``dropped``).

Then it uploads them with ``twine upload`` (trusted publishing on GitHub Actions: twine
exchanges the job's OIDC token, no password exists). Without ``--execute`` it prints the exact
command and uploads nothing. On PyPI, ``--skip-existing`` makes a re-run after a partial upload
finish the job instead of failing on the files PyPI already has.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from packaging.version import Version

from mlrelease.edges.faults import fault_point
from mlrelease.edges.proc import call, python_module
from mlrelease.errors import ConfigError, PreconditionError, UserError
from mlrelease.wheels import artifacts, published
from mlrelease.wheels.artifacts import Artifact, Finding
from mlrelease.wheels.matrix import classifier_versions
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
    keys = set().union(*(artifacts.wheel_keys(a) for a in wheels)) if wheels else set()
    pythons = classifier_versions(project.config.pyproject)
    for tag in project.wheels.required_platforms:
        if tag not in covered:
            findings.append(
                Finding(f"({tag})", f"no wheel for the required platform {tag} among the artifacts")
            )
            continue
        for python in pythons:
            if not _has_python(wheels, tag, python):
                findings.append(
                    Finding(
                        f"(cp{python.replace('.', '')}-{tag})",
                        f"no wheel for CPython {python} (declared in the classifiers) on the "
                        f"required platform {tag} among the artifacts",
                    )
                )
    findings += [Finding(f"({k})", m) for k, m in against_previous(project, keys)]
    return findings


def _has_python(wheels: Sequence[Artifact], platform: str, python: str) -> bool:
    """A wheel of CPython ``python`` on ``platform`` (an abi3 wheel of an older one counts)."""
    minor = int(python.split(".")[1])
    for tag in (t for a in wheels for t in a.tags):
        found = re.fullmatch(r"cp3(\d+)", tag.interpreter)
        if artifacts.platform_family(tag.platform) != platform or not found:
            continue
        if int(found[1]) == minor or (tag.abi == "abi3" and int(found[1]) <= minor):
            return True
    return False


def against_previous(project: Project, current: set[str]) -> list[tuple[str, str]]:
    """(what, message) for each Python version or platform that the previous release's
    artifacts had and ``current`` (python-platform keys) lacks, not waived by a decision."""
    spec = project.wheels.previous_artifacts
    if not spec or project.wheels.kind == "pure":
        return []
    path = project.config.path(spec)
    key = "tool.mlrelease.wheels.previous-artifacts"
    if not path.is_file():
        raise ConfigError(
            key,
            "the previous release's artifact list (its SHA256SUMS or one file name per line)",
            f"no file at {path}",
            source=str(project.config.pyproject_path),
            hint="Download SHA256SUMS from the previous release's assets and commit it there.",
        )
    for i, decision in enumerate(project.wheels.dropped):
        for field_name in ("target", "reason", "decision"):
            if not getattr(decision, field_name).strip():
                raise ConfigError(
                    f"tool.mlrelease.wheels.dropped[{i}].{field_name}",
                    "a non-empty string (a decision names what, why and where it was made)",
                    repr(getattr(decision, field_name)),
                    source=str(project.config.pyproject_path),
                )
    previous = artifacts.release_set(artifacts.read_names(path), project.name)
    out = []
    for what, keys in artifacts.dropped(previous, current).items():
        if all(any(d.covers(k) for d in project.wheels.dropped) for k in keys):
            continue
        out.append(
            (
                what,
                f"{what} was released in the previous release ({spec}: "
                f"{', '.join(keys[:6])}{' ...' if len(keys) > 6 else ''}) and is missing now; "
                "build it again, or record the decision to drop it in "
                "[[tool.mlrelease.wheels.dropped]] (target, reason, decision)",
            )
        )
    return out


def upload_command(files: Sequence[Path], repository_url: str) -> list[str]:
    """The twine invocation promotion runs: the same argv in a dry run and for real.

    ``--skip-existing`` (re-runs skip what PyPI already has) is only for PyPI and TestPyPI:
    twine refuses it for other indexes, which answer a repeated file with an error instead.
    """
    skip = urlparse(repository_url).hostname in ("upload.pypi.org", "test.pypi.org")
    return python_module(
        "twine", "upload", "--non-interactive",
        *(["--skip-existing"] if skip else []),
        "--disable-progress-bar", "--repository-url", repository_url,
        *(str(f) for f in files),
    )  # fmt: skip


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
        proc = call(upload_command([path], promotion.repository_url), capture=False)
        if proc.returncode != 0:
            raise UserError(
                f"twine upload of {path.name} failed (exit {proc.returncode}). Files the index "
                "already holds are not sent again: fix the cause and run the same command again."
            )
        fault_point(f"publish:after:{path.name}")
