"""A supported-operators column got worse, and the advice was to regenerate the index."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import ops_project, text, verify

from mlrelease.cli import main

INCIDENT = {
    "title": "Operator support got worse and regenerating the index hid it",
    "year": 2022,
    "project": "Torch-TensorRT",
    "source": (
        "seeds/torch-tensorrt-release-process.md (step 3: regenerate the index of converters "
        "for each release); issue #15"
    ),
    "gate": "ops_index",
    "reconstruction": (
        "The committed index says Abs and Relu pass; then both kernels go wrong. The gate used "
        "to name only the first changed operator and advise `mlrelease ops index` and commit, "
        "which records the regression as the new truth."
    ),
    "message": (
        "2 operator version(s) got worse than the committed docs/indices/supported_ops.json, "
        "a regression to explain (regenerating would hide it): ai.onnx Abs-13: planted: "
        "committed pass, 1/1 cases pass, fresh run fail (wrong_result), 0/1 cases pass (cases: "
        "test_abs pass -> wrong_result); ai.onnx Relu-14: planted: committed pass, 1/1 cases "
        "pass, fresh run fail (wrong_result), 0/1 cases pass (cases: test_relu pass -> "
        "wrong_result)"
    ),
}

KNOWN = """\
[[failure]]
pattern = "test_abs"
backend = "planted"
reason = "planted kernel is off by one"
expires = 2999-01-01

[[failure]]
pattern = "test_relu"
backend = "planted"
reason = "planted kernel is off by one"
expires = 2999-01-01
"""


def test_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = ops_project(tmp_path / "ops", ["test_relu", "test_abs"])
    monkeypatch.setenv("PLANTED", "")
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    monkeypatch.setenv("PLANTED", "Relu,Abs")
    result = verify(root, "ops_index")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in result["summary"]
    assert "mlrelease ops index" not in text(result)  # never "regenerate and commit"


def test_clean_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both failures explained (reason, expiry): the index is merely stale, naming both."""
    root = ops_project(tmp_path / "ops", ["test_relu", "test_abs"])
    monkeypatch.setenv("PLANTED", "")
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    monkeypatch.setenv("PLANTED", "Relu,Abs")
    (root / "ci").mkdir()
    (root / "ci/known_failures.toml").write_text(KNOWN, encoding="utf-8")
    stale = verify(root, "ops_index")
    assert stale["summary"].startswith(
        "docs/indices/supported_ops.json is stale: 2 operator version(s) changed: ai.onnx "
        "Abs-13: planted: committed pass"
    )
    assert "ai.onnx Relu-14: planted: committed pass" in stale["summary"]
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    result = verify(root, "ops_index")
    assert result["status"] == "pass", result
