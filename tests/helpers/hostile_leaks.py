"""The external-data attacks of :mod:`helpers.hostile`: a model whose tensor data is read from
the canary, from each part of a model that can hold external data (:data:`LEAK_PLACES`), the
location reaching the canary in each way a path can leave the folder (:data:`POINTERS`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from helpers.models import OPSET, make_model, tensor_info
from helpers.submission import X, write_test_data
from helpers.submission import save as _save
from helpers.submission import write as _write

# --- external data pointing at the canary -------------------------------------------------------


def _external(name: str, location: str, dims: Sequence[int], dtype: int) -> TensorProto:
    tensor = TensorProto(name=name, data_type=dtype, dims=list(dims))
    tensor.data_location = TensorProto.EXTERNAL
    size = int(np.prod(dims)) * (8 if dtype == TensorProto.INT64 else 4)
    for key, value in (("location", location), ("offset", "0"), ("length", str(size))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return tensor


def leak_model(place: str, location: str) -> onnx.ModelProto:
    """y = x + w, where w (6 floats) is read from ``location`` through ``place``."""
    w = _external("w", location, [2, 3], TensorProto.FLOAT)
    nodes = [helper.make_node("Add", ["x", "w"], ["y"])]
    initializers: list[TensorProto] = []
    functions = []
    opsets = {"": OPSET}
    if place == "initializer":
        initializers.append(w)
    elif place == "constant":
        nodes.insert(0, helper.make_node("Constant", [], ["w"], value=w))
    elif place == "sparse_values":
        indices = numpy_helper.from_array(np.arange(6, dtype=np.int64), "i")
        sparse = helper.make_sparse_tensor(_external("w", location, [6], 1), indices, [2, 3])
        nodes.insert(0, helper.make_node("Constant", [], ["w"], sparse_value=sparse))
    elif place == "sparse_indices":
        values = numpy_helper.from_array(np.ones(2, np.float32), "v")
        indices = _external("i", location, [2], TensorProto.INT64)
        sparse = helper.make_sparse_tensor(values, indices, [2, 3])
        nodes.insert(0, helper.make_node("Constant", [], ["w"], sparse_value=sparse))
    elif place == "function_default":
        const = helper.make_node("Constant", [], ["out"])
        const.attribute.append(helper.make_attribute_ref("value", AttributeProto.TENSOR))
        default = helper.make_attribute("value", w)
        f = helper.make_function(
            "local",
            "Leak",
            [],
            ["out"],
            [const],
            [helper.make_opsetid("", OPSET)],
            attribute_protos=[default],
        )
        functions.append(f)
        opsets["local"] = 1
        nodes.insert(0, helper.make_node("Leak", [], ["w"], domain="local"))
    elif place == "subgraph":
        branch = helper.make_graph(
            [helper.make_node("Identity", ["w"], ["b"])],
            "branch",
            [],
            [tensor_info("b", [2, 3])],
            [w],
        )
        cond = numpy_helper.from_array(np.array(True), "cond")
        initializers.append(cond)
        nodes.insert(
            0, helper.make_node("If", ["cond"], ["w"], then_branch=branch, else_branch=branch)
        )
    else:
        raise ValueError(place)
    return make_model(
        nodes,
        [tensor_info("x", [2, 3])],
        [tensor_info("y", [2, 3])],
        initializers=initializers,
        opsets=opsets,
        functions=functions,
    )


LEAK_PLACES = (
    "initializer",
    "constant",
    "sparse_values",
    "sparse_indices",
    "function_default",
    "subgraph",
)


def _point_at_canary(folder: Path, canary: Path, how: str) -> str:
    """A location inside ``folder`` that reaches the canary ``how``; returns the location."""
    if how == "traversal":
        return os.path.relpath(canary, folder)
    if how == "absolute":
        return str(canary)
    if how == "symlink":
        (folder / "weights.bin").symlink_to(canary)
        return "weights.bin"
    if how == "symlinked_folder":
        (folder / "data").symlink_to(canary.parent, target_is_directory=True)
        return f"data/{canary.name}"
    if how == "hardlink":
        os.link(canary, folder / "weights.bin")
        return "weights.bin"
    raise ValueError(how)


POINTERS = ("traversal", "absolute", "symlink", "symlinked_folder", "hardlink")


def leak(place: str, how: str) -> Callable[[Path, Path], None]:
    def attack(folder: Path, canary: Path) -> None:
        for old in ("weights.bin", "data"):
            if (folder / old).is_symlink() or (folder / old).exists():
                _write(folder / old, b"")
                (folder / old).unlink()
        location = _point_at_canary(folder, canary, how)
        _save(leak_model(place, location), folder / "model.onnx")
        write_test_data(folder, X + 2.0)

    attack.__name__ = f"leak_{place}_{how}"
    return attack
