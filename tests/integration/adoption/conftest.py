"""Fixtures of the adoption tests: a fresh copy per test of a repository many tests start
from (adopted, or shaped as a practice), each built once per process.

A test never gets a template itself: :func:`helpers.release.copy_repo` copies its work tree
and bare origin into the test's ``tmp_path`` and points origin's URL at the copy's own, the
only path to another repository a copy's git configuration holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.adopted import Copied
from helpers.release import Repo, copy_repo

Build = Callable[[Path], object]
"""Makes a repository at ``base/work`` with its bare origin at ``base/origin.git``."""


@pytest.fixture(scope="session")
def _templates() -> dict[Build, Path]:
    """The templates made in this process, by the function that made each."""
    return {}


@pytest.fixture
def copied(
    _templates: dict[Build, Path], tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> Copied:
    """``copied(build, where="project")``: a copy at ``tmp_path / where`` of the repository
    ``build`` makes, made once per process (a few seconds each: git, ``mlrelease init`` in a
    child process), not once per test."""

    def copy(build: Build, where: str = "project") -> Repo:
        if build not in _templates:
            base = tmp_path_factory.mktemp(f"template-{build.__name__}") / "t"
            build(base)
            _templates[build] = base
        return copy_repo(_templates[build], tmp_path / where)

    return copy
