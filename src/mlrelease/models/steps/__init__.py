"""The verification steps, as run inside the sandboxed worker (one model per process).

Each step returns a :class:`~mlrelease.models.verdicts.StepVerdict`; none reads outside what
step 0 (:mod:`.integrity`) cleared. Models are handled by path wherever onnx allows it, so a
model over 2 GB with external data never goes through a single protobuf in steps 1-4.
"""

from __future__ import annotations

from collections.abc import Callable

from mlrelease.models.steps.checker import step_checker
from mlrelease.models.steps.compat import step_compat
from mlrelease.models.steps.inference import step_inference
from mlrelease.models.steps.integrity import step_integrity
from mlrelease.models.steps.opset_imports import step_opset_imports
from mlrelease.models.steps.performance import step_performance
from mlrelease.models.steps.shape_inference import step_shape_inference
from mlrelease.models.steps.state import State
from mlrelease.models.steps.version_conversion import step_version_conversion
from mlrelease.models.verdicts import StepVerdict

STEP_FUNCTIONS: dict[str, Callable[[State], StepVerdict]] = {
    "integrity": step_integrity,
    "checker": step_checker,
    "shape_inference": step_shape_inference,
    "opset_imports": step_opset_imports,
    "compat": step_compat,
    "inference": step_inference,
    "version_conversion": step_version_conversion,
    "performance": step_performance,
}
