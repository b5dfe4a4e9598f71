"""ONNX 1.7: models stamped with the new IR version 7 that runtimes did not load yet."""

from __future__ import annotations

from pathlib import Path

import onnx
import onnxruntime
from helpers.defects import text, verify
from helpers.models import write_project
from helpers.projects import Tables

INCIDENT = {
    "title": "The IR version or opset a release stamps is newer than runtimes load",
    "year": 2020,
    "project": "ONNX 1.7",
    "source": (
        "seeds/onnx-1.7-release-postmortem.md (issue 1: converters unable to produce "
        "functional models with the incremented IR 7; onnxruntime had been relaxed about IR)"
    ),
    "gate": "compat",
    "reconstruction": (
        "The project ships what onnx's defaults stamp (helper.make_model): today IR 14 and "
        "opset 28, newer than the installed onnxruntime loads (probed, not assumed)."
    ),
    "message": (
        "onnx 1.23.2 defaults (onnx.helper.make_model) stamps IR 14; onnxruntime 1.31.1 "
        "(CPUExecutionProvider) loads IR <= 13"
    ),
}


def _project(tmp_path: Path, targets: Tables) -> Path:
    return write_project(tmp_path / "adopter", ["compat"], targets)


def test_caught(tmp_path: Path) -> None:
    result = verify(_project(tmp_path, {}), "compat")
    assert result["status"] == "fail"
    expected = INCIDENT["message"]
    if (onnx.__version__, onnxruntime.__version__) != ("1.23.2", "1.31.1"):  # other pins
        expected = (
            f"onnx {onnx.__version__} defaults (onnx.helper.make_model) stamps IR "
            f"{onnx.IR_VERSION}; onnxruntime {onnxruntime.__version__}"
        )
    assert expected in text(result)


def test_clean_twin(tmp_path: Path) -> None:
    targets = {"compat": {"ir-version": 10, "opsets": {"ai.onnx": 21}}}
    result = verify(_project(tmp_path, targets), "compat")
    assert result["status"] == "pass", result
