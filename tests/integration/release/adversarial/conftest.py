"""Fixtures of the adversarial release tests: a verified, bound release candidate on a real
repository with a bare origin, and a colleague's clone that moves origin's refs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers.release import Repo


@pytest.fixture
def candidate(repo: Repo, mlr) -> Repo:  # type: ignore[no-untyped-def]
    """release/1.4 prepared and pushed, v1.4.0-rc1 tagged and pushed, its files built into
    dist/ and bound (manifest on origin), its release_verify report written."""
    for args in (
        ("cut", "--version", "1.4", "--execute", "--push"),
        ("prepare", "--version", "1.4.0", "--execute", "--push"),
        ("rc", "--execute", "--push"),
    ):
        code, _, err = mlr("release", *args)
        assert code == 0, err
    repo.build()
    code, _, err = mlr("release", "bind", "--rc", "v1.4.0-rc1", "--execute", "--push")
    assert code == 0, err
    assert mlr("verify")[0] == 0
    return repo


@pytest.fixture
def colleague(candidate: Repo, tmp_path: Path) -> Repo:
    """Another clone of origin, as a colleague (or an attacker with push rights) has it."""
    path = tmp_path / "colleague"
    subprocess.run(
        ["git", "clone", "-q", str(candidate.origin), str(path)], check=True, capture_output=True
    )
    other = Repo(path, candidate.origin)
    other.git("switch", "-q", "release/1.4")
    return other
