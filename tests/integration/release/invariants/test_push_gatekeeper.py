"""The gatekeeper of every ref push (:mod:`mlrelease.release.pushes`, docs/release/invariants.md,
"One gatekeeper before each irreversible act"): a colleague moves origin after the command read
it and before it pushes, and nothing is pushed on a decision origin no longer supports.

The colleague acts right after the maintainer's command runs ``git tag`` (or ``git commit``):
after planning, before the push, in the old code as in the new. That moment is the only thing
arranged (``mlrelease.edges.git.run`` is wrapped to let the colleague in once); the
repositories, the clones and every push are real.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from helpers.release import Repo
from helpers.release_races import acting_after

from mlrelease.cli import main
from mlrelease.release import pushes

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


def _rewind(colleague: Repo) -> None:
    """The colleague force-pushes release/1.4 back one commit."""
    colleague.git("fetch", "-q", "origin")
    colleague.git("push", "-q", "--force", "origin", "origin/release/1.4~1:refs/heads/release/1.4")


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

    rewound = repo.origin_git("rev-parse", "release/1.4~1")
    with colleague_after(monkeypatch, "commit", lambda: _rewind(colleague)):
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


# --- after the gatekeeper: what the push sends --------------------------------------------------
# The colleague (or a second process in the maintainer's clone) acts right after
# ``pushes.before_push`` passed: the gatekeeper has listed origin and read this clone, and
# ``git push`` has not run. Before, the push named refs (``refs/tags/T:refs/tags/T``), so it sent
# whatever they held then, and a branch went out with no lease on what origin held.


@contextmanager
def after_the_gatekeeper(
    monkeypatch: pytest.MonkeyPatch, act: Callable[[], None]
) -> Iterator[None]:
    real = pushes.before_push
    acted: list[bool] = []

    def gate(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        if not acted:
            acted.append(True)
            act()

    monkeypatch.setattr(pushes, "before_push", gate)
    yield
    assert acted, "the gatekeeper never passed"


def test_a_branch_rewound_after_the_gatekeeper_listed_origin_is_not_pushed_back(
    repo: Repo, colleague: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewind lands after origin's last listing: git refuses the push by its lease on the
    commit the command planned on (before: prepare said done, over the rewind)."""
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err

    rewound = repo.origin_git("rev-parse", "release/1.4~1")
    with after_the_gatekeeper(monkeypatch, lambda: _rewind(colleague)):
        code, _, err = mlr("release", "prepare", "--version", "1.4.0", "--execute", "--push")
    assert code == 1 and "stale info" in err, err
    assert repo.origin_git("rev-parse", "release/1.4") == rewound


def test_a_tag_remade_here_after_the_gatekeeper_read_it_is_not_what_is_sent(
    repo: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process re-makes v1.4.0-rc1 on release/1.4~1 (still 1.4.0.dev0) in the
    maintainer's clone: the push sends the tag object the gatekeeper checked against the
    record, not the new one (before: origin's rc1 peeled to the dev commit)."""
    _prepared(mlr)
    checked: list[str] = []

    def remake() -> None:
        checked.append(repo.git("rev-parse", "refs/tags/v1.4.0-rc1"))
        repo.git("tag", "-f", "-a", "-m", "not this", "v1.4.0-rc1", "release/1.4~1")

    with after_the_gatekeeper(monkeypatch, remake):
        code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    assert repo.origin_git("rev-parse", "refs/tags/v1.4.0-rc1") == checked[0]
    assert repo.origin_git("rev-parse", "v1.4.0-rc1^{commit}") == repo.git(
        "rev-parse", "release/1.4"
    )


def test_a_final_tag_remade_here_after_the_gatekeeper_read_it_is_not_what_is_sent(
    candidate: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for promote's final tag, read and checked right before the push."""
    checked: list[str] = []

    def remake() -> None:
        checked.append(candidate.git("rev-parse", "refs/tags/v1.4.0"))
        candidate.git("tag", "-f", "-a", "-m", "not this", "v1.4.0", "release/1.4~1")

    args = ("release", "promote", "--rc", "v1.4.0-rc1", "--published-elsewhere", "--execute")
    with after_the_gatekeeper(monkeypatch, remake):
        code, _, err = mlr(*args, "--push")
    assert code == 0, err
    assert candidate.origin_git("rev-parse", "refs/tags/v1.4.0") == checked[0]
    assert candidate.origin_git("rev-parse", "v1.4.0^{commit}") == candidate.origin_git(
        "rev-parse", "v1.4.0-rc1^{commit}"
    )


def test_an_rc_a_colleague_pushed_is_not_pushed_again_from_a_clone_without_it(
    repo: Repo, colleague: Repo, mlr: Mlr
) -> None:
    """The colleague tagged and pushed v1.4.0-rc1 on the branch's tip; this clone never
    fetched the tag. rc finds HEAD already tagged on origin and has nothing to send (before:
    it planned to push a tag this clone lacks, and refused, advising to delete it)."""
    _prepared(mlr)
    colleague.git("fetch", "-q", "origin")
    colleague.git("switch", "-q", "release/1.4")
    colleague.git("reset", "-q", "--hard", "origin/release/1.4")
    code = main(["--root", str(colleague.path), "release", "rc", "--execute", "--push"])
    assert code == 0
    made = repo.origin_git("rev-parse", "refs/tags/v1.4.0-rc1")
    code, out, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    assert "git tag -d" not in err + out
    assert repo.origin_git("rev-parse", "refs/tags/v1.4.0-rc1") == made


def test_a_tag_in_other_digits_on_origin_gets_a_verdict_not_a_traceback(
    repo: Repo, colleague: Repo, mlr: Mlr
) -> None:
    """``v1.4.0`` spelt in Arabic-Indic digits, pushed by anyone: no release (before, every
    command that read the tags ended in packaging's InvalidVersion)."""
    _prepared(mlr)
    colleague.git("fetch", "-q", "origin")
    colleague.git("tag", "v\u0661.\u0664.\u0660", "origin/release/1.4")
    colleague.git("push", "-q", "origin", "--tags")
    code, _, err = mlr("release", "status")
    assert code == 0 and "Traceback" not in err, err
    code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 0, err
    assert repo.origin_git("tag", "--list", "v1.4.0-rc1") == "v1.4.0-rc1"


def test_a_final_tag_pushed_in_the_last_moment_is_named_at_once(
    repo: Repo, colleague: Repo, mlr: Mlr, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one window no push can close: ``1.4.0`` lands after the gatekeeper's last listing
    (a push is conditional only on the refs it sends). The RC goes out, and the command says
    at once that origin now holds both, exits 1 and does nothing more (before: "rc: done.")."""
    _prepared(mlr)
    with after_the_gatekeeper(monkeypatch, lambda: _push_tag(colleague, "1.4.0")):
        code, _, err = mlr("release", "rc", "--execute", "--push")
    assert code == 1, err
    assert "refs/tags/v1.4.0-rc1 went out to origin" in err and "tag 1.4.0: absent ->" in err
    assert "both now stand there" in err, err


def test_the_advice_after_main_moved_under_an_unpushed_cut_works(
    repo: Repo, colleague: Repo, mlr: Mlr
) -> None:
    """cut ran without --push (main holds its bump commit), then a colleague pushed to main.
    The refusal's command brings origin's commits in and the re-run pushes (before: it advised
    ``git pull --ff-only``, which cannot fast-forward a main with the cut's commit on it)."""
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute")
    assert code == 0, err
    colleague.git("commit", "-q", "--allow-empty", "-m", "feat: colleague")
    colleague.git("push", "-q", "origin", "HEAD:main")
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 1, err
    advice = re.search(r"run `(git switch main && git pull [^`]+)`", err)
    assert advice, err
    subprocess.run(advice[1], shell=True, cwd=repo.path, check=True, capture_output=True)
    code, _, err = mlr("release", "cut", "--version", "1.4", "--execute", "--push")
    assert code == 0, err
    assert repo.origin_git("rev-parse", "main~1") == colleague.git("rev-parse", "HEAD")
