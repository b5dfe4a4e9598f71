"""Backends that disagree on a case: one passes, the other gives a wrong result."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.defects import ops_project, text, verify

from mlrelease.cli import main

INCIDENT = {
    "title": "Backends disagree on a case and the index records it as a plain failure",
    "year": 2026,
    "project": "mlrelease (test_if_opt: onnxruntime passes, onnx.reference does not)",
    "source": "issue #15; docs/indices/supported_ops.json of onnx 1.23.2",
    "gate": "ops_index",
    "reconstruction": (
        "Relu runs on onnxruntime and on a backend whose Relu kernel is wrong; the index is "
        "regenerated and committed, so it is current and no release compares worse."
    ),
    "message": (
        "1 case(s) where backends disagree (one passes, another gives a wrong result) "
        "without an entry in ci/known_failures.toml: test_relu (ai.onnx Relu-14): rt pass, "
        "planted wrong result"
    ),
}


def test_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANTED", "Relu")
    root = ops_project(tmp_path / "ops", ["test_relu", "test_abs"])
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    result = verify(root, "ops_index")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in result["summary"]


def test_clean_twin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same disagreement, investigated and listed with a reason and an expiry."""
    monkeypatch.setenv("PLANTED", "Relu")
    root = ops_project(tmp_path / "ops", ["test_relu", "test_abs"])
    (root / "ci").mkdir()
    (root / "ci/known_failures.toml").write_text(
        '[[disagreement]]\npattern = "test_relu"\nbackend = "planted"\n'
        'reason = "planted kernel is off by one"\nexpires = 2999-01-01\n',
        encoding="utf-8",
    )
    assert main(["--root", str(root), "ops", "index", "--execute"]) == 0
    result = verify(root, "ops_index")
    assert result["status"] == "pass", result
    assert (
        "Backends disagree on test_relu (ai.onnx Relu-14): rt pass, planted wrong result; "
        "explained: ci/known_failures.toml:2" in text(result)
    )


def test_an_entry_without_expiry_is_refused(tmp_path: Path) -> None:
    root = ops_project(tmp_path / "ops", ["test_relu"])
    (root / "ci").mkdir()
    (root / "ci/known_failures.toml").write_text(
        '[[disagreement]]\npattern = "test_relu"\nreason = "r"\n', encoding="utf-8"
    )
    result = verify(root, "ops_index")
    assert result["status"] == "error"
    assert "disagreement[0].expires" in result["summary"]
