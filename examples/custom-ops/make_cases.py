"""Write the case set of ``com.example.custom`` into ``cases/`` (onnx's on-disk layout).

Run it after changing a case: ``python make_cases.py``. Each case is a folder holding
``model.onnx`` and ``test_data_set_0/{input,output}_N.pb``; a case with more than one node
names the operator it tests in ``data.json``. The models are stamped with onnx's default IR
version, as ``onnx.helper.make_model`` gives them, newer than some runtimes load: the
conformance run re-stamps them to the minimum their opsets allow to measure the operators.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

DOMAIN = "com.example.custom"
HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"


def swish(x: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    out: np.ndarray = (x / (1 + np.exp(-alpha * x))).astype(x.dtype)
    return out


def fast_gelu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    return out.astype(x.dtype)


def write_case(
    name: str,
    nodes: list[onnx.NodeProto],
    inputs: dict[str, np.ndarray],
    outputs: dict[str, np.ndarray],
    opset: int,
    declared: dict[str, str] | None = None,
) -> None:
    graph = helper.make_graph(
        nodes,
        name,
        [
            helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
            for k, v in inputs.items()
        ],
        [
            helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
            for k, v in outputs.items()
        ],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(DOMAIN, opset)],
        producer_name="custom-ops-cases",
    )
    folder = CASES / name
    data = folder / "test_data_set_0"
    data.mkdir(parents=True)
    onnx.save(model, str(folder / "model.onnx"))
    for prefix, values in (("input", inputs), ("output", outputs)):
        for i, (key, value) in enumerate(values.items()):
            (data / f"{prefix}_{i}.pb").write_bytes(
                numpy_helper.from_array(value, key).SerializeToString()
            )
    if declared:
        (folder / "data.json").write_text(json.dumps(declared, indent=2) + "\n")


def main() -> None:
    if CASES.exists():
        shutil.rmtree(CASES)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    gamma = rng.standard_normal((4,)).astype(np.float32)
    write_case(
        "test_swish",
        [helper.make_node("Swish", ["x"], ["y"], domain=DOMAIN)],
        {"x": x},
        {"y": swish(x)},
        opset=1,
    )
    write_case(
        "test_swish_alpha",
        [helper.make_node("Swish", ["x"], ["y"], domain=DOMAIN, alpha=0.5)],
        {"x": x},
        {"y": swish(x, 0.5)},
        opset=1,
    )
    write_case(
        "test_fast_gelu",
        [helper.make_node("FastGelu", ["x"], ["y"], domain=DOMAIN)],
        {"x": x},
        {"y": fast_gelu(x)},
        opset=1,
    )
    write_case(
        "test_layer_scale",
        [helper.make_node("LayerScale", ["x", "gamma"], ["y"], domain=DOMAIN)],
        {"x": x, "gamma": gamma},
        {"y": x * gamma},
        opset=2,
    )
    write_case(
        "test_swish_then_relu",
        [
            helper.make_node("Swish", ["x"], ["s"], domain=DOMAIN),
            helper.make_node("Relu", ["s"], ["y"]),
        ],
        {"x": x},
        {"y": np.maximum(swish(x), 0)},
        opset=1,
        declared={"op_type": "Swish", "domain": DOMAIN},
    )
    write_case(
        "test_swish_opset3",
        [helper.make_node("Swish", ["x"], ["y"], domain=DOMAIN)],
        {"x": x},
        {"y": swish(x)},
        opset=3,
    )
    print(f"wrote {len(list(CASES.iterdir()))} cases into {CASES}")


if __name__ == "__main__":
    main()
