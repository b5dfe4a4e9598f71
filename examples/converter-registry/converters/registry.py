"""Converters register themselves with a decorator; :func:`index_rows` is the index source
that ``mlrelease`` runs (in a subprocess) to build the supported-operators page."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

REGISTRY: dict[str, dict[str, Any]] = {}


def converter(target: str, *, supports_dynamic_shapes: bool = True, note: str = "") -> Callable:
    def register(fn: Callable) -> Callable:
        REGISTRY[target] = {"fn": fn, "dynamic": supports_dynamic_shapes, "note": note}
        return fn

    return register


@converter("aten.add.Tensor")
def add(*args: Any) -> None: ...


@converter("aten.relu.default")
def relu(*args: Any) -> None: ...


@converter("aten.conv2d.default", supports_dynamic_shapes=False, note="static batch only")
def conv2d(*args: Any) -> None: ...


@converter("aten.embedding.default", note="int32 indices")
def embedding(*args: Any) -> None: ...


def index_rows() -> Iterator[tuple[str, str, str]]:
    """(operator, status, notes) for every registered converter."""
    for target, entry in sorted(REGISTRY.items()):
        status = "supported" if entry["dynamic"] else "static shapes"
        yield target, status, entry["note"]
