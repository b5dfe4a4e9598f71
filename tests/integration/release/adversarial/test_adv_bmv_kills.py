"""Kills inside bump-my-version's own file writes (an emptied pyproject.toml, a tree with some
version files bumped and others not): a re-run converges on the same end state as an
uninterrupted run, for ``mlrelease bump`` and for ``release prepare``'s version edit."""

from __future__ import annotations

import signal

import pytest
from helpers.release import BMV_KILL_POINTS, Repo
from helpers.release import run_mlrelease as run


def versions(repo: Repo) -> tuple[str, str]:
    """(pyproject.toml, src/demo/__init__.py) as they are in the work tree."""
    return (
        (repo.path / "pyproject.toml").read_text(encoding="utf-8"),
        (repo.path / "src/demo/__init__.py").read_text(encoding="utf-8"),
    )


def assert_bumped(pyproject: str, init: str, version: str) -> None:
    assert f'current_version = "{version}"' in pyproject
    assert f'\nversion = "{version}"' in pyproject
    assert f'__version__ = "{version}"' in init


@pytest.mark.parametrize("point", BMV_KILL_POINTS)
def test_bump_killed_inside_a_write_converges(repo: Repo, point: str) -> None:
    killed = run(repo, "bump", "--to", "1.4.0", "--execute", fault=point)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    assert (repo.path / ".git/mlrelease-edit.json").exists()  # killed mid-edit
    redo = run(repo, "bump", "--to", "1.4.0", "--execute")
    assert redo.returncode == 0, redo.stdout + redo.stderr
    assert_bumped(*versions(repo), "1.4.0")
    changed = sorted(line.split()[-1] for line in repo.status().splitlines())
    assert changed == ["pyproject.toml", "src/demo/__init__.py"]
    assert not (repo.path / ".git/mlrelease-edit.json").exists()


@pytest.mark.parametrize("point", BMV_KILL_POINTS)
def test_prepare_killed_inside_a_write_converges(cut: Repo, point: str) -> None:
    repo = cut  # release/1.4 cut, as prepare finds it
    killed = run(repo, "release", "prepare", "--version", "1.4.0", "--execute", fault=point)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    redo = run(repo, "release", "prepare", "--version", "1.4.0", "--execute")
    assert redo.returncode == 0, redo.stdout + redo.stderr
    assert repo.status() == "" and repo.branch() == "release/1.4"
    assert_bumped(*versions(repo), "1.4.0")
    assert repo.git("log", "-1", "--format=%s") == "chore(release): prepare 1.4.0"
    assert repo.git("rev-list", "--count", "main..release/1.4") == "2"  # edits, then prepare
    again = run(repo, "release", "prepare", "--version", "1.4.0")
    assert "prepare: nothing to do." in " ".join((again.stdout + again.stderr).split())
