"""onnxruntime 1.16.2: the release published a single macOS x86_64 wheel."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import promote_wheels

INCIDENT = {
    "title": "A release is published with the wheels of one platform only",
    "year": 2023,
    "project": "onnxruntime 1.16.2",
    "source": "https://github.com/microsoft/onnxruntime/issues/18378",
    "gate": "wheels promote",
    "reconstruction": (
        "An internal error during publishing left one macOS x86_64 wheel on PyPI. Here the "
        "promotion folder holds the sdist and the macOS x86_64 wheels only."
    ),
    "message": "(manylinux_x86_64): no wheel for the required platform manylinux_x86_64",
}

PLATFORMS = ["manylinux_x86_64", "win_amd64", "macosx_x86_64"]


def test_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = promote_wheels(
        tmp_path, ["cp311-macosx_x86_64", "cp312-macosx_x86_64"], PLATFORMS, capsys
    )
    assert code == 1
    assert INCIDENT["message"] in out
    assert "no wheel for the required platform win_amd64" in out
    assert "Nothing was uploaded." in out


def test_clean_twin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = [f"{p}-{t}" for p in ("cp311", "cp312") for t in PLATFORMS]
    code, out = promote_wheels(tmp_path, keys, PLATFORMS, capsys)
    assert code == 0, out
    assert "7 artifacts of demo-native 1.1.0 verified" in out
