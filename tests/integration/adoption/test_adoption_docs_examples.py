"""The adoption examples of README.md and docs/getting-started.md, executed as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib
from helpers import REPO_ROOT
from helpers.repo import git

SECTIONS = [
    ("README.md", "## Adopting it"),
    ("docs/getting-started.md", "## Adopt it in your project"),
]


def section(doc: str, heading: str) -> str:
    text = (REPO_ROOT / doc).read_text(encoding="utf-8")
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else len(text)]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.M | re.S)


def adopter(tmp_path: Path) -> Path:
    """A pure project released as v1.4.0 on main: a dynamic version, a changelog, tests."""
    root = tmp_path / "adopter"
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\n'
        'build-backend = "setuptools.build_meta"\n\n[project]\nname = "adopter"\n'
        'dynamic = ["version"]\n\n[tool.setuptools.dynamic]\n'
        'version = {attr = "adopter.__version__"}\n',
        "src/adopter/__init__.py": '"""An adopter."""\n\n__version__ = "1.4.0"\n',
        "CHANGELOG.md": "# Changelog\n\n## 1.4.0\n\n- First release.\n",
        "tests/test_adopter.py": "def test_one():\n    assert 1 + 1 == 2\n",
        ".gitignore": "build/\n__pycache__/\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Release 1.4.0")
    git(root, "tag", "v1.4.0")
    return root


def subset(example: dict[str, Any], actual: dict[str, Any], path: str = "") -> None:
    for key, value in example.items():
        assert key in actual, f"{path}{key} is in the example but init did not write it"
        if isinstance(value, dict):
            subset(value, actual[key], f"{path}{key}.")
        else:
            assert actual[key] == value, f"{path}{key}: example {value!r}, init {actual[key]!r}"


@pytest.mark.parametrize(("doc", "heading"), SECTIONS)
def test_adoption_examples_run_as_written(tmp_path: Path, doc: str, heading: str) -> None:
    text = section(doc, heading)
    commands = [
        line[2:]
        for block in blocks(text, "console")
        for line in block.splitlines()
        if line.startswith("$ ")
    ]
    assert commands[0] == "mlrelease init", f"{doc}: adoption must start with `mlrelease init`"
    root = adopter(tmp_path)
    for command in commands:
        argv = shlex.split(command)
        if argv[0] == "mlrelease":
            argv = [sys.executable, "-m", "mlrelease", *argv[1:]]
        proc = subprocess.run(
            argv,
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "COLUMNS": "200"},
        )
        assert proc.returncode == 0, f"{doc}: `{command}` exited {proc.returncode}: {proc.stderr}"
    assert git(root, "status", "--porcelain") == ""
    written = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    for example in blocks(text, "toml"):
        subset(tomllib.loads(example), written)
