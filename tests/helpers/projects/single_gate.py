"""A project for one gate alone: a ``[project]`` table, ``[tool.mlrelease] gates`` naming the
gate, and that gate's tables; no package, no changelog, no ``[tool.bumpversion]``. For a test
of one gate's verdict (the docs site, a perf profile, a conformance run)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from pathlib import Path

from helpers.projects import toml_strings

RT = """
[[tool.mlrelease.ops.backends]]
name = "rt"
kind = "onnxruntime"
"""
"""onnxruntime's CPU provider as the backend ``rt``."""

PLANTED = """
[[tool.mlrelease.ops.backends]]
name = "planted"
kind = "backend"
module = "planted:Planted"
python-path = ["backends"]
"""
"""The backend class ``Planted`` of ``backends/planted.py`` in the project, as ``planted``."""


def pyproject(
    gates: Sequence[str], tables: str = "", *, name: str = "demo", version: str = "1.0.0"
) -> str:
    """``pyproject.toml`` of project ``name`` at ``version`` running ``gates``, followed by
    ``tables`` (TOML, dedented)."""
    head = f'[project]\nname = "{name}"\nversion = "{version}"\n\n'
    return head + f"[tool.mlrelease]\ngates = {toml_strings(gates)}\n" + textwrap.dedent(tables)


def ops_index(
    select: Sequence[str],
    backends: str,
    *,
    version: str = "1.0.0",
    cache: Path | None = None,
    timeout_s: int | None = None,
    extra: str = "",
) -> str:
    """``pyproject.toml`` whose ``ops_index`` gate runs the node cases ``select`` on
    ``backends`` (TOML, dedented): its case cache ``cache`` when given; with ``timeout_s``, a
    case limit and ``previous-index = "auto"`` (the committed index is the previous one);
    ``extra`` keys of ``[tool.mlrelease.ops]``."""
    keys = [f"select = {json.dumps(list(select))}"]
    if cache is not None:
        keys.append(f"cache-dir = {json.dumps(str(cache))}")
    if timeout_s is not None:
        keys += ['previous-index = "auto"', f"timeout-s = {timeout_s}"]
    ops = "\n[tool.mlrelease.ops]\n" + "".join(f"{key}\n" for key in [*keys, extra] if key)
    return pyproject(["ops_index"], ops, version=version) + textwrap.dedent(backends)


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
