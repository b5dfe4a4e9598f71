"""Small conformance projects: a private case cache holding this machine's node cases, and a
pyproject.toml whose only gate is ops_index over the selected cases."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from helpers.projects import Value, single_gate
from mlrelease.ops import cases


def private_cache(cache: Path) -> Path:
    """``cache`` holding the onnx node cases (generated once on a cold machine, then copied)."""
    cases.onnx_node_cases()
    target = cases.cache_path(cache)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(cases.cache_path(cases.default_cache_dir()), target)
    return cache


def ops_project(
    root: Path, select: list[str], backends: Sequence[Mapping[str, Value]], cache: Path
) -> Path:
    """A project at ``root`` whose ops_index gate runs ``select`` on ``backends``, its node
    cases in ``cache``."""
    root.mkdir(parents=True, exist_ok=True)
    pyproject = single_gate.ops_index(select, backends, cache=cache)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return root
