"""Invariant (b): the final tag exists on origin only on the RC commit whose complete, passing
report was read; the report is bound to the commit, the tree, the config and the gate set
(docs/release/invariants.md). A final tag that already exists is judged, never adopted."""

from __future__ import annotations

from helpers.invariants import RC, hashes
from helpers.release import Repo


def failing_report(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    """A real, failing release_verify report of the RC's clean checkout (git_state: a stray
    tag of another version on HEAD)."""
    repo.git("tag", "v1.3.9")
    assert mlr("verify")[0] == 1
    repo.git("tag", "-d", "v1.3.9")


def test_a_colleagues_final_tag_does_not_switch_off_the_report(
    candidate: Repo, colleague: Repo, mlr, index
) -> None:  # type: ignore[no-untyped-def]
    """Class 7: with a colleague's lightweight vX.Y.Z at the RC (GitHub's "create release"
    makes one), promote --publish published an RC whose report fails."""
    url, packages = index
    failing_report(candidate, mlr)
    colleague.git("tag", "v1.4.0", f"{RC}^{{commit}}")
    colleague.git("push", "-q", "origin", "v1.4.0")
    code, _, err = mlr(
        "release", "promote", "--rc", RC, "--publish", "--repository-url", url,
        "--execute", "--push",
    )  # fmt: skip
    assert code == 1 and "fails" in err and "v1.4.0" in err
    assert hashes(packages) == {}


def test_a_local_final_tag_is_not_pushed_without_a_report(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """Class 8: with a local vX.Y.Z made by hand and no report at all, promote pushed the tag
    as the release."""
    (candidate.path / "build/release-verify/report.json").unlink()
    candidate.git("tag", "v1.4.0", f"{RC}^{{commit}}")
    code, _, err = mlr(
        "release", "promote", "--rc", RC, "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1 and "report" in err
    assert colleague.git("ls-remote", "--tags", "origin", "v1.4.0") == ""


def test_a_report_of_a_tree_with_hidden_changes_is_refused(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """Class 20: a report made on a tree with --skip-worktree files (changes `git status`
    does not show) was accepted as the RC's verdict."""
    candidate.git("update-index", "--skip-worktree", "src/demo/core.py")
    (candidate.path / "src/demo/core.py").write_text("def answer() -> int:\n    return 7\n")
    assert candidate.status() == ""  # git status sees nothing
    assert mlr("verify")[0] == 0
    code, _, err = mlr(
        "release", "promote", "--rc", RC, "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1 and "src/demo/core.py" in err
    assert colleague.git("ls-remote", "--tags", "origin", "v1.4.0") == ""


def test_a_report_made_with_an_uncommitted_config_is_refused(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """Class 21: a report made with an uncommitted configuration (here: fewer gates, so the
    dirty tree went unnoticed) was accepted."""
    pyproject = candidate.path / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(
        text.replace('gates = ["git_state", "changelog"]', 'gates = ["changelog"]')
    )
    assert mlr("verify")[0] == 0
    code, _, err = mlr(
        "release", "promote", "--rc", RC, "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1 and "pyproject.toml" in err
    assert colleague.git("ls-remote", "--tags", "origin", "v1.4.0") == ""


def test_a_release_in_another_spelling_is_not_made_again(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """Invariant (i): origin has ``1.4.0`` (the spelling without ``v``, on another commit).
    promote planned ``v1.4.0`` and pushed it: a second release of 1.4.0."""
    colleague.git("tag", "1.4.0", "origin/main")
    colleague.git("push", "-q", "origin", "refs/tags/1.4.0")
    code, _, err = mlr(
        "release", "promote", "--rc", RC, "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1 and "1.4.0 is already released (1.4.0)" in err, err
    assert "would release it a second time" in err
    assert colleague.git("ls-remote", "--tags", "origin", "v1.4.0") == ""


def test_a_release_made_twice_is_named_not_nothing_to_do(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    """Invariant (b): ``v1.4.0`` went out on the RC's commit, and ``1.4.0`` landed on another
    commit in the moment no push can guard. The re-run said "nothing to do" (and
    ``promoted-rc`` passed); now it names both and does nothing."""
    args = ("release", "promote", "--rc", RC, "--published-elsewhere", "--execute", "--push")
    code, _, err = mlr(*args)
    assert code == 0, err
    colleague.git("fetch", "-q", "origin")
    colleague.git("tag", "1.4.0", "origin/main")
    colleague.git("push", "-q", "origin", "refs/tags/1.4.0")
    code, _, err = mlr(*args)
    assert code == 1 and "it was released twice" in err, err
    assert "1.4.0 on" in err and "v1.4.0 on" in err
