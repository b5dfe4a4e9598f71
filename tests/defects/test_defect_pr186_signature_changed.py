"""ONNX PR 186: an operator's signature changed under its published since_version."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from helpers import REPO_ROOT
from helpers.defects import text, verify

INCIDENT = {
    "title": "An operator's signature changes without a new since_version",
    "year": 2017,
    "project": "ONNX",
    "source": "seeds/onnx-operator-versioning-pr186.md (operator versioning design)",
    "gate": "opset_rules",
    "reconstruction": (
        "acme-vision 1.1 gives Blend an optional Mask input but keeps since_version 1, so a "
        "model built for opset 1 means something else under the new schema."
    ),
    "message": ("com.acme.vision.Blend:1: signature changed under the published since_version 1"),
}


def _adopter(tmp_path: Path, module: str) -> Path:
    root = shutil.copytree(
        REPO_ROOT / "examples" / "opset-evolution",
        tmp_path / "acme",
        ignore=shutil.ignore_patterns("__pycache__", "build"),
    )
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        re.sub(
            r"(?m)^schema-modules = \[.*?\]",
            f'schema-modules = ["{module}"]',
            pyproject.read_text(encoding="utf-8"),
        ),
        encoding="utf-8",
    )
    return root


def test_caught(tmp_path: Path) -> None:
    result = verify(_adopter(tmp_path, "acme_vision_1_1_unversioned"), "opset_rules")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)


def test_clean_twin(tmp_path: Path) -> None:
    result = verify(_adopter(tmp_path, "acme_vision_1_1"), "opset_rules")
    assert result["status"] == "pass", result
