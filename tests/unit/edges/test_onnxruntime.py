"""The onnxruntime edge: what each option sets, and a session it creates runs a real model."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper

from mlrelease.edges import onnxruntime as ort


def _identity() -> bytes:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())


def test_default_options_are_onnxruntimes_own() -> None:
    built, plain = ort.Options().build(), onnxruntime.SessionOptions()
    for name in (
        "intra_op_num_threads",
        "inter_op_num_threads",
        "use_deterministic_compute",
        "log_severity_level",
        "execution_mode",
        "graph_optimization_level",
    ):
        assert getattr(built, name) == getattr(plain, name), name
    with pytest.raises(RuntimeError, match="does not have configuration"):
        built.get_session_config_entry("session.disable_cpu_ep_fallback")


def test_every_option_reaches_the_session_options() -> None:
    built = ort.Options(
        intra_threads=3,
        inter_threads=2,
        deterministic=True,
        log_severity=ort.ERRORS_ONLY,
        sequential=True,
        optimize_all=True,
        cpu_fallback=False,
    ).build()
    assert built.intra_op_num_threads == 3
    assert built.inter_op_num_threads == 2
    assert built.use_deterministic_compute is True
    assert built.log_severity_level == ort.ERRORS_ONLY
    assert built.execution_mode == onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    assert built.graph_optimization_level == onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert built.get_session_config_entry("session.disable_cpu_ep_fallback") == "1"


def test_a_session_from_bytes_runs_on_the_cpu() -> None:
    assert ort.CPU in ort.available_providers()
    assert ort.version() == onnxruntime.__version__
    session = ort.session(_identity(), [ort.CPU], options=ort.Options(intra_threads=1))
    assert session.get_providers() == [ort.CPU]
    x = np.array([1.5, -2.0], dtype=np.float32)
    (y,) = session.run(None, {"x": x})
    np.testing.assert_array_equal(y, x)
    assert ort.io_names(_identity()) == (["x"], ["y"])
