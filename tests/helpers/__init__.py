"""Helpers shared by the test lanes: small real projects, git repositories, ONNX models.

Importable from any test folder (``pythonpath = ["tests"]`` in pyproject.toml), so that any
subset of the test folders collects; fixtures stay in the conftest.py files.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The root of this repository."""


def plant_modules(folder: Path, markers: Path, names: Iterable[str]) -> Path:
    """Python modules and packages under ``folder`` (``names`` like ``mlrelease/__init__.py``)
    that each create a marker file in ``markers`` when imported: a module a folder ships
    must never run, so ``markers`` must stay empty."""
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        marker = markers / name.replace("/", "_")
        path.write_text(f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    return folder


def load_script(filename: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``scripts/<filename>`` imported as a module of its stem's name, in ``sys.modules`` for
    the test (a dataclass needs its module there), with ``scripts/`` importable (a script may
    import its sibling)."""
    monkeypatch.syspath_prepend(str(REPO_ROOT / "scripts"))
    name = Path(filename).stem
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / "scripts" / filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module
