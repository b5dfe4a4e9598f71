"""The registry of built-in features: the one list of what mlrelease's packages add.

Each entry is a feature's gate module; it satisfies :class:`Feature`: ``TABLES`` (the
``[tool.mlrelease.<key>]`` tables it owns, each parsed by its dataclass) and ``GATES`` (its
exit criteria). Adding a gate is one new module plus one line in :data:`FEATURES`; an
adopter's own gates come from ``[tool.mlrelease] gate-plugins`` instead
(:func:`mlrelease.gates.load_gates`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from mlrelease.docs import gate as docs
from mlrelease.downstream import gate as downstream
from mlrelease.gates import Gate
from mlrelease.gates import project as project
from mlrelease.models import gate as models
from mlrelease.ops import gate as ops
from mlrelease.opsets import gate as opsets
from mlrelease.perf import gate as perf
from mlrelease.release import gate as release
from mlrelease.wheels import gate as wheels


@runtime_checkable
class Feature(Protocol):
    """What a built-in feature registers (its ``gate.py`` module)."""

    @property
    def TABLES(self) -> Mapping[str, type]:
        """``[tool.mlrelease.<key>]`` -> the frozen dataclass that parses that table."""

    @property
    def GATES(self) -> Sequence[Gate]:
        """The feature's gates, in the order ``mlrelease gates list --all`` shows them."""


FEATURES: tuple[Feature, ...] = (
    project,
    wheels,
    release,
    docs,
    models,
    opsets,
    ops,
    perf,
    downstream,
)
"""The built-in features, in order."""


def tables() -> dict[str, type]:
    """Every table the features register: key -> dataclass; a key owned twice is a bug."""
    found: dict[str, type] = {}
    for feature in FEATURES:
        for key, cls in feature.TABLES.items():
            if key in found and found[key] is not cls:
                raise ValueError(f"table [tool.mlrelease.{key}] is registered twice")
            found[key] = cls
    return found


def gates() -> dict[str, Gate]:
    """Every gate the features register, by name; a name registered twice is a bug."""
    found: dict[str, Gate] = {}
    for feature in FEATURES:
        for g in feature.GATES:
            if g.name in found and found[g.name] is not g:
                raise ValueError(f"gate {g.name!r} is registered twice")
            found[g.name] = g
    return found
