"""The size of a model, measured on its bytes before anything parses them (pure).

A verification holds a fixed number of copies of a model, but each copy grows with its nodes:
onnx's Python objects take about 0.3 KB a node, onnx's C++ checker about 0.9 KB, an
onnxruntime session about 2.4 KB (a chain of 1,000,000 ``Identity`` nodes, 30 MB on disk: 2.4
GB in onnxruntime alone). So the node count is read first, from the protobuf wire format, with
no allocation per node, and a model over ``[tool.mlrelease.models] max-nodes`` is declined
before any parser, checker or runtime sees it. Nodes of the main graph, of every subgraph (``If``,
``Loop``, ``Scan``, any attribute holding a graph), of model-local functions and of training
graphs all count. The scan is iterative, so a 10,000-deep nesting of subgraphs costs no stack.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

# Length-delimited fields that hold messages which may hold nodes, per message kind
# (onnx.proto's field numbers): (field number) -> kind of the message it holds.
_CHILDREN: dict[str, dict[int, str]] = {
    "model": {7: "graph", 20: "training", 25: "function"},
    "graph": {1: "node"},
    "node": {5: "attribute"},
    "attribute": {6: "graph", 11: "graph"},
    "function": {7: "node", 11: "attribute"},
    "training": {1: "graph", 2: "graph"},
}


class NotProtobuf(ValueError):
    """The bytes are not a well-formed protobuf message."""


@dataclass(frozen=True)
class Size:
    """What the budget is checked against."""

    nodes: int
    """Nodes counted (stops one past the budget: a larger model is not scanned to its end)."""
    complete: bool
    """False when the count stopped at the budget."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise NotProtobuf("a varint runs past the end of the data")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes, pos: int, end: int) -> Iterator[tuple[int, int, int]]:
    """``(field number, start, end)`` of the length-delimited fields of one message."""
    while pos < end:
        key = data[pos]
        if key < 0x80:
            pos += 1
        else:
            key, pos = _varint(data, pos)
        wire = key & 7
        if wire == 2:
            length = data[pos] if pos < end else 0x80
            if length < 0x80:
                pos += 1
            else:
                length, pos = _varint(data, pos)
            if pos + length > end:
                raise NotProtobuf("a field runs past the end of its message")
            yield key >> 3, pos, pos + length
            pos += length
        elif wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise NotProtobuf(f"wire type {wire} at byte {pos}")
    if pos != end:
        raise NotProtobuf("a message ends inside a field")


def count_nodes(data: bytes, stop_after: int) -> Size:
    """Nodes in every graph of the serialized ``ModelProto`` ``data``, counted up to one past
    ``stop_after``. Raises :class:`NotProtobuf` on malformed bytes.

    Only messages that can hold nodes are opened; a node is opened for its attributes only
    (where subgraphs live), so the scan keeps no per-node state.
    """
    count = 0
    stack: list[tuple[str, int, int]] = [("model", 0, len(data))]
    while stack:
        kind, pos, end = stack.pop()
        children = _CHILDREN[kind]
        for number, start, stop in _fields(data, pos, end):
            child = children.get(number)
            if child == "node":
                count += 1
                if count > stop_after:
                    return Size(count, False)
                # An attribute field starts with the byte 0x2A; a node without one has none.
                if data.find(b"\x2a", start, stop) != -1:
                    stack.extend(
                        ("attribute", a, b) for n, a, b in _fields(data, start, stop) if n == 5
                    )
            elif child is not None:
                stack.append((child, start, stop))
    return Size(count, True)


def too_large(size_bytes: int, max_bytes: int, what: str = "the model") -> str:
    """The reason a model over the size budget is declined."""
    return (
        f"{what} is {size_bytes:,} bytes, more than the budget of {max_bytes:,} bytes "
        "([tool.mlrelease.models] max-model-bytes); declined before loading"
    )


def too_many_nodes(max_nodes: int) -> str:
    """The reason a model over the node budget is declined."""
    return (
        f"the model has more than {max_nodes:,} nodes (the budget, [tool.mlrelease.models] "
        "max-nodes, counted in every graph, subgraph and function); declined before loading"
    )
