"""Step 0's checks on a parsed model header, before anything allocates or runs it (pure).

One walk of the protobuf finds every tensor (:func:`all_tensors`); each is checked against its
shape, and each external data reference is validated (a relative location, free of ``..``,
inside the model's folder) and returned, so :mod:`.staging` reads every referenced file once and
checks offsets, lengths and checksums against what it read (:func:`check_extent`). Model-local
functions must not call each other in a cycle. The reading itself is :mod:`.staging`'s.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from mlrelease.models import safefile

if TYPE_CHECKING:
    from onnx import FunctionProto, ModelProto, TensorProto

MAX_PROTOBUF = 2**31
"""Protobuf's hard limit: larger models must keep their weights in external data."""

_BITS = {
    "FLOAT": 32,
    "UINT8": 8,
    "INT8": 8,
    "UINT16": 16,
    "INT16": 16,
    "INT32": 32,
    "INT64": 64,
    "BOOL": 8,
    "FLOAT16": 16,
    "DOUBLE": 64,
    "UINT32": 32,
    "UINT64": 64,
    "COMPLEX64": 64,
    "COMPLEX128": 128,
    "BFLOAT16": 16,
    "FLOAT8E4M3FN": 8,
    "FLOAT8E4M3FNUZ": 8,
    "FLOAT8E5M2": 8,
    "FLOAT8E5M2FNUZ": 8,
    "FLOAT8E8M0": 8,
    "UINT4": 4,
    "INT4": 4,
    "FLOAT4E2M1": 4,
    "UINT2": 2,
    "INT2": 2,
}

# Which typed field holds a tensor's values when it has no raw_data, and how many per element.
_FIELDS = {
    "FLOAT": ("float_data", 1),
    "COMPLEX64": ("float_data", 2),
    "DOUBLE": ("double_data", 1),
    "COMPLEX128": ("double_data", 2),
    "INT64": ("int64_data", 1),
    "STRING": ("string_data", 1),
    "UINT32": ("uint64_data", 1),
    "UINT64": ("uint64_data", 1),
}


@dataclass
class Findings:
    """Problems found (each a sentence naming the file, tensor or function) and facts learned."""

    problems: list[str] = field(default_factory=list)
    external_files: set[Path] = field(default_factory=set)
    """The private copies of the external data files (see :mod:`.staging`)."""
    tensors: int = 0
    largest: tuple[str, int] = ("", 0)


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (both taken as given: resolve first if needed)."""
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def check_file(
    path: Path,
    confine: Path,
    what: str = "model",
    *,
    hard_links: bool = False,
    max_bytes: int | None = None,
) -> str | None:
    """None when ``path`` is a regular, singly linked file inside ``confine``, reached without
    following a link (:mod:`.safefile`); else the problem."""
    return safefile.check(path, confine, what, max_bytes, hard_links=hard_links)


def load_header(path: Path, folder: Path | None = None, *, hard_links: bool = False) -> ModelProto:
    """The model protobuf without external data, read once through the safe-file layer (for a
    project's own models; a submission's are read by :mod:`.staging`). Raises ValueError."""
    folder = folder if folder is not None else path.parent
    try:
        data = safefile.read_bytes(path, folder, "model", MAX_PROTOBUF - 1, hard_links=hard_links)
    except safefile.UnsafeFile as exc:
        raise ValueError(str(exc)) from None
    if not data:
        raise ValueError("the model file is empty")
    return parse_header(data)


def parse_header(data: bytes) -> ModelProto:
    """A model's protobuf parsed from bytes already read (external data is never loaded).
    Raises ValueError naming what is wrong."""
    import onnx

    try:
        model = onnx.load_model_from_string(data)
    except Exception as exc:  # protobuf's DecodeError and onnx's own: all mean unreadable
        raise ValueError(
            f"not a valid ONNX protobuf (truncated or corrupt): {type(exc).__name__}: {exc}"
        ) from None
    if not model.HasField("graph") or model.ir_version <= 0:
        raise ValueError("the file parses but holds no ONNX model (no graph or no ir_version)")
    return model


def check_digest(name: str, expected: str, data: bytes, found: Findings) -> None:
    """A declared sha256 against bytes already read."""
    compare_digest(name, expected, hashlib.sha256(data).hexdigest(), found)


def compare_digest(name: str, expected: str, actual: str, found: Findings) -> None:
    if actual != expected:
        found.problems.append(
            f"checksum mismatch for {name}: declared sha256 {expected[:16]}..., "
            f"found {actual[:16]}... (the file changed, or the manifest is stale)"
        )


def _numel(dims: list[int]) -> int:
    return math.prod(dims) if dims else 1


def _label(item: Any, field_name: str, index: int | None) -> str:
    """``node 'conv1'``, ``initializer 'w'``, ``attribute 'value'``, ``graph[0]``: one step of a
    path into the model."""
    name = ""
    if field_name == "node":
        name = item.name or item.op_type
    elif hasattr(item, "name") and isinstance(item.name, str):
        name = item.name
    if name:
        return f"{field_name} '{name}'"
    return f"{field_name}[{index}]" if index is not None else field_name


def all_tensors(model: ModelProto) -> Iterator[tuple[str, TensorProto]]:
    """Every ``TensorProto`` anywhere in the model, with where it is.

    One generic walk of the protobuf, driven by its descriptors: initializers, every attribute of
    every node of every graph and subgraph (``t``, ``tensors``, ``sparse_tensor``,
    ``sparse_tensors``), sparse tensors' values *and* indices, function bodies and their
    attribute defaults, training info, and any field a future onnx adds: nothing that can point
    at external data is missed because it is not on a list. Lazy and iterative: it holds one
    position per level of nesting, never a list of a graph's nodes, and no Python stack.
    """
    stack = [_children(model, "")]
    while stack:
        pair = next(stack[-1], None)
        if pair is None:
            stack.pop()
            continue
        item, here = pair
        if item.DESCRIPTOR.full_name == "onnx.TensorProto":
            yield here, item
        else:
            stack.append(_children(item, here))


def _children(message: Any, where: str) -> Iterator[tuple[Any, str]]:
    """The sub-messages of ``message``, in field order, each with where it is."""
    for descriptor, value in message.ListFields():
        if descriptor.type != descriptor.TYPE_MESSAGE:
            continue
        repeated = not hasattr(value, "DESCRIPTOR")  # a repeated field's container
        items = enumerate(value) if repeated else iter([(None, value)])
        for index, item in items:
            step = _label(item, descriptor.name, index)
            yield item, f"{where} > {step}" if where else step


def _expected_bytes(tensor: TensorProto, numel: int) -> int | None:
    from onnx import TensorProto

    name = (
        TensorProto.DataType.Name(tensor.data_type)
        if tensor.data_type in TensorProto.DataType.values()
        else ""
    )
    bits = _BITS.get(name)
    return None if bits is None else (numel * bits + 7) // 8


def _external(tensor: TensorProto) -> dict[str, str]:
    return {entry.key: entry.value for entry in tensor.external_data}


@dataclass(frozen=True)
class ExternalRef:
    """One tensor's external data: where the tensor is, and what it says about its bytes."""

    where: str
    location: str
    """Relative to the model's folder, checked to stay inside it."""
    offset: int
    length: int | None
    expected: int | None
    """Bytes the shape needs (None for types of no fixed width)."""
    checksum: str
    """The ONNX spec's optional SHA-1 of the whole external file (lower case; empty: none)."""


def external_ref(
    where: str, tensor: TensorProto, numel: int
) -> tuple[list[str], ExternalRef | None]:
    """The external data reference of one tensor, or why it is refused (pure)."""
    info = _external(tensor)
    location = info.get("location", "")
    if not location:
        return [f"{where}: external data without a location"], None
    if "\x00" in location:
        return [f"{where}: external data location contains a NUL byte"], None
    posix, windows = PurePosixPath(location), PureWindowsPath(location)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or location.startswith("\\"):
        return [
            f"{where}: external data location '{location}' is an absolute path; it must be "
            "relative to the model's folder"
        ], None
    if ".." in posix.parts or ".." in windows.parts:
        return [
            f"{where}: external data location '{location}' climbs out of the model's folder "
            "with '..' (path traversal)"
        ], None
    if not [p for p in posix.parts if p not in ("", ".")]:
        return [f"{where}: external data location '{location}' names the folder itself"], None
    try:
        offset = int(info.get("offset", "0"))
        length = int(info["length"]) if "length" in info else None
    except ValueError:
        return [f"{where}: external data offset/length are not integers: {info}"], None
    if offset < 0 or (length is not None and length < 0):
        return [f"{where}: negative external data offset or length"], None
    expected = _expected_bytes(tensor, numel)
    checksum = info.get("checksum", "").lower()
    return [], ExternalRef(where, location, offset, length, expected, checksum)


def check_extent(ref: ExternalRef, size: int, sha1: str | None) -> list[str]:
    """One reference against the file it names (its size, and its SHA-1 when declared)."""
    problems = []
    if ref.checksum and sha1 != ref.checksum:
        problems.append(
            f"{ref.where}: {ref.location} does not match its declared SHA-1 checksum "
            f"{ref.checksum} (found {sha1})"
        )
    if ref.length is not None and ref.offset + ref.length > size:
        problems.append(
            f"{ref.where}: external data [{ref.offset}, {ref.offset + ref.length}) runs past the "
            f"end of {ref.location} ({size} bytes)"
        )
    elif ref.expected is not None and ref.length is not None and ref.length != ref.expected:
        problems.append(
            f"{ref.where}: external data length {ref.length} does not match the shape "
            f"(it needs {ref.expected} bytes)"
        )
    elif ref.expected is not None and ref.length is None and size - ref.offset < ref.expected:
        problems.append(
            f"{ref.where}: {ref.location} holds {size - ref.offset} bytes after offset "
            f"{ref.offset}; the shape needs {ref.expected}"
        )
    return problems


def check_tensor(
    where: str, tensor: TensorProto, max_elements: int, found: Findings
) -> ExternalRef | None:
    """Shape sanity and stored size against the shape, for one tensor; its external data
    reference (checked against its file later, by :mod:`.staging`), if any."""
    from onnx import TensorProto

    dims = list(tensor.dims)
    if any(d < 0 for d in dims):
        found.problems.append(f"{where}: negative dimension in shape {dims}")
        return None
    numel = _numel(dims)
    found.tensors += 1
    if numel > found.largest[1]:
        found.largest = (where, numel)
    if numel > max_elements:
        found.problems.append(
            f"{where}: shape {dims} has {numel:,} elements (2^{math.log2(numel):.1f}); more than "
            f"the limit of {max_elements:,} (max-tensor-elements): refused as absurd"
        )
        return None
    if tensor.data_location != TensorProto.EXTERNAL and len(tensor.external_data):
        found.problems.append(
            f"{where}: external_data entries on a tensor not marked EXTERNAL (data_location "
            f"{tensor.data_location}); a reader might still follow them: refused"
        )
        return None
    if tensor.data_location == TensorProto.EXTERNAL:
        problems, ref = external_ref(where, tensor, numel)
        found.problems.extend(problems)
        return ref
    expected = _expected_bytes(tensor, numel)
    if tensor.HasField("raw_data"):
        if expected is not None and len(tensor.raw_data) != expected:
            found.problems.append(
                f"{where}: raw_data holds {len(tensor.raw_data)} bytes but shape {dims} of "
                f"{TensorProto.DataType.Name(tensor.data_type)} needs {expected}"
            )
        return None
    name = (
        TensorProto.DataType.Name(tensor.data_type)
        if tensor.data_type in TensorProto.DataType.values()
        else ""
    )
    field_name, per = _FIELDS.get(name, ("int32_data", 1))
    count = len(getattr(tensor, field_name))
    if name in ("UINT4", "INT4", "FLOAT4E2M1"):
        wanted = (numel + 1) // 2
    elif name in ("UINT2", "INT2"):
        wanted = (numel + 3) // 4
    else:
        wanted = numel * per
    if count != wanted:
        found.problems.append(
            f"{where}: {field_name} holds {count} values but shape {dims} needs {wanted}"
        )
    return None


def check_value_shapes(model: ModelProto) -> list[str]:
    """Declared input/output/value shapes have no negative dimensions."""
    problems = []
    graph = model.graph
    for kind, values in (
        ("input", graph.input),
        ("output", graph.output),
        ("value_info", graph.value_info),
    ):
        for value in values:
            if value.type.HasField("tensor_type"):
                dims = [d.dim_value for d in value.type.tensor_type.shape.dim]
                if any(d < 0 for d in dims):
                    problems.append(f"graph {kind} '{value.name}': negative dimension in {dims}")
    return problems


def function_cycle(functions: list[FunctionProto]) -> list[str] | None:
    """A cycle of model-local function calls (names), or None."""
    key = {(f.domain, f.name, f.overload): f"{f.domain}::{f.name}" for f in functions}
    calls: dict[tuple[str, str, str], list[tuple[str, str, str]]] = {k: [] for k in key}
    for f in functions:
        for node in f.node:
            callee = (node.domain, node.op_type, node.overload)
            if callee in key:
                calls[(f.domain, f.name, f.overload)].append(callee)
    state: dict[tuple[str, str, str], int] = {}
    stack: list[tuple[str, str, str]] = []

    def visit(k: tuple[str, str, str]) -> list[str] | None:
        state[k] = 1
        stack.append(k)
        for callee in calls[k]:
            if state.get(callee) == 1:
                cycle = [*stack[stack.index(callee) :], callee]
                return [key[c] for c in cycle]
            if callee not in state:
                found = visit(callee)
                if found:
                    return found
        stack.pop()
        state[k] = 2
        return None

    for k in key:  # functions are few; recursion depth is bounded by their number
        if k not in state:
            found = visit(k)
            if found:
                return found
    return None
