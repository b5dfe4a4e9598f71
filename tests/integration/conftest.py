"""Shared fixtures of the integration lanes: mlrelease as its users install it.

The wheel built from this tree, clean virtual environments made with uv (never this
repository's development environment), and onnx-ir 1.1.0 from its PyPI sdist adopted by
``mlrelease init``: built once per test session and shared.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.installed import REPO, Venv, git, run, sdist, uv


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this tree, built from a copy (the build writes into its source folder)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src-copy"
    shutil.copytree(
        REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    proc = run([uv(), "build", "--wheel", "--out-dir", str(work / "dist"), str(source)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    (built,) = (work / "dist").glob("mlrelease-*.whl")
    return built


@pytest.fixture(scope="session")
def make_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Venv]:
    """A factory of clean venvs: ``make_venv("all", "[all]")`` installs ``mlrelease[all]``."""
    made: dict[str, Venv] = {}

    def factory(name: str, extras: str = "", *more: str) -> Venv:
        if name not in made:
            path = tmp_path_factory.mktemp(f"venv-{name}")
            proc = run([uv(), "venv", "--quiet", "--python", sys.executable, str(path)])
            assert proc.returncode == 0, proc.stderr
            venv = Venv(path)
            venv.install(f"mlrelease{extras} @ {wheel.as_uri()}", *more)
            made[name] = venv
        return made[name]

    return factory


@pytest.fixture(scope="session")
def sdist_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """onnx-ir 1.1.0 as its maintainers would have it: one commit, tagged v1.1.0, pushed to
    a bare origin. Not adopted yet."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mlrelease-tests"
    base = tmp_path_factory.mktemp("onnx-ir")
    with tarfile.open(sdist(cache)) as archive:
        archive.extractall(base, filter="data")
    repo = base / "repo"
    (base / "onnx_ir-1.1.0").rename(repo)
    origin = base / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    git(repo, "init", "-q", "-b", "main")
    # What the sdist has and the repository had not: its metadata; and what an sdist leaves
    # out: the .gitignore that keeps builds, reports and environments out of the tree.
    (repo / "PKG-INFO").unlink()
    for info in repo.glob("src/*.egg-info"):
        shutil.rmtree(info)
    (repo / ".gitignore").write_text(
        "build/\ndist/\n.nox/\n*.egg-info/\n__pycache__/\n", encoding="utf-8"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Release 1.1.0")
    git(repo, "tag", "v1.1.0")
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main", "--tags")
    return repo


@pytest.fixture(scope="session")
def adopted_repo(sdist_repo: Path, make_venv: Callable[..., Venv]) -> Path:
    """The sdist repository after `mlrelease init --execute` (by the bare wheel) and a commit."""
    root = sdist_repo.parent / "adopted"
    shutil.copytree(sdist_repo, root, symlinks=True)
    proc = make_venv("bare").mlrelease(root, "init", "--execute")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(root, "commit", "-q", "-am", "chore: adopt mlrelease")
    return root
