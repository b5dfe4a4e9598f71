"""The adoption corpus lands a maintainers' commit on the replayed branch as its change, not
as its files (``scripts/case_study_replay.py``'s ``land`` over ``case_study_change``): lines
the commit leaves alone keep what mlrelease's commands made of them, and a file whose change
does not merge lands whole and is named. Real git repositories: the project's history in a bare
mirror, the replay's clone committing a command's edit on its branch."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers.release import GIT_ENV

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = [f"step{n}: uses: infra/job.yml@main" for n in range(12)]


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _commit(root: Path, lines: list[str], message: str) -> str:
    (root / "ci.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _git(root, "commit", "-qam", message)
    return _git(root, "rev-parse", "HEAD")


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """(land, the mirror, the replay's clone, the fork, the maintainers' commit that pins
    step 0): the clone's branch has the fork plus a command's pin of step 11."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    from case_study_replay import land

    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q", "-b", "main")
    (project / "ci.yml").write_text("", encoding="utf-8")
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    _git(project, "add", "ci.yml", "pyproject.toml")
    fork = _commit(project, WORKFLOW, "ci")
    theirs = _commit(project, [WORKFLOW[0].replace("@main", "@rel"), *WORKFLOW[1:]], "pin 0")
    mirror = tmp_path / "mirror.git"
    _git(tmp_path, "clone", "-q", "--bare", str(project), str(mirror))
    work = tmp_path / "work"
    _git(tmp_path, "clone", "-q", str(mirror), str(work))
    _git(work, "switch", "-q", "-c", "release", fork)
    return land, mirror, work, fork, theirs


def test_a_commit_lands_as_its_change_keeping_the_commands_edits(scene: Any) -> None:
    land, mirror, work, fork, theirs = scene
    _commit(work, [*WORKFLOW[:11], WORKFLOW[11].replace("@main", "@rel")], "cut pins 11")
    assert land(work, mirror, theirs, "", [], fork)
    lines = (work / "ci.yml").read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith("@rel") and lines[11].endswith("@rel"), lines
    assert lines[1:11] == WORKFLOW[1:11]


def test_a_change_the_commands_made_already_lands_as_nothing(scene: Any) -> None:
    """The release-only edit ``release cut`` made, with another pin of cut's in the same file
    the commit leaves alone: the branch already has the commit's change (its step is right)."""
    land, mirror, work, fork, theirs = scene
    both = [WORKFLOW[0].replace("@main", "@rel"), *WORKFLOW[1:11], WORKFLOW[11] + " # pinned"]
    head = _commit(work, both, "cut pins 0 and marks 11")
    assert land(work, mirror, theirs, "", [], fork) is None
    assert _git(work, "rev-parse", "HEAD") == head


def test_a_change_that_does_not_merge_lands_whole_and_is_named(scene: Any) -> None:
    land, mirror, work, fork, theirs = scene
    other = [WORKFLOW[0].replace("@main", "@v2"), *WORKFLOW[1:11], WORKFLOW[11] + " # cut"]
    _commit(work, other, "cut pins 0 otherwise")
    whole: list[str] = []
    assert land(work, mirror, theirs, "", [], fork, whole)
    assert whole == ["ci.yml"]
    assert _git(work, "show", "HEAD:ci.yml") == _git(mirror, "show", f"{theirs}:ci.yml")
