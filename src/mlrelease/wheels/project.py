"""A project whose artifacts the wheel commands handle: its config, name and version."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import Version

from mlrelease import version_files, versions
from mlrelease.config import Config
from mlrelease.edges import installed
from mlrelease.edges.proc import TimeoutExpired, call, python_module
from mlrelease.errors import ConfigError, PreconditionError, UserError
from mlrelease.project import bump
from mlrelease.wheels.config import WheelsConfig


@dataclass(frozen=True)
class Project:
    """A project root with its ``[tool.mlrelease]`` and the version its files carry."""

    config: Config
    name: str
    version: str

    @property
    def root(self) -> Path:
        return self.config.root

    @functools.cached_property
    def wheels(self) -> WheelsConfig:
        """The ``[tool.mlrelease.wheels]`` table, looked up once (the configuration is frozen)."""
        return self.config.table(WheelsConfig)

    @property
    def module(self) -> str:
        """The import name guessed from the distribution name (``native-adopter`` ->
        ``native_adopter``), used by the default smoke command."""
        return canonicalize_name(self.name).replace("-", "_")

    @property
    def dist(self) -> Path:
        return self.config.path(self.wheels.dist_dir)

    def smoke_command(self) -> list[str]:
        default = ["python", "-c", f"import {self.module}"]  # a command spec
        return list(self.wheels.smoke_command) or default


def from_config(config: Config) -> Project:
    """Name from ``[project]`` (or ``[tool.mlrelease] distribution``); version from
    ``[project]`` or, when it is dynamic or absent, from ``[tool.bumpversion] current_version``."""
    source = str(config.pyproject_path)
    table = config.pyproject.get("project", {})
    name = config.project_name
    if not name:
        raise ConfigError(
            "project.name",
            "the distribution name",
            "nothing",
            source=source,
            hint="Set [project] name, or [tool.mlrelease] distribution where the name lives in "
            "setup.py or setup.cfg (`mlrelease init` writes it).",
        )
    version = table.get("version")
    if version is None:
        version = version_files.bumpversion_table(config.pyproject, source)["current_version"]
    versions.parse(str(version), key="project.version", source=source)
    return Project(config, name, str(version))


def build_version(project: Project, release_tag: str | None) -> str:
    """The version the artifacts must carry.

    Without a tag: the files' version. With a tag, the version model decides whether the tag
    agrees with the files (:meth:`versions.VersionModel.agrees`, what the ``versions`` gate
    asks too): ``vX.Y.Z`` needs ``X.Y.Z``; ``vX.Y.Z-rcN`` needs ``X.Y.Z`` (what ``release rc``
    tags: the final tag lands on the same commit) or ``X.Y.ZrcN``; under ``version-source =
    "tag"`` any version of the series up to it (the build restamps a copy). The artifacts are
    built as ``X.Y.Z``, so that promotion can publish them unchanged; a tree that carries the
    RC's own version ``X.Y.ZrcN`` (release candidates as version bumps, tensorflow-onnx's
    ``v1.17.0rc1`` on ``1.17.0rc1``, ``rc-model = "bump"``) is built as it says.
    """
    if not release_tag:
        return project.version
    tagged = versions.tag_to_version(release_tag)
    if tagged is None:
        raise UserError(
            f"--release-tag {release_tag!r}: expected a release tag such as v1.4.0 or v1.4.0-rc2."
        )
    model = versions.VersionModel(project.config.version_source)
    if not model.agrees(tagged, Version(project.version)):
        raise PreconditionError(
            f"{project.name}: the tag {release_tag} says {tagged}, but the files carry "
            f"{project.version}. Check out the tagged commit (or fix the tag) and re-run."
        )
    if tagged.is_prerelease and Version(project.version) == tagged and _bumped_rcs(project):
        return project.version  # the RC's own version, in the files: built as it is
    return tagged.base_version


def _bumped_rcs(project: Project) -> bool:
    """``[tool.mlrelease.release] rc-model = "bump"``: each release candidate is its own
    version, published as it is; the release feature owns the table, so its one key is read
    from the parsed file."""
    table = project.config.pyproject.get("tool", {}).get("mlrelease", {}).get("release", {})
    return isinstance(table, dict) and table.get("rc-model") == "bump"


def restamp(project: Project, root: Path, version: str) -> None:
    """Rewrite the version in every file listed for bump-my-version under ``root`` (a
    throw-away copy of ``project``: this never runs on the working tree)."""
    config = project.config.reload(root)
    bump.execute(config, bump.plan(config, to=version))
    rewritten = from_config(config.reload())
    if rewritten.version != version:
        raise UserError(
            f"after bump-my-version the copy in {root} carries {rewritten.version}, not "
            f"{version}: list pyproject.toml's version in [[tool.bumpversion.files]]."
        )


def run_tool(args: Sequence[str], cwd: Path, timeout: int = 900) -> tuple[int, str]:
    """Run a Python tool of this environment (``[module, *args]`` via ``python -m``)."""
    installed.require(args[0], extra="wheels")
    try:
        proc = call(python_module(*args), cwd=cwd, timeout=timeout)
    except TimeoutExpired:
        return 124, f"{args[0]} ran past {timeout} s"
    return proc.returncode, (proc.stdout + proc.stderr).strip()
