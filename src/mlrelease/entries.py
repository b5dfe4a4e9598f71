"""What one entry of the registry declares: a :class:`Feature`, with its gates and sub-commands
named as modules imported when first needed.

A feature's ``gate.py`` and ``cli.py`` import its services, and those most of the package, while
one ``mlrelease`` process runs one command. So an entry of :data:`mlrelease.registry.FEATURES`
names each by its module path and the names the module defines (:class:`Gates`,
:class:`Commands`): the configuration check reads the gate names, and the command line (to
pick the module of the chosen command), ``doctor`` and the extras read the command names,
without importing either module; :func:`importlib.import_module` imports a
gate module when one of its gates runs, is listed or is asked for its options or its extra, and
a command module when one of its commands is parsed (``mlrelease --help`` parses every one).
Loading a module checks that it defines exactly the names its entry declares: a mismatch is a
bug of the entry, raised as ``ValueError``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, cast

from mlrelease.config import Config
from mlrelease.gates import Gate


class CommandModule(Protocol):
    """A module that adds sub-commands (a feature's ``cli.py``)."""

    def register(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...


def _disagree(module: str, what: str, defined: tuple[str, ...], named: tuple[str, ...]) -> str:
    return (
        f"{module} defines the {what} {list(defined)}, but its entry in "
        f"mlrelease.registry.FEATURES names {list(named)}: make them agree"
    )


@dataclass(frozen=True)
class Gates:
    """A feature's gates: the module whose ``GATES`` lists them, and their names, in order."""

    module: str
    """The module, ``mlrelease.<feature>.gate``, imported by :meth:`load`."""
    names: tuple[str, ...]
    """The names of the gates of its ``GATES``, in that order."""

    def load(self) -> tuple[Gate, ...]:
        """The module's ``GATES``, importing it; ValueError if their names are not :attr:`names`."""
        defined = tuple(importlib.import_module(self.module).GATES)
        found = tuple(g.name for g in defined)
        if found != self.names:
            raise ValueError(_disagree(self.module, "gates", found, self.names))
        return defined


@dataclass(frozen=True)
class Commands:
    """A feature's sub-commands: the module that registers them, and the top-level commands
    it adds, in the order it adds them."""

    module: str
    """The module, ``mlrelease.<feature>.cli``, with ``register(subparsers)``."""
    names: tuple[str, ...]
    """The top-level commands its ``register`` adds (``mlrelease release``: ``"release"``)."""

    def register(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Import the module and add its commands to ``sub``; ValueError if it adds other
        commands than :attr:`names`."""
        before = set(sub.choices)
        cast(CommandModule, importlib.import_module(self.module)).register(sub)
        added = tuple(name for name in sub.choices if name not in before)
        if added != self.names:
            raise ValueError(_disagree(self.module, "commands", added, self.names))


Check = Callable[[Config], None]
"""A check of a loaded configuration that one table cannot make alone; raises ConfigError."""


@dataclass(frozen=True)
class Feature:
    """Everything a feature adds, declared in its one entry of
    :data:`mlrelease.registry.FEATURES`: its tables, gates, sub-commands, the extra they need,
    its configuration checks and the features it may import."""

    name: str
    """The feature's package, ``mlrelease.<name>``."""
    tables: Mapping[str, type] = field(default_factory=dict)
    """``[tool.mlrelease.<key>]`` -> the frozen dataclass that parses that table."""
    gates: Gates | None = None
    """Its ``gate.py`` and the names of its gates, in the order ``mlrelease gates list --all``
    shows them; each gate names the extra it needs (:attr:`mlrelease.gates.Gate.extra`). None
    when it has no gate."""
    commands: Commands | None = None
    """Its ``cli.py`` (``register(subparsers)``) and the top-level commands it adds; None when
    it adds no sub-command."""
    extra: str | None = None
    """The extra of the ``mlrelease`` package its commands need (None: the package alone)."""
    action_extras: Mapping[str, str | None] = field(default_factory=dict)
    """Commands that need another extra than :attr:`extra`: ``"release bind": "wheels"``."""
    checks: Sequence[Check] = ()
    """Checks of the loaded configuration, run by :func:`mlrelease.registry.load_config`."""
    uses: tuple[str, ...] = ()
    """The features it may import (an arrow couples two features for good: agree it first)."""
