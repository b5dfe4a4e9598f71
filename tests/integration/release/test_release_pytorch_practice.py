"""The PyTorch family's release practice on a repository shaped like Torch-TensorRT
(:mod:`helpers.torch_family`, a bare origin and a clone): an RC tagged again on the same commit
(Torch-TensorRT's rc8 was rc7's commit, rebuilt), RC numbers chosen with a gap, fixes picked by
hand (the pull request's number in the subject, no trailer), a revert chain."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.release import GIT_ENV, Repo
from helpers.repo import Run, in_process
from helpers.torch_family import adopt, push_torch_family


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    return in_process(capsys)


@pytest.fixture
def family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Repo]:
    """Torch-TensorRT's 2.13 before its final: rc1..rc3 on origin, mlrelease adopted."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.setenv("COLUMNS", "300")
    repo = push_torch_family(tmp_path)
    repo.git("tag", "-d", "v2.13.0")
    repo.git("push", "-q", "origin", ":refs/tags/v2.13.0")
    yield repo


def _on_branch(repo: Repo, run: Run) -> None:
    """Adopted, on release/2.13 with its changelog section."""
    adopt(repo, run)
    repo.git("switch", "-q", "release/2.13")
    code, _, err = run(repo.path, "release", "prepare", "--version", "2.13.0", "--execute")
    assert code == 0, err


def _said(out: str, err: str) -> str:
    return " ".join((out + err).split())


def test_an_rc_is_rebuilt_on_the_same_commit_as_the_next_number(family: Repo, run: Run) -> None:
    _on_branch(family, run)
    code, _, err = run(family.path, "release", "rc", "--execute", "--push")
    assert code == 0, err
    head = family.git("rev-parse", "HEAD")
    code, out, err = run(family.path, "release", "rc")
    assert code == 0, err
    said = _said(out, err)
    assert "already v2.13.0-rc4" in said and "--rebuild" in said and "v2.13.0-rc5" in said, said
    code, out, err = run(family.path, "release", "rc", "--rebuild")
    assert code == 0, err
    assert "git tag -a v2.13.0-rc5" in _said(out, err), out + err
    code, out, err = run(family.path, "release", "rc", "--rebuild", "--execute", "--push")
    assert code == 0, out + err
    assert family.origin_git("rev-parse", "v2.13.0-rc5^{commit}") == head
    note = family.git("tag", "-l", "--format=%(contents)", "v2.13.0-rc5")
    assert "Rebuild-of: v2.13.0-rc4" in note and "Made-by: mlrelease release rc" in note, note
    # Pinned by --tag, a rebuild run again finds it made.
    code, out, err = run(
        family.path, "release", "rc", "--rebuild", "--tag", "v2.13.0-rc5", "--execute", "--push"
    )
    assert code == 0, err
    assert "Nothing to do" in out + err or "nothing to do" in out + err, out + err
    assert "v2.13.0-rc6" not in family.git("tag", "-l")
    code, out, err = run(family.path, "release", "status", "--json")
    assert code == 0, err
    status = json.loads(out)
    assert status["tags"]["rebuilds"] == {"v2.13.0-rc5": "v2.13.0-rc4"}, status["tags"]
    assert status["next_rc"] == "v2.13.0-rc6"
    code, out, err = run(family.path, "release", "status")
    assert "v2.13.0-rc5 (a rebuild of v2.13.0-rc4)" in _said(out, err), out


def test_a_rebuild_follows_origins_newest_rc(family: Repo, run: Run) -> None:
    """A colleague's rebuild pushed to origin (by hand, as Torch-TensorRT's) takes rc5: this
    clone's rebuild is rc6, never a second rc5."""
    _on_branch(family, run)
    code, _, err = run(family.path, "release", "rc", "--execute", "--push")
    assert code == 0, err
    family.git("push", "-q", "origin", "HEAD:refs/tags/v2.13.0-rc5")  # lightweight, by hand
    family.git("tag", "-d", "v2.13.0-rc5", check=False)
    code, out, err = run(family.path, "release", "rc", "--rebuild")
    assert code == 0, err
    assert "git tag -a v2.13.0-rc6" in _said(out, err), out + err


def test_rebuild_needs_a_candidate_at_head(family: Repo, run: Run) -> None:
    _on_branch(family, run)
    code, out, err = run(family.path, "release", "rc", "--rebuild")
    assert code != 0
    said = _said(out, err)
    assert "nothing to rebuild" in said and "Omit --rebuild" in said, said


def test_tag_takes_any_number_above_the_newest_and_names_the_gap(family: Repo, run: Run) -> None:
    _on_branch(family, run)
    code, out, err = run(family.path, "release", "rc", "--tag", "v2.13.0-rc7")
    assert code == 0, err
    said = _said(out, err)
    assert "git tag -a v2.13.0-rc7" in said and "skips rc4, rc5, rc6" in said, said
    code, out, err = run(family.path, "release", "rc", "--tag", "v2.13.0-rc2")
    assert code != 0
    said = _said(out, err)
    assert "next free number is 4" in said and "v2.13.0-rc3" in said, said
