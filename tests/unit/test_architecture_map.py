"""The architecture page's module map: generated from the docstrings, and current."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import REPO_ROOT

from mlrelease.docs import modules
from mlrelease.edges.files import first_difference
from mlrelease.errors import UserError

PAGE = "docs/architecture.md"


def test_the_committed_module_map_is_current() -> None:
    text = (REPO_ROOT / PAGE).read_text(encoding="utf-8")
    fresh = modules.splice(text, REPO_ROOT, PAGE)
    assert first_difference(fresh, text) is None, (
        f"{PAGE} is stale: run `mlrelease docs generate --execute`"
    )


def test_every_module_has_a_docstring() -> None:
    missing = [name for name, text in modules.modules(REPO_ROOT / "src" / "mlrelease") if not text]
    assert missing == []


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "src" / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""The package."""\n', encoding="utf-8")
    (pkg / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "sub" / "a.py").write_text('"""A: first\nline.\n\nMore."""\n', encoding="utf-8")
    (pkg / "b.py").write_text('"""B | pipes."""\n', encoding="utf-8")
    return pkg


def test_one_row_per_module_from_its_docstring(tmp_path: Path) -> None:
    _package(tmp_path)
    page = "# Title\n\nprose\n\n" + modules.BEGIN.format(package="src/pkg") + "\nold\n"
    page += modules.END + "\n\nafter\n"
    fresh = modules.splice(page, tmp_path, "docs/architecture.md")
    assert fresh.startswith("# Title\n\nprose\n\n<!-- module map of src/pkg")
    assert fresh.endswith(modules.END + "\n\nafter\n")
    rows = [line for line in fresh.splitlines() if line.startswith("| `")]
    assert rows == [
        "| `pkg` | The package. |",
        "| `pkg.b` | B \\| pipes. |",
        "| `pkg.sub` | (no docstring) |",
        "| `pkg.sub.a` | A: first line. |",
    ]
    assert modules.splice(fresh, tmp_path, "x") == fresh  # a second run changes nothing


def test_broken_markers_are_named(tmp_path: Path) -> None:
    _package(tmp_path)
    begin = modules.BEGIN.format(package="src/pkg")
    with pytest.raises(UserError, match="found no end marker; restore the markers"):
        modules.splice(f"{begin}\n", tmp_path, "p.md")
    with pytest.raises(UserError, match="names src/nope, which is no package folder"):
        modules.splice(modules.BEGIN.format(package="src/nope") + modules.END, tmp_path, "p.md")
