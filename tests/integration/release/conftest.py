"""Fixtures of the release-flow tests: a fresh copy of one template repository per test, a
verified and bound release candidate on it, a colleague's clone of its origin, and package
indexes on 127.0.0.1."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.index import serve, start, stop
from helpers.release import GIT_ENV, Repo, make_candidate, push_demo

from mlrelease.cli import main


@pytest.fixture(scope="session")
def _template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("release-template")
    push_demo(base)
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


@pytest.fixture
def indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], str]]:
    """More views of the ``index`` folder: ``indexes("md5")`` is the upload URL of a server
    over the same files whose simple pages give MD5 fragments (``"off"``: no hash at all)."""
    monkeypatch.setenv("TWINE_USERNAME", "test")
    monkeypatch.setenv("TWINE_PASSWORD", "test")
    servers = []

    def view(algo: str) -> str:
        server, url = start(tmp_path / "index", algo)
        servers.append(server)
        return url

    yield view
    for server in servers:
        stop(server)


@pytest.fixture(scope="session")
def _candidate_template(_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The candidate made once per process, on a copy of the template: its four commands and
    its real build take five seconds, and about sixty tests start from it (``candidate``
    copies it)."""
    base = tmp_path_factory.mktemp("release-candidate") / "r"
    shutil.copytree(_template, base, symlinks=True)
    work, origin = base / "work", base / "origin.git"
    subprocess.run(["git", "remote", "set-url", "origin", str(origin)], cwd=work, check=True)

    def run(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--root", str(work), *args])
        return code, out.getvalue(), " ".join(err.getvalue().split())

    with pytest.MonkeyPatch.context() as patch:
        for key, value in GIT_ENV.items():
            patch.setenv(key, value)
        patch.delenv("MLRELEASE_FAULT", raising=False)
        patch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        make_candidate(Repo(work, origin), run)
    return base


@pytest.fixture
def candidate(repo: Repo, _candidate_template: Path) -> Repo:
    """release/1.4 prepared and pushed, v1.4.0-rc1 tagged and pushed, its files built into
    dist/ and bound (manifest on origin), its release_verify report written: a fresh copy of
    ``_candidate_template`` in place of ``repo``'s work tree and origin. A test that must see
    the candidate's own commands run (the fault points they pass) calls
    :func:`helpers.release.make_candidate` on ``repo`` instead."""
    shutil.rmtree(repo.path.parent)
    shutil.copytree(_candidate_template, repo.path.parent, symlinks=True)
    repo.git("remote", "set-url", "origin", str(repo.origin))
    return repo


@pytest.fixture
def colleague(repo: Repo, tmp_path: Path) -> Repo:
    """Another clone of origin, as a colleague (or an attacker with push rights) has it, taken
    when the test asks for it (after ``candidate``, it has release/1.4 checked out)."""
    path = tmp_path / "colleague"
    subprocess.run(
        ["git", "clone", "-q", str(repo.origin), str(path)], check=True, capture_output=True
    )
    other = Repo(path, repo.origin)
    if other.git("ls-remote", "--heads", "origin", "release/1.4"):
        other.git("switch", "-q", "release/1.4")
    return other
