"""Shared fixtures: small real projects in real temporary git repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.repo import git, write_project

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commits in temporary repositories need an identity; never read the user's config."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
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
        write_project(root, **kwargs)  # type: ignore[arg-type]
        from mlrelease.cli import main

        assert main(["--root", str(root), "gates", "doc", "--execute"]) == 0
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "feat: first release candidate material")
        git(root, "remote", "add", "origin", str(origin))
        git(root, "push", "-q", "origin", "main")
        return root

    return factory
