"""Invariant (e): a fix reaches a release branch at most once; identity is the patch id, a full
or abbreviated `-x` sha, the pull-request number, or the normalised subject ("maybe picked");
reverts on main or on the branch withdraw a pick (docs/release/invariants.md).

The fix appends a line to NOTES.md, so a second application applies cleanly (and duplicates
the line) instead of conflicting: that is what "applied twice" looks like."""

from __future__ import annotations

from helpers.release import Repo

SUBJECT = "fix: handle an empty answer"


def setup_branch(repo: Repo, mlr) -> str:  # type: ignore[no-untyped-def]
    """NOTES.md on main, release/1.4 cut and pushed, then the fix on main (pushed); returns it."""
    repo.commit_file("NOTES.md", "# Notes\n\nfirst\n", "docs: notes")
    repo.git("push", "-q", "origin", "main")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    repo.git("switch", "-q", "main")
    fix = repo.commit_file(
        "NOTES.md", "# Notes\n\nfirst\nempty answers\n", f"{SUBJECT}\n\nRelease-Target: 1.4\n"
    )
    repo.git("push", "-q", "origin", "main")
    repo.git("switch", "-q", "release/1.4")
    return fix


def by_hand(colleague: Repo, message: str) -> None:
    """The colleague back-ports the fix by hand on release/1.4 (another place in the file, so
    another patch id) and pushes it."""
    colleague.git("fetch", "-q", "origin")
    colleague.git("switch", "-q", "release/1.4")
    colleague.git("merge", "-q", "--ff-only", "origin/release/1.4")
    text = (colleague.path / "NOTES.md").read_text()
    colleague.commit_file(
        "NOTES.md", text.replace("# Notes\n", "# Notes\n\nempty answers\n"), message
    )
    colleague.git("push", "-q", "origin", "release/1.4")


def pull(repo: Repo) -> str:
    repo.git("pull", "-q", "--ff-only", "origin", repo.branch())
    return repo.git("rev-parse", "HEAD")


def test_a_hand_backport_with_the_same_subject_is_maybe_picked(
    repo: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """Class 9: a hand back-port with the same subject and no -x line was "missing", and
    --execute applied the fix again."""
    setup_branch(repo, mlr)
    by_hand(colleague, SUBJECT)
    head = pull(repo)
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    assert "maybe picked" in out and repo.git("rev-parse", "HEAD") == head
    assert (repo.path / "NOTES.md").read_text().count("empty answers") == 1


def test_an_abbreviated_cherry_pick_line_counts(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Class 10: an adapted pick whose `-x` line carries an abbreviated sha was "missing", and
    --execute applied the fix again."""
    fix = setup_branch(repo, mlr)
    by_hand(colleague, f"fix: empty answers on 1.4\n\n(cherry picked from commit {fix[:9]})\n")
    head = pull(repo)
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    assert "picked (adapted)" in out and repo.git("rev-parse", "HEAD") == head
    assert (repo.path / "NOTES.md").read_text().count("empty answers") == 1


def test_a_fix_reverted_on_main_is_withdrawn(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Class 11: a fix reverted on main was still picked."""
    fix = setup_branch(repo, mlr)
    colleague.git("fetch", "-q", "origin")
    colleague.git("merge", "-q", "--ff-only", "origin/main")
    colleague.git("revert", "--no-edit", fix)
    colleague.git("push", "-q", "origin", "main")
    repo.git("fetch", "-q", "origin")
    repo.git("update-ref", "refs/heads/main", "origin/main")
    head = repo.git("rev-parse", "HEAD")
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    assert "withdrawn" in out and repo.git("rev-parse", "HEAD") == head
    assert "empty answers" not in (repo.path / "NOTES.md").read_text()


def test_a_pick_reverted_on_the_branch_is_not_picked(repo: Repo, colleague: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """Class 18: a pick reverted on the branch still showed "picked"."""
    setup_branch(repo, mlr)
    code, _, err = mlr("release", "cherry-picks", "--execute", "--push")
    assert code == 0, err
    colleague.git("fetch", "-q", "origin")
    colleague.git("switch", "-q", "release/1.4")
    colleague.git("merge", "-q", "--ff-only", "origin/release/1.4")
    colleague.git("revert", "--no-edit", "HEAD")
    colleague.git("push", "-q", "origin", "release/1.4")
    head = pull(repo)
    code, out, err = mlr("release", "cherry-picks", "--execute")
    assert code == 0, err
    assert "reverted on the branch" in out and repo.git("rev-parse", "HEAD") == head
    assert "empty answers" not in (repo.path / "NOTES.md").read_text()
