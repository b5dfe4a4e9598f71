"""ONNX 1.7: Celu-12 (and Dropout-12) shipped with a wrong reference implementation."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import ops_project, text, verify
from helpers.repo import git

from mlrelease.cli import main

INCIDENT = {
    "title": "A new operator version ships with a wrong reference implementation",
    "year": 2020,
    "project": "ONNX 1.7",
    "source": "seeds/onnx-1.7-release-postmortem.md (Dropout-12, Celu: patched 4/26/2020)",
    "gate": "ops_index",
    "reconstruction": (
        "1.0.0's index has no Gelu (standing in for Celu-12, which today's onnxruntime no "
        "longer loads at opset 12); 1.1.0 adds Gelu-20, and one backend (the one carrying the "
        "new reference) computes it wrongly. The fresh index is committed with the verdicts "
        "as they are, so no change against the committed index is left to notice."
    ),
    "message": (
        "suspected reference bug in the new operator version ai.onnx Gelu-20: "
        "test_gelu_default_1 (ai.onnx Gelu-20): rt pass, planted wrong result"
    ),
}


def _released_then_gelu(tmp_path: Path) -> Path:
    root = ops_project(tmp_path / "ops", ["test_relu"])
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "release 1.0.0")
    git(root, "tag", "v1.0.0")
    pyproject = root / "pyproject.toml"
    text_ = pyproject.read_text(encoding="utf-8")
    text_ = text_.replace('version = "1.0.0"', 'version = "1.1.0"')
    pyproject.write_text(text_.replace('["test_relu"]', '["test_relu", "test_gelu_default_1"]'))
    return root


def test_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANTED", "Gelu")
    root = _released_then_gelu(tmp_path)
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0  # committed as measured
    result = verify(root, "ops_index")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)
    assert "check it against an independent implementation" in result["summary"]


def test_clean_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANTED", "")
    root = _released_then_gelu(tmp_path)
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    result = verify(root, "ops_index")
    assert result["status"] == "pass", result
    assert "newly passing (2): ai.onnx Gelu-20 on rt; ai.onnx Gelu-20 on planted" in text(result)
