"""A tag that origin lacks and that this clone did not make is never pushed, nor advised to be
pushed (#48): a fork's RC tag, made by ``mlrelease release rc`` in a clone of the fork (so its
annotation carries the marker), fetched into the maintainer's clone. Whether this clone made a
tag is read from its record of the tags it made (``.git/mlrelease/made/``), never from the
annotation. Both tests failed on the code that read the annotation."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers.release import Repo

from mlrelease.cli import main

RC1 = "v1.4.0-rc1"


def _prepared(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    for args in (("cut", "--version", "1.4"), ("prepare", "--version", "1.4.0")):
        code, _, err = mlr("release", *args, "--execute", "--push")
        assert code == 0, err


def _fork_tag(repo: Repo, tmp_path: Path, *, own_commit: bool) -> str:
    """``v1.4.0-rc1`` made by mlrelease in a clone of a fork (on a commit only the fork has, or
    on origin's release/1.4 tip), pushed to the fork and fetched here; its tag object."""
    fork, theirs = tmp_path / "fork.git", tmp_path / "theirs"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.origin), str(fork)], check=True)
    subprocess.run(["git", "clone", "-q", str(fork), str(theirs)], check=True)
    clone = Repo(theirs, fork)
    clone.git("switch", "-q", "release/1.4")
    if own_commit:
        clone.commit_file("src/demo/core.py", "EVIL = 1\n", "feat: the fork's own work")
    assert main(["--root", str(theirs), "release", "rc", "--execute", "--push"]) == 0
    repo.git("remote", "add", "fork", str(fork))
    repo.git("fetch", "-q", "fork", "+refs/tags/*:refs/tags/*")
    made = repo.git("rev-parse", f"refs/tags/{RC1}")
    assert "Made-by: mlrelease release rc" in repo.git("cat-file", "tag", made)
    return made


@pytest.mark.parametrize("own_commit", [True, False], ids=["fork-commit", "at-head"])
def test_a_forks_rc_tag_is_never_pushed_nor_advised(
    repo: Repo, mlr, tmp_path: Path, own_commit: bool
) -> None:  # type: ignore[no-untyped-def]
    """On the fork's own commit, rc said "made by `mlrelease release rc` and never pushed"
    and advised `git push origin refs/tags/v1.4.0-rc1`; at HEAD, it pushed the fork's tag to
    origin as this clone's first release candidate."""
    _prepared(repo, mlr)
    _fork_tag(repo, tmp_path, own_commit=own_commit)
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 1, err
    assert f"this clone has a tag {RC1}" in err and "this clone did not make" in err, err
    assert f"git tag -d {RC1}" in err and "git push" not in err, err
    assert repo.origin_git("tag", "--list") == ""  # nothing pushed
    repo.git("tag", "-d", RC1)  # as advised: then this clone's own candidate goes out
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    assert repo.origin_git("tag", "--list") == RC1
    assert "Made-by: mlrelease release rc" in repo.origin_git("cat-file", "tag", RC1)


def test_this_clones_own_unpushed_tag_is_still_advised(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """The record keeps the advice true for this clone's own tag: made without --push, HEAD
    moved on, rc asks to push it first (origin numbers the candidates)."""
    _prepared(repo, mlr)
    assert mlr("release", "rc", "--execute")[0] == 0
    repo.commit_file("src/demo/core.py", "def answer() -> int:\n    return 43\n", "fix: 43")
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 1 and "never pushed" in err, err
    assert f"git push origin refs/tags/{RC1}:refs/tags/{RC1}" in err


def test_a_forks_final_tag_naming_the_manifest_is_not_adopted(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """A final tag exactly as a fork's `release promote` writes it (on the RC's commit, naming
    the bound manifest), fetched here: promote adopted it as its own and pushed it."""
    ref = candidate.git("for-each-ref", "--format=%(refname)", "refs/mlrelease/bound/")
    digest = ref.rsplit("/", 1)[1]
    commit = candidate.git("rev-parse", f"{RC1}^{{commit}}")
    candidate.git(
        "tag",
        "-a",
        "v1.4.0",
        commit,
        "-m",
        "1.4.0 (promoted from v1.4.0-rc1)",
        "-m",
        "Made-by: mlrelease release promote",
        "-m",
        f"Mlrelease-Manifest-SHA256: {digest}",
    )
    code, _, err = mlr(
        "release", "promote", "--rc", RC1, "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1, err
    assert "record of the tags it made does not name it" in err and "git tag -d v1.4.0" in err
    assert candidate.origin_git("tag", "--list", "v1.4.0") == ""


def test_a_tag_killed_while_git_made_it_is_resumed(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Killed while `git tag` ran: the record holds the intent (name and commit) only, and the
    tag is there. The re-run takes it as this clone's and pushes it, rather than refusing."""
    from mlrelease.release.world import made
    from mlrelease.release.world.snapshot import MadeTag

    _prepared(repo, mlr)
    head = repo.git("rev-parse", "HEAD")
    made.write(repo.path, MadeTag(RC1, head, None, "rc"))
    repo.git(
        "tag", "-a", RC1, "-m", "1.4.0 release candidate 1", "-m", "Made-by: mlrelease release rc"
    )
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0 and "already v1.4.0-rc1 here, not pushed yet" in err, err
    assert repo.origin_git("rev-parse", f"refs/tags/{RC1}") == repo.git(
        "rev-parse", f"refs/tags/{RC1}"
    )
