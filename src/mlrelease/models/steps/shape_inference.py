"""Step 2: strict shape and type inference with data propagation."""

from __future__ import annotations

from pathlib import Path

from mlrelease.models.steps.state import State, first_line, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict


def strict_inference(path: Path, out: Path) -> tuple[str | None, int, int]:
    """(error, values with a complete shape, values) of strict inference with data propagation."""
    import onnx

    try:
        onnx.shape_inference.infer_shapes_path(
            str(path), str(out), check_type=True, strict_mode=True, data_prop=True
        )
    except Exception as exc:
        return str(exc), 0, 0
    inferred = onnx.load_model(str(out), load_external_data=False)
    values = [*inferred.graph.value_info, *inferred.graph.output]
    complete = sum(
        v.type.HasField("tensor_type")
        and v.type.tensor_type.HasField("shape")
        and all(
            d.HasField("dim_value") or d.HasField("dim_param") for d in v.type.tensor_type.shape.dim
        )
        for v in values
    )
    out.unlink(missing_ok=True)
    return None, complete, len(values)


def step_shape_inference(state: State) -> StepVerdict:
    error, complete, total = strict_inference(state.path, state.tmp / "inferred.onnx")
    if error is not None:
        return verdict(
            "shape_inference",
            StepStatus.FAIL,
            f"strict shape/type inference (data_prop): {first_line(error)}",
            error.splitlines(),
        )
    return verdict(
        "shape_inference",
        StepStatus.PASS,
        f"strict inference with type checks and data propagation: {complete}/{total} "
        "values fully shaped",
    )
