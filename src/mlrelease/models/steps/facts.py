"""ONNX facts the steps share: graph inputs and outputs, the ai.onnx opset, IR features."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from onnx import ModelProto


def graph_inputs(model: ModelProto) -> list[Any]:
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def output_names(model: ModelProto) -> list[str]:
    return [o.name for o in model.graph.output]


def ai_onnx_opset(model: ModelProto) -> int | None:
    return next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)


# The IR version that introduced each feature a model may use (onnx.proto's Version comments).
TYPE_IR = {
    "BFLOAT16": 4,
    "FLOAT8E4M3FN": 9,
    "FLOAT8E4M3FNUZ": 9,
    "FLOAT8E5M2": 9,
    "FLOAT8E5M2FNUZ": 9,
    "UINT4": 10,
    "INT4": 10,
    "FLOAT4E2M1": 11,
    "FLOAT8E8M0": 12,
    "UINT2": 13,
    "INT2": 13,
    "FLOAT6E2M3": 14,
    "FLOAT6E3M2": 14,
}


def ir_features(model: ModelProto) -> list[tuple[int, str]]:
    """(IR version, feature) for every versioned IR feature the model uses."""
    from onnx import TensorProto

    used: dict[str, int] = {}

    def dtype(code: int, where: str) -> None:
        name = TensorProto.DataType.Name(code) if code in TensorProto.DataType.values() else ""
        if name in TYPE_IR:
            used.setdefault(f"type {name} ({where})", TYPE_IR[name])

    def value_type(t: Any, where: str) -> None:
        kind = t.WhichOneof("value")
        if kind == "tensor_type":
            dtype(t.tensor_type.elem_type, where)
        elif kind in ("optional_type", "sparse_tensor_type"):
            used.setdefault(f"{kind} ({where})", 8)
        if kind in ("sequence_type", "optional_type"):
            value_type(getattr(t, kind).elem_type, where)

    def graph(g: Any, where: str) -> None:
        for v in [*g.input, *g.output, *g.value_info]:
            value_type(v.type, f"{where} value '{v.name}'")
        for t in g.initializer:
            dtype(t.data_type, f"{where} initializer '{t.name}'")
        if g.sparse_initializer:
            used.setdefault(f"sparse initializers ({where})", 6)
        if g.quantization_annotation:
            used.setdefault(f"quantization annotations ({where})", 5)
        if g.metadata_props:
            used.setdefault(f"graph metadata_props ({where})", 10)
        for node in g.node:
            if node.overload:
                used.setdefault(f"node overload ({where} node '{node.name or node.op_type}')", 10)
            if node.metadata_props:
                used.setdefault(f"node metadata_props ({where})", 10)
            for attr in node.attribute:
                if attr.HasField("sparse_tensor") or attr.sparse_tensors:
                    used.setdefault(f"sparse tensor attribute ({where})", 6)
                if attr.HasField("t"):
                    dtype(attr.t.data_type, f"{where} node '{node.name or node.op_type}'")
                if attr.HasField("g"):
                    graph(attr.g, f"{where} > {node.op_type}.{attr.name}")
                for sub in attr.graphs:
                    graph(sub, f"{where} > {node.op_type}.{attr.name}")

    graph(model.graph, "graph")
    if model.training_info:
        used.setdefault("training_info", 7)
    if model.functions:
        used.setdefault("model-local functions", 8)
    for f in model.functions:
        if f.attribute_proto:
            used.setdefault(f"function attribute defaults ({f.name})", 9)
        if f.overload:
            used.setdefault(f"function overload ({f.name})", 10)
    if getattr(model, "configuration", None):
        used.setdefault("multi-device configuration", 11)
    initializers = {t.name for t in model.graph.initializer}
    inputs = {i.name for i in model.graph.input}
    if initializers - inputs:
        used.setdefault("initializers that are not graph inputs", 4)
    return sorted(((ir, feature) for feature, ir in used.items()), reverse=True)
