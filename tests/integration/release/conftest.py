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
from helpers.reference_builds import git_env, to_rc
from helpers.release import GIT_ENV, Repo, copy_repo, make_candidate, push_demo, tag_rc2

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
    yield copy_repo(_template, tmp_path / "r")


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


Mlr = Callable[..., tuple[int, str, str]]


def _made(source: Path, base: Path, steps: Callable[[Repo, Mlr], None]) -> Path:
    """A copy of the repository ``source`` at ``base``, taken through ``steps`` (given the
    copy and ``mlrelease --root COPY ARGS...`` in-process, its output captured) in the release
    tests' environment: a template made once per process, which function fixtures copy for
    each test (:func:`helpers.release.copy_repo`), so no test sees another's changes."""
    repo = copy_repo(source, base)

    def run(*args: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--root", str(repo.path), *args])
        return code, out.getvalue(), " ".join(err.getvalue().split())

    with pytest.MonkeyPatch.context() as patch:
        for key, value in GIT_ENV.items():
            patch.setenv(key, value)
        patch.delenv("MLRELEASE_FAULT", raising=False)
        patch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        steps(repo, run)
    return base


@pytest.fixture(scope="session")
def _candidate_template(_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The candidate made once per process, on a copy of the template: its four commands and
    its real build take five seconds, and about sixty tests start from it (``candidate``
    copies it)."""
    return _made(_template, tmp_path_factory.mktemp("release-candidate") / "r", make_candidate)


@pytest.fixture(scope="session")
def _at_rc2_template(_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:func:`helpers.release.tag_rc2` once per process, on a copy of the template: nine
    commands and a real build (``at_rc2`` in test_release_guards.py copies it)."""
    return _made(_template, tmp_path_factory.mktemp("release-at-rc2") / "r", tag_rc2)


@pytest.fixture(scope="session")
def _cut_template(_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """release/1.4 cut (not pushed) once per process, on a copy of the template: ``cut``
    copies it."""

    def cut(repo: Repo, mlr: Mlr) -> None:
        code, _, err = mlr("release", "cut", "--version", "1.4", "--execute")
        assert code == 0, err

    return _made(_template, tmp_path_factory.mktemp("release-cut") / "r", cut)


@pytest.fixture
def cut(repo: Repo, _cut_template: Path) -> Repo:
    """release/1.4 cut and checked out, not pushed: a fresh copy of ``_cut_template`` in
    place of ``repo``'s work tree and origin."""
    shutil.rmtree(repo.path.parent)
    return copy_repo(_cut_template, repo.path.parent)


@pytest.fixture
def candidate(repo: Repo, _candidate_template: Path) -> Repo:
    """release/1.4 prepared and pushed, v1.4.0-rc1 tagged and pushed, its files built into
    dist/ and bound (manifest on origin), its release_verify report written: a fresh copy of
    ``_candidate_template`` in place of ``repo``'s work tree and origin. A test that must see
    the candidate's own commands run (the fault points they pass) calls
    :func:`helpers.release.make_candidate` on ``repo`` instead."""
    shutil.rmtree(repo.path.parent)
    return copy_repo(_candidate_template, repo.path.parent)


@pytest.fixture(scope="session")
def _reference_rc(_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo cut, prepared and tagged v1.4.0-rc1 by ``mlrelease`` in child processes
    (:func:`helpers.reference_builds.to_rc`), once per process: ``demo_at_rc`` copies it."""
    return _made(_template, tmp_path_factory.mktemp("reference-rc") / "p", lambda r, _: to_rc(r))


@pytest.fixture(scope="session")
def _reference_built(_reference_rc: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``_reference_rc`` with its files built from the RC's commit into dist/ (pypa/build),
    once per process: ``demo_built`` copies it."""
    return _made(
        _reference_rc, tmp_path_factory.mktemp("reference-built") / "p", lambda r, _: r.build()
    )


@pytest.fixture
def demo_at_rc(_reference_rc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """The demo at its RC (release/1.4 cut and prepared, v1.4.0-rc1 tagged, all pushed), in
    ``tmp_path / "p"``: the test's own copy of ``_reference_rc``."""
    git_env(monkeypatch)
    return copy_repo(_reference_rc, tmp_path / "p")


@pytest.fixture
def demo_built(_reference_built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """``demo_at_rc`` with the RC's files built into dist/: the test's own copy of
    ``_reference_built``."""
    git_env(monkeypatch)
    return copy_repo(_reference_built, tmp_path / "p")


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
