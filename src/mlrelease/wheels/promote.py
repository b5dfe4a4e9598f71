"""Checks of a release's artifact set: every file a wheel or sdist of this project at the final
version, matching its ``SHA256SUMS``, and the set complete (PyTorch's promote-by-copy publishes
the RC's files, never a rebuild).

``mlrelease wheels promote --artifacts DIR`` verifies a folder (for instance the RC's assets a
workflow downloaded) and refuses unless:

1. every file matches ``DIR/SHA256SUMS`` (a tampered, missing or extra file is named);
2. every file is a wheel or sdist of this project carrying the final version, or the
   provenance statement of a wheel's build (``*.intoto.json``, which ``release bind`` reads);
3. the set is complete: an sdist, and a wheel for every required platform and every CPython
   version of the classifiers (one ``py3-none-any`` wheel for a pure project);
4. nothing the previous release shipped is missing (``previous-artifacts``): a dropped
   platform or Python version passes only with a recorded decision (``dropped``).

It uploads nothing. Release files reach an index only through ``mlrelease release publish``
(:mod:`mlrelease.release.promotion.publish`): from the store filled when the files were bound
to the RC, behind the gatekeeper (docs/release/invariants.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from mlrelease.errors import ConfigError, PreconditionError, UserError
from mlrelease.wheels import artifacts, fileset
from mlrelease.wheels.artifacts import Artifact, FileProblem
from mlrelease.wheels.matrix import classifier_versions
from mlrelease.wheels.project import Project


@dataclass
class Promotion:
    """A folder's artifacts as checked, and why they are not a release if anything is wrong."""

    version: str
    files: list[Path] = field(default_factory=list)
    """Wheels first, the sdist last."""
    findings: list[FileProblem] = field(default_factory=list)
    project: str = ""

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


def completeness(project: Project, found: Sequence[Artifact]) -> list[FileProblem]:
    """What ``found`` lacks of the release's file set (:mod:`~mlrelease.wheels.fileset`), what
    it holds that the set does not declare, and what the previous release had that it lacks.
    ``Requires-Python`` is the release's own (its files' metadata), pyproject's where they
    say none."""
    pyproject = project.config.pyproject
    files = fileset.declared(project.wheels, classifier_versions(pyproject))
    said = [artifacts.metadata_field(a, "Requires-Python") for a in found]
    requires = next((s for s in said if s is not None), fileset.requires_python(pyproject))
    findings = [FileProblem(m.what, m.message) for m in fileset.missing(files, found, requires)]
    findings += [FileProblem(m.what, m.message) for m in fileset.extra(files, found)]
    wheels = [a for a in found if a.kind == "wheel"]
    keys = set().union(*(artifacts.wheel_keys(a) for a in wheels)) if wheels else set()
    findings += [FileProblem(f"({k})", m) for k, m in against_previous(project, keys)]
    return findings


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


def prepare(project: Project, folder: Path, *, version: str | None = None) -> Promotion:
    """Verify ``folder``; changes nothing."""
    if not folder.is_dir():
        raise UserError(
            f"--artifacts {folder}: no such folder. Download the RC's assets "
            "into it first (the release workflow does)."
        )
    promotion = Promotion(final_version(project, version), project=project.name)
    promotion.findings += artifacts.verify_sums(folder)
    found: list[Artifact] = []
    statements = set(artifacts.statements(folder))  # in SHA256SUMS; bind reads them
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name == artifacts.SUMS or path.name.startswith("."):
            continue
        if path in statements:
            continue
        try:
            artifact = artifacts.identify(path)
        except ValueError as exc:
            promotion.findings.append(FileProblem(path.name, str(exc).split(": ", 1)[-1]))
            continue
        promotion.findings += artifacts.check_identity(artifact, project.name, promotion.version)
        found.append(artifact)
    promotion.findings += completeness(project, found)
    order = sorted(found, key=lambda a: (a.kind == "sdist", a.filename))
    promotion.files = [a.path for a in order]
    return promotion
