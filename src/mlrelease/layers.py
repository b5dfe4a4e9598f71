"""The layer order of the package, declared once: what may import what (pure data).

A module imports only modules of its own layer or lower, at module level or inside a function
alike (``if TYPE_CHECKING:`` imports excepted: they are no runtime coupling), and no import goes
round in a circle. Among the feature packages, which share a layer, only the arrows of
:data:`FEATURE_ARROWS` are allowed; they form no circle. ``tests/unit/test_layers.py`` checks
the whole package against this module, and ``docs/architecture.md`` shows it
(``mlrelease docs generate``). A new top-level module or package is declared here first; a new
arrow between features is agreed first (it couples two features for good).
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


LAYERS: tuple[Layer, ...] = (
    Layer(
        "utilities",
        ("", "errors", "terminal", "markdown"),
        "plain helpers every module may use: user errors, the console, Markdown tables",
    ),
    Layer(
        "core",
        ("layers", "config", "versions", "naming", "gates", "report", "requirements"),
        "pure: the configuration parser (given its tables), versions, tag and branch names, the "
        "gate contract, reports, what each feature needs installed (the extras) and the one "
        "missing-dependency error; plain data in, plain data out",
    ),
    Layer(
        "edges",
        ("edges",),
        "one module per outside system: git, processes, files, onnxruntime, the edit journal "
        "and fault points",
    ),
    Layer(
        "features",
        (
            "project",
            "wheels",
            "release",
            "docs",
            "models",
            "opsets",
            "ops",
            "perf",
            "init",
            "downstream",
        ),
        "one package per feature, each with the same rooms (config, cli, gate, service)",
    ),
    Layer(
        "composition root",
        ("registry", "cli", "verify", "doctor", "__main__"),
        "the only modules that know every feature: the registry, the command line, verify, doctor",
    ),
)
"""The layers, lowest first."""

FEATURE_ARROWS: dict[str, tuple[str, ...]] = {
    "project": (),
    "wheels": ("project",),  # a build restamps a copy of the tree with the project's bump
    "docs": (),
    "release": ("project", "wheels", "docs"),  # bumps, changelog, the RC's artifacts, frozen docs
    "models": (),
    "opsets": ("models",),  # the opset rules read the models' ONNX settings
    "ops": (),
    "perf": (),
    "downstream": (),
    "init": ("release", "wheels", "downstream"),  # init proposes what those features read
}
"""Feature -> the features it may import. A feature imports its own modules freely."""


def layer_of(unit: str) -> int | None:
    """The index in :data:`LAYERS` of a top-level module or package; None if undeclared."""
    for index, layer in enumerate(LAYERS):
        if unit in layer.units:
            return index
    return None
