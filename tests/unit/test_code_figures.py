"""``scripts/code_figures.py`` (a supported tool, scripts/README.md) on a package of known shape:
its sizes, its ``# fmt: skip`` count and its names defined twice are what the files hold."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from helpers import REPO_ROOT


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "code_figures", REPO_ROOT / "scripts" / "code_figures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_figures_are_the_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text(
        "class Verdict:\n    pass\n\n\ndef long():\n" + "    x = 1\n" * 5, encoding="utf-8"
    )
    (pkg / "sub" / "b.py").write_text(
        "class Verdict: ...\nX = [1,2]  # fmt: skip\ndef _helper(): ...\n", encoding="utf-8"
    )
    (pkg / "c.py").write_text("def _helper(): ...\n", encoding="utf-8")
    script = _script()
    monkeypatch.setattr(script, "SRC", pkg)
    monkeypatch.setattr(sys, "argv", ["code_figures.py", "--top", "2"])
    assert script.main() == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "modules: 3, lines: 14"
    assert out[2] == f"largest modules: a.py 10, {Path('sub', 'b.py')} 3"
    assert out[4] == "largest functions: a.py:long 6, sub/b.py:_helper 1".replace(
        "sub/b.py", str(Path("sub", "b.py"))
    )
    assert out[5] == "'# fmt: skip' lines: 1"
    assert out[6] == "top-level names defined in more than one module: 2 (1 public)"
    assert out[7] == f"  Verdict: a.py, {Path('sub', 'b.py')}"
    assert out[8] == "  private ones: _helper"
