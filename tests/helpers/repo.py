"""Helpers for tests that need small real projects in real temporary git repositories."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest


def mlrelease(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m mlrelease --root ROOT ARGS`` in a fresh process, 300 columns wide (tables
    unbroken); the caller judges the exit status."""
    return subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "300"},
    )


Run = Callable[..., tuple[int, str, str]]
"""``run(root, *args)``: (exit code, stdout, stderr on one line) of ``mlrelease --root ROOT``."""


def in_process(capsys: pytest.CaptureFixture[str]) -> Run:
    """``mlrelease --root ROOT ARGS...`` in this process (the tests' ``run`` fixture), its
    output echoed so that a failing test shows it."""
    # On use: most users of these helpers run mlrelease in a subprocess (or the installed
    # wheel) and import none of this checkout's modules.
    from mlrelease.cli import main

    def call(root: Path, *args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--root", str(root), *args])
        out, err = capsys.readouterr()
        sys.stdout.write(out)
        sys.stderr.write(err)
        return code, out, " ".join(err.split())

    return call


def git(root: Path, *args: str) -> str:
    """Run git in ``root``; fail the test with git's message when it fails."""
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout.strip()


PYPROJECT = """\
[project]
name = "demo"
version = "{version}"

[tool.mlrelease]
gates = {gates}

[tool.mlrelease.gate-options.tests]
command = [{python}, "-m", "pytest", "-q", "-p", "no:cacheprovider", "checks"]

[tool.bumpversion]
current_version = "{version}"
parse = '''(?x)
    (?P<major>\\d+)\\.(?P<minor>\\d+)\\.(?P<patch>\\d+)
    (?:(?P<pre_l>rc|\\.dev)(?P<pre_n>\\d+))?
'''
serialize = ["{{major}}.{{minor}}.{{patch}}{{pre_l}}{{pre_n}}", "{{major}}.{{minor}}.{{patch}}"]
allow_dirty = false

[tool.bumpversion.parts.pre_l]
values = [".dev", "rc", "final"]
optional_value = "final"

[[tool.bumpversion.files]]
filename = "pyproject.toml"
search = '^version = "{{current_version}}"'
replace = 'version = "{{new_version}}"'
regex = true

[[tool.bumpversion.files]]
filename = "src/demo/__init__.py"
search = '__version__ = "{{current_version}}"'
replace = '__version__ = "{{new_version}}"'
"""


def write_project(
    root: Path,
    *,
    version: str = "1.4.0.dev0",
    gates: tuple[str, ...] = ("versions", "changelog", "exit_criteria_doc", "tests"),
    changelog_title: str = "Unreleased",
    plugins: dict[str, str] | None = None,
) -> None:
    """Write a minimal adopter: pyproject, one versioned module, changelog, a passing test."""
    quoted = "[" + ", ".join(f'"{g}"' for g in gates) + "]"
    (root / "pyproject.toml").write_text(
        PYPROJECT.format(
            version=version, gates=quoted, python=f'"{Path(sys.executable).as_posix()}"'
        ),
        encoding="utf-8",
    )
    (root / "src" / "demo").mkdir(parents=True, exist_ok=True)
    (root / "src" / "demo" / "__init__.py").write_text(
        f'"""Demo."""\n\n__version__ = "{version}"\n', encoding="utf-8"
    )
    (root / "CHANGELOG.md").write_text(
        f"# Changelog\n\n<!-- insertion marker -->\n## {changelog_title}\n\n- first\n",
        encoding="utf-8",
    )
    (root / "checks").mkdir(exist_ok=True)
    (root / "checks" / "test_demo.py").write_text(
        "def test_ok():\n    assert 1 + 1 == 2\n", encoding="utf-8"
    )
    (root / ".gitignore").write_text("build/\n__pycache__/\n", encoding="utf-8")
    if plugins:
        # Gate plug-ins live in the project root, as an adopter would keep them.
        for module, code in plugins.items():
            (root / f"{module}.py").write_text(code, encoding="utf-8")
        pyproject = root / "pyproject.toml"
        names = ", ".join(f'"{m}"' for m in plugins)
        pyproject.write_text(
            pyproject.read_text(encoding="utf-8").replace(
                "[tool.mlrelease]\n", f"[tool.mlrelease]\ngate-plugins = [{names}]\n", 1
            ),
            encoding="utf-8",
        )


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
