"""Every tag spelling the project has used counts (issue 53): sklearn-onnx tags both
``v1.19.1`` and ``1.20.0``. A release is known by its version, whatever its tag's spelling;
new tags use the configured spelling; no RC of a released version is ever tagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.release import Repo
from helpers.replayed import push_skl2onnx
from helpers.repo import mlrelease


@pytest.fixture
def adopted(tmp_path: Path) -> Repo:
    """sklearn-onnx adopted on main, which still carries 1.19.1 (shipped as ``v1.19.1``); init
    proposes the spelling of most of its newest tags, ``{major}.{minor}.{patch}``."""
    repo = push_skl2onnx(tmp_path)
    proc = mlrelease(repo.path, "init", "--execute")
    assert proc.returncode == 0, proc.stderr
    assert 'tag = "{major}.{minor}.{patch}"' in (repo.path / "pyproject.toml").read_text()
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    repo.git("push", "-q", "origin", "main")
    return repo


def test_status_knows_a_release_shipped_under_another_spelling(adopted: Repo) -> None:
    proc = mlrelease(adopted.path, "release", "status", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["release"] == "1.19.1"
    assert data["released"] and "v1.19.1" in data["released"], data["released"]
    assert data["next_rc"] is None


def test_rc_never_tags_a_version_released_under_another_spelling(adopted: Repo) -> None:
    proc = mlrelease(adopted.path, "release", "rc", "--execute", "--push")
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 1 and "1.19.1 is already released (v1.19.1)" in said, said
    assert adopted.tag_everywhere("1.19.1rc1") == ("", "")


def test_prepare_follows_a_release_tagged_in_another_spelling(adopted: Repo) -> None:
    proc = mlrelease(adopted.path, "release", "prepare", "--version", "1.20.0", "--execute")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '__version__ = "1.20.0"' in adopted.git("show", "HEAD:skl2onnx/__init__.py")
    rc = mlrelease(adopted.path, "release", "rc")
    assert rc.returncode == 0, rc.stdout + rc.stderr
    assert "git tag -a 1.20.0rc1" in rc.stdout, rc.stdout  # the configured spelling
