"""Consumers ``mlrelease init`` proposes for projects whose reverse dependencies are known (pure
data: TOML-ready tables of ``[[tool.mlrelease.downstream.consumers]]``).

For onnx these are the projects its release verification has depended on (the 1.7
postmortem's "converters", the "Please verify the release candidate" issues filed in
onnxmltools, sklearn-onnx, tensorflow-onnx and pytorch for 1.13-1.16): onnxruntime (a smoke
that runs a model the candidate makes, at its default IR version and opset), skl2onnx and spox
(their released sdists carry their tests), onnxscript, onnx-ir and onnxmltools (their sdists do
not: their repositories at a tag), and the PyTorch exporter (a smoke on CPU torch).
"""

from __future__ import annotations

from typing import Any

from packaging.utils import canonicalize_name

ORT_SMOKE = """
import numpy as np, onnx, onnxruntime as ort
from onnx import TensorProto, helper
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "x"], ["y"])]
model = helper.make_model(helper.make_graph(nodes, "smoke", [x], [y]))
onnx.checker.check_model(model, full_check=True)
print("IR", model.ir_version, "opset", model.opset_import[0].version)
data = np.array([[-1, 0, 1], [2, -2, 3]], dtype=np.float32)
(got,) = ort.InferenceSession(model.SerializeToString()).run(None, {"x": data})
np.testing.assert_allclose(got, np.maximum(data, 0) + data)
"""
"""A model made with the candidate's defaults (its newest IR version and opset), loaded and
run by the newest onnxruntime: the 1.7 release's first blocker."""

TORCH_SMOKE = """
import numpy as np, onnxruntime as ort, torch
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
x = torch.randn(2, 4)
program = torch.onnx.export(model, (x,), dynamo=True)
program.save("model.onnx")
(got,) = ort.InferenceSession("model.onnx").run(None, {"input": x.numpy()})
np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-6)
"""
"""The PyTorch exporter (dynamo: onnxscript and onnx-ir underneath) exporting with the
candidate installed, and onnxruntime running the result."""

PYTORCH_CPU = "https://download.pytorch.org/whl/cpu"

KNOWN: dict[str, list[dict[str, Any]]] = {
    "onnx": [
        {
            "name": "onnxruntime",
            "requirement": "onnxruntime",
            "requirements": ["numpy"],
            "command": ["{python}", "-c", ORT_SMOKE],
            "time-budget-s": 300,
            "repository": "https://github.com/microsoft/onnxruntime",
        },
        {
            "name": "skl2onnx",
            "requirement": "skl2onnx",
            "requirements": ["scikit-learn", "onnxruntime", "pandas"],
            "tests": [
                "tests/test_sklearn_glm_regressor_converter.py",
                "tests/test_sklearn_k_means_converter.py",
            ],
            "repository": "https://github.com/onnx/sklearn-onnx",
        },
        {
            "name": "spox",
            "requirement": "spox",
            "requirements": ["onnxruntime"],
            "repository": "https://github.com/Quantco/spox",
        },
        {
            "name": "onnxscript",
            "requirement": "onnxscript==0.7.2",
            "git": "https://github.com/microsoft/onnxscript",
            "ref": "v0.7.2",
            "tests": ["onnxscript/rewriter"],
            "requirements": ["onnxruntime", "parameterized"],
            "repository": "https://github.com/microsoft/onnxscript",
        },
        {
            "name": "onnx-ir",
            "requirement": "onnx-ir==1.1.0",
            "git": "https://github.com/onnx/ir-py",
            "ref": "v1.1.0",
            "tests": ["src/onnx_ir/passes"],
            "requirements": ["parameterized"],
            "repository": "https://github.com/onnx/ir-py",
        },
        {
            "name": "onnxmltools",
            "requirement": "onnxmltools==1.16.0",
            "git": "https://github.com/onnx/onnxmltools",
            "ref": "v1.16.0",
            "tests": ["tests/sklearn"],
            "requirements": ["onnxruntime", "scikit-learn"],
            "repository": "https://github.com/onnx/onnxmltools",
        },
        {
            "name": "pytorch-exporter",
            "requirement": "torch",
            "index-urls": [PYTORCH_CPU],
            "requirements": ["onnxscript", "onnxruntime"],
            "command": ["{python}", "-c", TORCH_SMOKE],
            "time-budget-s": 600,
            "repository": "https://github.com/pytorch/pytorch",
        },
    ],
}
"""Distribution -> the consumers proposed for it (keys as TOML spells them)."""


def consumers(project: str) -> list[dict[str, Any]]:
    """The consumers known for ``project`` (none for a project nobody is known to use)."""
    return [dict(c) for c in KNOWN.get(canonicalize_name(project), [])]
