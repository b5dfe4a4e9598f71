"""Load and validate ``[tool.mlrelease]`` from ``pyproject.toml``: it reads that one file (found
from the folder it is given) and parses the tables it is given; it runs no process and no git.

The configuration is described by frozen dataclasses. TOML keys are kebab-case
(``report-dir``), fields are snake_case (``report_dir``). Validation is strict: an unknown key
(usually a typo), a value of the wrong type or a missing required key raises
:class:`~mlrelease.errors.ConfigError` naming the key, what was expected and what was found.

This module knows no feature: :func:`load` parses the tables it is given (``[tool.mlrelease.ops]``
by the dataclass its feature registers) into :attr:`Config.tables`, read with
:meth:`Config.table`. The composition root (:func:`mlrelease.registry.load_config`) gives it
every registered table and checks the result; a command reads it with :func:`of_command`.
Every table is parsed by :mod:`mlrelease.toml_tables` (gates read their
``[tool.mlrelease.gate-options.NAME]`` table with its :func:`~mlrelease.toml_tables.parse_section`),
so every table gets the same checks and the same errors.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from mlrelease.errors import ConfigError
from mlrelease.naming import Names, Templates
from mlrelease.toml_tables import describe, parse_dataclass, parse_sections

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

T = TypeVar("T")

PYPROJECT = "pyproject.toml"
TABLE = "tool.mlrelease"


@dataclass(frozen=True)
class Config:
    """The ``[tool.mlrelease]`` table of a project."""

    gates: list[str] = field(
        default_factory=lambda: ["versions", "changelog", "exit_criteria_doc", "tests"]
    )
    """Gates that ``mlrelease verify`` runs, in this order."""
    changelog: str = "CHANGELOG.md"
    """Changelog file, relative to the project root."""
    changelog_other_changes: bool = True
    """Commits of no Conventional Commit type go to an "Other changes" section of the generated
    changelog (false: they are left out)."""
    report_dir: str = "build/release-verify"
    """Where ``mlrelease verify`` writes report.md, report.json and junit.xml."""
    exit_criteria_doc: str = "docs/release/exit-criteria.md"
    """The generated exit-criteria page (``mlrelease gates doc``)."""
    version_source: Literal["files", "scm", "tag"] = "files"
    """``files``: the version is written in files bump-my-version rewrites; ``scm``: it comes
    from git tags (setuptools-scm, hatch-vcs), so a bump has no file to rewrite; ``tag``: the
    files carry a development marker (``X.Y.0a0``, ``X.Y.0.devN``) or the bare next version and
    the build takes the release version from the tag (the PyTorch family). The rules of each:
    :class:`mlrelease.versions.VersionModel`."""
    distribution: str = ""
    """The distribution name where pyproject.toml has no ``[project] name`` (a project whose
    name lives in setup.py or setup.cfg; ``mlrelease init`` writes it): read it with
    :attr:`project_name`."""
    gate_plugins: list[str] = field(default_factory=list)
    """Modules imported before the gates run, so an adopter can register its own gates."""
    gate_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per-gate options: ``[tool.mlrelease.gate-options.GATE]``; each gate validates its own."""
    root: Path = field(default=Path("."), metadata={"toml": False})
    """The project root (the folder holding pyproject.toml); not read from TOML."""
    pyproject: Mapping[str, Any] = field(default_factory=dict, metadata={"toml": False})
    """The whole parsed pyproject.toml (other tools' tables, e.g. ``[tool.bumpversion]``)."""
    tables: Mapping[str, Any] = field(default_factory=dict, metadata={"toml": False})
    """The features' tables by key (``[tool.mlrelease.opset-rules]`` is
    ``tables["opset-rules"]``), each parsed by the dataclass its feature registers; read them
    with :meth:`table`."""
    loader: Loader | None = field(default=None, compare=False, repr=False, metadata={"toml": False})
    """How this configuration was loaded (the composition root's loader): :meth:`reload` loads
    a project again the same way, with the same tables and checks."""

    @functools.cached_property
    def pyproject_path(self) -> Path:
        """``root``'s pyproject.toml; worked out once, as every table check and error names it."""
        return self.root / PYPROJECT

    def path(self, relative: str) -> Path:
        """Resolve a project-relative path from the configuration."""
        return self.root / relative

    @property
    def version(self) -> str:
        """The project's version: ``[tool.bumpversion] current_version``, else
        ``[project] version``; ``""`` when the project states neither (a version from git tags
        alone, or none yet). The one place mlrelease reads it."""
        tool = self.pyproject.get("tool", {})
        project = self.pyproject.get("project", {})
        found = tool.get("bumpversion", {}).get("current_version") or project.get("version")
        return str(found) if found else ""

    @functools.cached_property
    def project_name(self) -> str:
        """The distribution name: ``[project] name``, else ``[tool.mlrelease] distribution``;
        ``""`` when the project states neither. The one place mlrelease reads it (the index
        pages the gatekeeper reads, the wheels' names, the report); worked out once per loaded
        configuration (a frozen value: a changed project is a new one, :meth:`reload`)."""
        found = self.pyproject.get("project", {}).get("name") or self.distribution
        return str(found) if found else ""

    def table(self, cls: type[T]) -> T:
        """The feature table parsed by ``cls``; its defaults when the project has none."""
        for value in self.tables.values():
            if isinstance(value, cls):
                return value
        return cls()

    def with_table(self, value: Any) -> Config:
        """This configuration with one feature table replaced, or added (a command-line
        override; a configuration built by hand)."""
        key = next((k for k, v in self.tables.items() if type(v) is type(value)), None)
        return dataclasses.replace(self, tables={**self.tables, key or type(value).__name__: value})

    @functools.cached_property
    def names(self) -> Names:
        """Branch and tag names, compiled once from the table that spells them
        (``[tool.mlrelease.release]``); the default templates when no table does."""
        source = str(self.pyproject_path)
        for value in self.tables.values():
            if isinstance(value, Templates):
                return Names.of(value, source)
        return Names.compile(source)

    def reload(self, root: Path | None = None) -> Config:
        """The project at ``root`` (default: this one) read again, as this one was read: after
        a checkout or an edit of pyproject.toml."""
        root = self.root if root is None else root
        if self.loader is not None:
            return self.loader(root)
        return load(root, {key: type(value) for key, value in self.tables.items()})


class Loader(Protocol):
    """Reads a project's configuration: :func:`mlrelease.registry.load_config`."""

    def __call__(
        self, root: Path | None = None, *, data: Mapping[str, Any] | None = None, source: str = ""
    ) -> Config: ...


def of_command(
    args: argparse.Namespace,
    *,
    root: Path | None = None,
    outside_project: bool = False,
    loader: Loader | None = None,
) -> Config:
    """The one way a command reads its configuration: the composition root's loader (handed
    down as ``args.load_config``, or ``loader`` wrapping it) at ``root`` (a project the command
    names) or ``--root``, else at the nearest folder above the current one that holds a
    pyproject.toml.

    ``outside_project``: the command also works outside any project (``models verify PATH`` on
    a submission): with no root given and no pyproject.toml above, the defaults."""
    load: Loader = loader or args.load_config
    root = root or args.root
    if root is None:
        here = Path.cwd().resolve()
        if outside_project and not any((p / PYPROJECT).is_file() for p in (here, *here.parents)):
            return Config(root=here)
        root = find_root(here)
    return load(root.resolve())


def read_toml(path: Path) -> dict[str, Any]:
    """Parse a TOML file; a missing file or a syntax error is a :class:`ConfigError`."""
    try:
        with path.open("rb") as handle:
            data: dict[str, Any] = tomllib.load(handle)
            return data
    except FileNotFoundError:
        raise ConfigError(
            str(path),
            "an existing TOML file",
            "no such file",
            source=str(path),
            hint="Run the command from the project root or pass --root.",
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            str(path),
            "valid TOML",
            f"a syntax error ({exc})",
            source=str(path),
            hint="Fix the syntax at the position given.",
        ) from None


def find_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding a pyproject.toml."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / PYPROJECT).is_file():
            return candidate
    raise ConfigError(
        PYPROJECT,
        f"a {PYPROJECT} in {start} or a parent folder",
        "none",
        source=str(start),
        hint="Run mlrelease inside the project, or pass --root PATH.",
    )


def load(
    root: Path | None,
    tables: Mapping[str, type],
    *,
    data: Mapping[str, Any] | None = None,
    source: str = "",
) -> Config:
    """Parse the configuration of the project at ``root`` (found upwards from the cwd if None):
    ``[tool.mlrelease]``'s own keys, then each of ``tables`` (``[tool.mlrelease.<key>]`` ->
    its dataclass). ``data`` is a parsed pyproject.toml to read instead of the file (HEAD's,
    after an interrupted edit), ``source`` the name errors give it."""
    root = find_root(Path.cwd()) if root is None else root.resolve()
    path = root / PYPROJECT
    if data is None:
        data = read_toml(path)
    source = source or str(path)
    table = data.get("tool", {}).get("mlrelease", {})
    config = _parse_config(table, tables, prefix=TABLE, source=source)
    return dataclasses.replace(
        config,
        root=root,
        pyproject=data,
        loader=functools.partial(_load_again, tables=dict(tables)),
    )


def _load_again(
    root: Path | None = None,
    *,
    tables: Mapping[str, type],
    data: Mapping[str, Any] | None = None,
    source: str = "",
) -> Config:
    return load(root, tables, data=data, source=source)


def _parse_config(
    table: Any, registered: Mapping[str, type], *, prefix: str, source: str
) -> Config:
    """``[tool.mlrelease]``: its own keys, then each registered feature table."""
    if not isinstance(table, Mapping):
        raise ConfigError(prefix, "a table", describe(table), source=source)
    core = {k: v for k, v in table.items() if k not in registered}
    config = parse_dataclass(Config, core, prefix=prefix, source=source, known=registered)
    tables = parse_sections(registered, table, prefix=prefix, source=source)
    return dataclasses.replace(config, tables=tables)
