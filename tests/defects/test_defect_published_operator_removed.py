"""A published operator version is removed along with an opset bump."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from helpers import REPO_ROOT
from helpers.defects import text, verify

INCIDENT = {
    "title": "A published operator version is removed in a new opset",
    "year": 2020,
    "project": "ONNX 1.7",
    "source": (
        "seeds/onnx-1.7-release-postmortem.md (ops reverted late: MeanSquareDistance, "
        "UnfoldToDepth, Inverse); seeds/onnx-operator-versioning-pr186.md (published "
        "operators are immutable; ONNX deprecates instead)"
    ),
    "gate": "opset_rules",
    "reconstruction": (
        "acme-vision 1.2 raises its opset to 3 (adding Sharpen-3) and drops Posterize-1, "
        "published in opset 1: a model importing com.acme.vision 1 loses its schema. The "
        "opset bump made the inventory change look legitimate."
    ),
    "message": (
        "com.acme.vision.Posterize:1: published in the previous release (opset 2) and removed; "
        "a published operator version is never removed"
    ),
}

MODULE = """
from onnx import defs
from onnx.defs import OpSchema

import acme_vision_1_1 as previous

DOMAIN = previous.DOMAIN


def sharpen_3():
    return OpSchema(
        "Sharpen", DOMAIN, 3, "Sharpen an image.",
        inputs=[OpSchema.FormalParameter("X", "T")],
        outputs=[OpSchema.FormalParameter("Y", "T")],
        type_constraints=[("T", previous.FLOATS, "Image element type.")],
    )


defs.register_schema(sharpen_3())
"""


def _adopter(tmp_path: Path, keep_posterize: bool) -> Path:
    root = shutil.copytree(
        REPO_ROOT / "examples" / "opset-evolution",
        tmp_path / "acme",
        ignore=shutil.ignore_patterns("__pycache__", "build"),
    )
    v11 = (root / "acme_vision_1_1.py").read_text(encoding="utf-8")
    if not keep_posterize:
        v11 = v11.replace("(blend_1(), blend_2(), posterize_1())", "(blend_1(), blend_2())")
    (root / "acme_vision_1_1.py").write_text(v11, encoding="utf-8")
    (root / "acme_vision_1_2.py").write_text(MODULE, encoding="utf-8")
    pyproject = root / "pyproject.toml"
    body = re.sub(
        r"(?m)^schema-modules = \[.*?\]",
        'schema-modules = ["acme_vision_1_2"]',
        pyproject.read_text(encoding="utf-8"),
    )
    pyproject.write_text(body.replace("acme-vision-1.0.json", "acme-vision-1.1.json"))
    return root


def test_caught(tmp_path: Path) -> None:
    result = verify(_adopter(tmp_path, keep_posterize=False), "opset_rules")
    assert result["status"] == "fail"
    assert INCIDENT["message"] in text(result)
    assert "deprecate the operator with a new since_version instead" in text(result)


def test_clean_twin(tmp_path: Path) -> None:
    result = verify(_adopter(tmp_path, keep_posterize=True), "opset_rules")
    assert result["status"] == "pass", result
    assert "com.acme.vision: opset 2 -> 3, 1 added, 0 removed" in text(result)
