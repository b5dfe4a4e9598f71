"""A profile's numeric policy, applied explicitly in the worker (never a library's default).

* torch: the TF32 switches of matmuls and of cuDNN (convolutions, RNNs) are set on or off
  whatever their defaults (cuDNN's convolutions default to TF32 on a GPU), and ``fp16`` /
  ``bf16`` run the forward under :func:`torch.autocast`; the flags are read back from torch
  for the record.
* ONNX Runtime: the CUDA provider's ``use_tf32`` (on by default) and the TensorRT provider's
  ``trt_fp16_enable`` / ``trt_bf16_enable``; the exported model is fp32, so the CPU and CUDA
  providers run fp32 under an autocast policy (recorded as such).

The parity reference is computed under ``strict`` (:func:`strict_torch`) on the profile's
device, so a relaxed policy is measured against IEEE fp32.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

AUTOCAST = {"fp16": "float16", "bf16": "bfloat16"}
"""Policies that run torch's forward under autocast, and the dtype."""

STRICT = "strict"


def _torch_flags(torch: Any) -> dict[str, Any]:
    """The TF32 switches as torch reports them now (the new per-backend API where it exists)."""
    backends = torch.backends
    if hasattr(backends.cuda.matmul, "fp32_precision"):
        return {
            "cuda_matmul_fp32_precision": backends.cuda.matmul.fp32_precision,
            "cudnn_conv_fp32_precision": backends.cudnn.conv.fp32_precision,
            "cudnn_rnn_fp32_precision": backends.cudnn.rnn.fp32_precision,
        }
    return {
        "cuda_matmul_allow_tf32": bool(backends.cuda.matmul.allow_tf32),
        "cudnn_allow_tf32": bool(backends.cudnn.allow_tf32),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
    }


def apply_torch(policy: str) -> dict[str, Any]:
    """Set torch's TF32 switches for ``policy`` (on for ``tf32`` only) and return what torch
    reports afterwards, with the autocast dtype (None: fp32)."""
    import torch

    backends = torch.backends
    tf32 = policy == "tf32"
    if hasattr(backends.cuda.matmul, "fp32_precision"):
        # torch >= 2.9: one switch per backend and operator; mixing it with the legacy flags is
        # an error, so only the new API is used where it exists.
        value = "tf32" if tf32 else "ieee"
        backends.cuda.matmul.fp32_precision = value
        backends.cudnn.conv.fp32_precision = value
        backends.cudnn.rnn.fp32_precision = value
    else:  # pragma: no cover - torch before 2.9 (the lowest-direct lane)
        backends.cuda.matmul.allow_tf32 = tf32
        backends.cudnn.allow_tf32 = tf32
        torch.set_float32_matmul_precision("high" if tf32 else "highest")
    return {"policy": policy, "autocast": AUTOCAST.get(policy), **_torch_flags(torch)}


def autocast(policy: str, device: str) -> contextlib.AbstractContextManager[Any]:
    """The context torch's forward runs in under ``policy`` (autocast for fp16 / bf16)."""
    if policy not in AUTOCAST:
        return contextlib.nullcontext()
    import torch

    context: contextlib.AbstractContextManager[Any] = torch.autocast(
        device_type=device, dtype=getattr(torch, AUTOCAST[policy])
    )
    return context


@contextlib.contextmanager
def strict_torch() -> Iterator[dict[str, Any]]:
    """Run under the strict policy (the parity reference), then restore the switches."""
    import torch

    before = _torch_flags(torch)
    try:
        yield apply_torch(STRICT)
    finally:
        backends = torch.backends
        if "cuda_matmul_fp32_precision" in before:
            backends.cuda.matmul.fp32_precision = before["cuda_matmul_fp32_precision"]
            backends.cudnn.conv.fp32_precision = before["cudnn_conv_fp32_precision"]
            backends.cudnn.rnn.fp32_precision = before["cudnn_rnn_fp32_precision"]
        else:  # pragma: no cover - torch before 2.9
            backends.cuda.matmul.allow_tf32 = before["cuda_matmul_allow_tf32"]
            backends.cudnn.allow_tf32 = before["cudnn_allow_tf32"]
            torch.set_float32_matmul_precision(before["float32_matmul_precision"])


def ort_cuda_options(policy: str) -> dict[str, Any]:
    """The CUDA execution provider's options for ``policy`` (``use_tf32`` defaults to on)."""
    return {"use_tf32": "1" if policy == "tf32" else "0"}


def ort_tensorrt_options(policy: str) -> dict[str, Any]:
    """The TensorRT execution provider's precision options for ``policy``."""
    options: dict[str, Any] = {"trt_fp16_enable": policy == "fp16"}
    if policy == "bf16":  # an option of recent ONNX Runtime releases only: named when wanted
        options["trt_bf16_enable"] = True
    return options


def ort_facts(policy: str, provider: str) -> dict[str, Any]:
    """What an ONNX Runtime session runs under ``policy`` (for the row's record)."""
    facts: dict[str, Any] = {"policy": policy}
    if provider == "cuda":
        facts.update(ort_cuda_options(policy))
    elif provider == "tensorrt":
        facts.update(ort_tensorrt_options(policy))
        facts["tf32"] = "TensorRT's own choice (ONNX Runtime has no switch for it)"
    if policy in AUTOCAST and provider != "tensorrt":
        facts["runs"] = "fp32 (the exported model is fp32; ONNX Runtime has no autocast)"
    return facts
