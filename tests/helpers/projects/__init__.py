"""Named test projects: one module per project shape, each building the project's files
(``pyproject.toml`` with its ``[tool.mlrelease]`` and ``[tool.bumpversion]`` tables, the
package files) from a few named parameters, so that a test says which shape it wants and only
what differs (as python-semantic-release's ``tests/fixtures/repos/``).

- :mod:`helpers.projects.pure`: ``demo``, a pure src-layout project (hatchling,
  ``src/demo/__init__.py`` carrying ``__version__``), with the release checklist or with the
  ``tests`` gate.
- :mod:`helpers.projects.native`: ``demo-native``, a C extension built by cibuildwheel.
- :mod:`helpers.projects.tag_model`: the PyTorch family (``version.txt`` with a development
  marker, the version taken from the tag, RCs as tags on a release branch).
- :mod:`helpers.projects.bump_model`: ONNX's practice (RCs as version bumps on a trunk).
- :mod:`helpers.projects.train_member`: a member of a release train pinning its upstream.
- :mod:`helpers.projects.single_gate`: a ``[project]`` table and one gate's tables, for a test
  of that gate alone (the ``ops_index`` conformance project).

A test whose TOML is the point (hostile, broken or misspelt tables) writes it inline.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from pathlib import Path


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path -> text, dedented) under ``root``."""
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body), encoding="utf-8")
    return root


def toml_strings(items: Iterable[str]) -> str:
    """``["a", "b"]``: a TOML array of the strings ``items``."""
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"
