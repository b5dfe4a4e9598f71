r"""Adopters' case folders, in onnx's own on-disk layout, read into :class:`~.cases.Case`\ s::

    cases/test_my_op/model.onnx
    cases/test_my_op/test_data_set_0/input_0.pb    # TensorProto / SequenceProto / OptionalProto
    cases/test_my_op/test_data_set_0/output_0.pb
    cases/test_my_op/data.json                     # optional: rtol, atol, op_type, domain

One folder per case, named after it; a case may hold several ``test_data_set_N`` folders.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mlrelease.errors import UserError
from mlrelease.ops.cases import Case, RawCase, as_numpy, finish


def load_case_folder(folder: Path) -> list[Case]:
    """Every case under ``folder`` (one sub-folder per case, onnx's on-disk layout)."""
    import onnx

    if not folder.is_dir():
        raise UserError(
            f"case set {folder}: expected a folder of cases (NAME/model.onnx, "
            "NAME/test_data_set_0/input_0.pb, output_0.pb), found "
            f"{'a file' if folder.exists() else 'nothing'}. Fix [tool.mlrelease.ops] case-sets."
        )
    raw: list[RawCase] = []
    for case_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        model_path = case_dir / "model.onnx"
        if not model_path.is_file():
            raise UserError(
                f"case {case_dir}: no model.onnx. Each case folder holds model.onnx "
                "and test_data_set_N/ folders of input_K.pb and output_K.pb."
            )
        try:
            model = onnx.load(str(model_path))
        except Exception as exc:
            raise UserError(
                f"case {case_dir}: model.onnx is not a valid ONNX model ({exc})."
            ) from None
        declared: dict[str, Any] = {}
        meta = case_dir / "data.json"
        if meta.is_file():
            try:
                declared = json.loads(meta.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise UserError(f"{meta}: not valid JSON ({exc}).") from None
        data_sets = []
        for data_dir in sorted(case_dir.glob("test_data_set_*")):
            inputs = _load_values(data_dir, "input", model.graph.input)
            outputs = _load_values(data_dir, "output", model.graph.output)
            data_sets.append((inputs, outputs))
        if not data_sets:
            raise UserError(f"case {case_dir}: no test_data_set_0 folder with inputs and outputs.")
        raw.append(
            (
                case_dir.name,
                model,
                data_sets,
                float(declared.get("rtol", 1e-3)),
                float(declared.get("atol", 1e-7)),
                declared,
                str(folder),
            )
        )
    if not raw:
        raise UserError(f"case set {folder}: no case folders in it.")
    return finish(raw)


def _load_values(data_dir: Path, kind: str, infos: Sequence[Any]) -> list[Any]:
    import onnx
    import onnx.numpy_helper as nh

    values = []
    files = sorted(data_dir.glob(f"{kind}_*.pb"), key=lambda p: int(p.stem.split("_")[-1]))
    for i, path in enumerate(files):
        if i >= len(infos):
            raise UserError(f"{path}: the model has only {len(infos)} {kind}s.")
        type_proto = infos[i].type
        content = path.read_bytes()
        if type_proto.HasField("sequence_type"):
            sequence = onnx.SequenceProto()
            sequence.ParseFromString(content)
            values.append(as_numpy(nh.to_list(sequence)))
        elif type_proto.HasField("optional_type"):
            optional = onnx.OptionalProto()
            optional.ParseFromString(content)
            values.append(as_numpy(nh.to_optional(optional)))
        else:
            tensor = onnx.TensorProto()
            tensor.ParseFromString(content)
            values.append(nh.to_array(tensor))
    return values
