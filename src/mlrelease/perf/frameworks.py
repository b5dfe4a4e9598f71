"""The frameworks of the matrix (worker side): availability, build, run, sync, output.

Each framework turns a built model (PyTorch) or the exported ONNX file into a :class:`Runner`
whose ``run`` does one inference on inputs already where they belong (on the GPU for CUDA
frameworks: no host-device copies in the timed loop), and whose ``sync`` waits for the device.
ONNX Runtime's CUDA and TensorRT providers run through IO binding with preallocated output
buffers on the device. The CUDA, TensorRT and Torch-TensorRT paths run only where a CUDA device
and those packages exist; elsewhere :func:`unavailable` says why and their rows are
``unavailable``.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mlrelease.edges import installed
from mlrelease.edges import onnxruntime as ort
from mlrelease.perf import precision
from mlrelease.perf.config import ONNX_FRAMEWORKS
from mlrelease.requirements import MissingDependency


@dataclass
class Runner:
    """One framework's compiled model bound to one batch of inputs."""

    run: Callable[[], object]
    sync: Callable[[], object]
    output: Callable[[], np.ndarray]
    """The output of the last ``run``, on the host, for the parity check."""
    facts: dict[str, Any] = field(default_factory=dict)
    handle: Any = None
    """The framework's own object (module, session), for benchmarks of the harness itself."""
    device_timer: Any = None
    """Device time of each timed iteration (:class:`CudaEvents` on a CUDA device), or None."""


class CudaEvents:
    """Device time of one iteration: CUDA events recorded around ``run`` on the current stream,
    read after the synchronisation (the GPU's own clock, beside the host's wall time)."""

    def __init__(self, torch: Any) -> None:
        self.begin = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def start(self) -> None:
        self.begin.record()

    def stop(self) -> None:
        self.end.record()

    def elapsed_ns(self) -> int:
        return int(self.begin.elapsed_time(self.end) * 1e6)


@dataclass
class RunnerSpec:
    """What a framework needs to build a runner."""

    device: str
    """The profile's device: ``cpu`` or ``cuda``."""
    threads: int
    inputs: dict[str, np.ndarray]
    output_shape: tuple[int, ...]
    onnx_path: Path
    work_dir: Path
    build_model: Callable[[], Any]
    """Builds the PyTorch module (torch frameworks only)."""
    precision: str = "strict"
    """The profile's numeric policy (:mod:`mlrelease.perf.precision`)."""
    cache: dict[str, Any] = field(default_factory=dict)
    """What later batches of the same worker reuse (a compiled module, its compile caches)."""


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _not_installed(module: str, extra: str = "perf") -> str:
    """Why a framework cannot run here when ``module`` is missing: an environment gap, with
    the install line that fits this environment."""
    missing = MissingDependency(module, needed_by="this framework", extra=extra)
    return str(missing.within(installed.environment()))


def _cuda_reason() -> str | None:
    if not _has("torch"):
        return _not_installed("torch")
    import torch

    if not torch.cuda.is_available():
        return "no CUDA device (torch.cuda.is_available() is False)"
    return None


def _ort_provider_reason(provider: str, package: str) -> str | None:
    if not ort.installed():
        return _not_installed("onnxruntime")
    if provider not in ort.available_providers():
        return (
            f"onnxruntime {ort.version()} has no {provider} (available: "
            f"{', '.join(ort.available_providers())}); install {package}"
        )
    return None


def unavailable(framework: str, device: str) -> str | None:
    """Why ``framework`` cannot run on this machine for a ``device`` profile (None: it can)."""
    if framework in ("pytorch", "torch_compile"):
        if not _has("torch"):
            return _not_installed("torch")
        if device == "cuda" and (reason := _cuda_reason()):
            return reason
        if framework == "torch_compile":
            import torch._dynamo

            if not getattr(torch._dynamo, "is_dynamo_supported", lambda: True)():
                return "torch.compile is not supported on this Python / platform"
            if device == "cpu" and not (shutil.which("g++") or shutil.which("c++")):
                return "torch.compile on the CPU needs a C++ compiler (no g++ / c++ on PATH)"
            if device == "cuda" and not _has("triton"):
                return "torch.compile on CUDA needs triton, which is not installed"
        return None
    if framework == "onnxruntime_cpu":
        return _ort_provider_reason(ort.CPU, "onnxruntime")
    if framework == "onnxruntime_cuda":
        return _ort_provider_reason(ort.CUDA, "onnxruntime-gpu") or _cuda_reason()
    if framework == "onnxruntime_tensorrt":
        reason = _ort_provider_reason(ort.TENSORRT, "onnxruntime-gpu")
        if reason is None and not _has("tensorrt"):
            reason = "the TensorRT execution provider needs the tensorrt package (not installed)"
        return reason or _cuda_reason()
    if framework == "torch_tensorrt":
        if not _has("torch_tensorrt"):
            return _not_installed("torch_tensorrt", "perf-gpu")
        return _cuda_reason()
    return f"unknown framework {framework!r}"


# --- PyTorch -----------------------------------------------------------------------------------


def _compiled(job: RunnerSpec, module: Any, compile_with: str, tensors: list[Any]) -> Any:
    """The module compiled by ``compile_with``: torch.compile once per worker (a static graph
    per batch size, kept in its caches), Torch-TensorRT per batch (its engine is static)."""
    import torch

    if compile_with == "torch_compile":
        if "torch_compile" not in job.cache:
            job.cache["torch_compile"] = torch.compile(module, dynamic=False)
        return job.cache["torch_compile"]
    import torch_tensorrt

    enabled = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(job.precision, torch.float32)
    return torch_tensorrt.compile(
        module,
        ir="dynamo",
        inputs=tensors,
        enabled_precisions={enabled},
        disable_tf32=job.precision != "tf32",
    )


def _torch_runner(job: RunnerSpec, compile_with: str | None) -> Runner:
    import torch

    torch_device = torch.device("cuda" if job.device == "cuda" else "cpu")
    facts: dict[str, Any] = {
        "torch": torch.__version__,
        "device": str(torch_device),
        "threads": torch.get_num_threads(),
        "precision": precision.apply_torch(job.precision),
    }
    module = job.build_model().to(torch_device)
    tensors = [torch.from_numpy(v).to(torch_device) for v in job.inputs.values()]
    if compile_with:
        module = _compiled(job, module, compile_with, tensors)
        facts["compile"] = (
            "torch.compile (inductor, default mode, dynamic=False)"
            if compile_with == "torch_compile"
            else f"torch_tensorrt {importlib.import_module('torch_tensorrt').__version__}"
        )
    result: dict[str, torch.Tensor] = {}
    autocast = precision.autocast(job.precision, torch_device.type)

    def run() -> None:
        with torch.inference_mode(), autocast:
            result["out"] = module(*tensors)

    def sync() -> None:
        if torch_device.type == "cuda":
            torch.cuda.synchronize()

    if compile_with:
        # Compilation happens at the first call: do it here, so it counts as build time.
        run()
        sync()

    def output() -> np.ndarray:
        return np.asarray(result["out"].detach().float().cpu().numpy())

    timer = CudaEvents(torch) if torch_device.type == "cuda" else None
    return Runner(run, sync, output, facts, handle=module, device_timer=timer)


# --- ONNX Runtime ------------------------------------------------------------------------------


def _session_options(threads: int) -> ort.Options:
    return ort.Options(
        intra_threads=threads,
        inter_threads=1 if threads else 0,
        sequential=True,
        optimize_all=True,
    )


def _ort_cpu_runner(job: RunnerSpec) -> Runner:
    session = ort.session(job.onnx_path, [ort.CPU], options=_session_options(job.threads))
    feeds = dict(job.inputs)
    names = [o.name for o in session.get_outputs()]
    result: dict[str, np.ndarray] = {}

    def run() -> None:
        result["out"] = session.run(names, feeds)[0]

    return Runner(
        run,
        lambda: None,
        lambda: np.asarray(result["out"]),
        {
            "onnxruntime": ort.version(),
            "providers": session.get_providers(),
            "intra_op_threads": job.threads or "default",
            "precision": precision.ort_facts(job.precision, "cpu"),
        },
        handle=session,
    )


def _tensorrt_options(job: RunnerSpec, input_names: list[str]) -> dict[str, Any]:
    """The TensorRT provider's options: this batch's shapes, the engine cache, the policy."""
    shapes = ",".join(
        f"{name}:{'x'.join(map(str, job.inputs[name].shape))}" for name in input_names
    )
    cache = job.work_dir / "trt-cache"
    cache.mkdir(parents=True, exist_ok=True)
    return {
        "device_id": 0,
        **precision.ort_tensorrt_options(job.precision),
        "trt_engine_cache_enable": True,
        "trt_engine_cache_path": str(cache),
        # The model has a dynamic batch axis: build the engine for exactly this batch.
        "trt_profile_min_shapes": shapes,
        "trt_profile_opt_shapes": shapes,
        "trt_profile_max_shapes": shapes,
    }


def _ort_gpu_runner(job: RunnerSpec, tensorrt: bool) -> Runner:
    wanted = ort.TENSORRT if tensorrt else ort.CUDA
    input_names, output_names = ort.io_names(job.onnx_path)
    providers: list[ort.Provider] = [
        (ort.CUDA, {"device_id": 0, **precision.ort_cuda_options(job.precision)})
    ]
    if tensorrt:
        providers.insert(0, (ort.TENSORRT, _tensorrt_options(job, input_names)))
    session = ort.session(job.onnx_path, providers, options=_session_options(job.threads))
    if session.get_providers()[0] != wanted:
        raise RuntimeError(
            f"{wanted} was requested but onnxruntime runs the session with "
            f"{session.get_providers()}"
        )
    # Inputs copied to the device once; outputs preallocated on the device: the timed loop
    # does no host-device traffic and no allocation.
    bound = ort.bind_on_device(session, job.inputs, input_names, output_names, job.output_shape)
    if tensorrt:
        # The TensorRT engine is built at the first run: count it as build time.
        bound.run()
        bound.sync()
    return Runner(
        bound.run,
        bound.sync,
        bound.output,
        {
            "onnxruntime": ort.version(),
            "providers": session.get_providers(),
            "io_binding": True,
            "precision": precision.ort_facts(job.precision, "tensorrt" if tensorrt else "cuda"),
            "device_time": "not recorded (ONNX Runtime runs on its own CUDA stream)",
        },
        handle=session,
    )


def build_runner(framework: str, job: RunnerSpec) -> Runner:
    """Build ``framework``'s runner for ``job`` (the timed build step of a combination)."""
    if framework == "pytorch":
        return _torch_runner(job, None)
    if framework in ("torch_compile", "torch_tensorrt"):
        return _torch_runner(job, framework)
    if framework == "onnxruntime_cpu":
        return _ort_cpu_runner(job)
    if framework in ("onnxruntime_cuda", "onnxruntime_tensorrt"):
        return _ort_gpu_runner(job, tensorrt=framework == "onnxruntime_tensorrt")
    raise ValueError(f"unknown framework {framework!r}")


def needs_onnx(framework: str) -> bool:
    return framework in ONNX_FRAMEWORKS
