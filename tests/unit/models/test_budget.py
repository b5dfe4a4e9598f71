"""The node budget (:mod:`mlrelease.models.budget`): nodes counted on a model's bytes, before
anything parses them, in every graph a model can hold."""

from __future__ import annotations

import pytest
from onnx import AttributeProto, TensorProto, helper

from mlrelease.models import budget


def _info(name: str) -> object:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])


def _chain(n: int, name: str = "g") -> object:
    nodes = [helper.make_node("Identity", [f"v{i}"], [f"v{i + 1}"]) for i in range(n)]
    return helper.make_graph(nodes, name, [_info("v0")], [_info(f"v{n}")])


def _model(graph: object, **kwargs: object) -> bytes:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], **kwargs)
    return model.SerializeToString()


def test_nodes_of_the_main_graph_are_counted() -> None:
    assert budget.count_nodes(_model(_chain(7)), 100) == budget.Size(7, True)


def test_counting_stops_one_past_the_budget() -> None:
    assert budget.count_nodes(_model(_chain(50)), 10) == budget.Size(11, False)


def test_subgraphs_functions_and_training_graphs_count() -> None:
    branch = _chain(5, "branch")
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=_chain(3, "e"))
    loop_body = helper.make_attribute("bodies", [_chain(2, "b1"), _chain(4, "b2")])
    custom = helper.make_node("Custom", ["x"], ["z"], domain="local")
    custom.attribute.append(loop_body)
    graph = helper.make_graph([node, custom], "g", [_info("c"), _info("x")], [_info("y")])
    function = helper.make_function(
        "local", "F", ["a"], ["b"], [helper.make_node("Identity", ["a"], ["b"])] * 6,
        [helper.make_opsetid("", 21)],
    )  # fmt: skip
    default = helper.make_attribute("g", _chain(2, "default"))
    assert default.type == AttributeProto.GRAPH
    function.attribute_proto.append(default)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.functions.append(function)
    training = model.training_info.add()
    training.algorithm.CopyFrom(_chain(9, "algorithm"))
    # 2 top + 5 + 3 + 2 + 4 (subgraphs) + 6 + 2 (function, its default) + 9 (training)
    assert budget.count_nodes(model.SerializeToString(), 1000) == budget.Size(33, True)


def _field(number: int, payload: bytes) -> bytes:
    assert len(payload) < 2**28
    length, size = bytearray(), len(payload)
    while True:
        byte, size = size & 0x7F, size >> 7
        length.append(byte | (0x80 if size else 0))
        if not size:
            break
    return bytes([number << 3 | 2]) + bytes(length) + payload


def test_deep_nesting_costs_no_python_stack() -> None:
    """10,000 nested subgraphs, written on the wire (protobuf's own parsers refuse the depth)."""
    graph = _field(1, _field(4, b"Identity"))  # a graph holding one node
    for _ in range(10_000):  # a graph whose one node's attribute holds the graph before
        graph = _field(1, _field(4, b"If") + _field(5, _field(1, b"then") + _field(6, graph)))
    assert budget.count_nodes(_field(7, graph), 10**6) == budget.Size(10_001, True)


@pytest.mark.parametrize(
    "data", [b"\x3a\xff", b"\x0a\x05ab", b"\x0f", b"\x3a\x02\x0a\x09"], ids=str
)
def test_malformed_bytes_are_refused(data: bytes) -> None:
    with pytest.raises(budget.NotProtobuf):
        budget.count_nodes(data, 10)


def test_reasons_name_the_budget_and_its_key() -> None:
    assert "more than 500,000 nodes" in budget.too_many_nodes(500_000)
    assert "max-nodes" in budget.too_many_nodes(1) and "declined before loading" in (
        budget.too_many_nodes(1)
    )
    assert "max-model-bytes" in budget.too_large(2**31, 2**30)
