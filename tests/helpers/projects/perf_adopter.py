"""``adopter``, a project whose models' speed mlrelease measures: its ``[tool.mlrelease.perf]``
profiles given as data, over the tiny models of ``tests/perf_integration`` (``tiny_models.py``
and ``tiny_builders.py``, which it imports), copied into the project as an adopter keeps its
own model specs; with a gate profile, the ``perf`` gate runs that profile."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from helpers.projects import Value, single_gate

TINY_MODELS = Path(__file__).parents[2] / "perf_integration"
"""The folder of ``tiny_models.py`` and ``tiny_builders.py``."""

MODEL_FILES = ("tiny_models.py", "tiny_builders.py")


def write(
    root: Path, profiles: Mapping[str, Mapping[str, Value]], *, gate_profile: str | None = None
) -> Path:
    """Write the adopter into ``root``: ``profiles`` (name -> its keys) as
    ``[tool.mlrelease.perf.profiles.NAME]``; with ``gate_profile``, the ``perf`` gate as the
    project's one gate, timing that profile; the tiny models beside."""
    tables: dict[str, Mapping[str, Value]] = {}
    if gate_profile is not None:
        tables["perf"] = {"gate-profile": gate_profile}
    tables.update({f"perf.profiles.{name}": keys for name, keys in profiles.items()})
    gates = None if gate_profile is None else ["perf"]
    text = single_gate.pyproject(gates, tables, name="adopter")
    (root / "pyproject.toml").write_text(text, encoding="utf-8")
    for name in MODEL_FILES:
        shutil.copy(TINY_MODELS / name, root / name)
    return root
