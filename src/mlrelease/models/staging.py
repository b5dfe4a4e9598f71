"""Step 0's reading: a model and its external data, each read once from the submission's open
folder (:class:`~mlrelease.models.safefile.Root`) into a private folder that every later step
uses. The submission's paths are never opened again.

In order: the model file is read once (its size and node count checked against the budget
before anything parses it, its declared checksum computed on those bytes); the bytes are parsed
without external data; one walk of the protobuf finds every tensor and every external data
reference (:mod:`mlrelease.models.integrity`); each referenced file, resolved inside the model's
folder, is copied from its checked descriptor next to the private copy of the model (holes stay
holes), with the digests its declarations need computed on the bytes copied; then offsets,
lengths and checksums are checked against the copies.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from mlrelease.models import budget, integrity
from mlrelease.models.integrity import ExternalRef, Findings
from mlrelease.models.safefile import Root, UnsafeFile

if TYPE_CHECKING:
    from onnx import ModelProto

MAX_PROTOBUF = integrity.MAX_PROTOBUF


@dataclass(frozen=True)
class Budget:
    """What a model may be before it is loaded (``[tool.mlrelease.models]``)."""

    max_nodes: int = 0
    """0: no node budget."""
    max_model_bytes: int = 0
    """0: no size budget. Counts the model file, plus its external data when a step that loads
    the weights runs (inference, version conversion, performance)."""
    loads_weights: bool = True


@dataclass
class Staged:
    """What step 0 read, and where the private copies are."""

    found: Findings = field(default_factory=Findings)
    header: ModelProto | None = None
    model: Path | None = None
    """The private copy of the model file (every later step opens this, never the original)."""
    external: dict[Path, Path] = field(default_factory=dict)
    """Private copy -> the file it was copied from (as named in the submission)."""
    nodes: int = 0
    size_bytes: int = 0
    """The model file plus its external data."""


def _read(root: Root, model: Path, limits: Budget, staged: Staged) -> bytes | None:
    """The model file's bytes, read once, within the protobuf limit and the budget (else None,
    and why in the findings). The node count is read from the bytes before anything parses them."""
    found = staged.found
    try:
        fd, info = root.open_file(model, "model")
        try:
            if info.st_size >= MAX_PROTOBUF:
                found.problems.append(
                    f"the model file is {info.st_size / 2**30:.1f} GiB; a protobuf cannot exceed "
                    "2 GiB, so weights must be stored as external data "
                    "(onnx.save(..., save_as_external_data=True))"
                )
                return None
            if limits.max_model_bytes and info.st_size > limits.max_model_bytes:
                found.problems.append(budget.too_large(info.st_size, limits.max_model_bytes))
                return None
            data = root.read_opened(fd, info, model, "model")
        finally:
            os.close(fd)
    except UnsafeFile as exc:
        found.problems.append(str(exc))
        return None
    if not data:
        found.problems.append("the model file is empty")
        return None
    try:
        size = budget.count_nodes(data, limits.max_nodes or len(data))
    except budget.NotProtobuf as exc:
        found.problems.append(f"not a valid ONNX protobuf (truncated or corrupt): {exc}")
        return None
    staged.nodes, staged.size_bytes = size.nodes, len(data)
    if limits.max_nodes and not size.complete:
        found.problems.append(budget.too_many_nodes(limits.max_nodes))
        return None
    return data


def _checksums(
    root: Root, checksums: dict[str, str], found: Findings
) -> dict[tuple[str, ...], str]:
    """Declared sha256 digests by the file's components below the folder."""
    own = {}
    for name, sha in sorted(checksums.items()):
        try:
            own[root.parts(Path(name), "checksummed file")] = sha
        except UnsafeFile as exc:
            found.problems.append(str(exc))
    return own


def stage_model(
    root: Root,
    model: Path,
    dest: Path,
    checksums: dict[str, str],
    max_elements: int,
    limits: Budget,
) -> Staged:
    """Every integrity check, on bytes read once; stops at the first check later ones need."""
    staged = Staged()
    found = staged.found
    data = _read(root, model, limits, staged)
    if data is None:
        return staged
    own = _checksums(root, checksums, found)
    model_parts = root.parts(model, "model")
    if model_parts in own:
        integrity.check_digest(model.name, own.pop(model_parts), data, found)
        if found.problems:
            return staged
    try:
        header = integrity.parse_header(data)
    except ValueError as exc:
        found.problems.append(str(exc))
        return staged
    refs: list[ExternalRef] = []
    for where, tensor in integrity.all_tensors(header):
        ref = integrity.check_tensor(where, tensor, max_elements, found)
        if ref is not None:
            refs.append(ref)
    dest.mkdir(parents=True, exist_ok=True)
    staged.model = dest / model.name
    staged.model.write_bytes(data)
    del data
    _copy_external(root, model_parts[:-1], dest, refs, own, limits, staged)
    for parts, expected in sorted(own.items()):  # other checksummed files: read once, compared
        try:
            found_sha = root.digest(Path(*parts), "checksummed file")
        except UnsafeFile as exc:
            found.problems.append(str(exc))
            continue
        integrity.compare_digest(parts[-1], expected, found_sha, found)
    found.problems.extend(integrity.check_value_shapes(header))
    cycle = integrity.function_cycle(list(header.functions))
    if cycle:
        found.problems.append(
            "model-local functions call each other recursively: " + " -> ".join(cycle)
        )
    staged.header = header
    return staged


def _copy_external(
    root: Root,
    folder: tuple[str, ...],
    dest: Path,
    refs: list[ExternalRef],
    own: dict[tuple[str, ...], str],
    limits: Budget,
    staged: Staged,
) -> None:
    """Copy each external data file once (from its checked descriptor) and check every
    reference against the copy."""
    found = staged.found
    by_file: dict[tuple[str, ...], list[ExternalRef]] = {}
    for ref in refs:
        by_file.setdefault(PurePosixPath(os.path.normpath(ref.location)).parts, []).append(ref)
    for parts, users in by_file.items():
        source = Path(*folder, *parts)
        wanted = ["sha1"] if any(r.checksum for r in users) else []
        if (*folder, *parts) in own:
            wanted.append("sha256")
        room = None
        if limits.max_model_bytes and limits.loads_weights:
            room = max(0, limits.max_model_bytes - staged.size_bytes)
        try:
            copy = root.copy(
                source, "external data file", dest.joinpath(*parts), max_bytes=room, digests=wanted
            )
        except UnsafeFile as exc:
            why = str(exc)
            if room is not None and "bytes allowed" in why:
                why += " (what is left of [tool.mlrelease.models] max-model-bytes)"
            found.problems.append(f"{users[0].where}: {why}")
            continue
        except OSError as exc:  # it collides with the model's own name, or another file's
            found.problems.append(
                f"{users[0].where}: external data location '{users[0].location}' cannot be "
                f"kept beside the model ({exc.strerror}): it names the model file itself, or a "
                "folder and a file at once"
            )
            continue
        staged.size_bytes += copy.size
        staged.external[copy.path] = root.path / source
        found.external_files.add(copy.path)
        if "sha256" in copy.digests:
            expected = own.pop((*folder, *parts))
            integrity.compare_digest(parts[-1], expected, copy.digests["sha256"], found)
        for ref in users:
            found.problems.extend(integrity.check_extent(ref, copy.size, copy.digests.get("sha1")))
