"""Artifacts are bound to the RC: a tampered file or a rebuild from a later commit (with a
fresh SHA256SUMS next to it) is refused before anything irreversible, dry run and execute."""

from __future__ import annotations

from helpers.release import Repo


def test_tampered_artifact_stops_promotion_before_publish_and_tag(
    candidate: Repo, mlr, index
) -> None:  # type: ignore[no-untyped-def]
    url, packages = index
    wheel = candidate.path / "dist/demo-1.4.0-py3-none-any.whl"
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    args = ("release", "promote", "--rc", "v1.4.0-rc1", "--publish", "--repository-url", url)
    for extra in ((), ("--execute", "--push")):
        code, out, err = mlr(*args, *extra)
        assert code == 1 and "demo-1.4.0-py3-none-any.whl: SHA-256" in err
        assert "rebuilt or tampered" in err and "$ git" not in out
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
    assert list(packages.iterdir()) == []


def test_rebuild_from_a_later_commit_is_not_the_rc(candidate: Repo, mlr) -> None:  # type: ignore[no-untyped-def]
    candidate.commit_file("src/demo/core.py", "def answer() -> int:\n    return 7\n", "fix: 7")
    candidate.build()  # fresh files and a fresh, consistent SHA256SUMS
    code, _, err = mlr("release", "promote", "--rc", "v1.4.0-rc1", "--execute", "--push")
    assert code == 1 and "are not the files v1.4.0-rc1 built" in err
    # Binding the rebuild instead is refused too: HEAD is not the RC, and the RC is bound.
    code, _, err = mlr("release", "bind", "--rc", "v1.4.0-rc1", "--execute", "--push")
    assert code == 1 and "HEAD is" in err and "git switch --detach v1.4.0-rc1" in err
    candidate.git("switch", "-q", "--detach", "v1.4.0-rc1")
    code, _, err = mlr("release", "bind", "--rc", "v1.4.0-rc1", "--execute", "--push")
    assert code == 1 and "already bound to other files" in err
    assert candidate.tag_everywhere("v1.4.0") == ("", "")
