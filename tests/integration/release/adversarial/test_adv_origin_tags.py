"""Origin is the truth for tags: only origin's annotated RC tags made by `release rc` on the
release branch are promoted; a local tag that differs from origin's is refused by name."""

from __future__ import annotations

from helpers.release import Repo


def test_local_rc_tag_differing_from_origin_is_refused(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    origin_rc = candidate.origin_git("rev-parse", "v1.4.0-rc1^{commit}")
    later = candidate.commit_file("src/demo/core.py", "X = 1\n", "fix: later")
    # The same name, here on a later commit (re-tagged by hand, "made by mlrelease").
    candidate.git(
        "tag", "-f", "-a", "v1.4.0-rc1", "-m", "re-tag", "-m", "Made-by: mlrelease release rc"
    )
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc1", "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1
    assert f"tag v1.4.0-rc1 is {later[:12]} here but {origin_rc[:12]} on origin" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")


def test_lightweight_rc_tag_on_a_side_branch_is_refused(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    colleague.git("switch", "-q", "-c", "side")
    colleague.commit_file("src/demo/core.py", "EVIL = 1\n", "feat: side work")
    colleague.git("tag", "v1.4.0-rc2")  # lightweight, by hand
    colleague.git("push", "-q", "origin", "side", "v1.4.0-rc2")
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute", "--push"
    )
    assert code == 1 and "v1.4.0-rc2 on origin is a lightweight tag" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")


def test_hand_made_annotated_rc_tag_off_the_branch_is_refused(
    candidate: Repo, colleague: Repo, mlr
) -> None:  # type: ignore[no-untyped-def]
    colleague.git("switch", "-q", "-c", "side")
    colleague.commit_file("src/demo/core.py", "EVIL = 1\n", "feat: side work")
    colleague.git("tag", "-a", "v1.4.0-rc2", "-m", "rc2")  # annotated, no marker
    colleague.git("push", "-q", "origin", "side", "v1.4.0-rc2")
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute"
    )
    assert code == 1 and "was not made by `mlrelease release rc`" in err
    # With the marker forged, it is still not on origin's release branch.
    colleague.git(
        "tag", "-f", "-a", "v1.4.0-rc2", "-m", "rc2", "-m", "Made-by: mlrelease release rc"
    )
    colleague.git("push", "-q", "-f", "origin", "v1.4.0-rc2")
    code, _, err = mlr(
        "release", "promote", "--rc", "v1.4.0-rc2", "--published-elsewhere", "--execute"
    )
    assert code == 1 and "is not on origin's release/1.4" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")


def test_rc_does_not_call_a_hand_made_tag_at_head_a_candidate(repo: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    for args in (("cut", "--version", "1.4"), ("prepare", "--version", "1.4.0")):
        assert mlr("release", *args, "--execute", "--push")[0] == 0
    repo.git("tag", "v1.4.0-rc1")  # lightweight, by hand, on the prepared HEAD
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 1 and "this clone has a tag v1.4.0-rc1" in err, err
    assert "not made by `mlrelease release rc` on HEAD" in err and "git tag -d v1.4.0-rc1" in err
    assert repo.origin_git("tag", "--list") == ""  # nothing pushed
