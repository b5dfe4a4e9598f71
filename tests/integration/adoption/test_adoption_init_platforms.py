"""`mlrelease init`'s required wheel platforms follow the project's declared build matrix
(`[tool.cibuildwheel]` and its cibuildwheel workflows, asked of the real cibuildwheel), the
same on any machine: never only the architectures of the machine init runs on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import tomllib
from helpers.projects import committed
from helpers.repo import git

PYPROJECT = """\
[build-system]
requires = ["scikit-build-core"]
build-backend = "scikit_build_core.build"

[project]
name = "nativepkg"
version = "1.0.0"
requires-python = ">=3.12"

[tool.cibuildwheel]
build = "cp312-*"

[tool.cibuildwheel.macos]
archs = ["arm64"]
"""

WORKFLOW = """\
name: wheels
on: [push]
jobs:
  wheels:
    strategy:
      matrix:
        os: [ubuntu-24.04, ubuntu-24.04-arm, windows-2022, windows-11-arm, macos-14]
    runs-on: ${{ matrix.os }}
    steps:
      - uses: actions/checkout@v5
      - uses: pypa/cibuildwheel@v3.4.1
"""


def make(tmp_path: Path, files: dict[str, str]) -> Path:
    return committed(tmp_path / "nativepkg", files)


def proposed_wheels(root: Path) -> tuple[dict[str, Any], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(root), "init"],
        capture_output=True,
        text=True,
        check=False,
        env={"COLUMNS": "400", "PATH": "/usr/bin:/bin", "HOME": str(root.parent)},
    )
    assert proc.returncode == 0, proc.stderr
    return tomllib.loads(proc.stdout)["tool"]["mlrelease"]["wheels"], proc.stdout + proc.stderr


def test_required_platforms_come_from_the_workflow_runners_and_config(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT,
            "CMakeLists.txt": "project(nativepkg)\n",
            "src/nativepkg/_core.cpp": "int f() { return 1; }\n",
            ".github/workflows/wheels.yml": WORKFLOW,
        },
    )
    wheels, out = proposed_wheels(root)
    assert wheels["kind"] == "native"
    # aarch64 and win_arm64 come from the arm runners, whatever this machine is
    assert wheels["required-platforms"] == [
        "manylinux_x86_64",
        "manylinux_aarch64",
        "win_amd64",
        "win_arm64",
        "macosx_arm64",
    ]
    assert "wheels.yml: runners" in out


def test_config_archs_alone_decide_without_a_workflow(tmp_path: Path) -> None:
    pyproject = PYPROJECT + '\n[tool.cibuildwheel.linux]\narchs = ["aarch64"]\n'
    root = make(
        tmp_path,
        {"pyproject.toml": pyproject, "src/nativepkg/_core.cpp": "int f() { return 1; }\n"},
    )
    wheels, _ = proposed_wheels(root)
    # linux: aarch64 only, as declared; windows: no archs declared, so the 64-bit native
    # runners' (never only this machine's); macos: arm64, as declared
    assert wheels["required-platforms"] == [
        "manylinux_aarch64",
        "win_amd64",
        "win_arm64",
        "macosx_arm64",
    ]


def test_the_wheels_gate_passes_right_after_init(tmp_path: Path) -> None:
    # The gate asks cibuildwheel on the same declared archs: it finds the aarch64 and
    # ARM64 builds an x86_64 machine's `auto` would not list.
    root = make(
        tmp_path,
        {
            "pyproject.toml": PYPROJECT.replace(
                'requires-python = ">=3.12"\n',
                'requires-python = ">=3.12"\n'
                'classifiers = ["Programming Language :: Python :: 3.12"]\n',
            ),
            "src/nativepkg/_core.cpp": "int f() { return 1; }\n",
            ".github/workflows/wheels.yml": WORKFLOW,
        },
    )
    run = [sys.executable, "-m", "mlrelease", "--root", str(root)]
    env = {"COLUMNS": "400", "PATH": "/usr/bin:/bin", "HOME": str(root.parent)}
    init = subprocess.run([*run, "init", "--execute"], capture_output=True, text=True, env=env)
    assert init.returncode == 0, init.stderr
    git(root, "commit", "-q", "-am", "Adopt mlrelease")
    verify = subprocess.run(
        [*run, "verify", "--only", "wheels"], capture_output=True, text=True, env=env
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "pass  wheels" in verify.stdout + verify.stderr
