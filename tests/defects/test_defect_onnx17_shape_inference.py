"""ONNX 1.7: a sequence model had shape-inference errors that the checker accepted."""

from __future__ import annotations

from pathlib import Path

import onnx
from helpers.defects import text, verify
from helpers.models import make_model, tensor_info, write_project
from onnx import helper

INCIDENT = {
    "title": "A model passes the checker but fails shape inference",
    "year": 2020,
    "project": "ONNX 1.7",
    "source": (
        "seeds/onnx-1.7-release-postmortem.md (issue 2: sequence model has shape inference "
        "errors; the model checker does not detect them)"
    ),
    "gate": "models",
    "reconstruction": (
        "Reshape's target shape is Shape(x) = [2, 3] while the graph declares the output "
        "[3, 2]: onnx.checker (even with full_check) accepts it; only strict shape inference "
        "with data propagation sees the conflict."
    ),
    "message": "Inferred shape and existing shape differ in dimension 0: (2) vs (3)",
}

TARGETS = {"compat": {"ir-version": 10, "opsets": {"ai.onnx": 21}}}
MANIFEST = """
[[models]]
path = "reshape.onnx"
steps = ["integrity", "checker", "shape_inference", "opset_imports"]
"""


def _project(tmp_path: Path, declared: list[int]) -> Path:
    root = write_project(tmp_path / "adopter", ["models"], TARGETS, manifest=MANIFEST)
    model = make_model(
        [
            helper.make_node("Shape", ["x"], ["s"], name="shape"),
            helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape"),
        ],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", declared)],
    )
    onnx.save(model, root / "models" / "reshape.onnx")
    return root


def test_caught(tmp_path: Path) -> None:
    result = verify(_project(tmp_path, [3, 2]), "models")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)


def test_clean_twin(tmp_path: Path) -> None:
    result = verify(_project(tmp_path, [2, 3]), "models")
    assert result["status"] == "pass", result
