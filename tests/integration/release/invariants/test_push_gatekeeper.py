"""The gatekeeper of every ref push (:mod:`mlrelease.release.pushes`, docs/release/invariants.md,
"One gatekeeper before each irreversible act"): a colleague moves origin after the command read
it and before it pushes, and nothing is pushed on a decision origin no longer supports.

The colleague acts right after the maintainer's command runs ``git tag`` (or ``git commit``):
after planning, before the push, in the old code as in the new. That moment is the only thing
arranged (``mlrelease.edges.git.run`` is wrapped to let the colleague in once); the
repositories, the clones and every push are real.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from helpers.release import Repo
from helpers.release_races import acting_after

Mlr = Callable[..., tuple[int, str, str]]


@contextmanager
def colleague_after(
    monkeypatch: pytest.MonkeyPatch, verb: str, act: Callable[[], None]
) -> Iterator[None]:
    """Let ``act`` run once, right after the maintainer's next ``git VERB`` succeeds."""
    with acting_after(verb, act) as acted:
        yield
    assert acted, f"the maintainer's command never ran git {verb}"


def _prepared(mlr: Mlr) -> None:
    for args in (
        ("cut", "--version", "1.4", "--execute", "--push"),
        ("prepare", "--version", "1.4.0", "--execute", "--push"),
    ):
        code, _, err = mlr("release", *args)
        assert code == 0, err


def _push_tag(colleague: Repo, name: str) -> None:
    colleague.git("fetch", "-q", "origin")
    colleague.git("tag", "-a", "-m", "by hand", name, "origin/release/1.4")
    colleague.git("push", "-q", "origin", f"refs/tags/{name}")


@pytest.mark.parametrize(
    ("tag", "why"),
    [
        ("1.4.0", "a final tag of 1.4.0 in another spelling: the candidate's version shipped"),
        ("v1.4.0-rc2", "a newer candidate, tagged by hand: rc1 would come after rc2"),
    ],
)
def test_an_rc_tag_is_not_pushed_when_origin_moved_after_planning(
    repo: Repo, colleague: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch, tag: str, why: str
) -> None:
    """Before, the push went through: git refuses only a tag that exists, and v1.4.0-rc1
    landed beside the colleague's ``tag`` (the push of an RC of a shipped version, or one
    numbered below origin's newest)."""
    _prepared(mlr)
    with colleague_after(monkeypatch, "tag", lambda: _push_tag(colleague, tag)):
        code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 1, why
    assert "origin changed since this command read it" in err and f"tag {tag}:" in err, err
    assert "nothing was pushed" in err
    assert repo.origin_git("tag", "--list", "v1.4.0-rc1") == "", why
    if tag == "1.4.0":  # the re-run the refusal advises says why, and pushes nothing
        code, _, err = mlr("release", "rc", "--execute", "--push")
        assert code == 1 and "1.4.0 is already released (1.4.0)" in err, err
        assert repo.origin_git("tag", "--list", "v1.4.0-rc1") == ""


def test_a_branch_rewound_on_origin_is_not_pushed_back(
    repo: Repo, colleague: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The colleague force-pushes release/1.4 back while ``prepare`` commits. Before, the
    push was a fast-forward from their rewound tip and undid the rewind without a word."""
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err

    def rewind() -> None:
        colleague.git("fetch", "-q", "origin")
        colleague.git(
            "push", "-q", "--force", "origin", "origin/release/1.4~1:refs/heads/release/1.4"
        )

    rewound = repo.origin_git("rev-parse", "release/1.4~1")
    with colleague_after(monkeypatch, "commit", rewind):
        code, _, err = mlr("release", "prepare", "--version", "1.4.0", "--execute", "--push")
    assert code == 1 and "branch release/1.4:" in err and "nothing was pushed" in err, err
    assert repo.origin_git("rev-parse", "release/1.4") == rewound


def test_refs_that_decide_nothing_do_not_stop_a_push(
    repo: Repo, colleague: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A feature branch and a CI tag (PyTorch's ``ciflow/trunk/N``) pushed meanwhile: the RC
    goes out."""
    _prepared(mlr)

    def busy() -> None:
        colleague.git("fetch", "-q", "origin")
        colleague.git("tag", "ciflow/trunk/123", "origin/main")
        colleague.git("push", "-q", "origin", "origin/main:refs/heads/feature", "ciflow/trunk/123")

    with colleague_after(monkeypatch, "tag", busy):
        code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    assert repo.origin_git("tag", "--list", "v1.4.0-rc1") == "v1.4.0-rc1"


def test_a_final_tag_is_not_pushed_beside_another_spelling_of_it(
    candidate: Repo, colleague: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``promote`` tags v1.4.0; meanwhile the colleague pushes ``1.4.0`` (the spelling without
    ``v``) on another commit. Before, both went out: two releases of 1.4.0. Now promote's final
    push is rechecked too, and the re-run says 1.4.0 is released."""

    def other_final() -> None:
        colleague.git("fetch", "-q", "origin")
        colleague.git("tag", "1.4.0", "origin/main")
        colleague.git("push", "-q", "origin", "refs/tags/1.4.0")

    args = ("release", "promote", "--rc", "v1.4.0-rc1", "--published-elsewhere", "--execute")
    with colleague_after(monkeypatch, "tag", other_final):
        code, _, err = mlr(*args, "--push")
    assert code == 1 and "tag 1.4.0: absent" in err and "nothing was pushed" in err, err
    assert candidate.origin_git("tag", "--list", "v1.4.0") == ""
    code, _, err = mlr(*args, "--push")
    assert code == 1 and "1.4.0" in err, err
    assert candidate.origin_git("tag", "--list", "v1.4.0") == ""
