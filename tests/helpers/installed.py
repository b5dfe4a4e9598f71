"""Clean virtual environments with mlrelease's wheel, as users install it (uv), and the
onnx-ir 1.1.0 sdist from PyPI (pinned by SHA-256): tests/integration/install and the adopter
sessions' tests use them."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SDIST_URL = (
    "https://files.pythonhosted.org/packages/31/9c/"
    "19dee739ae9a7c647ab16fdb990da1b73abe9aa604c4e3c5c30138acc693/onnx_ir-1.1.0.tar.gz"
)
SDIST_SHA256 = "b72176de575d820ec26864d17270d58ef886a7cf64db7649d15fcc3d5ae2a8ee"
GIT = ["-c", "user.name=Adopter", "-c", "user.email=adopter@example.invalid"]


def uv() -> str:
    """uv: this environment's (the `downstream` extra brings it), else PATH's."""
    scripts = str(Path(sys.executable).parent)
    found = shutil.which("uv", path=os.pathsep.join([scripts, os.environ.get("PATH", "")]))
    assert found, "uv is not installed: the test group brings it (mlrelease[all])"
    return found


def clean_env(**extra: str) -> dict[str, str]:
    """The user's shell: no active virtual environment, nothing of this test run's paths."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return {**env, "COLUMNS": "250", "NO_COLOR": "1", **extra}


def run(
    command: list[str], cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, check=False, env=clean_env(**env)
    )


@dataclass(frozen=True)
class Venv:
    """A clean virtual environment with the wheel installed."""

    path: Path

    @property
    def python(self) -> str:
        return str(self.path / "bin" / "python")

    def mlrelease(self, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
        return run([str(self.path / "bin" / "mlrelease"), *args], cwd=root)

    def install(self, *requirements: str) -> None:
        proc = run([uv(), "pip", "install", "--quiet", "--python", self.python, *requirements])
        assert proc.returncode == 0, proc.stderr[-3000:]


def sdist(cache: Path) -> Path:
    """The onnx-ir 1.1.0 sdist from PyPI (cached), checked against its pinned SHA-256."""
    target = cache / "onnx_ir-1.1.0.tar.gz"
    if not target.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        try:
            with urllib.request.urlopen(SDIST_URL, timeout=120) as response:
                data = response.read()
        except OSError as exc:
            pytest.skip(f"PyPI's file host is unreachable from here ({exc})")
        partial = target.with_suffix(".partial")
        partial.write_bytes(data)
        partial.replace(target)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    assert digest == SDIST_SHA256, f"{target}: SHA-256 {digest}, pinned {SDIST_SHA256}"
    return target


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *GIT, *args], cwd=root, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()
