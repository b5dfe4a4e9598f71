"""A project for one gate alone: a ``[project]`` table, ``[tool.mlrelease] gates`` naming the
gate, and that gate's tables given as data; no package, no changelog, no
``[tool.bumpversion]``. For a test of one gate's verdict (a docs site, a conformance run, the
models' compatibility) that says only the keys it is about."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from helpers.projects import Tables, Value, toml_strings, toml_tables

RT = {"name": "rt", "kind": "onnxruntime"}
"""onnxruntime's CPU provider as the conformance backend ``rt``."""

REFERENCE = {"name": "reference", "kind": "reference"}
"""The onnx reference evaluator as the conformance backend ``reference``."""

PLANTED = {
    "name": "planted",
    "kind": "backend",
    "module": "planted:Planted",
    "python-path": ["backends"],
}
"""The backend class ``Planted`` of ``backends/planted.py`` in the project, as ``planted``."""

PLANTED_REP = """
import numpy as np
import onnxruntime.backend as ort
from onnx.backend.base import Backend, BackendRep


class Rep(BackendRep):
    def __init__(self, rep, ops):
        self.rep, self.ops = rep, ops
"""
"""The head of ``backends/planted.py``: its imports, and ``Rep``, a prepared onnxruntime model
that keeps the model's op types (``ops``) for the ``run`` that follows to plant defects by."""

PLANTED_CLASS = """

class Planted(Backend):
    @classmethod
    def supports_device(cls, device):
        return device == "CPU"

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        return Rep(ort.prepare(model, device), {n.op_type for n in model.graph.node})
"""
"""The backend class :data:`PLANTED` names: onnxruntime's CPU backend, each model prepared as a
``Rep`` of :data:`PLANTED_REP`."""


def pyproject(
    gates: Sequence[str] | None,
    tables: Tables | None = None,
    *,
    name: str = "demo",
    version: str = "1.0.0",
    text: str = "",
) -> str:
    """``pyproject.toml`` of project ``name`` at ``version`` running ``gates`` (None: no
    ``[tool.mlrelease]`` table of its own), with ``tables`` under ``tool.mlrelease``
    (``{"compat": {"ir-version": 10}}``), then ``text`` (other TOML, dedented)."""
    head = f'[project]\nname = "{name}"\nversion = "{version}"\n'
    own = "" if gates is None else f"\n[tool.mlrelease]\ngates = {toml_strings(gates)}\n"
    return head + own + toml_tables("tool.mlrelease", tables or {}) + textwrap.dedent(text)


def ops_index(
    select: Sequence[str],
    backends: Sequence[Mapping[str, Value]],
    *,
    version: str = "1.0.0",
    cache: Path | None = None,
    timeout_s: int | None = None,
    extra: Mapping[str, Value] | None = None,
) -> str:
    """``pyproject.toml`` whose ``ops_index`` gate runs the node cases ``select`` on
    ``backends``: its case cache ``cache`` when given; with ``timeout_s``, a case limit and
    ``previous-index = "auto"`` (the committed index is the previous one); ``extra`` keys of
    ``[tool.mlrelease.ops]``."""
    ops: dict[str, Value] = {"select": list(select)}
    if cache is not None:
        ops["cache-dir"] = str(cache)
    if timeout_s is not None:
        ops.update({"previous-index": "auto", "timeout-s": timeout_s})
    ops.update({**(extra or {}), "backends": list(backends)})
    return pyproject(["ops_index"], {"ops": ops}, version=version)


DOCS_CONF = 'project = "demo"\nexclude_patterns = ["_build"]\n'
"""A Sphinx ``conf.py`` that declares no release."""


def docs(*, version: str = "0.1.0", conf: str = DOCS_CONF) -> dict[str, str]:
    """The files of a project whose ``docs`` gate builds ``docs/`` (one page, ``conf``) with
    Sphinx into ``build/``, which git ignores."""
    return {
        ".gitignore": "build/\n",
        "pyproject.toml": pyproject(["docs"], version=version),
        "docs/conf.py": conf,
        "docs/index.rst": "Demo\n====\n\nThe demo documentation.\n",
    }
