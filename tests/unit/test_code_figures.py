"""``scripts/code_figures.py`` (a supported tool, scripts/README.md) on a package and a test
folder of known shape: its sizes, its ``# fmt: skip`` count, its names defined twice, the inner
rooms, the largest signature, the inline TOML files and the copies are what the files hold; and
the promote walk of ``scripts/code_figures_trace.py`` counts what a traced call enters."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from helpers import load_script


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
    script = load_script("code_figures.py", monkeypatch)
    monkeypatch.setattr(script, "SRC", pkg)
    monkeypatch.setattr(sys, "argv", ["code_figures.py", "--top", "2", "--section", "shape"])
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


IMPORTS = "import os\nimport sys\nfrom pathlib import (\n    Path,\n    PurePath,\n)\nimport json\n"
"""Seven lines, four import statements (one over three lines)."""


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    """A package with a ``release/`` of 4 modules in 2 subpackages, and a test folder."""
    pkg, tests = tmp_path / "pkg", tmp_path / "tests"
    files = {
        pkg / "release" / "__init__.py": "",
        pkg / "release" / "plan.py": "def plan(a, b, /, c, *rest, d, e=1, **more): ...\n",
        pkg / "release" / "world" / "__init__.py": "",
        pkg / "release" / "world" / "deep" / "refs.py": (
            "class Refs:\n    def read(self, a, b, c, d, e, f): ...\n"
            "    @classmethod\n    def of(cls, a): ...\n"
        ),
        pkg / "other.py": "def wide(a, b, c, d, e, f, g): ...\n",
    }
    copied = "".join(f"value_{n} = compute({n})\n" for n in range(7))
    files |= {
        tests / "test_inline.py": 'TOML = """\\n[tool.mlrelease]\\ngates = []\\n"""\n',
        tests / "test_tables.py": 'PYPROJECT = f"[project]\\n[[tool.mlrelease.release.x]]\\n"\n',
        tests / "test_says.py": (
            '"""Reads\n[tool.mlrelease] tables."""\n\nERROR = "no [tool.mlrelease] table"\n'
        ),
        tests / "unit" / "test_a.py": "def test_a():\n" + copied.replace("v", "    v"),
        tests / "unit" / "test_b.py": "X = 1\n\n" + copied.replace("\n", "\n\n(\n)\npass\n", 2),
        tests / "test_c.py": copied + "other = 1\n" + copied[: -len(copied) // 7],
        tests / "test_same.py": "x = 1\n" * 8,  # overlaps itself only: no copy
        tests / "test_short.py": copied[: -2 * len(copied) // 7] + "\n",
        # the same 7 import lines in two files (and a named project's TOML): no copy
        tests / "test_imports_a.py": IMPORTS + "A = 1\n",
        tests / "test_imports_b.py": "B = 2\n" + IMPORTS,
        tests / "helpers" / "projects" / "named.py": 'T = """\n[tool.mlrelease]\n"""\n',
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return pkg, tests


@pytest.fixture
def figures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script, reading the trees of :func:`_tree`."""
    pkg, tests = _tree(tmp_path)
    script = load_script("code_figures.py", monkeypatch)
    monkeypatch.setattr(script, "SRC", pkg)
    monkeypatch.setattr(script, "TESTS", tests)
    return script


def test_the_static_figures_are_the_trees(
    figures: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = figures
    monkeypatch.setattr(sys, "argv", ["code_figures.py", "--section", "static", "--json"])
    assert script.main() == 0
    found = json.loads(capsys.readouterr().out)
    assert set(found) == {"shape", "rooms", "signatures", "toml", "copies"}  # no trace
    assert found["rooms"]["modules"] == 4
    assert found["rooms"]["subpackage_names"] == ["world", "world/deep"]
    assert found["rooms"]["subpackages"] == 2
    assert found["signatures"]["largest"][:3] == [
        ["other.py:wide", 7],
        ["release/plan.py:plan", 7],  # a, b, c, *rest, d, e, **more
        ["release/world/deep/refs.py:read", 6],  # self not counted
    ]
    assert ["release/world/deep/refs.py:of", 1] in found["signatures"]["largest"]
    assert found["toml"] == {
        "files": 2,
        "paths": ["tests/test_inline.py", "tests/test_tables.py"],
        "projects": ["tests/helpers/projects/named.py"],
    }
    # the 7 lines stand in 3 files (blank, indented, bracket lines between them in test_b);
    # their first 6 stand once more in test_c, after the 7; test_short's 5 lines are no copy
    assert (found["copies"]["groups"], found["copies"]["places"]) == (2, 7)
    assert found["copies"]["with_imports"] == {"groups": 3, "places": 9}  # the import lines
    assert found["copies"]["top"] == [
        {
            "lines": 6,
            "places": [
                "tests/test_c.py:1-6",
                "tests/test_c.py:9-14",
                "tests/unit/test_a.py:2-7",
                "tests/unit/test_b.py:3-16",
            ],
        },
        {
            "lines": 7,
            "places": [
                "tests/test_c.py:1-7",
                "tests/unit/test_a.py:2-8",
                "tests/unit/test_b.py:3-17",
            ],
        },
    ]


def test_the_text_says_each_figure(
    figures: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = figures
    for section in ("rooms", "signatures", "toml", "copies"):
        monkeypatch.setattr(sys, "argv", ["code_figures.py", "--section", section, "--top", "1"])
        assert script.main() == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0] == "inner rooms of release/: 4 modules, 2 subpackages (world, world/deep), 5 lines"
    )
    assert out[1] == "largest signature: other.py:wide 7 parameters"
    assert out[3] == (
        "test files writing [tool.mlrelease] TOML inline: 2"
        " (and 1 of the named test projects, helpers/projects/)"
    )
    assert out[4] == (
        "exact copies in tests/ (6+ identical lines): 2 groups in 7 places,"
        " import statements not counted (3 groups in 9 places counting them)"
    )
    assert out[5].startswith("  6 lines: tests/test_c.py:1-6, tests/test_c.py:9-14, ")


def test_a_walk_counts_its_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    trace = load_script("code_figures_trace.py", monkeypatch)
    cli, service, refs, git = (
        "release/cli.py",
        "release/service.py",
        "release/refs.py",
        "edges/git.py",
    )
    entries = (cli, service, git, refs, git, cli)
    floors = {cli: 3, service: 3, refs: 3, git: 2}
    walk = trace.Walk("mlrelease x", 0, entries, floors)
    assert walk.modules == [cli, service, git, refs]
    assert walk.reentries == 2  # git, then cli again
    assert walk.climbs == 2  # git -> refs, git -> cli
    assert walk.most_entered(2) == [(git, 2), (cli, 2)]
    assert walk.by_package() == {"release": 3, "edges": 1}
    assert walk.as_dict()["modules_entered"] == 4


PACKAGE_FILES = {
    "__init__.py": "",
    "cli.py": (
        "from figpkg import low\n\n\ndef handler():\n    low.a()\n    helper()\n    low.a()\n"
        "    import figpkg.lazy\n\n    return figpkg.lazy.VALUE\n\n\n"
        "def helper():\n    return low.b()\n"
    ),
    "low.py": "def a():\n    return b()\n\n\ndef b():\n    return 1\n",
    "lazy.py": "from figpkg import low\n\nVALUE = low.a()\n",
}


def test_the_recorder_counts_the_handlers_calls_not_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = load_script("code_figures_trace.py", monkeypatch)
    package = tmp_path / "figpkg"
    package.mkdir()
    for name, text in PACKAGE_FILES.items():
        (package / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(trace, "PACKAGE", package.resolve())
    for name in ("figpkg", "figpkg.cli", "figpkg.low", "figpkg.lazy"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    figpkg_cli = importlib.import_module("figpkg.cli")
    recorder = trace.Recorder(figpkg_cli.handler.__code__)
    before = sys.getprofile()
    sys.setprofile(recorder)
    try:
        figpkg_cli.low.a()  # before the handler: not counted
        figpkg_cli.handler()
        figpkg_cli.low.a()  # after it: not counted
    finally:
        sys.setprofile(before)
    # low.a -> low.b stays in low.py; helper -> low.b enters it; lazy.py's import is not counted
    assert recorder.entries == ["cli.py", "low.py", "low.py", "low.py"]
