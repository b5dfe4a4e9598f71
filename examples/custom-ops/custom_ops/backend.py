"""``CustomOpsBackend``: an ``onnx.backend.base.Backend`` for ``com.example.custom``.

It runs models on onnx's reference evaluator with the domain's kernels plugged in, the way an
adopter would wrap its own runtime or converter. ``mlrelease ops`` loads it by import path
(``custom_ops.backend:CustomOpsBackend``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import OpRun

from custom_ops import DOMAIN, OPSET


class Swish(OpRun):
    op_domain = DOMAIN

    def _run(self, x: np.ndarray, alpha: float | None = None) -> tuple[np.ndarray]:
        alpha = 1.0 if alpha is None else alpha
        return ((x / (1 + np.exp(-alpha * x))).astype(x.dtype),)


class FastGelu(OpRun):
    op_domain = DOMAIN

    def _run(self, x: np.ndarray) -> tuple[np.ndarray]:
        inner = np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)
        return ((0.5 * x * (1 + np.tanh(inner))).astype(x.dtype),)


class LayerScale(OpRun):
    op_domain = DOMAIN

    def _run(self, x: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray]:
        return ((x * gamma).astype(x.dtype),)


KERNELS: dict[int, list[type[OpRun]]] = {1: [Swish, FastGelu], 2: [Swish, FastGelu, LayerScale]}


class CustomOpsRep(BackendRep):
    def __init__(self, evaluator: ReferenceEvaluator) -> None:
        self.evaluator = evaluator

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        feeds = dict(zip(self.evaluator.input_names, inputs, strict=False))
        return tuple(self.evaluator.run(None, feeds))


class CustomOpsBackend(Backend):
    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> CustomOpsRep:
        opset = next((o.version for o in model.opset_import if o.domain == DOMAIN), None)
        if opset is not None and opset > OPSET:
            raise NotImplementedError(f"{DOMAIN} opset {opset} is not supported (newest: {OPSET})")
        kernels = KERNELS.get(opset or OPSET, KERNELS[OPSET])
        return CustomOpsRep(ReferenceEvaluator(model, new_ops=kernels))
