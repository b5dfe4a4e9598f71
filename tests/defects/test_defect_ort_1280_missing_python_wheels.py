"""onnxruntime-gpu 1.28.0: no Linux wheels for CPython 3.12-3.14 (other Pythons were there)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import promote_wheels

INCIDENT = {
    "title": "Some Python versions of a platform are missing from the published wheels",
    "year": 2026,
    "project": "onnxruntime-gpu 1.28.0",
    "source": "https://github.com/microsoft/onnxruntime/issues/29894",
    "gate": "wheels promote",
    "reconstruction": (
        "The upload stopped at PyPI's size limit: Linux x86_64 had wheels for CPython 3.11 but "
        "not 3.12, while Windows had both. Completeness was checked per platform, so Linux "
        "counted as covered."
    ),
    "message": (
        "(cp312-manylinux_x86_64): no wheel for CPython 3.12 on the required platform "
        "manylinux_x86_64"
    ),
}

PLATFORMS = ["manylinux_x86_64", "win_amd64"]


def test_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = ["cp311-manylinux_x86_64", "cp311-win_amd64", "cp312-win_amd64"]
    code, out = promote_wheels(tmp_path, keys, PLATFORMS, capsys)
    assert code == 1
    assert INCIDENT["message"] in out


def test_clean_twin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = [f"{p}-{t}" for p in ("cp311", "cp312") for t in PLATFORMS]
    code, out = promote_wheels(tmp_path, keys, PLATFORMS, capsys)
    assert code == 0, out
