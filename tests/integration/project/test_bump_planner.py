"""The bump planner (:func:`mlrelease.project.bump.plan`) on real files and real repositories:
a part bump plans a valid PEP 440 version, greater than the current one and in the files'
development-marker style, under every version model, or is refused with exit 2 and nothing
written. Found on PyTorch-family repositories: torchdata's ``bump --part minor`` planned
``0.12.0a0 -> 0.13.0.dev0`` under the files model while ``release cut`` planned ``0.13.0a0``;
ao's ``bump --part pre`` planned ``0.19.0 -> 0.19.0final1``."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomllib
from helpers.pep440 import pep440_versions
from helpers.release import GIT_ENV, Repo
from helpers.repo import Run, in_process
from helpers.torch_family import push_torch_family
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from mlrelease.config import Config
from mlrelease.errors import UserError
from mlrelease.init import detect, propose
from mlrelease.init.snapshot import Snapshot
from mlrelease.project import bump

PYPROJECT = (
    '[project]\nname = "pkg"\ndynamic = ["version"]\n\n'
    '[tool.setuptools.dynamic]\nversion = {file = "version.txt"}\n'
)


def _plan(root: Path, current: str, part: str, source: str) -> bump.Bump:
    """``bump --part PART`` planned on a project whose ``version.txt`` carries ``current``,
    configured as ``mlrelease init`` configures it."""
    texts = {"pyproject.toml": PYPROJECT, "version.txt": f"{current}\n"}
    found = detect.detect(Snapshot(files=sorted(texts), texts=texts, tags=[], branches=["main"]))
    text = PYPROJECT + "\n" + propose.propose(found, {}).text
    (root / "pyproject.toml").write_text(text, encoding="utf-8")
    (root / "version.txt").write_text(texts["version.txt"], encoding="utf-8")
    config = dataclasses.replace(
        Config(), root=root, pyproject=tomllib.loads(text), version_source=source
    )
    return bump.plan(config, part=part)


@settings(max_examples=40, deadline=None)
@given(pep440_versions(), st.sampled_from(bump.PARTS), st.sampled_from(["files", "tag"]))
def test_every_part_bump_plans_a_greater_version_of_the_same_style_or_refuses(
    current: str, part: str, source: str
) -> None:
    was = Version(current)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            planned = _plan(Path(tmp), current, part, source)
        except UserError as exc:
            assert exc.exit_code == 2 and f"--part {part} cannot bump {current}" in str(exc)
            return
    new = Version(planned.new)
    assert str(new) == planned.new and new > was
    assert (new.pre is None, new.dev is None) == (was.pre is None, was.dev is None)
    assert planned.changes == [("version.txt", 1)]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    return in_process(capsys)


@pytest.fixture
def torchdata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Run) -> Iterator[Repo]:
    """torchdata's shape, adopted: the files model (``init``'s choice: the tags sit on commits
    prepared with the release version), main carrying PyTorch's ``a0`` marker."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("MLRELEASE_FAULT", raising=False)
    monkeypatch.setenv("COLUMNS", "300")
    repo = push_torch_family(tmp_path, prepared=True)
    code, _, err = run(repo.path, "init", "--execute")
    assert code == 0, err
    assert "version-source" not in (repo.path / "pyproject.toml").read_text(encoding="utf-8")
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    repo.git("push", "-q", "origin", "main")
    yield repo


def test_a_minor_bump_keeps_the_a0_marker_as_the_cut_does(torchdata: Repo, run: Run) -> None:
    code, out, err = run(torchdata.path, "bump", "--part", "minor")
    assert code == 0, err
    assert "2.14.0a0 -> 2.15.0a0" in out + err, out + err  # was 2.15.0.dev0
    code, out, err = run(torchdata.path, "release", "cut", "--version", "2.14")
    assert code == 0, err
    assert "2.14.0a0 -> 2.15.0a0" in out, out  # the version main moves to: the same


def test_a_pre_bump_of_a_bare_version_is_refused_and_writes_nothing(
    torchdata: Repo, run: Run
) -> None:
    """ao's and executorch's main carry the bare next version (0.19.0)."""
    code, _, err = run(torchdata.path, "bump", "--to", "2.14.0", "--execute")
    assert code == 0, err
    torchdata.git("commit", "-q", "-am", "chore: main carries the bare next version")
    code, out, err = run(torchdata.path, "bump", "--part", "pre", "--execute")
    assert code == 2, out + err
    assert "--part pre cannot bump 2.14.0" in err, err
    assert "Use `--part minor` (2.15.0) or `--part patch` (2.14.1), or `--to 2.15.0a0`" in err
    assert "Traceback" not in out + err and "final" not in out + err
    assert torchdata.git("status", "--porcelain") == ""
    assert (torchdata.path / "version.txt").read_text(encoding="utf-8") == "2.14.0\n"
    code, out, err = run(torchdata.path, "bump", "--part", "minor")
    assert code == 0, err
    assert "2.14.0 -> 2.15.0 " in out + err + " ", out + err  # bare stays bare
