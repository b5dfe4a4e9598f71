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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mlrelease import config as config_mod
from mlrelease import layers, toml_tables
from mlrelease.conda import cli as conda_cli
from mlrelease.conda import config as conda_config
from mlrelease.conda import gate as conda_gate
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
from mlrelease.train import cli as train_cli
from mlrelease.train import config as train_config
from mlrelease.train import gate as train_gate
from mlrelease.wheels import cli as wheels_cli
from mlrelease.wheels import config as wheels_config
from mlrelease.wheels import gate as wheels_gate


class Commands(Protocol):
    """A module that adds sub-commands (a feature's ``cli.py``)."""

    def register(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...


Check = Callable[[Config], None]
"""A check of a loaded configuration that one table cannot make alone; raises ConfigError."""


@dataclass(frozen=True)
class Feature:
    """Everything a feature adds, declared in this one place: its tables, gates, sub-commands,
    the extra they need, its configuration checks and the features it may import."""

    name: str
    """The feature's package, ``mlrelease.<name>``."""
    tables: Mapping[str, type] = field(default_factory=dict)
    """``[tool.mlrelease.<key>]`` -> the frozen dataclass that parses that table."""
    gates: Sequence[Gate] = ()
    """The feature's gates, in the order ``mlrelease gates list --all`` shows them; each names
    the extra it needs (:attr:`mlrelease.gates.Gate.extra`)."""
    commands: Commands | None = None
    """Its ``cli.py`` (``register(subparsers)``); None when it adds no sub-command."""
    extra: str | None = None
    """The extra of the ``mlrelease`` package its commands need (None: the package alone)."""
    action_extras: Mapping[str, str | None] = field(default_factory=dict)
    """Commands that need another extra than :attr:`extra`: ``"release bind": "wheels"``."""
    checks: Sequence[Check] = ()
    """Checks of the loaded configuration, run by :func:`load_config`."""
    uses: tuple[str, ...] = ()
    """The features it may import (an arrow couples two features for good: agree it first)."""


FEATURES: tuple[Feature, ...] = (
    Feature(
        "project",
        project_config.TABLES,
        project_gate.GATES,
        project_cli,
        action_extras={"changelog": "release", "bump": "release"},
    ),
    Feature(
        "wheels",
        wheels_config.TABLES,
        wheels_gate.GATES,
        wheels_cli,
        extra="wheels",
        uses=("project",),  # a build restamps a copy of the tree with the project's bump
    ),
    Feature(
        "release",
        release_config.TABLES,
        release_gate.GATES,
        release_cli,
        extra="release",
        action_extras={f"release {a}": "wheels" for a in ("bind", "publish", "promote")},
        checks=release_config.CHECKS,
        uses=("project", "wheels", "docs"),  # bumps, changelog, the RC's artifacts, frozen docs
    ),
    Feature("docs", docs_config.TABLES, docs_gate.GATES, docs_cli, extra="docs"),
    Feature("models", models_config.TABLES, models_gate.GATES, models_cli, extra="models"),
    Feature(
        "opsets",
        opsets_config.TABLES,
        opsets_gate.GATES,
        opsets_cli,
        extra="opsets",
        uses=("models",),  # the opset rules read the models' ONNX settings
    ),
    Feature("ops", ops_config.TABLES, ops_gate.GATES, ops_cli, extra="ops"),
    Feature(
        "perf",
        perf_config.TABLES,
        perf_gate.GATES,
        perf_cli,
        extra="perf",
        action_extras={"perf merge": "perf-report", "perf history": "perf-report"},
        uses=("wheels",),  # a bisect builds each commit with the reference build
    ),
    Feature(
        "downstream",
        downstream_config.TABLES,
        downstream_gate.GATES,
        downstream_cli,
        extra="downstream",
        checks=downstream_config.CHECKS,
    ),
    Feature(
        "train",
        train_config.TABLES,
        train_gate.GATES,
        train_cli,
        extra="release",
        action_extras={f"train {a}": "wheels" for a in ("bind", "promote")},
        checks=train_config.CHECKS,
        # each member's candidate is bound, published and tagged by release; its own tests run
        # against its upstream's candidate through downstream's paired run
        uses=("release", "downstream"),
    ),
    Feature(
        "conda",
        conda_config.TABLES,
        conda_gate.GATES,
        conda_cli,
        extra="conda",
        checks=conda_config.CHECKS,
        uses=("release",),  # the bound release: manifest, store, the candidate a tag promoted
    ),
    Feature(
        "init",
        commands=init_cli,
        uses=("release", "wheels", "downstream"),  # init proposes what those features read
    ),
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


def command_names(feature: Feature) -> tuple[str, ...]:
    """The top-level commands ``feature`` adds, read from the parsers it registers."""
    if feature.commands is None:
        return ()
    sub = argparse.ArgumentParser().add_subparsers()
    feature.commands.register(sub)
    return tuple(sub.choices)


def command_extras() -> dict[str, str | None]:
    """``mlrelease COMMAND [ACTION]`` -> the extra it needs, for every feature's commands."""
    found: dict[str, str | None] = {}
    for feature in FEATURES:
        found.update(dict.fromkeys(command_names(feature), feature.extra))
        found.update(feature.action_extras)
    return found


def command_extra(words: Sequence[str]) -> str | None:
    """The extra of ``mlrelease WORDS...`` (``["perf", "merge"]`` -> ``perf-report``); the
    longest declared prefix wins, and a command of no feature (``verify``) needs none."""
    known = command_extras()
    for n in range(len(words), 0, -1):
        key = " ".join(words[:n])
        if key in known:
            return known[key]
    return None


def gate_extras(names: Iterable[str], *, cibuildwheel: bool = True) -> list[str]:
    """The extras the gates ``names`` need (unknown names need none). ``cibuildwheel`` False:
    the project is pure and has no ``[tool.cibuildwheel]``, so its ``wheels`` gate asks
    cibuildwheel nothing."""
    registered = gates()
    needed = {
        registered[n].extra for n in names if n in registered and (cibuildwheel or n != "wheels")
    }
    return sorted(e for e in needed if e)


def arrows() -> dict[str, tuple[str, ...]]:
    """Feature -> the features it may import (:attr:`Feature.uses`)."""
    return {f.name: f.uses for f in FEATURES}


def stack() -> tuple[layers.Layer, ...]:
    """The package's layers, the features layer holding every feature of :data:`FEATURES`."""
    return layers.with_features(tuple(f.name for f in FEATURES))


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
            toml_tables.parse_section(
                cls, table, prefix=f"tool.mlrelease.gate-options.{name}", source=source
            )
    for feature in FEATURES:
        for check in feature.checks:
            check(config)
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
