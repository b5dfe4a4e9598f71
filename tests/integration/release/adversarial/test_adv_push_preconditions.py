"""Preconditions for every push, checked before the first change: origin not ahead, HEAD on a
branch; a colleague moving origin's release branch meanwhile makes the command refuse cleanly."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers.release import Repo


def _clone(repo: Repo, path: Path, branch: str) -> Repo:
    subprocess.run(["git", "clone", "-q", str(repo.origin), str(path)], check=True)
    other = Repo(path, repo.origin)
    other.git("switch", "-q", branch)
    return other


def _world(repo: Repo) -> tuple[str, str]:
    return repo.git("for-each-ref"), repo.status()


def test_prepare_and_rc_push_refuse_when_origin_is_ahead(repo: Repo, mlr, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute", "--push")[0] == 0
    colleague = _clone(repo, tmp_path / "colleague", "release/1.4")
    colleague.commit_file("src/demo/extra.py", "Y = 2\n", "fix: pushed by a colleague")
    colleague.git("push", "-q", "origin", "release/1.4")
    before = _world(repo)
    code, _, err = mlr("release", "prepare", "--version", "1.4.0", "--execute", "--push")
    assert code == 1 and "origin/release/1.4" in err and "has commits that local" in err
    assert _world(repo) == before  # no local commit made before the refused push
    repo.git("pull", "-q", "--ff-only", "origin", "release/1.4")
    assert mlr("release", "prepare", "--version", "1.4.0", "--execute", "--push")[0] == 0
    colleague.git("pull", "-q", "--ff-only", "origin", "release/1.4")
    colleague.commit_file("src/demo/extra.py", "Y = 3\n", "fix: another one")
    colleague.git("push", "-q", "origin", "release/1.4")
    before = _world(repo)
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 1 and "has commits that local" in err
    assert _world(repo) == before and repo.tags() == {}  # no local RC tag either


def test_cut_from_a_detached_head_is_refused(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    repo.git("switch", "-q", "--detach", "main")
    repo.commit_file("src/demo/core.py", "Z = 1\n", "feat: on a detached HEAD")
    before = _world(repo)
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 1 and "HEAD is detached" in err and "git switch main" in err
    assert _world(repo) == before


def test_cut_refuses_when_a_colleague_already_cut_the_branch(
    repo: Repo, mlr, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    colleague = _clone(repo, tmp_path / "colleague", "main")
    colleague.git("switch", "-q", "-c", "release/1.4")
    colleague.git("push", "-q", "origin", "release/1.4")
    before = _world(repo)
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute")
    assert code == 1 and "origin already has release/1.4" in err and "--track" in err
    assert _world(repo) == before
