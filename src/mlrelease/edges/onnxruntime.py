"""The onnxruntime edge: every session, provider query, session option and IO binding.

Model verification (:mod:`mlrelease.models.runtimes`), the conformance workers
(:mod:`mlrelease.ops.backends`) and the perf workers (:mod:`mlrelease.perf.frameworks`)
create their sessions here, so what a session is given (providers, threads, determinism, the
CPU fallback) is set in one place. onnxruntime is imported lazily, inside functions: importing
this module imports nothing heavy, and a missing onnxruntime raises ImportError only when used.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

CPU = "CPUExecutionProvider"
CUDA = "CUDAExecutionProvider"
TENSORRT = "TensorrtExecutionProvider"

ERRORS_ONLY = 3
"""onnxruntime's log severity that prints errors only (probes trip many warnings)."""

Provider = str | tuple[str, Mapping[str, Any]]
"""An execution provider, alone or with its options."""


def module() -> Any:
    """The ``onnxruntime`` module; ImportError when it is not installed."""
    import onnxruntime

    return onnxruntime


def installed() -> bool:
    """Whether onnxruntime can be imported (asked without importing it)."""
    return importlib.util.find_spec("onnxruntime") is not None


def version() -> str:
    return str(module().__version__)


def available_providers() -> list[str]:
    """The execution providers this onnxruntime build has (not whether their device exists)."""
    return list(module().get_available_providers())


def quiet() -> None:
    """Log errors only, for every session of this process."""
    module().set_default_logger_severity(ERRORS_ONLY)


@dataclass(frozen=True)
class Options:
    """What a session is told besides its providers; the defaults are onnxruntime's own."""

    intra_threads: int = 0
    """Threads inside one operator (0: onnxruntime's default)."""
    inter_threads: int = 0
    """Threads across operators (0: onnxruntime's default)."""
    deterministic: bool = False
    """Deterministic kernels, so a result is the same run to run."""
    log_severity: int | None = None
    sequential: bool = False
    """Operators run one after the other (``ORT_SEQUENTIAL``)."""
    optimize_all: bool = False
    """Every graph optimisation (``ORT_ENABLE_ALL``)."""
    cpu_fallback: bool = True
    """False: a node the provider cannot run fails instead of running on the CPU."""

    def build(self) -> Any:
        """The ``onnxruntime.SessionOptions`` these stand for."""
        ort = module()
        options = ort.SessionOptions()
        if self.intra_threads:
            options.intra_op_num_threads = self.intra_threads
        if self.inter_threads:
            options.inter_op_num_threads = self.inter_threads
        if self.deterministic:
            options.use_deterministic_compute = True
        if self.log_severity is not None:
            options.log_severity_level = self.log_severity
        if self.sequential:
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        if self.optimize_all:
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if not self.cpu_fallback:
            options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        return options


def session(
    model: bytes | Path | str,
    providers: Sequence[Provider],
    *,
    options: Options | None = None,
    provider_options: Sequence[Mapping[str, Any]] | None = None,
) -> Any:
    """An ``onnxruntime.InferenceSession`` of ``model`` (serialized bytes, or a path whose
    external data lies beside it) on ``providers``; raises whatever onnxruntime raises."""
    ort = module()
    source = model if isinstance(model, bytes) else str(model)
    wanted = [p if isinstance(p, str) else (p[0], dict(p[1])) for p in providers]
    extra: dict[str, Any] = {}
    if provider_options is not None:
        extra["provider_options"] = [dict(o) for o in provider_options]
    built = None if options is None else options.build()
    return ort.InferenceSession(source, built, providers=wanted, **extra)


def io_names(model: bytes | Path | str) -> tuple[list[str], list[str]]:
    """The input and output names of ``model``, read by a CPU session."""
    probe = session(model, [CPU])
    return [i.name for i in probe.get_inputs()], [o.name for o in probe.get_outputs()]


@dataclass
class DeviceBinding:
    """A session bound to inputs and outputs that live on a CUDA device."""

    run: Callable[[], object]
    sync: Callable[[], object]
    output: Callable[[], np.ndarray]
    """The first output of the last ``run``, copied to the host."""


def bind_on_device(
    handle: Any,
    inputs: Mapping[str, np.ndarray],
    input_names: Sequence[str],
    output_names: Sequence[str],
    output_shape: Sequence[int],
    *,
    device_id: int = 0,
) -> DeviceBinding:
    """IO binding of session ``handle``: inputs copied to CUDA device ``device_id`` once, the
    first output (float32, ``output_shape``) preallocated there, so a run moves nothing between
    host and device and allocates nothing."""
    import numpy as np

    ort = module()
    binding = handle.io_binding()
    device_inputs = {
        name: ort.OrtValue.ortvalue_from_numpy(inputs[name], "cuda", device_id)
        for name in input_names
    }
    for name, value in device_inputs.items():
        binding.bind_ortvalue_input(name, value)
    output = ort.OrtValue.ortvalue_from_shape_and_type(
        list(output_shape), np.float32, "cuda", device_id
    )
    binding.bind_ortvalue_output(output_names[0], output)
    for extra in output_names[1:]:
        binding.bind_output(extra, "cuda", device_id)

    def run() -> None:
        handle.run_with_iobinding(binding)

    def sync() -> None:
        binding.synchronize_outputs()

    return DeviceBinding(run, sync, lambda: np.asarray(output.numpy()))
