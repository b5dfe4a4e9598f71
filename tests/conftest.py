"""Shared fixtures: small real projects in real temporary git repositories, and one cache
folder per test run (never the user's)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers.projects.pure import write_gated
from helpers.repo import git

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


SHARED_BUILDS = {
    "built": "wheels",  # tests/integration/wheels/conftest.py: both projects' sdists and wheels
    "frozen": "docs-frozen",  # tests/integration/docs/conftest.py: a site frozen at two tags
    "own_site": "docs-own-site",  # test_docs_browser.py: this repository's docs, built
    "staged_train": "train",  # tests/integration/train/conftest.py: three repositories, staged
    "_released": "conda",  # tests/integration/conda/conftest.py: two releases, built and bound
    "downstream_world": "downstream",  # tests/integration/downstream/conftest.py: planted, built
}
"""Fixtures that build something expensive once per process, and the xdist group of the tests
that use them: under `--dist loadgroup` (nox -s tests, the tests gate) one worker runs a
group, so each is built once per run, not once per worker. Add yours here."""


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        groups = [SHARED_BUILDS[f] for f in getattr(item, "fixturenames", ()) if f in SHARED_BUILDS]
        if groups and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(groups[0]))


@pytest.fixture(autouse=True, scope="session")
def run_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """mlrelease's cache (node cases, runtime probes, compiled locales, model verdicts) for
    this test run: empty when it starts, as on a fresh machine, and shared by the xdist
    workers of the run (the cache's writes are atomic), never the user's."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "run-cache"
    folder.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLRELEASE_CACHE_DIR", str(folder))
        yield folder


TEST_ENV = {
    **GIT_ENV,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "COLUMNS": "300",
}
"""Commits in temporary repositories need an identity, and never read the user's or the
machine's git configuration (a signing key, hooks, another default branch). Messages printed
in-process are one line each: pytest-xdist's workers inherit ``COLUMNS=80`` from a controller
without a terminal, and CI's temporary paths are longer than 80 columns."""


@pytest.fixture(autouse=True, scope="session")
def _session_env() -> Iterator[None]:
    """:data:`TEST_ENV` for the fixtures built once per process too (the staged train commits
    before any test's own fixtures run): on a fresh HOME there is no identity to fall back on."""
    with pytest.MonkeyPatch.context() as patch:
        for key, value in TEST_ENV.items():
            patch.setenv(key, value)
        yield


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """:data:`TEST_ENV` again for each test, whatever a test before it changed."""
    for key, value in TEST_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Path]:
    """A factory of committed demo projects with a bare "origin" they were pushed to."""

    def factory(name: str = "demo", **kwargs: object) -> Path:
        origin = tmp_path / f"{name}-origin.git"
        root = tmp_path / name
        root.mkdir()
        git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
        git(root, "init", "-q", "-b", "main")
        write_gated(root, **kwargs)  # type: ignore[arg-type]
        from mlrelease.cli import main

        assert main(["--root", str(root), "gates", "doc", "--execute"]) == 0
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "feat: first release candidate material")
        git(root, "remote", "add", "origin", str(origin))
        git(root, "push", "-q", "origin", "main")
        return root

    return factory
