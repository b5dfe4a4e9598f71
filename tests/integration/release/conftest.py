"""Fixtures of the release-flow tests: a fresh copy of one template repository per test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.index import serve
from helpers.release import FILES, GIT_ENV, Repo

from mlrelease.cli import main


@pytest.fixture(scope="session")
def _template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("release-template")
    work, origin = base / "work", base / "origin.git"
    env = {**os.environ, **GIT_ENV}
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    for args, cwd in [
        (["init", "-q", "-b", "main"], work),
        (["add", "."], work),
        (["commit", "-q", "-m", "feat: first version of demo"], work),
        (["init", "-q", "--bare", "-b", "main", str(origin)], base),
        (["remote", "add", "origin", str(origin)], work),
        (["push", "-q", "origin", "main"], work),
    ]:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)
    return base


@pytest.fixture
def repo(_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """A fresh copy of the template project (work tree + bare origin)."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    shutil.copytree(_template, tmp_path / "r", symlinks=True)
    work, origin = tmp_path / "r" / "work", tmp_path / "r" / "origin.git"
    subprocess.run(["git", "remote", "set-url", "origin", str(origin)], cwd=work, check=True)
    yield Repo(work, origin)


@pytest.fixture
def mlr(repo: Repo, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run ``mlrelease --root REPO ARGS...`` in-process; returns (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(["--root", str(repo.path), *args])
        out, err = capsys.readouterr()
        sys.stdout.write(out)
        sys.stderr.write(err)
        return code, out, " ".join(err.split())

    return run


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A package index on 127.0.0.1: (upload URL, the folder of the files it holds)."""
    monkeypatch.setenv("TWINE_USERNAME", "test")
    monkeypatch.setenv("TWINE_PASSWORD", "test")
    with serve(tmp_path / "index") as url:
        yield url, tmp_path / "index"
