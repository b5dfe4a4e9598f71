"""Step 0: checks on an untrusted model file before anything parses, allocates or runs it.

Each check reads only what it must: file metadata first, then the model protobuf *without*
external data (a >2 GB model's graph is small; its weights are never loaded here). External
data locations must be relative, free of ``..``, and name a regular file inside the
model's folder, so no later step can be steered into reading elsewhere or
into blocking on a pipe or device. Declared sizes must match shapes, and shapes must be sane,
before any step allocates them. Model-local functions must not call each other in a cycle.
"""

from __future__ import annotations

import hashlib
import math
import os
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
    tensors: int = 0
    largest: tuple[str, int] = ("", 0)


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it (both taken as given: resolve first if needed)."""
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


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


def sha256(path: Path, folder: Path | None = None, *, hard_links: bool = False) -> str:
    """SHA-256 of a file, read through the safe-file layer when ``folder`` confines it."""
    if folder is not None:
        return safefile.digest(path, folder, "file", hard_links=hard_links)
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


_SHA1: dict[Path, str] = {}


def _sha1(path: Path, folder: Path, hard_links: bool) -> str:
    """SHA-1 of a file, once per file (many tensors may share one external data file)."""
    if path not in _SHA1:
        _SHA1[path] = safefile.digest(
            path, folder, "external data file", "sha1", hard_links=hard_links
        )
    return _SHA1[path]


def check_checksums(
    declared: dict[str, str], folder: Path, *, hard_links: bool = False
) -> list[str]:
    """Every declared sha256 matches its file, which must be inside ``folder``."""
    problems = []
    for name, expected in sorted(declared.items()):
        path = Path(name)
        try:
            found = safefile.digest(path, folder, "checksummed file", hard_links=hard_links)
        except safefile.UnsafeFile as exc:
            problems.append(str(exc))
            continue
        if found != expected:
            problems.append(
                f"checksum mismatch for {path.name}: declared sha256 {expected[:16]}..., "
                f"found {found[:16]}... (the file changed, or the manifest is stale)"
            )
    return problems


def load_header(path: Path, folder: Path | None = None, *, hard_links: bool = False) -> ModelProto:
    """The model protobuf without external data. Raises ValueError naming the problem.

    With ``folder``, the file is read through the safe-file layer (confined, no links).
    """
    import onnx

    folder = folder if folder is not None else path.parent
    size = safefile.size(path, folder, "model", hard_links=hard_links)
    if size >= MAX_PROTOBUF:
        raise ValueError(
            f"the model file is {size / 2**30:.1f} GiB; a protobuf cannot exceed 2 GiB, so "
            "weights must be stored as external data (onnx.save(..., save_as_external_data=True))"
        )
    if size == 0:
        raise ValueError("the model file is empty")
    data = safefile.read_bytes(path, folder, "model", MAX_PROTOBUF - 1, hard_links=hard_links)
    try:
        model = onnx.load_model_from_string(data)
    except Exception as exc:  # protobuf's DecodeError and onnx's own: all mean unreadable
        raise ValueError(
            f"not a valid ONNX protobuf (truncated or corrupt): {type(exc).__name__}: {exc}"
        ) from None
    if not model.HasField("graph") or model.ir_version <= 0:
        raise ValueError("the file parses but holds no ONNX model (no graph or no ir_version)")
    return model


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
    at external data is missed because it is not on a list.
    """
    stack: list[tuple[Any, str]] = [(model, "")]
    while stack:
        message, where = stack.pop()
        for descriptor, value in message.ListFields():
            if descriptor.type != descriptor.TYPE_MESSAGE:
                continue
            repeated = not hasattr(value, "DESCRIPTOR")  # a repeated field's container
            items = list(enumerate(value)) if repeated else [(None, value)]
            for index, item in reversed(items):
                step = _label(item, descriptor.name, index)
                here = f"{where} > {step}" if where else step
                if item.DESCRIPTOR.full_name == "onnx.TensorProto":
                    yield here, item
                else:
                    stack.append((item, here))


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


def check_external(
    where: str, tensor: TensorProto, numel: int, folder: Path, *, hard_links: bool = False
) -> tuple[list[str], Path | None]:
    """External data of one tensor: location confined to ``folder``, offsets within the file."""
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
    path = folder / location
    try:
        size = safefile.size(path, folder, "external data file", hard_links=hard_links)
    except safefile.UnsafeFile as exc:
        return [f"{where}: {exc}"], None
    problems = []
    try:
        offset = int(info.get("offset", "0"))
        length = int(info["length"]) if "length" in info else None
    except ValueError:
        return [f"{where}: external data offset/length are not integers: {info}"], None
    expected = _expected_bytes(tensor, numel)
    if "checksum" in info:  # the ONNX spec's optional SHA-1 of the whole external file
        found_sha1 = _sha1(path, folder, hard_links)
        if found_sha1 != info["checksum"].lower():
            problems.append(
                f"{where}: {location} does not match its declared SHA-1 checksum "
                f"{info['checksum']} (found {found_sha1})"
            )
    if offset < 0 or (length is not None and length < 0):
        problems.append(f"{where}: negative external data offset or length")
    elif length is not None and offset + length > size:
        problems.append(
            f"{where}: external data [{offset}, {offset + length}) runs past the end "
            f"of {location} ({size} bytes)"
        )
    elif expected is not None and length is not None and length != expected:
        problems.append(
            f"{where}: external data length {length} does not match the shape "
            f"({numel} elements need {expected} bytes)"
        )
    elif expected is not None and length is None and size - offset < expected:
        problems.append(
            f"{where}: {location} holds {size - offset} bytes after offset {offset}; "
            f"the shape needs {expected}"
        )
    return problems, _real(path)


def check_tensor(
    where: str,
    tensor: TensorProto,
    folder: Path,
    max_elements: int,
    found: Findings,
    *,
    hard_links: bool = False,
) -> None:
    """Shape sanity and stored size against the shape, for one tensor."""
    from onnx import TensorProto

    dims = list(tensor.dims)
    if any(d < 0 for d in dims):
        found.problems.append(f"{where}: negative dimension in shape {dims}")
        return
    numel = _numel(dims)
    found.tensors += 1
    if numel > found.largest[1]:
        found.largest = (where, numel)
    if numel > max_elements:
        found.problems.append(
            f"{where}: shape {dims} has {numel:,} elements (2^{math.log2(numel):.1f}); more than "
            f"the limit of {max_elements:,} (max-tensor-elements): refused as absurd"
        )
        return
    if tensor.data_location != TensorProto.EXTERNAL and len(tensor.external_data):
        found.problems.append(
            f"{where}: external_data entries on a tensor not marked EXTERNAL (data_location "
            f"{tensor.data_location}); a reader might still follow them: refused"
        )
        return
    if tensor.data_location == TensorProto.EXTERNAL:
        problems, real = check_external(where, tensor, numel, folder, hard_links=hard_links)
        found.problems.extend(problems)
        if real is not None:
            found.external_files.add(real)
        return
    expected = _expected_bytes(tensor, numel)
    if tensor.HasField("raw_data"):
        if expected is not None and len(tensor.raw_data) != expected:
            found.problems.append(
                f"{where}: raw_data holds {len(tensor.raw_data)} bytes but shape {dims} of "
                f"{TensorProto.DataType.Name(tensor.data_type)} needs {expected}"
            )
        return
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


def check_model(
    model_path: Path,
    confine: Path,
    checksums: dict[str, str],
    max_elements: int,
    *,
    hard_links: bool = False,
) -> tuple[Findings, ModelProto | None]:
    """Every integrity check, in order; stops at the first check later ones depend on.

    ``hard_links``: the project's own (trusted) models may be hard-linked by an installer.
    """
    found = Findings()
    problem = check_file(model_path, confine, "model", hard_links=hard_links)
    if problem:
        found.problems.append(problem)
        return found, None
    folder = Path(os.path.normpath(model_path.parent))
    found.problems.extend(check_checksums(checksums, folder, hard_links=hard_links))
    if found.problems:
        return found, None
    try:
        header = load_header(model_path, folder, hard_links=hard_links)
    except ValueError as exc:
        found.problems.append(str(exc))
        return found, None
    for where, tensor in all_tensors(header):
        check_tensor(where, tensor, folder, max_elements, found, hard_links=hard_links)
    found.problems.extend(check_value_shapes(header))
    cycle = function_cycle(list(header.functions))
    if cycle:
        found.problems.append(
            "model-local functions call each other recursively: " + " -> ".join(cycle)
        )
    return found, header
