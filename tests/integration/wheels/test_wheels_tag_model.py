"""``wheels audit --release-tag`` under ``version-source = "tag"``: the files carry 2.13.0a0,
the artifacts must carry the tag's version, in their names and in their own metadata."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers.dist import make_dist
from helpers.release import GIT_ENV
from helpers.torch_family import push_torch_family

from mlrelease.cli import main


@pytest.fixture
def family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("COLUMNS", "300")
    repo = push_torch_family(tmp_path)
    repo.git("switch", "-q", "release/2.13")
    assert main(["--root", str(repo.path), "init", "--execute"]) == 0
    return repo.path


def audit(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--root", str(root), "wheels", "audit", str(root / "dist"), *args])
    out, err = capsys.readouterr()
    sys.stdout.write(out + err)
    return code, " ".join((out + err).split())


def test_artifacts_built_with_the_tags_version_pass(
    family: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dist(family, family / "dist", "2.13.0", readme="# demo")
    code, shown = audit(family, capsys, "--release-tag", "v2.13.0-rc3")
    assert code == 0, shown


def test_artifacts_that_kept_the_files_marker_fail(
    family: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dist(family, family / "dist", "2.13.0a0", readme="# demo")
    code, shown = audit(family, capsys, "--release-tag", "v2.13.0")
    assert code == 1
    assert "Version: 2.13.0a0, expected 2.13.0" in shown, shown


@pytest.mark.parametrize("tag", ["v2.13.0rc3", "2.13.0-rc3", "v2.13.0.rc3", "2.13.0"])
def test_every_tag_spelling_init_may_propose_is_read(
    family: Path, capsys: pytest.CaptureFixture[str], tag: str
) -> None:
    """Issue 44: ``--release-tag`` reads every spelling init may propose (``v1.2.3rc1`` for a
    project without RC tags), through the one naming module, as ``release`` does."""
    make_dist(family, family / "dist", "2.13.0", readme="# demo")
    code, shown = audit(family, capsys, "--release-tag", tag)
    assert code == 0, shown
