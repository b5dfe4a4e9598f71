"""onnx: no Python 3.7 wheels half a year after Python 3.7 came out."""

from __future__ import annotations

from pathlib import Path

from helpers.defects import text, verify
from helpers.projects.native import wheels_project

INCIDENT = {
    "title": "A declared Python version has no wheels in the build plan",
    "year": 2019,
    "project": "onnx (before 1.5)",
    "source": "https://github.com/onnx/onnx/issues/1750",
    "gate": "wheels",
    "reconstruction": (
        "The project declares the newest CPython in its classifiers, but the build selection "
        "stops one version earlier: users of the new Python fall back to building the sdist."
    ),
    "message": (
        "required platform `manylinux_x86_64` has no build identifier for CPython 3.12 "
        "(declared in the classifiers)"
    ),
}


def test_caught(tmp_path: Path) -> None:
    root = wheels_project(tmp_path / "demo", pythons=["3.11", "3.12"], build=["cp311-*"])
    result = verify(root, "wheels")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)


def test_clean_twin(tmp_path: Path) -> None:
    root = wheels_project(tmp_path / "demo", pythons=["3.11", "3.12"], build=["cp311-*", "cp312-*"])
    result = verify(root, "wheels")
    assert result["status"] == "pass", result
