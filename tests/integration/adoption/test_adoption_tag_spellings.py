"""Every tag spelling the project has used counts (issue 53): sklearn-onnx tags both
``v1.19.1`` and ``1.20.0``. A release is known by its version, whatever its tag's spelling;
new tags use the configured spelling; no RC of a released version is ever tagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.adopted import Copied
from helpers.release import Repo
from helpers.replayed import push_skl2onnx
from helpers.repo import mlrelease


def _adopted(base: Path) -> Repo:
    """sklearn-onnx adopted on main, which still carries 1.19.1 (shipped as ``v1.19.1``); init
    proposes the spelling of most of its newest tags, ``{major}.{minor}.{patch}``."""
    repo = push_skl2onnx(base)
    proc = mlrelease(repo.path, "init", "--execute")
    assert proc.returncode == 0, proc.stderr
    assert 'tag = "{major}.{minor}.{patch}"' in (repo.path / "pyproject.toml").read_text()
    repo.git("commit", "-q", "-am", "chore: adopt mlrelease")
    repo.git("push", "-q", "origin", "main")
    return repo


@pytest.fixture
def adopted(copied: Copied) -> Repo:
    """This test's copy of :func:`_adopted`'s repository (made once per process)."""
    return copied(_adopted)


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


def test_promote_takes_an_rc_tagged_in_another_spelling(adopted: Repo) -> None:
    """onnxmltools tags finals ``1.14.0`` and its RC ``v1.15.0rc1``: promote found that RC,
    then refused it as not of the configured RC spelling. Here the RC is tagged ``1.20.0rc1``
    and the project then spells its tags with a ``v``: promote goes on to the RC's files."""
    prepare = mlrelease(adopted.path, "release", "prepare", "--version", "1.20.0", "--execute")
    assert prepare.returncode == 0, prepare.stdout + prepare.stderr
    rc = mlrelease(adopted.path, "release", "rc", "--execute", "--push")
    assert rc.returncode == 0, rc.stdout + rc.stderr
    path = adopted.path / "pyproject.toml"
    text = path.read_text(encoding="utf-8")
    text = text.replace('tag = "{major}', 'tag = "v{major}').replace(
        'rc-tag = "{major}', 'rc-tag = "v{major}'
    )
    path.write_text(text, encoding="utf-8")
    adopted.git("commit", "-q", "-am", "chore: tags spelled with a v")
    adopted.git("push", "-q", "origin", "main")
    proc = mlrelease(
        adopted.path, "release", "promote", "--version", "1.20.0", "--published-elsewhere"
    )
    said = " ".join((proc.stdout + proc.stderr).split())
    assert "not a release-candidate tag" not in said, said
    assert "1.20.0rc1" in said and "no artifact manifest is bound to 1.20.0rc1" in said, said
