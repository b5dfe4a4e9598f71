"""Invariant (h): local branches are compared with origin's before any commit on them
(docs/release/invariants.md)."""

from __future__ import annotations

from helpers.release import Repo


def test_cut_refuses_a_stale_local_branch(repo: Repo, colleague: Repo, mlr, mlr_at) -> None:  # type: ignore[no-untyped-def]
    """Class 15: `cut` acted on a stale local release branch (and a stale main)."""
    repo.git("branch", "release/1.4")  # made by hand, before the colleague's cut
    code, _, err = mlr_at(colleague, "release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    before = repo.git("for-each-ref", "refs/heads")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute")
    assert code == 1 and "release/1.4" in err
    assert repo.git("for-each-ref", "refs/heads") == before and repo.status() == ""
