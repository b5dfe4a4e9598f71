"""Acceptance 2: refusals say what to do instead, and change nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.release import Repo, copy_repo


@pytest.fixture
def at_rc2(repo: Repo, _at_rc2_template: Path) -> Repo:
    """release/1.4 prepared, rc1 and rc2 tagged (rc2 on a later commit), rc2 verified
    (:func:`helpers.release.tag_rc2`): a fresh copy of ``_at_rc2_template`` in place of
    ``repo``'s work tree and origin."""
    shutil.rmtree(repo.path.parent)
    return copy_repo(_at_rc2_template, repo.path.parent)


def _unchanged(repo: Repo):  # type: ignore[no-untyped-def]
    before = (repo.git("for-each-ref"), repo.status(), repo.branch())
    return lambda: (repo.git("for-each-ref"), repo.status(), repo.branch()) == before


def test_promoting_rc1_while_rc2_exists_is_refused(at_rc2: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("verify")[0] == 0
    same = _unchanged(at_rc2)
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc1", "--published-elsewhere", "--execute"
    )
    assert code == 1
    assert "v1.4.0-rc2 is newer than v1.4.0-rc1" in err
    assert "promote --rc v1.4.0-rc2" in err
    assert same() and "v1.4.0" not in at_rc2.tags()


def test_promotion_needs_a_passing_report_of_the_rc_commit(at_rc2: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute"
    )
    assert code == 1 and "no release_verify report" in err and "--report" in err
    at_rc2.git("switch", "-q", "--detach", "v1.4.0-rc1")
    assert mlr("verify")[0] == 0  # a passing report, but of rc1's commit
    at_rc2.git("switch", "-q", "release/1.4")
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute"
    )
    assert code == 1 and "not v1.4.0-rc2's commit" in err
    assert mlr("verify")[0] == 0
    path = at_rc2.path / "build/release-verify/report.json"
    data = json.loads(path.read_text())
    data["results"][0]["status"] = "fail"
    data["results"][0]["summary"] = "broken on purpose"
    failing = at_rc2.path / "build/failing.json"
    failing.write_text(json.dumps(data))
    code, _, err = mlr(
        "release",
        "promote",
        "--rc",
        "v1.4.0-rc2",
        "--published-elsewhere",
        "--report",
        str(failing),
        "--execute",
    )
    assert code == 1 and "fails: git_state (fail: broken on purpose)" in err
    assert "v1.4.0" not in at_rc2.tags()
    assert (
        mlr("release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute")[0]
        == 0
    )


def test_final_tag_elsewhere_is_refused(at_rc2: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("verify")[0] == 0
    at_rc2.git("tag", "-a", "v1.4.0", "v1.4.0-rc1", "-m", "wrong commit")
    promote = ("release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute")
    code, _, err = mlr(*promote)
    # Only here: never released, so deleting it is the fix (#38).
    assert code == 1 and "this clone has a tag v1.4.0" in err and "git tag -d v1.4.0" in err
    at_rc2.git("push", "-q", "origin", "refs/tags/v1.4.0:refs/tags/v1.4.0")  # now it is out
    code, _, err = mlr(*promote)
    assert code == 1 and "v1.4.0 already exists at" in err and "never moved" in err


@pytest.mark.parametrize(
    "tag", ["v1.4.0rc3", "1.4.0-rc3", "v1.4-rc3", "v1.4.0-rc03", "release-1.4.0-rc3"]
)
def test_malformed_tag_names_are_refused(at_rc2: Repo, mlr, tag: str) -> None:  # type: ignore[no-untyped-def]
    at_rc2.commit_file("src/demo/core.py", "def answer() -> int:\n    return 44\n", "fix: 44")
    same = _unchanged(at_rc2)
    code, _, err = mlr("release", "rc", "--tag", tag, "--execute")
    assert code == 2
    assert f"rc --tag {tag!r}: not a release-candidate tag of the configured pattern" in err
    assert "'v1.4.0-rc1'" in err and "Omit --tag" in err
    assert same()
    code, _, err = mlr("release", "promote", "--rc", tag, "--published-elsewhere", "--execute")
    assert code == 2 and "not a release-candidate tag of the configured pattern" in err


def test_rc_tag_must_be_the_next_free_number(at_rc2: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    at_rc2.commit_file("src/demo/core.py", "def answer() -> int:\n    return 44\n", "fix: 44")
    code, _, err = mlr("release", "rc", "--tag", "v1.4.0-rc2", "--execute")
    assert code == 2 and "the next free number is 3 (taken: v1.4.0-rc1, v1.4.0-rc2)" in err
    code, _, err = mlr("release", "rc", "--tag", "v1.4.0-rc3", "--execute")
    assert code == 0 and "v1.4.0-rc3" in at_rc2.tags()


def test_rc_from_a_dirty_tree_is_refused(at_rc2: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    at_rc2.commit_file("src/demo/core.py", "def answer() -> int:\n    return 44\n", "fix: 44")
    (at_rc2.path / "src/demo/core.py").write_text("# local edit\n")
    (at_rc2.path / "notes.txt").write_text("scratch\n")
    same = _unchanged(at_rc2)
    code, _, err = mlr("release", "rc", "--execute")
    assert code == 1
    assert "uncommitted changes (src/demo/core.py, notes.txt)" in err
    assert "Commit or stash them first" in err
    assert same() and "v1.4.0-rc3" not in at_rc2.tags()


def test_rc_from_a_non_release_branch_is_refused(at_rc2: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    at_rc2.git("branch", "feature/x", "main")
    at_rc2.git("switch", "-q", "main")
    same = _unchanged(at_rc2)
    code, _, err = mlr("release", "rc", "--execute")
    assert code == 1
    assert "you are on main, not on a release branch" in err
    assert "git switch release/X.Y" in err
    assert same()
    at_rc2.git("switch", "-q", "feature/x")
    same = _unchanged(at_rc2)
    code, _, err = mlr("release", "rc", "--execute")
    assert code == 1 and "you are on feature/x, not on a release branch" in err
    assert same()


def test_rc_needs_the_final_version_and_changelog(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    assert mlr("release", "cut", "--version", "1.4", "--execute")[0] == 0
    code, _, err = mlr("release", "rc", "--execute")
    assert code == 1 and "carries 1.4.0.dev0" in err
    assert "release prepare --version 1.4.0 --execute" in err
    assert repo.tags() == {}


def test_cut_refuses_a_series_main_does_not_develop(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    code, _, err = mlr("release", "cut", "--version", "1.5", "--execute")
    assert code == 1 and "main carries 1.4.0.dev0: the 1.5 development has not started" in err
    assert "Bump main to 1.5.0.dev0 first" in err and "or cut 1.4." in err
    code, _, err = mlr("release", "cut", "--version", "1.x")
    assert code == 2 and "expected a release series MAJOR.MINOR" in err
    assert repo.git("for-each-ref", "refs/heads").count("\n") == 0  # main only


def test_cut_refuses_a_dirty_tree_and_changes_nothing(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    (repo.path / "README.md").write_text("local edit\n")
    same = _unchanged(repo)
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute")
    assert code == 1 and "uncommitted changes (README.md)" in err
    assert same()


def test_promote_publishes_before_tagging_and_once(at_rc2: Repo, mlr, index) -> None:  # type: ignore[no-untyped-def]
    url, packages = index
    assert mlr("verify")[0] == 0
    code, out, err = mlr("release", "promote", "--version", "1.4.0")
    assert code == 1 and "no index is known for v1.4.0-rc2" in err  # no index contacted
    code, out, err = mlr(
        "release", "promote", "--version", "1.4.0", "--publish", "--repository-url", url
    )
    assert code == 0 and "# publish demo-1.4.0-py3-none-any.whl from the store to" in out
    lines = [line for line in out.splitlines() if line[:2] in ("# ", "$ ")]
    assert lines[0].startswith("# publish demo-1.4.0-py3-none-any.whl")  # wheels first
    assert lines[1].startswith("# publish demo-1.4.0.tar.gz")
    assert lines[2].startswith("$ git tag -a v1.4.0 ")
    assert not list(packages.iterdir())  # a dry run publishes nothing
    code, out, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--publish", "--repository-url", url,
        "--execute",
    )  # fmt: skip
    assert code == 0, err
    assert at_rc2.tags()["v1.4.0"] == at_rc2.tags()["v1.4.0-rc2"]
    assert sorted(p.name for p in packages.iterdir()) == [
        "demo-1.4.0-py3-none-any.whl",
        "demo-1.4.0.tar.gz",
    ]
    code, out, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--publish", "--repository-url", url,
        "--execute",
    )  # fmt: skip
    assert code == 0 and "nothing to do" in err and "the index holds all 2 files" in err
