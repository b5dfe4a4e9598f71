"""ONNX 1.7: the wheel builder could not build Windows packages."""

from __future__ import annotations

from pathlib import Path

from helpers.defects import text, verify
from helpers.projects.native import wheels_project

INCIDENT = {
    "title": "A required platform is missing from the build plan",
    "year": 2020,
    "project": "ONNX 1.7",
    "source": (
        "seeds/onnx-1.7-release-postmortem.md (wheel-builder fails to build Windows python "
        "packages; https://github.com/onnx/onnx/pull/2632 added Windows pipelines)"
    ),
    "gate": "wheels",
    "reconstruction": (
        "Windows is a required platform, but the build configuration selects no Windows "
        "identifier (here: skipped), as when the Windows builder stopped working."
    ),
    "message": "required platform `win_amd64` has no build identifier",
}


def test_caught(tmp_path: Path) -> None:
    root = wheels_project(tmp_path / "demo", pythons=["3.12"], build=["cp312-*"], skip=["*-win*"])
    result = verify(root, "wheels")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)


def test_clean_twin(tmp_path: Path) -> None:
    root = wheels_project(tmp_path / "demo", pythons=["3.12"], build=["cp312-*"])
    result = verify(root, "wheels")
    assert result["status"] == "pass", result
