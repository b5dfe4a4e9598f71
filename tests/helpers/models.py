"""Real ONNX models and adopter projects for the model-verification tests."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from helpers import REPO_ROOT
from helpers.projects import Tables, single_gate
from mlrelease.models.config import CompatConfig
from mlrelease.registry import load_config

TARGETS = load_config(REPO_ROOT).table(CompatConfig)
IR = TARGETS.ir_version or onnx.IR_VERSION
OPSET = TARGETS.opsets.get("ai.onnx", 21)
"""mlrelease stamps its own models with the targets it declares in [tool.mlrelease.compat]."""


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Sequence[onnx.ValueInfoProto],
    outputs: Sequence[onnx.ValueInfoProto],
    *,
    initializers: Sequence[TensorProto] = (),
    ir_version: int = IR,
    opsets: dict[str, int] | None = None,
    **kwargs: Any,
) -> onnx.ModelProto:
    graph = helper.make_graph(list(nodes), "g", list(inputs), list(outputs), list(initializers))
    imports = [helper.make_opsetid(d, v) for d, v in (opsets or {"": OPSET}).items()]
    return helper.make_model(graph, ir_version=ir_version, opset_imports=imports, **kwargs)


def tensor_info(
    name: str, shape: Sequence[int | str], dtype: int = TensorProto.FLOAT
) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, list(shape))


def add_model(k: float = 2.0) -> onnx.ModelProto:
    """y = x + k, x of shape [2, 3]: the smallest model every step can run."""
    const = numpy_helper.from_array(np.full((2, 3), k, np.float32), "k")
    return make_model(
        [helper.make_node("Add", ["x", "k"], ["y"], name="add")],
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=[const],
    )


def endless_loop_model(shape: Sequence[int]) -> onnx.ModelProto:
    """A Loop that never ends (trip count 2^62, its condition always true), carrying ``x`` of
    ``shape`` through each iteration unchanged."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["v_in"], ["v_out"]),
        ],
        "body",
        [
            tensor_info("i", [], TensorProto.INT64),
            tensor_info("cond_in", [], TensorProto.BOOL),
            tensor_info("v_in", shape),
        ],
        [tensor_info("cond_out", [], TensorProto.BOOL), tensor_info("v_out", shape)],
    )
    trip = numpy_helper.from_array(np.array(2**62, np.int64), "trip")
    cond = numpy_helper.from_array(np.array(True), "cond")
    return make_model(
        [helper.make_node("Loop", ["trip", "cond", "x"], ["y"], body=body)],
        [tensor_info("x", shape)],
        [tensor_info("y", shape)],
        initializers=[trip, cond],
    )


def write_test_data(
    folder: Path, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]
) -> Path:
    """A Model Zoo style test_data_set_0 folder."""
    data = folder / "test_data_set_0"
    data.mkdir(parents=True, exist_ok=True)
    for i, array in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(array), str(data / f"input_{i}.pb"))
    for i, array in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(array), str(data / f"output_{i}.pb"))
    return data


def write_project(
    root: Path,
    gates: Sequence[str],
    tables: Tables | None = None,
    *,
    manifest: str | None = None,
    text: str = "",
) -> Path:
    """A minimal adopter, ``adopter`` 1.0.0 running ``gates`` with ``tables`` under
    ``tool.mlrelease`` and other TOML ``text`` (:func:`helpers.projects.single_gate.pyproject`),
    and its models' ``manifest`` (TOML, dedented) when given."""
    root.mkdir(parents=True, exist_ok=True)
    pyproject = single_gate.pyproject(gates, tables, name="adopter", text=text)
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    if manifest is not None:
        (root / "models").mkdir(exist_ok=True)
        (root / "models" / "manifest.toml").write_text(textwrap.dedent(manifest), encoding="utf-8")
    return root
