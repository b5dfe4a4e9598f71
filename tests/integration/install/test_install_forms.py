"""The install line fits how mlrelease was installed, and following it works: mlrelease as a
`uv tool` and as a pipx application, each missing the `release` extra."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.installed import Venv, run, uv

pytestmark = pytest.mark.slow


def _line(output: str) -> list[str]:
    """The install command of a missing-dependency message."""
    message = " ".join(output.split())
    found = re.search(r"install the `release` extra: `([^`]+)`", message)
    assert found, message
    return shlex.split(found.group(1))


def test_as_a_uv_tool(wheel: Path, project: Path, tmp_path: Path) -> None:
    env = {"UV_TOOL_DIR": str(tmp_path / "tools"), "UV_TOOL_BIN_DIR": str(tmp_path / "bin")}
    done = run([uv(), "tool", "install", f"mlrelease @ {wheel.as_uri()}"], **env)
    assert done.returncode == 0, done.stderr
    mlrelease = str(tmp_path / "bin" / "mlrelease")
    proc = run([mlrelease, "bump", "--part", "patch"], cwd=project, **env)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    line = _line(proc.stdout + proc.stderr)
    assert line == ["uv", "tool", "install", f"mlrelease[release] @ {wheel.as_uri()}"]
    followed = run([uv(), *line[1:]], **env)
    assert followed.returncode == 0, followed.stderr
    again = run([mlrelease, "bump", "--part", "patch"], cwd=project, **env)
    assert again.returncode == 0, again.stdout + again.stderr


def test_as_a_pipx_application(
    make_venv: Callable[..., Venv], wheel: Path, project: Path, tmp_path: Path
) -> None:
    pipx = str(make_venv("pipx", "", "pipx").path / "bin" / "pipx")
    env = {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin")}
    done = run([pipx, "install", str(wheel)], **env)
    assert done.returncode == 0, done.stdout + done.stderr
    mlrelease = str(tmp_path / "bin" / "mlrelease")
    proc = run([mlrelease, "bump", "--part", "patch"], cwd=project, **env)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    line = _line(proc.stdout + proc.stderr)
    assert line[:3] == ["pipx", "inject", "mlrelease"]
    assert {re.split("[<>=]", r)[0] for r in line[3:]} == {"bump-my-version", "git-changelog"}
    followed = run([pipx, *line[1:]], **env)
    assert followed.returncode == 0, followed.stdout + followed.stderr
    again = run([mlrelease, "bump", "--part", "patch"], cwd=project, **env)
    assert again.returncode == 0, again.stdout + again.stderr
