"""Named test projects: one module per project shape, each building the project's files
(``pyproject.toml`` with its ``[tool.mlrelease]`` and ``[tool.bumpversion]`` tables, the
package files) from a few named parameters, so that a test says which shape it wants and only
what differs (as python-semantic-release's ``tests/fixtures/repos/``).

- :mod:`helpers.projects.pure`: ``demo``, a pure src-layout project (hatchling,
  ``src/demo/__init__.py`` carrying ``__version__``), with the release checklist or with the
  ``tests`` gate.
- :mod:`helpers.projects.native`: ``demo-native``, the configuration of a C extension whose
  wheels cibuildwheel builds (classifiers, selection, required platforms).
- :mod:`helpers.projects.tag_model`: the PyTorch family (``version.txt`` with a development
  marker, the version taken from the tag, RCs as tags on a release branch).
- :mod:`helpers.projects.bump_model`: ONNX's practice (RCs as version bumps on a trunk).
- :mod:`helpers.projects.train_member`: a member of a release train pinning its upstream.
- :mod:`helpers.projects.single_gate`: a ``[project]`` table and one gate's tables, for a test
  of that gate alone (a conformance run, a docs site, the models' compatibility).

Tables are given as Python data and rendered here (:func:`toml_tables`); a test whose TOML is
the point (hostile, broken or misspelt tables) writes it inline. :func:`committed` makes the
one-commit repository of a project's files.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeAlias

from helpers.repo import git

Value: TypeAlias = str | int | float | bool | Sequence["Value"] | Mapping[str, "Value"]
"""A TOML value as Python data: strings, numbers, booleans, arrays and (inline) tables."""

Tables: TypeAlias = Mapping[str, Mapping[str, Value]]
"""TOML tables by dotted name (``"ops"``, ``"gate-options.tests"``), each its keys' values."""


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path -> text, dedented) under ``root``."""
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body), encoding="utf-8")
    return root


def committed(root: Path, files: Mapping[str, str], *, tags: Sequence[str] = ()) -> Path:
    """A new repository at ``root`` on ``main`` holding ``files`` (path -> text, as given) in
    one commit, "Initial import"; then each of ``tags`` on an empty commit of its own, oldest
    first."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Initial import")
    for tag in tags:
        git(root, "commit", "-q", "--allow-empty", "-m", f"Release {tag}")
        git(root, "tag", tag)
    return root


def configure(root: Path, table: str, keys: Mapping[str, Value]) -> None:
    """Add ``keys`` to the table ``table`` of ``root``'s ``pyproject.toml`` (its dotted name as
    TOML spells it: ``"tool.mlrelease.gate-options.tests"``): first under the table's header
    when the file has it, or as a new table at the end, after a blank line."""
    path = root / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    header = f"[{table}]\n"
    lines = "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in keys.items())
    if header in text:
        text = text.replace(header, header + lines, 1)
    else:
        text += "\n" + header + lines
    path.write_text(text, encoding="utf-8")


def toml_strings(items: Iterable[str]) -> str:
    """``["a", "b"]``: a TOML array of the strings ``items``."""
    return "[" + ", ".join(f'"{item}"' for item in items) + "]"


def toml_value(value: Value) -> str:
    """``value`` in TOML: a basic string (JSON's escapes are TOML's), a number, a boolean, an
    array, or an inline table (on one line, as TOML requires)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Mapping):
        pairs = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + pairs + " }" if pairs else "{}"
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


def toml_key(key: str) -> str:
    """``key`` bare when TOML allows it, quoted otherwise (``"ai.onnx"``)."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def toml_tables(prefix: str, tables: Tables) -> str:
    """Each of ``tables`` as ``[PREFIX.NAME]`` and its keys, a blank line before each."""
    return "".join(
        f"\n[{prefix}.{name}]\n"
        + "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in keys.items())
        for name, keys in tables.items()
    )
