"""onnx 1.19: the release's row of the version table was written with the previous release."""

from __future__ import annotations

from pathlib import Path

import onnx
import pytest
from helpers.defects import text, verify
from helpers.models import write_project
from onnx import helper
from packaging.version import Version

INCIDENT = {
    "title": "The release's row of the onnx version table names the wrong release",
    "year": 2025,
    "project": "onnx 1.19",
    "source": (
        "https://github.com/onnx/onnx/pull/7182 (the 1.19 row written as 1.18.0, caught in "
        "review); https://github.com/onnx/onnx/pull/7391 (1.19.1 missed in the tables)"
    ),
    "gate": "compat",
    "reconstruction": (
        "The installed onnx's own row of onnx.helper.VERSION_TABLE carries the previous "
        "release's number, so tools that map an opset to an IR version cannot place the "
        "release's default opset."
    ),
    "message": "onnx.helper.VERSION_TABLE has no row for onnx",
}

TARGETS = {"compat": {"ir-version": 10, "opsets": {"ai.onnx": 21}}}


def test_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = Version(onnx.__version__).release[:2]
    previous = f"{release[0]}.{release[1] - 1}.0"
    table = [
        (previous, *row[1:]) if Version(str(row[0])).release[:2] == release else row
        for row in helper.VERSION_TABLE
    ]
    monkeypatch.setattr(helper, "VERSION_TABLE", table)
    result = verify(write_project(tmp_path / "adopter", ["compat"], TARGETS), "compat")
    assert result["status"] == "fail"
    assert (
        f"{INCIDENT['message']} {release[0]}.{release[1]} (the installed {onnx.__version__})"
        in text(result)
    )


def test_clean_twin(tmp_path: Path) -> None:
    result = verify(write_project(tmp_path / "adopter", ["compat"], TARGETS), "compat")
    assert result["status"] == "pass", result
