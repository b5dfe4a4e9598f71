"""The layer order of the package, declared once: what may import what (pure data).

A module imports only modules of its own layer or lower, at module level or inside a function
alike (``if TYPE_CHECKING:`` imports excepted: they are no runtime coupling), and no import goes
round in a circle. The feature packages share one layer; they are declared where everything
else about a feature is, in :data:`mlrelease.registry.FEATURES`, with the features each may
import (arrows that form no circle). ``tests/unit/test_layers.py`` checks the whole package
against this module and the registry, and ``docs/architecture.md`` describes the layers. A new
top-level module or package outside the features is declared here first; a new arrow between
features is agreed first (it couples two features for good).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layer:
    """One floor of the package: its top-level modules and packages, and what it is for."""

    name: str
    units: tuple[str, ...]
    """Top-level modules and packages of ``mlrelease`` (``""`` is the package itself)."""
    purpose: str


FEATURES = "features"
"""The layer of the feature packages. Its members are not listed here: they are the features of
:data:`mlrelease.registry.FEATURES` (:func:`with_features`), each with the features it may
import (:attr:`mlrelease.entries.Feature.uses`)."""

LAYERS: tuple[Layer, ...] = (
    Layer(
        "utilities",
        ("", "errors", "terminal", "markdown"),
        "plain helpers every module may use: user errors, the console, Markdown tables",
    ),
    Layer(
        "core",
        (
            "layers",
            "toml_tables",
            "config",
            "versions",
            "version_files",
            "naming",
            "gates",
            "entries",
            "report",
            "requirements",
        ),
        "the configuration (read from pyproject.toml, parsed with the tables it is given), "
        "versions, tag and branch names, the gate contract, the shape of a registry entry, "
        "reports, what each feature needs "
        "installed (the extras) and the missing-dependency error; no process, no git, no URL "
        "(the edges' own), and files only where a module says so: config reads pyproject.toml, "
        "version_files the files listed for bump-my-version, report writes the reports",
    ),
    Layer(
        "edges",
        ("edges",),
        "one module per outside system: git, processes, files, onnxruntime, the edit journal "
        "and fault points",
    ),
    Layer(
        FEATURES,
        (),
        "one package per feature, each with the same rooms (config, cli, gate, service); "
        "the features are the entries of mlrelease.registry.FEATURES",
    ),
    Layer(
        "composition root",
        ("registry", "cli", "verify", "doctor", "__main__"),
        "the only modules that know every feature: the registry, the command line, verify, doctor",
    ),
)
"""The layers, lowest first."""


def with_features(features: tuple[str, ...]) -> tuple[Layer, ...]:
    """:data:`LAYERS` with the features layer holding ``features`` (the registry's)."""
    return tuple(
        Layer(layer.name, features, layer.purpose) if layer.name == FEATURES else layer
        for layer in LAYERS
    )


def layer_of(unit: str, stack: tuple[Layer, ...] = LAYERS) -> int | None:
    """The index in ``stack`` of a top-level module or package; None if undeclared."""
    for index, layer in enumerate(stack):
        if unit in layer.units:
            return index
    return None
