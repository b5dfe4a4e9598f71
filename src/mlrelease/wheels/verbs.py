"""What each ``mlrelease wheels`` command decides, without the command line: one call per
command, given the projects' configurations and the command's
:class:`~mlrelease.wheels.arguments.WheelsArguments`, returning what the command prints and
whether it passed. The work itself is done by the wheel service and the modules it uses
(:mod:`mlrelease.wheels.service`, :mod:`~mlrelease.wheels.build`,
:mod:`~mlrelease.wheels.artifacts`, :mod:`~mlrelease.wheels.promote`); here it is put in the
order each command runs it.

``wheels smoke`` verifies a folder against its ``SHA256SUMS``, then installs each wheel this
interpreter can install into a fresh virtual environment and runs the smoke command
(:func:`smoke`). ``wheels collect`` verifies every CI job's folder against its own sums, then
merges, audits and sums each project's artifacts (:func:`collect`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from mlrelease.config import Config
from mlrelease.errors import UserError
from mlrelease.terminal import make_console
from mlrelease.wheels import artifacts, build, promote, service
from mlrelease.wheels.arguments import WheelsArguments
from mlrelease.wheels.artifacts import FileProblem
from mlrelease.wheels.matrix import BuildMatrix
from mlrelease.wheels.project import build_version, from_config

Projects = Iterable[tuple[str, Config]]
"""The projects a command names: (the folder as given, its configuration), read as they are
iterated (``wheels collect`` reads them once the downloads are verified)."""


@dataclass(frozen=True)
class SmokeTest:
    """What ``wheels smoke`` found: the wheels that passed, and the problems."""

    folder: Path
    passed: tuple[str, ...] = ()
    """The wheels installed and smoke-tested in a fresh virtual environment."""
    findings: tuple[FileProblem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.findings


@dataclass(frozen=True)
class Merged:
    """One project's artifacts merged out of a CI run's downloads."""

    label: str
    """The project folder as given."""
    name: str
    version: str
    target: Path
    problems: tuple[FileProblem, ...] = ()
    """What the audit and the required platforms find wrong (nothing: the set was summed)."""
    count: int = 0
    """The artifacts in :attr:`target`, once summed."""


@dataclass(frozen=True)
class Collection:
    """What ``wheels collect`` did: the downloads checked, then each project merged, in order,
    up to the first whose set is wrong (nothing merged when a download is wrong)."""

    downloads: Path
    download_problems: tuple[FileProblem, ...] = ()
    projects: tuple[Merged, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.download_problems and not any(p.problems for p in self.projects)


@dataclass(frozen=True)
class FolderCheck:
    """What ``wheels audit`` or ``wheels sums`` found in a folder of artifacts."""

    folder: Path
    findings: tuple[FileProblem, ...] = ()
    count: int = 0
    """The artifacts in the folder."""
    written: Path | None = None
    """``wheels sums``: the SHA256SUMS written (None when checked)."""

    @property
    def ok(self) -> bool:
        return not self.findings


def plan(projects: Projects, arguments: WheelsArguments) -> BuildMatrix:
    """``wheels plan``: every project's CI jobs, from cibuildwheel's build identifiers; a
    release tag that disagrees with a project's files stops here."""
    result = BuildMatrix()
    for label, project in [(label, from_config(config)) for label, config in projects]:
        jobs, identifiers = service.jobs_of(
            label, project.root, project.config.pyproject, project.name, project.wheels
        )
        result.identifiers[label] = identifiers
        result.jobs += jobs
        build_version(project, arguments.release_tag)
    return result


@dataclass(frozen=True)
class BuiltProject:
    """``wheels build`` of one project."""

    label: str
    """The project folder as given."""
    dist_dir: str
    """Where the project's artifacts are published (``[tool.mlrelease.wheels] dist-dir``)."""
    outcome: build.ProjectBuild


def builds(
    projects: Projects, arguments: WheelsArguments, console: Console | None = None
) -> Iterator[BuiltProject]:
    """``wheels build``: each project (all read first) built, audited, smoke-tested, then
    published into its ``dist/`` with its SHA256SUMS (``dist/`` left as it was when anything is
    wrong), one after the other; each is yielded once built, under a rule naming it."""
    console = console or make_console()
    chosen = [(label, from_config(config)) for label, config in projects]
    for label, project in chosen:
        console.rule(f"{project.name} ({label})")
        outcome = build.build(
            project,
            builder=arguments.builder,
            release_tag=arguments.release_tag,
            platform=arguments.platform,
            archs=arguments.archs,
            smoke=arguments.smoke,
            console=console,
        )
        yield BuiltProject(label, project.wheels.dist_dir, outcome)


def smoke(config: Config, arguments: WheelsArguments, console: Console | None = None) -> SmokeTest:
    """``wheels smoke``: the folder against its SHA256SUMS, then each wheel this interpreter can
    install smoke-tested in a fresh virtual environment (none when the folder is wrong)."""
    console = console or make_console()
    folder = _folder(arguments)
    project = from_config(config)
    findings = artifacts.verify_sums(folder)
    wheels = [w for w in artifacts.collect(folder) if w.name.endswith(".whl")]
    hosted = [w for w in wheels if build.installable(w)]
    if not hosted:
        findings.append(FileProblem(str(folder), "no wheel installable on this interpreter"))
    passed = []
    if not findings:
        for wheel in hosted:
            with console.status(f"smoke test of {wheel.name}"):
                finding = build.smoke_test(project, wheel)
            if finding:
                findings.append(finding)
            else:
                passed.append(wheel.name)
    return SmokeTest(folder, tuple(passed), tuple(findings))


def collect(projects: Projects, arguments: WheelsArguments) -> Collection:
    """``wheels collect``: each CI job's folder of the downloads against its own SHA256SUMS,
    then each project's artifacts merged into ``output/<name>/``, audited, checked for every
    required platform and summed."""
    downloads = arguments.downloads
    if downloads is None:
        raise UserError("wheels collect: expected the folder of the CI run's downloads.")
    folders = sorted(p for p in downloads.iterdir() if p.is_dir())
    findings = service.verify_downloads(folders)
    if findings:
        return Collection(downloads, tuple(findings))
    done: list[Merged] = []
    for label, project in [(label, from_config(config)) for label, config in projects]:
        version = build_version(project, arguments.release_tag)
        target = arguments.output / project.name
        problems = service.merge(project, folders, target, version)
        if problems:
            done.append(Merged(label, project.name, version, target, tuple(problems)))
            break
        artifacts.write_sums(target)
        count = len(artifacts.collect(target))
        done.append(Merged(label, project.name, version, target, count=count))
    return Collection(downloads, projects=tuple(done))


def audit_folder(config: Config, arguments: WheelsArguments) -> FolderCheck:
    """``wheels audit``: every artifact audit on the folder, for the version given (``--version``,
    else the release tag's, else the project's)."""
    folder = _folder(arguments)
    project = from_config(config)
    tagged = build_version(project, arguments.release_tag) if arguments.release_tag else None
    findings = build.check_folder(project, folder, arguments.version or tagged)
    return FolderCheck(folder, tuple(findings), 0 if findings else len(artifacts.collect(folder)))


def sums(arguments: WheelsArguments) -> FolderCheck:
    """``wheels sums``: write the folder's SHA256SUMS, or (``--check``) verify every file
    against it."""
    folder = _folder(arguments)
    if not folder.is_dir():
        raise UserError(f"{folder}: no such folder.")
    if arguments.check:
        findings = artifacts.verify_sums(folder)
        return FolderCheck(
            folder, tuple(findings), 0 if findings else len(artifacts.collect(folder))
        )
    written = artifacts.write_sums(folder)
    return FolderCheck(folder, count=len(artifacts.collect(folder)), written=written)


def promotion(config: Config, arguments: WheelsArguments) -> promote.Promotion:
    """``wheels promote``: the release candidate's artifacts checked as a release (uploads
    nothing)."""
    if arguments.artifacts is None:
        raise UserError("wheels promote: expected --artifacts DIR.")
    return promote.prepare(from_config(config), arguments.artifacts, version=arguments.version)


def _folder(arguments: WheelsArguments) -> Path:
    if arguments.folder is None:
        raise UserError("expected the folder of artifacts (DIR).")
    return arguments.folder
