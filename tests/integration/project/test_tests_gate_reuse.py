"""The `tests` gate reuses a passing run of the same commit, tree, command and environment."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.projects import configure
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
    configure(root, "tool.mlrelease.gate-options.tests", {"reuse": False})
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


def _tests_run(root: Path, *command: str) -> int:
    return main(["--root", str(root), "tests", "run", *(["--", *command] if command else [])])


def test_tests_run_reuses_a_pass_per_command_and_says_so(
    make_repo: MakeRepo,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`mlrelease tests run` (what `nox -s tests` calls): the first run runs, an identical one
    is reused and says so; a subset is its own command, and does not forget the whole."""
    root = make_repo()
    runs = tmp_path / "runs.txt"
    monkeypatch.setenv("RUNS_FILE", str(runs))
    (root / "checks" / "test_counted.py").write_text(COUNTING_TEST, encoding="utf-8")
    commit_all(root, "test: count the runs")

    assert _tests_run(root) == 0 and runs.read_text() == "x"
    capsys.readouterr()
    assert _tests_run(root) == 0 and runs.read_text() == "x"
    assert "reused" in capsys.readouterr().err
    subset = ("python", "-m", "pytest", "-q", "checks/test_counted.py")
    assert _tests_run(root, *subset) == 0 and runs.read_text() == "xx"
    assert _tests_run(root) == 0 and runs.read_text() == "xx"  # the whole is still known
    assert main(["--root", str(root), "tests", "run", "--rerun"]) == 0
    assert runs.read_text() == "xxx"


def test_tests_run_keys_on_programs_and_locale(
    make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass without a declared program (or with another locale) is not a pass with it: a
    browser test skipped for want of chromium runs once chromium is installed."""
    root = make_repo()
    runs = tmp_path / "runs.txt"
    monkeypatch.setenv("RUNS_FILE", str(runs))
    (root / "checks" / "test_counted.py").write_text(COUNTING_TEST, encoding="utf-8")
    configure(root, "tool.mlrelease.gate-options.tests", {"programs": ["fakebrowser"]})
    commit_all(root, "test: count the runs with a browser")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("LANG", raising=False)

    assert _tests_run(root) == 0 and _tests_run(root) == 0
    assert runs.read_text() == "x"
    browser = bin_dir / "fakebrowser"
    browser.write_text("#!/bin/sh\necho 1\n")
    browser.chmod(0o755)
    assert _tests_run(root) == 0 and runs.read_text() == "xx"  # installed: runs
    assert _tests_run(root) == 0 and runs.read_text() == "xx"
    browser.write_text("#!/bin/sh\necho 2\n")
    assert _tests_run(root) == 0 and runs.read_text() == "xxx"  # another build of it: runs
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert _tests_run(root) == 0 and runs.read_text() == "xxxx"  # another locale: runs


def test_tests_run_never_reuses_a_failure(make_repo: MakeRepo) -> None:
    root = make_repo()
    (root / "checks" / "test_demo.py").write_text("def test_ok():\n    assert False\n")
    commit_all(root, "test: fails")
    assert _tests_run(root) == 1
    assert _tests_run(root) == 1
    assert not list((root / "build" / "tests").glob("passed-*.json"))
