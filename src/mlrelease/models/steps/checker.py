"""Step 1: ``onnx.checker`` with the full check."""

from __future__ import annotations

from mlrelease.models.steps.state import State, first_line, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict


def step_checker(state: State) -> StepVerdict:
    import onnx

    try:
        onnx.checker.check_model(str(state.path), full_check=True)
    except Exception as exc:  # ValidationError, InferenceError, ...: the checker's verdict
        return verdict(
            "checker", StepStatus.FAIL, f"onnx.checker (full check): {first_line(exc)}", [str(exc)]
        )
    return verdict(
        "checker", StepStatus.PASS, f"onnx.checker full check passes (onnx {onnx.__version__})"
    )
