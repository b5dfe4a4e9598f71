"""The subprocess side of a perf run: ``python -m mlrelease.perf.worker TASK.json RESULT.json``.

Tasks:

* ``probe``: which frameworks can run here (and why not), and the environment (library
  versions, threads, GPU, driver, clocks);
* ``prepare``: build a model at one shape, save its batch-1 inputs and PyTorch output (the parity
  reference), and export it to ONNX once (dynamic batch axis, the profile's opset);
* ``run``: one combination: build (timed), first inference (timed), parity against the
  reference, warm-up, timed iterations.

A task writes its result JSON and exits 0 whatever the verdict; a crash, a hang or an
out-of-memory kill is read by the parent from the exit code and the log.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from mlrelease.edges import onnxruntime as ort
from mlrelease.perf.config import ONNX_FRAMEWORKS

OOM_MARKERS = (
    "out of memory",
    "outofmemory",
    "failed to allocate",
    "cuda_error_out_of_memory",
    "memoryerror",
    "std::bad_alloc",
)


def _set_threads(threads: int, *, torch_too: bool) -> None:
    if threads:
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            os.environ[name] = str(threads)
    if torch_too and _importable("torch"):
        import torch

        if threads:
            torch.set_num_threads(threads)
            torch.set_num_interop_threads(1)


def _call(function: Any) -> Any:
    """Call an untyped library function (keeps mypy strict elsewhere)."""
    return function()


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _error(exc: BaseException) -> tuple[str, str]:
    """(status hint, excerpt) for an exception: ``oom`` when it says so, else the caller's."""
    from mlrelease.perf.results import excerpt

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    oom = any(m in f"{type(exc).__name__} {exc}".lower() for m in OOM_MARKERS)
    return ("oom" if oom else ""), excerpt(text)


DISTRIBUTIONS = {
    "torch": ("torch",),
    "transformers": ("transformers",),
    "onnx": ("onnx",),
    "onnxruntime": ("onnxruntime", "onnxruntime-gpu"),
    "onnxscript": ("onnxscript",),
    "numpy": ("numpy",),
    "tensorrt": ("tensorrt", "tensorrt-cu13", "tensorrt-cu12"),
    "torch_tensorrt": ("torch-tensorrt", "torch_tensorrt"),
    "triton": ("triton",),
}


def _versions() -> dict[str, str]:
    """Installed versions, from package metadata (no imports: torch alone takes seconds)."""
    from importlib import metadata

    found: dict[str, str] = {}
    for name, distributions in DISTRIBUTIONS.items():
        for distribution in distributions:
            try:
                found[name] = metadata.version(distribution)
                if distribution != name:
                    found[name] += f" ({distribution})"
                break
            except metadata.PackageNotFoundError:
                continue
    return found


def probe(task: dict[str, Any]) -> dict[str, Any]:
    from mlrelease.perf import device, frameworks

    facts: dict[str, Any] = {"host": device.host(), "libraries": _versions()}
    unavailable = {
        f: r
        for f in task["frameworks"]
        if (r := frameworks.unavailable(f, task["device"])) is not None
    }
    gpu: dict[str, Any] = {}
    # torch takes seconds to import: only a CUDA profile needs it here (the device's facts).
    if task["device"] == "cuda" and _importable("torch"):
        import torch

        facts["torch_threads"] = torch.get_num_threads()
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            gpu = {
                "name": props.name,
                "memory_gib": round(props.total_memory / 2**30, 1),
                "capability": f"{props.major}.{props.minor}",
                "cuda": getattr(torch.version, "cuda", None),
                "cudnn": _call(torch.backends.cudnn.version),
            }
    if ort.installed():
        facts["onnxruntime_providers"] = ort.available_providers()
    smi = device.nvidia_smi()
    if smi:
        gpu["nvidia_smi"] = smi
    facts["gpu"] = gpu
    if task["device"] == "cuda" and gpu.get("name"):
        key, name = device.gpu_key(gpu["name"]), gpu["name"]
    elif task["device"] == "cuda":
        key, name = "cuda-none", "no CUDA device"
    else:
        key, name = device.cpu_key(), device.cpu_name()
    return {
        "device_key": key,
        "device_name": name,
        "environment": facts,
        "unavailable": unavailable,
    }


def prepare(task: dict[str, Any]) -> dict[str, Any]:
    import numpy as np
    import torch

    from mlrelease.perf.builders import build
    from mlrelease.perf.catalog import resolve_model

    work = Path(task["work_dir"])
    work.mkdir(parents=True, exist_ok=True)
    spec = resolve_model(task["model"])
    start = time.perf_counter()
    built = build(spec, task["shape"], task.get("layers"))
    if task["kind"] == "check":
        BUILT.append(built.module)
    with torch.inference_mode():
        reference = built.module(*(torch.from_numpy(v) for v in built.sample.values()))
    result: dict[str, Any] = {"build_s": time.perf_counter() - start}
    arrays: dict[str, Any] = {"__output__": reference.float().numpy(), **built.sample}
    np.savez(work / "reference.npz", **arrays)
    result["inputs"] = built.input_names
    if not task["export"]:
        return result
    start = time.perf_counter()
    try:
        batch = torch.export.Dim("batch", min=1, max=4096)
        program = torch.onnx.export(
            built.module,
            tuple(torch.from_numpy(v) for v in built.sample.values()),
            dynamo=True,
            opset_version=task["opset"],
            external_data=False,
            input_names=built.input_names,
            output_names=["features"],
            dynamic_shapes=tuple({0: batch} for _ in built.sample),
            verbose=False,
        )
        if program is None:
            raise RuntimeError("torch.onnx.export returned no program")
        program.save(str(work / "model.onnx"))
        import onnx

        model = onnx.load(str(work / "model.onnx"), load_external_data=False)
        result["onnx"] = {
            "ir_version": model.ir_version,
            "opsets": {o.domain or "ai.onnx": o.version for o in model.opset_import},
        }
    except Exception as exc:
        result["export_error"] = _error(exc)[1]
    result["export_s"] = time.perf_counter() - start
    return result


def run(task: dict[str, Any]) -> dict[str, Any]:
    import numpy as np

    from mlrelease.perf import frameworks

    work = Path(task["work_dir"])
    batch = int(task["batch"])
    with np.load(work / "reference.npz") as data:
        reference = data["__output__"]
        sample = {k: data[k] for k in data.files if k != "__output__"}
    # Samples of a batch are independent in inference: the batch is the batch-1 sample repeated,
    # and its reference output the batch-1 reference repeated, so one reference serves all.
    inputs = {k: np.ascontiguousarray(np.repeat(v, batch, axis=0)) for k, v in sample.items()}
    expected = np.repeat(reference, batch, axis=0)

    def build_model() -> Any:
        from mlrelease.perf.builders import build
        from mlrelease.perf.catalog import resolve_model

        if task["kind"] == "check" and BUILT:
            return BUILT[-1]  # a status probe reuses the model its prepare step built
        return build(resolve_model(task["model"]), task["shape"], task.get("layers")).module

    job = frameworks.Job(
        device=task["device"],
        threads=int(task["threads"]),
        inputs=inputs,
        output_shape=tuple(expected.shape),
        onnx_path=work / "model.onnx",
        work_dir=work,
        build_model=build_model,
    )
    out: dict[str, Any] = {"status": "ok"}
    start = time.perf_counter()
    try:
        runner = frameworks.build_runner(task["framework"], job)
    except Exception as exc:
        hint, text = _error(exc)
        return {
            "status": hint or "build_failed",
            "error": text,
            "build_s": time.perf_counter() - start,
        }
    out["build_s"] = time.perf_counter() - start
    out["extra"] = runner.facts
    try:
        start = time.perf_counter()
        runner.run()
        runner.sync()
        out["first_s"] = time.perf_counter() - start
        actual = runner.output()
    except Exception as exc:
        hint, text = _error(exc)
        return {**out, "status": hint or "runtime_error", "error": text}
    out["parity"] = parity = _parity(actual, expected)
    tolerance = float(task["parity_tolerance"])
    if not np.isfinite(parity) or parity > tolerance:
        found = (
            f"output shape {actual.shape}, expected {expected.shape}"
            if actual.shape != expected.shape
            else f"relative error {parity:.3g}"
        )
        return {
            **out,
            "status": "parity_failed",
            "error": f"{found} against PyTorch eager exceeds the tolerance {tolerance:g}",
        }
    return _measure(task, runner, out)


def _parity(actual: Any, expected: Any) -> float:
    """The relative error of ``actual`` against PyTorch eager's ``expected`` (inf when the
    shapes differ)."""
    import numpy as np

    scale = float(np.linalg.norm(expected))
    difference = (
        float(np.linalg.norm(actual.astype(np.float64) - expected))
        if (actual.shape == expected.shape)
        else float("inf")
    )
    return difference / scale if scale > 0 else difference


def _measure(task: dict[str, Any], runner: Any, out: dict[str, Any]) -> dict[str, Any]:
    """The timed iterations of a row that passed its parity check, with the facts of the CPU
    they ran on."""
    from mlrelease.perf import harness
    from mlrelease.perf.results import excerpt

    slowdown, slowdown_kind = _injected_slowdown(task["framework"])
    if slowdown:
        out["extra"] = {**out["extra"], "injected_slowdown": f"{slowdown:g} {slowdown_kind}"}
    from mlrelease.perf import device

    pinned = task.get("pinned_cpu")
    before = device.cpu_ticks(pinned)
    own0 = time.process_time()
    try:
        measured = harness.measure(
            runner.run,
            runner.sync,
            warmup_iters=int(task["warmup_iters"]),
            warmup_s=float(task["warmup_s"]),
            iters=int(task["iters"]),
            min_time_s=float(task["min_time_s"]),
            slowdown=slowdown,
            slowdown_kind=slowdown_kind,
            clock=task.get("clock", "wall"),
        )
    except Exception as exc:
        hint, text = _error(exc)
        return {**out, "status": hint or "runtime_error", "error": excerpt(text)}
    own = time.process_time() - own0
    walls = measured.wall_ns or measured.samples_ns
    delays = measured.delay_ns
    facts = device.round_facts(
        pinned,
        before,
        device.cpu_ticks(pinned),
        own,
        sum(delays) / max(sum(walls), 1) if delays else None,
    )
    if measured.wall_ns:
        ordered = sorted(measured.wall_ns)
        out["extra"] = {**out["extra"], "wall_median_ms": ordered[len(ordered) // 2] / 1e6}
    # Wall time less the time spent waiting for a CPU: what the code itself took, waits included.
    active = [w - d for w, d in zip(walls, delays, strict=True)] if delays else list(walls)
    return {
        **out,
        "samples_ns": measured.samples_ns,
        "active_wall_ns": active,
        "round_facts": facts,
        "warmup_iters": measured.warmup_iters,
    }


INJECT_ENV = "MLRELEASE_PERF_INJECT_SLOWDOWN"

BUILT: list[Any] = []
"""The model a ``check`` task's prepare step built (the PyTorch rows of the probe reuse it)."""


def _injected_slowdown(framework: str) -> tuple[float, str]:
    """``MLRELEASE_PERF_INJECT_SLOWDOWN=onnxruntime_cpu=0.10`` (CPU-burning) or
    ``...=0.25:wait`` (sleeping): a known regression, used only to validate the comparison
    (``scripts/bench_regression_gate.py``)."""
    setting = os.environ.get(INJECT_ENV, "")
    name, _, value = setting.partition("=")
    fraction, _, kind = value.partition(":")
    if name != framework or not fraction:
        return 0.0, ""
    return float(fraction), kind or "cpu"


def check(task: dict[str, Any]) -> dict[str, Any]:
    """The status probe of one model and shape in one process: build and export (``prepare``),
    then, per framework, load, first run, parity and a few iterations (``run``). No timing:
    the ``perf`` gate of ``release_verify`` uses it to give every row a status quickly."""
    prepared = prepare(task)
    runs: dict[str, Any] = {}
    for framework in task["frameworks"]:
        if prepared.get("export_error") and framework in ONNX_FRAMEWORKS:
            continue
        for batch in task["batches"]:
            runs[f"{batch}/{framework}"] = run({**task, "framework": framework, "batch": batch})
    return {"prepared": prepared, "runs": runs}


TASKS = {"probe": probe, "prepare": prepare, "run": run, "check": check}


def main(argv: list[str]) -> int:
    task_path, result_path = Path(argv[0]), Path(argv[1])
    task = json.loads(task_path.read_text(encoding="utf-8"))
    # An ONNX Runtime combination does not import torch at all (its own OpenMP, its own time).
    torch_too = task["kind"] != "run" or task["framework"] not in ONNX_FRAMEWORKS
    _set_threads(int(task.get("threads", 0)), torch_too=torch_too)
    if task.get("pin"):
        from mlrelease.perf.device import pin_to_one_cpu

        task["pinned_cpu"] = pin_to_one_cpu()
    result = TASKS[task["kind"]](task)
    result_path.write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
