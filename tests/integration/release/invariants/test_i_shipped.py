"""Invariants (i) to (k) (docs/release/invariants.md): a version that already shipped, on a
real PyTorch-family repository with a bare origin (:mod:`helpers.torch_family`, torchdata's and
ao's practice: the files model, ``v2.13.0`` and its RC tags on ``release/2.13``, a lightweight
``v2.13.0-rc0`` as torchdata tags them).

After ``init --execute`` alone (the changelog gate left out, as init leaves it for them):
``release status`` offers no release candidate of 2.13.0 and lists ``v2.13.0-rc0``; ``rc``,
``promote`` and ``cut`` say "2.13.0 is already released" first, never asking for a changelog
section or for the deletion of a published RC tag. Before, status said "next RC
v2.13.0-rc4", rc asked for a changelog section, promote exited 2 on rc0 and asked to delete the
other RC tags, and cut on main planned the branch of the shipped series again. Messages keep
their bracketed table names (``[tool.bumpversion]``), and an adoption not yet committed is
named as such."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.release import GIT_ENV, Repo
from helpers.repo import Run, in_process
from helpers.torch_family import push_torch_family

SHIPPED = "2.13.0 is already released (v2.13.0)"


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    return in_process(capsys)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("COLUMNS", "400")
    yield push_torch_family(tmp_path, prepared=True)


def init(repo: Repo, run: Run) -> None:
    """``init --execute`` on main with the gates ao's init chose (no changelog gate)."""
    code, _, err = run(repo.path, "init", "--execute")
    assert code == 0, err
    path = repo.path / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    start = text.index("gates = [")
    end = text.index("]", start) + 1
    path.write_text(text[:start] + 'gates = ["git_state", "versions"]' + text[end:], "utf-8")


def adopt(repo: Repo, run: Run) -> None:
    """The adoption committed and pushed on main, and on ``release/2.13`` with its 2.13.0; a
    lightweight ``v2.13.0-rc0`` on the branch's first commit, pushed."""
    init(repo, run)
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    assert 'current_version = "2.14.0a0"' in (repo.path / "pyproject.toml").read_text()
    repo.git("switch", "-q", "release/2.13")
    repo.git("tag", "v2.13.0-rc0", "release/2.13~3")
    repo.git("cherry-pick", "-x", "main")
    path = repo.path / "pyproject.toml"
    text = path.read_text(encoding="utf-8").replace('"2.14.0a0"', '"2.13.0"')
    path.write_text(text, encoding="utf-8")
    repo.git("commit", "-q", "--amend", "--no-edit", "-a")
    repo.git("push", "-q", "origin", "main", "release/2.13", "v2.13.0-rc0")


def test_status_offers_no_candidate_of_a_shipped_version(repo: Repo, run: Run) -> None:
    adopt(repo, run)
    code, out, err = run(repo.path, "release", "status", "--json")
    assert code == 0, err
    status = json.loads(out)
    assert status["release"] == "2.13.0"
    assert status["tags"]["rc"][0] == "v2.13.0-rc0", status["tags"]
    assert status["tags"]["final"] == "v2.13.0"
    assert status["next_rc"] is None, status["next_rc"]
    assert SHIPPED in status["released"] and "is 2.13.1" in status["released"]
    for verb in ("rc", "promote"):
        assert SHIPPED in status["next"][verb], status["next"]


def test_rc_and_promote_say_already_released_first(repo: Repo, run: Run) -> None:
    adopt(repo, run)
    code, _, err = run(repo.path, "release", "rc")
    assert code == 1 and f"rc: {SHIPPED}" in err, err
    assert "CHANGELOG" not in err  # the changelog gate is not configured
    for rc in ("v2.13.0-rc0", "v2.13.0-rc3"):
        code, _, err = run(repo.path, "release", "promote", "--rc", rc, "--published-elsewhere")
        assert code == 1 and f"promote: {SHIPPED}" in err, err
        assert "delete" not in err, err  # never: its RC tags are published


def test_cut_on_main_never_cuts_a_shipped_series_again(repo: Repo, run: Run) -> None:
    adopt(repo, run)
    repo.git("switch", "-q", "main")
    repo.git("branch", "-D", "release/2.13")
    code, _, err = run(repo.path, "release", "cut", "--version", "2.13")
    assert code == 1 and f"cut: {SHIPPED}" in err, err
    assert "git switch --track origin/release/2.13" in err, err


def test_an_adoption_not_committed_is_named_with_its_table(repo: Repo, run: Run) -> None:
    init(repo, run)  # not committed
    code, _, err = run(repo.path, "release", "cut", "--version", "2.14")
    assert code == 1, err
    assert "pyproject.toml at main has no [tool.bumpversion] current_version" in err, err
    assert "not committed yet" in err and "git add pyproject.toml && git commit" in err, err
    code, out, err = run(repo.path, "release", "status")
    assert code == 0, err
    shown = " ".join(out.split())
    assert "[tool.bumpversion] current_version" in shown, shown  # not eaten as markup
    assert "not committed yet" in shown, shown
