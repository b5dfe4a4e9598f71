"""PyTorch: the final release promotes the RC's binaries by copy, never a rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import artifact_names
from helpers.projects.native import wheels_project

from mlrelease.cli import main
from mlrelease.wheels import artifacts

INCIDENT = {
    "title": "The files published as final are not the release candidate's files",
    "year": 2021,
    "project": "PyTorch",
    "source": (
        "seeds/pytorch-releasing.md (RCs are promoted to stable with promote.sh; promotion to "
        "PyPI can only be done once)"
    ),
    "gate": "wheels promote",
    "reconstruction": (
        "One wheel in the promotion folder was rebuilt after the RC was verified, so its bytes "
        "differ from the RC's SHA256SUMS."
    ),
    "message": "SHA-256 differs from SHA256SUMS (tampered or corrupted)",
}

KEYS = [f"cp312-{p}" for p in ("manylinux_x86_64", "win_amd64", "macosx_arm64")]


def _promote(tmp_path: Path, rebuilt: bool, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    root = wheels_project(tmp_path / "demo", pythons=["3.12"], build=["cp312-*"])
    folder = tmp_path / "rc-assets"
    folder.mkdir()
    names = artifact_names("demo-native", "1.1.0", KEYS)
    for name in names:
        (folder / name).write_bytes(name.encode())
    artifacts.write_sums(folder)
    if rebuilt:
        (folder / names[1]).write_bytes(b"rebuilt after verification")
    code = main(["--root", str(root), "wheels", "promote", "--artifacts", str(folder)])
    captured = capsys.readouterr()
    return code, " ".join((captured.out + captured.err).split())


def test_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _promote(tmp_path, True, capsys)
    assert code == 1
    assert f"demo_native-1.1.0-cp312-cp312-win_amd64.whl: {INCIDENT['message']}" in out
    assert "Nothing was uploaded." in out


def test_clean_twin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _promote(tmp_path, False, capsys)
    assert code == 0, out
