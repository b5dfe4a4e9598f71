"""Step 5's inputs: test data sets (``test_data_set_N`` folders or generated inputs) and
expected outputs, a submission's read only through the safe-file layer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mlrelease.models import integrity, safefile
from mlrelease.models.steps.facts import graph_inputs
from mlrelease.models.steps.state import Dataset, State, first_line

if TYPE_CHECKING:
    import numpy as np


def _read_tensor(path: Path, confine: Path | None) -> np.ndarray:
    """A test-data tensor (``.pb`` or ``.npy``); a submission's only through the safe-file layer."""
    import io

    import numpy as np
    import onnx
    from onnx import numpy_helper

    if confine is not None:
        data = safefile.read_bytes(path, confine, "test data file", safefile.MAX_TENSOR_FILE_BYTES)
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


def load_datasets(state: State) -> list[Dataset]:
    """Test inputs and expected outputs, from test_data_set folders or an input generator."""
    job = state.job
    assert state.header is not None
    inputs = graph_inputs(state.header)
    confine = Path(job.data_confine) if job.data_confine else None
    sets: list[Dataset] = []
    for folder in map(Path, job.test_data):
        if confine is not None and not integrity.inside(
            Path(os.path.realpath(folder)), Path(os.path.realpath(confine))
        ):
            raise ValueError(f"test data folder {folder} is outside the submission folder")
        if confine is not None and safefile.inside(folder, confine):
            expected_real = Path(os.path.realpath(confine)) / os.path.relpath(folder, confine)
            if Path(os.path.realpath(folder)) != Path(os.path.normpath(expected_real)):
                raise ValueError(
                    f"test data folder {folder} is reached through a symlink; links are "
                    "refused: store the test data in the folder itself"
                )
        files_in = sorted(folder.glob("input_*.pb"), key=_index)
        files_out = sorted(folder.glob("output_*.pb"), key=_index)
        if not files_in:
            raise ValueError(f"{folder} has no input_N.pb files")
        if len(files_in) != len(inputs):
            raise ValueError(f"{folder} has {len(files_in)} inputs; the graph takes {len(inputs)}")
        pairs = list(zip(inputs, files_in, strict=True))
        feeds = {value.name: _read_tensor(f, confine) for value, f in pairs}
        for value, file in pairs:
            problem = _shape_mismatch(value, list(feeds[value.name].shape))
            if problem:
                raise ValueError(f"{folder.name}/{file.name} {problem}")
        expected = [_read_tensor(f, confine) for f in files_out] or None
        sets.append(Dataset(folder.name, feeds, expected))
    if job.inputs == "onnx-backend-dummy":
        from onnx.backend.test.runner import Runner

        feeds = {}
        for value in inputs:
            dims = [
                d.dim_value if d.HasField("dim_value") else 1
                for d in value.type.tensor_type.shape.dim
            ]
            count = 1
            for d in dims:
                count *= d
            if count > job.max_input_elements:
                raise ValueError(
                    f"graph input '{value.name}' declares shape {dims} = {count:,} elements; "
                    f"generating it is refused (max-input-elements {job.max_input_elements:,})"
                )
            feeds[value.name] = Runner.generate_dummy_data(
                value, seed=0, name=job.name, random=False
            )
        expected = [_read_tensor(Path(p), confine) for p in job.expected_outputs] or None
        sets.append(Dataset("onnx-backend-dummy", feeds, expected))
    return sets


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
