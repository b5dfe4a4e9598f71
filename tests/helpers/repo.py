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


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
