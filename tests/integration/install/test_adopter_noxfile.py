"""An adopter's noxfile.py gets mlrelease's sessions with one import, and each session installs
what it needs into its own virtual environment: `nox -s release_verify` in onnx-ir."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.installed import Venv, git, run

pytestmark = pytest.mark.slow

NOXFILE = """\
# /// script
# dependencies = ["nox>=2025.2.9", "mlrelease"]
# ///
from mlrelease_nox.sessions import *  # noqa: F403  release_verify, docs, wheels, ...
"""


def test_the_one_import_gives_the_sessions_and_release_verify_runs(
    make_venv: Callable[..., Venv], project: Path
) -> None:
    tools = make_venv(
        "nox", "", "nox>=2025.2.9"
    )  # what `uv tool install nox --with mlrelease` makes
    (project / "noxfile.py").write_text(NOXFILE, encoding="utf-8")
    git(project, "add", "noxfile.py")
    git(project, "commit", "-q", "-m", "build: mlrelease's nox sessions")
    nox = str(tools.path / "bin" / "nox")
    listed = run([nox, "--list"], cwd=project)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    for session in ("release_verify", "changelog", "wheels", "docs", "ops_index", "perf"):
        assert f" {session} " in listed.stdout, listed.stdout
    # onnx-ir's own tests need its test dependencies, which are the project's to declare.
    verified = run([nox, "-s", "release_verify", "--", "--skip", "tests"], cwd=project)
    output = verified.stdout + verified.stderr
    assert verified.returncode == 0, output[-4000:]
    assert "mlrelease[release] @ file:" in output  # the session's own environment got the extra
    assert "release_verify: PASS" in output
    assert git(project, "status", "--porcelain") == ""
