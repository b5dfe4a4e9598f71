"""The composition root: the one list of mlrelease's features, and what is built from it.

Each entry of :data:`FEATURES` is a :class:`Feature`: the ``[tool.mlrelease.<key>]`` tables it
owns, from the feature's ``config.py`` (imported here: every configuration check needs every
table), and its gates and sub-commands, named by their modules (its ``gate.py`` and ``cli.py``)
and the names those define (:mod:`mlrelease.entries`), so that a process imports the modules
of the gates it runs and the command it runs, not every feature's. Nothing below this module
imports it: the configuration, the gates and the commands get what they need from here, as
arguments (:func:`load_config` is the one way a command reads the configuration). Adding a
feature is one package plus one entry in :data:`FEATURES`; an adopter's own gates come from
``[tool.mlrelease] gate-plugins`` (:func:`plugin_gates`).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mlrelease import config as config_mod
from mlrelease import layers, toml_tables
from mlrelease.conda import config as conda_config
from mlrelease.config import Config
from mlrelease.docs import config as docs_config
from mlrelease.downstream import config as downstream_config
from mlrelease.entries import Commands, Feature, Gates
from mlrelease.errors import ConfigError, UserError
from mlrelease.gates import Gate
from mlrelease.models import config as models_config
from mlrelease.ops import config as ops_config
from mlrelease.opsets import config as opsets_config
from mlrelease.perf import config as perf_config
from mlrelease.project import config as project_config
from mlrelease.release import config as release_config
from mlrelease.train import config as train_config
from mlrelease.wheels import config as wheels_config

FEATURES: tuple[Feature, ...] = (
    Feature(
        "project",
        project_config.TABLES,
        Gates("mlrelease.project.gate", ("versions", "changelog", "exit_criteria_doc", "tests")),
        Commands("mlrelease.project.cli", ("changelog", "bump", "version", "tests")),
        action_extras={"changelog": "release", "bump": "release"},
    ),
    Feature(
        "wheels",
        wheels_config.TABLES,
        Gates("mlrelease.wheels.gate", ("wheels",)),
        Commands("mlrelease.wheels.cli", ("wheels",)),
        extra="wheels",
        uses=("project",),  # a build restamps a copy of the tree with the project's bump
    ),
    Feature(
        "release",
        release_config.TABLES,
        Gates("mlrelease.release.gate", ("git_state",)),
        Commands("mlrelease.release.cli", ("release",)),
        extra="release",
        action_extras={f"release {a}": "wheels" for a in ("bind", "publish", "promote")},
        checks=release_config.CHECKS,
        uses=("project", "wheels", "docs"),  # bumps, changelog, the RC's artifacts, frozen docs
    ),
    Feature(
        "docs",
        docs_config.TABLES,
        Gates("mlrelease.docs.gate", ("docs",)),
        Commands("mlrelease.docs.cli", ("docs",)),
        extra="docs",
    ),
    Feature(
        "models",
        models_config.TABLES,
        Gates("mlrelease.models.gate", ("compat", "models")),
        Commands("mlrelease.models.cli", ("models", "compat")),
        extra="models",
    ),
    Feature(
        "opsets",
        opsets_config.TABLES,
        Gates("mlrelease.opsets.gate", ("opset_rules",)),
        Commands("mlrelease.opsets.cli", ("opset",)),
        extra="opsets",
        uses=("models",),  # the opset rules read the models' ONNX settings
    ),
    Feature(
        "ops",
        ops_config.TABLES,
        Gates("mlrelease.ops.gate", ("ops_index",)),
        Commands("mlrelease.ops.cli", ("ops",)),
        extra="ops",
    ),
    Feature(
        "perf",
        perf_config.TABLES,
        Gates("mlrelease.perf.gate", ("perf",)),
        Commands("mlrelease.perf.cli", ("perf",)),
        extra="perf",
        action_extras={"perf merge": "perf-report", "perf history": "perf-report"},
        uses=("wheels",),  # a bisect builds each commit with the reference build
    ),
    Feature(
        "downstream",
        downstream_config.TABLES,
        Gates("mlrelease.downstream.gate", ("downstream",)),
        Commands("mlrelease.downstream.cli", ("downstream",)),
        extra="downstream",
        checks=downstream_config.CHECKS,
    ),
    Feature(
        "train",
        train_config.TABLES,
        Gates("mlrelease.train.gate", ("train",)),
        Commands("mlrelease.train.cli", ("train",)),
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
        Gates("mlrelease.conda.gate", ("conda",)),
        Commands("mlrelease.conda.cli", ("conda",)),
        extra="conda",
        checks=conda_config.CHECKS,
        uses=("release",),  # the bound release: manifest, store, the candidate a tag promoted
    ),
    Feature(
        "init",
        commands=Commands("mlrelease.init.cli", ("init",)),
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


def gate_names() -> dict[str, Gates]:
    """Every gate the features register, by name, with its feature's gate module, read from
    the entries without importing one; a name registered twice is a bug."""
    found: dict[str, Gates] = {}
    for gates_of in (f.gates for f in FEATURES if f.gates is not None):
        for name in gates_of.names:
            if name in found:
                raise ValueError(f"gate {name!r} is registered twice")
            found[name] = gates_of
    return found


def gate(name: str) -> Gate:
    """The registered gate ``name``, importing its feature's gate module alone (KeyError if no
    feature registers it)."""
    return next(g for g in gate_names()[name].load() if g.name == name)


def gates() -> dict[str, Gate]:
    """Every gate the features register, by name, importing every gate module."""
    return {name: gate(name) for name in gate_names()}


def commands() -> tuple[Commands, ...]:
    """The features' sub-commands, in :data:`FEATURES` order (none imported)."""
    return tuple(f.commands for f in FEATURES if f.commands is not None)


def command_names(feature: Feature) -> tuple[str, ...]:
    """The top-level commands ``feature`` adds, as its entry names them."""
    return feature.commands.names if feature.commands else ()


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
    registered = gate_names()
    needed = {gate(n).extra for n in names if n in registered and (cibuildwheel or n != "wheels")}
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
    """The built-in gates (:data:`FEATURES`, every gate module imported) and the adopter's
    (:func:`plugin_gates`), by name."""
    return {**gates(), **plugin_gates(config)}


def plugin_gates(config: Config) -> dict[str, Gate]:
    """The adopter's gates, by name: every gate at the top level of the modules of
    ``[tool.mlrelease] gate-plugins``. A built-in gate's name is refused unless the module
    holds that very gate (it imported it).

    Plug-in modules are looked up on ``sys.path`` and in the project root, so an adopter can
    keep its gates in the repository (``gate-plugins = ["ci.release_gates"]``).
    """
    found: dict[str, Gate] = {}
    builtin = gate_names()
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
                taken = found.get(value.name) or (
                    gate(value.name) if value.name in builtin else None
                )
                if taken is not None and taken is not value:
                    raise ConfigError(
                        "tool.mlrelease.gate-plugins",
                        "modules whose gates have names of their own",
                        f"{module!r} defines gate {value.name!r}, which already exists",
                        source=str(config.pyproject_path),
                        hint="Rename the plug-in's gate.",
                    )
                found[value.name] = value
    return found


def _known(plugins: Mapping[str, Gate]) -> list[str]:
    """The names of the built-in gates and the plug-ins' ``plugins``."""
    return list(dict.fromkeys([*gate_names(), *plugins]))


def _gate(name: str, plugins: Mapping[str, Gate]) -> Gate:
    """The gate ``name``, a plug-in's or a built-in one (only its feature's module imported)."""
    return plugins[name] if name in plugins else gate(name)


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
    plugins = plugin_gates(config)
    known = _known(plugins)
    _check_gate_names(config, known)
    for name, table in config.gate_options.items():
        if name not in known:
            raise ConfigError(
                f"tool.mlrelease.gate-options.{name}",
                "options of a registered gate",
                f"options for {name!r}, which is no gate",
                source=source,
                hint=suggest(name, known),
            )
        cls = _gate(name, plugins).options
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


def _check_gate_names(config: Config, known: Sequence[str]) -> None:
    for i, name in enumerate(config.gates):
        if name not in known:
            raise ConfigError(
                f"tool.mlrelease.gates[{i}]",
                "the name of a registered gate",
                repr(name),
                source=str(config.pyproject_path),
                hint=suggest(name, known),
            )


def select(
    config: Config,
    only: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> list[Gate]:
    """The configured gates, in configured order, filtered by ``--only`` / ``--skip`` (only
    their features' gate modules imported)."""
    plugins = plugin_gates(config)
    only, skip = list(only), list(skip)
    _check_gate_names(config, _known(plugins))
    for option, names in (("--only", only), ("--skip", skip)):
        for name in names:
            if name not in config.gates:
                raise UserError(
                    f"{option} {name}: not a configured gate. Configured gates: "
                    f"{', '.join(config.gates)}. {suggest(name, config.gates)}".rstrip()
                )
    return [
        _gate(name, plugins)
        for name in config.gates
        if (not only or name in only) and name not in skip
    ]


def suggest(name: str, known: Iterable[str]) -> str:
    """The did-you-mean of an unknown gate name: the closest known one, else the known list."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"Did you mean '{close[0]}'?" if close else f"Known gates: {', '.join(sorted(known))}."
