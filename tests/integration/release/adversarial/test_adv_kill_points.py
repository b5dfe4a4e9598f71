"""The kill harness covers every point: a whole release (cut, prepare, rc, bind, promote with
publishing to a local index, then `mlrelease bump`) run uninterrupted lists each fault point it
passes; every one of them must be in a list that a kill test exercises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.release import (
    BMV_KILL_POINTS,
    BUMP_KILL_POINTS,
    CHECKLIST_KILL_POINTS,
    PROMOTE_KILL_POINTS,
    Repo,
    make_candidate,
)


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "points.txt"
    monkeypatch.setenv("MLRELEASE_FAULT_RECORD", str(path))
    return path


def test_every_fault_point_of_a_release_is_killed_by_a_test(
    recorded: Path, repo: Repo, mlr, index
) -> None:  # type: ignore[no-untyped-def]
    make_candidate(repo, mlr)  # not the shared ``candidate``: its points are recorded here
    url, _ = index
    for args in (
        ["release", "promote", "--rc", "v1.4.0-rc1", "--publish", "--repository-url", url,
         "--execute", "--push"],
        ["release", "checklist", "--version", "1.4.0", "--execute"],
    ):  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "mlrelease", "--root", str(repo.path), *args],
            env=os.environ,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    repo.git("switch", "-q", "main")
    bump = ["bump", "--to", "1.5.0", "--execute"]
    done = subprocess.run(
        [sys.executable, "-m", "mlrelease", "--root", str(repo.path), *bump],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    passed = set(recorded.read_text().split())
    covered = {*CHECKLIST_KILL_POINTS, *PROMOTE_KILL_POINTS, *BUMP_KILL_POINTS, *BMV_KILL_POINTS}
    assert passed - covered == set(), "points no kill test exercises"
    assert {p.split(":")[0] for p in passed} >= {"cut", "prepare", "rc", "bind", "promote"}
    assert {"publish", "bump", "checklist", "bmv"} <= {p.split(":")[0] for p in passed}
