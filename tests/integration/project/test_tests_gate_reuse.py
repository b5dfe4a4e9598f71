"""The `tests` gate reuses a passing run of the same commit, tree, command and environment."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.repo import commit_all

from mlrelease.cli import main

MakeRepo = Callable[..., Path]

COUNTING_TEST = """\
import os
from pathlib import Path


def test_counted():
    runs = Path(os.environ["RUNS_FILE"])
    runs.write_text(runs.read_text() + "x" if runs.exists() else "x")
"""


def _tests_gate(root: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["--root", str(root), "verify", "--only", "tests"])
    report = json.loads((root / "build/release-verify/report.json").read_text(encoding="utf-8"))
    return code, report["results"][0]


def test_a_passing_run_is_reused_until_anything_changes(
    make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo()
    runs = tmp_path / "runs.txt"
    monkeypatch.setenv("RUNS_FILE", str(runs))
    (root / "checks" / "test_counted.py").write_text(COUNTING_TEST, encoding="utf-8")
    commit_all(root, "test: count the runs")

    assert _tests_gate(root)[0] == 0
    code, result = _tests_gate(root)
    assert code == 0 and runs.read_text() == "x"
    assert "reused" in result["summary"] and "2 passed" in result["summary"]

    # A change in the working tree (not committed) is a different tree: the suite runs.
    (root / "checks" / "test_demo.py").write_text("def test_ok():\n    assert True\n")
    code, result = _tests_gate(root)
    assert code == 0 and runs.read_text() == "xx" and "reused" not in result["summary"]

    # Opting out always runs.
    commit_all(root, "test: simpler")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.mlrelease.gate-options.tests]\n",
            "[tool.mlrelease.gate-options.tests]\nreuse = false\n",
        )
    )
    commit_all(root, "build: never reuse")
    _tests_gate(root)
    _tests_gate(root)
    assert runs.read_text() == "xxxx"


def test_a_failing_run_is_never_reused(make_repo: MakeRepo) -> None:
    root = make_repo()
    test = root / "checks" / "test_demo.py"
    test.write_text("def test_ok():\n    assert False\n")
    commit_all(root, "test: fails")
    assert _tests_gate(root)[0] == 1
    code, result = _tests_gate(root)
    assert code == 1 and "reused" not in result["summary"]
