"""The composition root: the one list of mlrelease's features, and what is built from it.

Each entry of :data:`FEATURES` is a :class:`Feature`: the ``[tool.mlrelease.<key>]`` tables it
owns, its gates and its sub-commands, taken from the feature's ``config.py``, ``gate.py`` and
``cli.py``. Nothing below this module imports it: the configuration, the gates and the commands
get what they need from here, as arguments (:func:`load_config` is the one way a command reads
the configuration). Adding a feature is one package plus one line in :data:`FEATURES`; an
adopter's own gates come from ``[tool.mlrelease] gate-plugins`` (:func:`load_gates`).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import importlib
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mlrelease import config as config_mod
from mlrelease.config import Config
from mlrelease.docs import cli as docs_cli
from mlrelease.docs import config as docs_config
from mlrelease.docs import gate as docs_gate
from mlrelease.downstream import cli as downstream_cli
from mlrelease.downstream import config as downstream_config
from mlrelease.downstream import gate as downstream_gate
from mlrelease.errors import ConfigError, UserError
from mlrelease.gates import Gate
from mlrelease.init import cli as init_cli
from mlrelease.models import cli as models_cli
from mlrelease.models import config as models_config
from mlrelease.models import gate as models_gate
from mlrelease.ops import cli as ops_cli
from mlrelease.ops import config as ops_config
from mlrelease.ops import gate as ops_gate
from mlrelease.opsets import cli as opsets_cli
from mlrelease.opsets import config as opsets_config
from mlrelease.opsets import gate as opsets_gate
from mlrelease.perf import cli as perf_cli
from mlrelease.perf import config as perf_config
from mlrelease.perf import gate as perf_gate
from mlrelease.project import cli as project_cli
from mlrelease.project import config as project_config
from mlrelease.project import gate as project_gate
from mlrelease.release import cli as release_cli
from mlrelease.release import config as release_config
from mlrelease.release import gate as release_gate
from mlrelease.wheels import cli as wheels_cli
from mlrelease.wheels import config as wheels_config
from mlrelease.wheels import gate as wheels_gate


class Commands(Protocol):
    """A module that adds sub-commands (a feature's ``cli.py``)."""

    def register(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...


@dataclass(frozen=True)
class Feature:
    """What a feature adds: its tables, its gates and its sub-commands."""

    name: str
    tables: Mapping[str, type]
    """``[tool.mlrelease.<key>]`` -> the frozen dataclass that parses that table."""
    gates: Sequence[Gate] = ()
    """The feature's gates, in the order ``mlrelease gates list --all`` shows them."""
    commands: Commands | None = None
    """Its ``cli.py`` (``register(subparsers)``); None when it adds no sub-command."""


FEATURES: tuple[Feature, ...] = (
    Feature("project", project_config.TABLES, project_gate.GATES, project_cli),
    Feature("wheels", wheels_config.TABLES, wheels_gate.GATES, wheels_cli),
    Feature("release", release_config.TABLES, release_gate.GATES, release_cli),
    Feature("docs", docs_config.TABLES, docs_gate.GATES, docs_cli),
    Feature("models", models_config.TABLES, models_gate.GATES, models_cli),
    Feature("opsets", opsets_config.TABLES, opsets_gate.GATES, opsets_cli),
    Feature("ops", ops_config.TABLES, ops_gate.GATES, ops_cli),
    Feature("perf", perf_config.TABLES, perf_gate.GATES, perf_cli),
    Feature("downstream", downstream_config.TABLES, downstream_gate.GATES, downstream_cli),
    Feature("init", {}, (), init_cli),
)
"""The built-in features, in the order ``mlrelease --help`` lists their commands."""


def tables() -> dict[str, type]:
    """Every table the features register: key -> dataclass; a key owned twice is a bug."""
    found: dict[str, type] = {}
    for feature in FEATURES:
        for key, cls in feature.tables.items():
            if key in found and found[key] is not cls:
                raise ValueError(f"table [tool.mlrelease.{key}] is registered twice")
            found[key] = cls
    return found


def gates() -> dict[str, Gate]:
    """Every gate the features register, by name; a name registered twice is a bug."""
    found: dict[str, Gate] = {}
    for feature in FEATURES:
        for g in feature.gates:
            if g.name in found and found[g.name] is not g:
                raise ValueError(f"gate {g.name!r} is registered twice")
            found[g.name] = g
    return found


def commands() -> tuple[Commands, ...]:
    """The features' sub-command modules, in :data:`FEATURES` order."""
    return tuple(f.commands for f in FEATURES if f.commands is not None)


def load_config(
    root: Path | None = None, *, data: Mapping[str, Any] | None = None, source: str = ""
) -> Config:
    """The configuration of the project at ``root`` (found upwards from the cwd if None), with
    every registered table, checked (:func:`check_config`) before any command acts.

    ``data`` is a parsed pyproject.toml to read instead of the file, ``source`` its name in
    errors (see :func:`mlrelease.config.load`)."""
    loaded = config_mod.load(root, tables(), data=data, source=source)
    loaded = dataclasses.replace(loaded, loader=load_config)
    check_config(loaded)
    return loaded


def load_gates(config: Config) -> dict[str, Gate]:
    """The built-in gates (:data:`FEATURES`) and the adopter's, by name.

    Plug-in modules are looked up on ``sys.path`` and in the project root, so an adopter can
    keep its gates in the repository (``gate-plugins = ["ci.release_gates"]``).
    """
    found = gates()
    root = str(config.root)
    if config.gate_plugins and root not in sys.path:
        sys.path.append(root)
    for module in config.gate_plugins:
        try:
            plugin = importlib.import_module(module)
        except ImportError as exc:
            raise ConfigError(
                "tool.mlrelease.gate-plugins",
                "importable module names",
                f"{module!r} ({exc})",
                source=str(config.pyproject_path),
                hint="Install the package that provides it, or remove it from the list.",
            ) from None
        for value in vars(plugin).values():
            if isinstance(value, Gate):
                if value.name in found and found[value.name] is not value:
                    raise ConfigError(
                        "tool.mlrelease.gate-plugins",
                        "modules whose gates have names of their own",
                        f"{module!r} defines gate {value.name!r}, which already exists",
                        source=str(config.pyproject_path),
                        hint="Rename the plug-in's gate.",
                    )
                found[value.name] = value
    return found


def check_config(config: Config) -> None:
    """Refuse at load time what would otherwise fail at run time: no gates, an unknown gate,
    options for an unknown gate, options a gate does not accept, a checklist step naming an
    unknown placeholder, a missing changelog."""
    source = str(config.pyproject_path)
    if not config.gates:
        raise ConfigError(
            "tool.mlrelease.gates",
            "at least one gate name",
            "an empty list",
            source=source,
            hint="List the gates `mlrelease verify` runs (`mlrelease gates list --all` shows "
            "them), or remove the key for the defaults.",
        )
    registry = load_gates(config)
    _check_gate_names(config, registry)
    for name, table in config.gate_options.items():
        if name not in registry:
            raise ConfigError(
                f"tool.mlrelease.gate-options.{name}",
                "options of a registered gate",
                f"options for {name!r}, which is no gate",
                source=source,
                hint=suggest(name, registry),
            )
        cls = registry[name].options
        if cls is not None:
            config_mod.parse_section(
                cls, table, prefix=f"tool.mlrelease.gate-options.{name}", source=source
            )
    release_config.check_placeholders(config.table(release_config.ReleaseConfig), source)
    release_config.check_version_model(config)
    downstream_config.check_loaded(config)
    # Only a configured gate list asks for the file: the defaults must not refuse a new project.
    listed = "gates" in config.pyproject.get("tool", {}).get("mlrelease", {})
    if listed and "changelog" in config.gates and not config.path(config.changelog).is_file():
        raise ConfigError(
            "tool.mlrelease.changelog",
            "an existing changelog file (the `changelog` gate is configured)",
            f"no file {config.changelog}",
            source=source,
            hint="Create it (a '# Changelog' heading; `mlrelease changelog --execute` fills it), "
            "point the key at the right file, or remove `changelog` from gates.",
        )


def _check_gate_names(config: Config, registry: Mapping[str, Gate]) -> None:
    for i, name in enumerate(config.gates):
        if name not in registry:
            raise ConfigError(
                f"tool.mlrelease.gates[{i}]",
                "the name of a registered gate",
                repr(name),
                source=str(config.pyproject_path),
                hint=suggest(name, registry),
            )


def select(
    config: Config,
    only: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> list[Gate]:
    """The configured gates, in configured order, filtered by ``--only`` / ``--skip``."""
    registry = load_gates(config)
    only, skip = list(only), list(skip)
    _check_gate_names(config, registry)
    for option, names in (("--only", only), ("--skip", skip)):
        for name in names:
            if name not in config.gates:
                raise UserError(
                    f"{option} {name}: not a configured gate. Configured gates: "
                    f"{', '.join(config.gates)}. {suggest(name, config.gates)}".rstrip()
                )
    return [
        registry[name] for name in config.gates if (not only or name in only) and name not in skip
    ]


def suggest(name: str, known: Iterable[str]) -> str:
    """The did-you-mean of an unknown gate name: the closest known one, else the known list."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"Did you mean '{close[0]}'?" if close else f"Known gates: {', '.join(sorted(known))}."
