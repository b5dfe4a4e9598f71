"""Crash safety: `mlrelease bump` goes through the edit journal; recovery reads the config the
command started with, never a half-written file; a stale index.lock is explained."""

from __future__ import annotations

import signal

from helpers.release import Repo
from helpers.release import run_mlrelease as run


def test_bump_killed_mid_write_is_undone_and_redone(repo: Repo) -> None:
    killed = run(repo, "bump", "--to", "1.4.0", "--execute", fault="bump:after:write")
    assert killed.returncode == -signal.SIGKILL
    (repo.path / "pyproject.toml").write_text("")  # killed while writing this one
    before = (repo.status(), (repo.path / "src/demo/__init__.py").read_text())
    dry = run(repo, "bump", "--to", "1.4.0")
    assert dry.returncode == 1 and "interrupted `mlrelease bump --to 1.4.0" in dry.stderr
    assert (repo.status(), (repo.path / "src/demo/__init__.py").read_text()) == before
    redo = run(repo, "bump", "--to", "1.4.0", "--execute")
    assert redo.returncode == 0, redo.stderr
    assert 'current_version = "1.4.0"' in (repo.path / "pyproject.toml").read_text()
    assert 'version = "1.4.0"' in (repo.path / "pyproject.toml").read_text()
    assert '__version__ = "1.4.0"' in (repo.path / "src/demo/__init__.py").read_text()
    assert not (repo.path / ".git/mlrelease-edit.json").exists()


def test_cut_recovery_reads_the_config_it_started_with(repo: Repo) -> None:
    killed = run(repo, "release", "cut", "--version", "1.4", "--execute", fault="cut:after:bump")
    assert killed.returncode == -signal.SIGKILL
    # cut's writes are atomic; an emptied pyproject.toml is someone else's doing. It is not
    # read as the defaults (the journal names the config the cut started with), and not
    # reverted either (invariant (f)): recovery says so and waits.
    (repo.path / "pyproject.toml").write_text("")
    refused = run(repo, "release", "cut", "--version", "1.4", "--execute")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "pyproject.toml changed again since" in " ".join(refused.stderr.split())
    assert (repo.path / "pyproject.toml").read_text() == ""
    repo.git("restore", "--", "pyproject.toml")
    resumed = run(repo, "release", "cut", "--version", "1.4", "--execute")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "blob/release/1.4/" in repo.git("show", "release/1.4:README.md")
    assert "?ref=release/1.4" in repo.git("show", "release/1.4:docs/links.md")
    assert 'current_version = "1.5.0.dev0"' in repo.git("show", "main:pyproject.toml")
    assert repo.status() == ""


def test_stale_index_lock_is_explained(repo: Repo) -> None:
    lock = repo.path / ".git/index.lock"
    lock.write_text("")
    for extra in ((), ("--execute",)):
        result = run(repo, "release", "cut", "--version", "1.4", *extra)
        assert result.returncode == 1 and "index.lock exists" in result.stderr
        assert "If no git process is running, remove it" in " ".join(result.stderr.split())
    assert lock.exists() and repo.git("for-each-ref", "refs/heads").count("\n") == 0


def test_an_unfinished_cherry_pick_is_named_not_worked_around(repo: Repo) -> None:
    base = repo.git("rev-parse", "HEAD")
    theirs = repo.commit_file("src/demo/core.py", "A = 1\n", "feat: one side")
    repo.git("reset", "-q", "--hard", base)
    repo.commit_file("src/demo/core.py", "A = 2\n", "feat: other side")
    repo.git("cherry-pick", theirs, check=False)  # conflicts: CHERRY_PICK_HEAD stays
    result = run(repo, "release", "cut", "--version", "1.4", "--execute")
    assert result.returncode == 1 and "a cherry-pick is in progress" in result.stderr
    assert "git cherry-pick --abort" in result.stderr
    assert repo.git("for-each-ref", "refs/heads").count("\n") == 0
