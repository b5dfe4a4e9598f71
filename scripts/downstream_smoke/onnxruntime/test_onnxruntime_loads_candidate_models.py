"""onnxruntime loads and runs models made by the onnx under test (a downstream smoke).

Each model is made by the installed onnx's ``helper.make_model`` with its defaults: the newest
IR version and opset that onnx release stamps, as converters built on it do. The 1.7 release's
first blocker was exactly this: "converters unable to produce functional models ... with the
incremented IR 7", found by hand weeks after the release candidate. Every model is checked
(``full_check``), run by onnxruntime and compared with onnx's reference evaluator.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)
Y = RNG.standard_normal((2, 3, 4)).astype(np.float32)
W = RNG.standard_normal((4, 5)).astype(np.float32)


def _const(name: str, value: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(value, name)


# op -> (inputs fed at run time, initializers, attributes)
CASES: dict[str, tuple[dict[str, np.ndarray], list[onnx.TensorProto], dict[str, Any]]] = {
    "Add": ({"a": X, "b": Y}, [], {}),
    "Mul": ({"a": X, "b": Y}, [], {}),
    "Relu": ({"a": X}, [], {}),
    "Sigmoid": ({"a": X}, [], {}),
    "Tanh": ({"a": X}, [], {}),
    "Exp": ({"a": X}, [], {}),
    "Softmax": ({"a": X}, [], {"axis": -1}),
    "MatMul": ({"a": X}, [_const("b", W)], {}),
    "Transpose": ({"a": X}, [], {"perm": [2, 0, 1]}),
    "Concat": ({"a": X, "b": Y}, [], {"axis": 1}),
    "ReduceSum": ({"a": X}, [_const("b", np.array([1], dtype=np.int64))], {"keepdims": 1}),
    "Reshape": ({"a": X}, [_const("b", np.array([6, 4], dtype=np.int64))], {}),
    "Where": ({"a": X > 0, "b": X, "c": Y}, [], {}),
    "LayerNormalization": (
        {"a": X},
        [_const("b", np.ones(4, np.float32)), _const("c", np.zeros(4, np.float32))],
        {"axis": -1},
    ),
}


def _model(op: str) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    feeds, inits, attrs = CASES[op]
    names = [*feeds, *(t.name for t in inits)]
    inputs = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
        for n, v in feeds.items()
    ]
    node = helper.make_node(op, names, ["out"], **attrs)
    output = onnx.ValueInfoProto(name="out")  # its type is what shape inference finds
    graph = helper.make_graph([node], op.lower(), inputs, [output], initializer=inits)
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph), strict_mode=True)
    return model, feeds


def test_the_defaults_are_loadable() -> None:
    model, _ = _model("Add")
    stamped = f"IR {model.ir_version}, opset {model.opset_import[0].version}"
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    assert session.get_outputs()[0].name == "out", stamped


@pytest.mark.parametrize("op", sorted(CASES))
def test_op(op: str) -> None:
    model, feeds = _model(op)
    onnx.checker.check_model(model, full_check=True)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = session.run(None, feeds)
    (want,) = ReferenceEvaluator(model).run(None, feeds)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
