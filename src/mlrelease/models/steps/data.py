"""Step 5's inputs: test data sets (``test_data_set_N`` folders or generated inputs) and
expected outputs. An untrusted job's are listed and read once through its folder's open
descriptor (:class:`~mlrelease.models.safefile.Root`), never by path."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mlrelease.models import integrity, safefile
from mlrelease.models.safefile import Root
from mlrelease.models.steps.facts import graph_inputs
from mlrelease.models.steps.state import Dataset, State, first_line

if TYPE_CHECKING:
    import numpy as np


def _read_tensor(path: Path, root: Root | None) -> np.ndarray:
    """A test-data tensor (``.pb`` or ``.npy``), read once: through the job's folder (``root``:
    a submission's, or an untrusted model's), or by path for a project's own files."""
    import io

    import numpy as np
    import onnx
    from onnx import numpy_helper

    if root is not None:
        try:
            data = root.read_bytes(path, "test data file", safefile.MAX_TENSOR_FILE_BYTES)
        except safefile.UnsafeFile as exc:
            raise ValueError(str(exc)) from None
    else:
        if not path.is_file():
            raise ValueError(f"test data file {path} does not exist")
        if path.stat().st_size >= integrity.MAX_PROTOBUF:
            raise ValueError(f"test data file {path} is over 2 GiB")
        data = path.read_bytes()
    if path.suffix == ".npy":
        array: np.ndarray = np.load(io.BytesIO(data), allow_pickle=False)  # never unpickle
        return array
    try:
        tensor = onnx.load_tensor_from_string(data)
    except Exception as exc:
        raise ValueError(f"test data file {path} is not a TensorProto: {first_line(exc)}") from None
    if tensor.data_location == onnx.TensorProto.EXTERNAL or len(tensor.external_data):
        raise ValueError(f"test data file {path} refers to external data; store it inline")
    return numpy_helper.to_array(tensor)


def _listed(folder: Path, root: Root | None, prefix: str) -> list[Path]:
    """``PREFIX_N.pb`` files of a test data folder, in order; a submission's folder is listed
    through its open descriptor, never following a link."""
    if root is None:
        found = [p.name for p in folder.glob(f"{prefix}_*.pb")]
    else:
        try:
            found = [e.name for e in root.entries(folder, "test data folder")]
        except safefile.UnsafeFile as exc:
            raise ValueError(str(exc)) from None
    names = [n for n in found if n.startswith(f"{prefix}_") and n.endswith(".pb")]
    return sorted((folder / n for n in names), key=_index)


def _root(state: State) -> Root | None:
    """Where a job's test data is read through: its folder, unless the job is trusted."""
    return None if state.job.trusted else state.root


def load_datasets(state: State) -> list[Dataset]:
    """Test inputs and expected outputs, from test_data_set folders or an input generator."""
    job = state.job
    assert state.header is not None
    inputs = graph_inputs(state.header)
    root = _root(state)
    sets: list[Dataset] = []
    for folder in map(Path, job.test_data):
        if root is not None and not safefile.inside(folder, root.path):
            raise ValueError(f"test data folder {folder} is outside the submission folder")
        files_in, files_out = _listed(folder, root, "input"), _listed(folder, root, "output")
        if not files_in:
            raise ValueError(f"{folder} has no input_N.pb files")
        if len(files_in) != len(inputs):
            raise ValueError(f"{folder} has {len(files_in)} inputs; the graph takes {len(inputs)}")
        pairs = list(zip(inputs, files_in, strict=True))
        feeds = {value.name: _read_tensor(f, root) for value, f in pairs}
        for value, file in pairs:
            problem = _shape_mismatch(value, list(feeds[value.name].shape))
            if problem:
                raise ValueError(f"{folder.name}/{file.name} {problem}")
        expected = [_read_tensor(f, root) for f in files_out] or None
        sets.append(Dataset(folder.name, feeds, expected))
    if job.inputs == "onnx-backend-dummy":
        sets.append(_generated(state, inputs, root))
    return sets


def _generated(state: State, inputs: list[Any], root: Root | None) -> Dataset:
    """The deterministic inputs onnx's backend test runner feeds, with the declared outputs."""
    from onnx.backend.test.runner import Runner

    job = state.job
    feeds = {}
    for value in inputs:
        dims = [
            d.dim_value if d.HasField("dim_value") else 1 for d in value.type.tensor_type.shape.dim
        ]
        count = 1
        for d in dims:
            count *= d
        if count > job.max_input_elements:
            raise ValueError(
                f"graph input '{value.name}' declares shape {dims} = {count:,} elements; "
                f"generating it is refused (max-input-elements {job.max_input_elements:,})"
            )
        feeds[value.name] = Runner.generate_dummy_data(value, seed=0, name=job.name, random=False)
    expected = [_read_tensor(Path(p), root) for p in job.expected_outputs] or None
    return Dataset("onnx-backend-dummy", feeds, expected)


def _shape_mismatch(value: Any, got: list[int]) -> str | None:
    """Why an array of shape ``got`` cannot feed graph input ``value`` (None: it can)."""
    tensor = value.type.tensor_type
    if not tensor.HasField("shape"):
        return None
    declared = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
    fits = len(declared) == len(got) and all(
        d is None or d == g for d, g in zip(declared, got, strict=True)
    )
    if fits:
        return None
    shown = [d if d is not None else "?" for d in declared]
    return f"holds shape {got}, but graph input '{value.name}' declares {shown}"


def _index(path: Path) -> int:
    try:
        return int(path.stem.rsplit("_", 1)[1])
    except (IndexError, ValueError):
        return 1 << 30
