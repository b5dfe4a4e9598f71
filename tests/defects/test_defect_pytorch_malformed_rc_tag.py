"""PyTorch: a release-candidate tag must be exactly v{MAJOR}.{MINOR}.{PATCH}-rc{N}."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers.release import GIT_ENV, push_demo

from mlrelease.cli import main

INCIDENT = {
    "title": "A release candidate is tagged with a malformed name",
    "year": 2021,
    "project": "PyTorch",
    "source": (
        "seeds/pytorch-releasing.md (RC tags must follow v{MAJOR}.{MINOR}.{PATCH}-rc{N}; "
        "pushing one is what triggers the binary builds)"
    ),
    "gate": "release rc",
    "reconstruction": (
        "On release/1.4, prepared for 1.4.0, the candidate is tagged `v1.4.0rc1` (the PEP 440 "
        "spelling) instead of `v1.4.0-rc1`: no build is triggered and nothing says why."
    ),
    "message": (
        "rc --tag 'v1.4.0rc1': not a release-candidate tag of the configured pattern "
        "'v{major}.{minor}.{patch}-rc{rc}' (tool.mlrelease.release.rc-tag), e.g. 'v1.4.0-rc1'"
    ),
}


@pytest.fixture
def prepared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project on release/1.4, prepared for 1.4.0, pushed to a bare origin."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    work = push_demo(tmp_path)  # cut by mlrelease: its release-only edits are made
    assert main(["--root", str(work), "release", "cut", "--version", "1.4", "--execute"]) == 0
    assert main(["--root", str(work), "release", "prepare", "--version", "1.4.0", "--execute"]) == 0
    return work


def _rc(root: Path, tag: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--root", str(root), "release", "rc", "--tag", tag, "--execute"])
    captured = capsys.readouterr()
    return code, " ".join((captured.out + captured.err).split())


def test_caught(prepared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _rc(prepared, "v1.4.0rc1", capsys)
    assert code == 2
    assert INCIDENT["message"] in out
    tags = subprocess.run(["git", "tag"], cwd=prepared, capture_output=True, text=True).stdout
    assert tags.split() == []


def test_clean_twin(prepared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _rc(prepared, "v1.4.0-rc1", capsys)
    assert code == 0, out
    tags = subprocess.run(["git", "tag"], cwd=prepared, capture_output=True, text=True).stdout
    assert tags.split() == ["v1.4.0-rc1"]
