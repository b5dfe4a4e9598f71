"""The subprocess side of a perf run: ``python -m mlrelease.perf.worker TASK.json RESULT.json``.

Tasks:

* ``probe``: which frameworks can run here (and why not), and the environment (library
  versions, threads, GPU, driver, clocks);
* ``prepare``: build a model at one shape, save its batch-1 inputs and PyTorch output (the parity
  reference), and export it to ONNX once (dynamic batch axis, the profile's opset);
* ``run``: one model and framework at every batch size asked (one import, one model build,
  the export shared): per batch, build the runner (timed), first inference (timed), parity
  against the reference, then warm-up and timed iterations whatever the parity (a parity
  failure is reported beside the timing, never instead of it).

Every task runs under the profile's numeric policy (:mod:`mlrelease.perf.precision`), applied
explicitly and recorded. A task writes its result JSON and exits 0 whatever the verdict; a
``run`` rewrites it after each batch, so a crash (read by the parent from the exit code and the
log) loses only the batch it happened in.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from mlrelease.perf import inject, probe
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
    if torch_too and probe.importable("torch"):
        import torch

        if threads:
            torch.set_num_threads(threads)
            torch.set_num_interop_threads(1)


def _error(exc: BaseException) -> tuple[str, str]:
    """(status hint, excerpt) for an exception: ``oom`` when it says so, else the caller's."""
    from mlrelease.perf.results import excerpt

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    oom = any(m in f"{type(exc).__name__} {exc}".lower() for m in OOM_MARKERS)
    return ("oom" if oom else ""), excerpt(text)


def prepare(task: dict[str, Any]) -> dict[str, Any]:
    """Build the model once, save its batch-1 inputs and the parity reference (computed on the
    profile's device under the strict policy), and export it to ONNX."""
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
    output, facts = reference(built.module, built.sample, task.get("device", "cpu"))
    result: dict[str, Any] = {"build_s": time.perf_counter() - start, "reference": facts}
    np.savez(work / "reference.npz", **{"__output__": output, **built.sample})
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


def reference(module: Any, sample: dict[str, Any], device: str) -> tuple[Any, dict[str, Any]]:
    """PyTorch eager's output for ``sample`` on the profile's ``device`` under the strict
    policy (IEEE fp32, no autocast), on the host; and where and how it was computed, read from
    the output tensor and from torch's switches."""
    import torch

    from mlrelease.perf import precision

    target = torch.device("cuda" if device == "cuda" else "cpu")
    with precision.strict_torch() as policy, torch.inference_mode():
        out = module.to(target)(*(torch.from_numpy(v).to(target) for v in sample.values()))
        if target.type == "cuda":
            torch.cuda.synchronize()
    module.to("cpu")  # the export and the CPU rows take the module where they found it
    facts = {"device": str(out.device), "dtype": str(out.dtype), "precision": policy}
    return out.float().cpu().numpy(), facts


def run(task: dict[str, Any], result_path: Path | None = None) -> dict[str, Any]:
    """Every batch of ``task["batches"]`` for one model and framework, in this process; the
    result file is rewritten after each (a crash loses only the batch it happened in)."""
    from mlrelease.perf import frameworks

    work = Path(task["work_dir"])
    models: list[Any] = []

    def build_model() -> Any:
        from mlrelease.perf.builders import build
        from mlrelease.perf.catalog import resolve_model

        if task["kind"] == "check" and BUILT:
            return BUILT[-1]  # a status probe reuses the model its prepare step built
        if not models:  # one build per worker: every batch size runs the same module
            models.append(build(resolve_model(task["model"]), task["shape"], task.get("layers")))
        return models[0].module

    cache: dict[str, Any] = {}
    rows: dict[str, Any] = {}
    for batch in task["batches"]:
        job, expected = _job(task, work, int(batch), build_model, cache)
        rows[str(batch)] = _one(task, job, expected, frameworks)
        rows[str(batch)]["models_built"] = len(models)
        if result_path is not None:
            result_path.write_text(json.dumps({"rows": rows}), encoding="utf-8")
    return {"rows": rows}


def _job(
    task: dict[str, Any], work: Path, batch: int, build_model: Any, cache: dict[str, Any]
) -> tuple[Any, Any]:
    """The framework job of one batch size, and its expected output."""
    import numpy as np

    from mlrelease.perf import frameworks

    with np.load(work / "reference.npz") as data:
        expected = data["__output__"]
        sample = {k: data[k] for k in data.files if k != "__output__"}
    # Samples of a batch are independent in inference: the batch is the batch-1 sample repeated,
    # and its reference output the batch-1 reference repeated, so one reference serves all.
    inputs = {k: np.ascontiguousarray(np.repeat(v, batch, axis=0)) for k, v in sample.items()}
    expected = np.repeat(expected, batch, axis=0)
    job = frameworks.RunnerSpec(
        device=task["device"],
        threads=int(task["threads"]),
        inputs=inputs,
        output_shape=tuple(expected.shape),
        onnx_path=work / "model.onnx",
        work_dir=work,
        build_model=build_model,
        precision=task.get("precision", "strict"),
        cache=cache,
    )
    return job, expected


def _one(task: dict[str, Any], job: Any, expected: Any, frameworks: Any) -> dict[str, Any]:
    """One batch: build the runner, run once, check parity, then time it whatever the parity."""
    import numpy as np

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
        policy = task.get("precision", "strict")
        out["status"] = "parity_failed"
        out["error"] = (
            f"{found} against PyTorch eager (strict fp32 on the profile's device) exceeds the "
            f"tolerance {tolerance:g} of precision policy {policy}"
        )
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
    """The timed iterations of a row that ran (whatever its parity), with the facts of the CPU
    they ran on and, on a GPU, its device time."""
    from mlrelease.perf import device, harness, inject
    from mlrelease.perf.results import excerpt

    slowdown, slowdown_kind = inject.injected_slowdown(task["framework"])
    run_once = runner.run
    if slowdown:
        out["extra"] = {**out["extra"], "injected_slowdown": f"{slowdown:g} {slowdown_kind}"}
        if slowdown_kind == "device":
            run_once, fact = inject.device_slowdown(runner, slowdown)
            out["extra"]["injected_slowdown"] += f" ({fact})"
            slowdown = 0.0
    pinned = task.get("pinned_cpu")
    before = device.cpu_ticks(pinned)
    own0 = time.process_time()
    try:
        measured = harness.measure(
            run_once,
            runner.sync,
            warmup_iters=int(task["warmup_iters"]),
            warmup_s=float(task["warmup_s"]),
            iters=int(task["iters"]),
            min_time_s=float(task["min_time_s"]),
            slowdown=slowdown,
            slowdown_kind=slowdown_kind,
            clock=task.get("clock", "wall"),
            device_timer=runner.device_timer,
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
    extra = dict(out["extra"])
    if measured.wall_ns:
        extra["wall_median_ms"] = sorted(measured.wall_ns)[len(measured.wall_ns) // 2] / 1e6
    if measured.device_ns:
        extra["device_ns"] = measured.device_ns
    # Wall time less the time spent waiting for a CPU: what the code itself took, waits included.
    active = [w - d for w, d in zip(walls, delays, strict=True)] if delays else list(walls)
    return {
        **out,
        "extra": extra,
        "samples_ns": measured.samples_ns,
        "active_wall_ns": active,
        "round_facts": facts,
        "warmup_iters": measured.warmup_iters,
    }


INJECT_ENV = inject.INJECT_ENV

BUILT: list[Any] = []
"""The model a ``check`` task's prepare step built (the PyTorch rows of the probe reuse it)."""


def check(task: dict[str, Any]) -> dict[str, Any]:
    """The status probe of one model and shape in one process: build and export (``prepare``),
    then, per framework, load, first run, parity and a few iterations (``run``). No timing:
    the ``perf`` gate of ``release_verify`` uses it to give every row a status quickly."""
    prepared = prepare(task)
    runs: dict[str, Any] = {}
    for framework in task["frameworks"]:
        if prepared.get("export_error") and framework in ONNX_FRAMEWORKS:
            continue
        served = run({**task, "framework": framework})["rows"]
        runs.update({f"{batch}/{framework}": result for batch, result in served.items()})
    return {"prepared": prepared, "runs": runs}


TASKS = {"probe": probe.probe, "prepare": prepare, "run": run, "check": check}


def main(argv: list[str]) -> int:
    task_path, result_path = Path(argv[0]), Path(argv[1])
    task = json.loads(task_path.read_text(encoding="utf-8"))
    # An ONNX Runtime combination does not import torch at all (its own OpenMP, its own time).
    torch_too = task["kind"] != "run" or task["framework"] not in ONNX_FRAMEWORKS
    _set_threads(int(task.get("threads", 0)), torch_too=torch_too)
    if task.get("pin"):
        from mlrelease.perf.device import pin_to_one_cpu

        task["pinned_cpu"] = pin_to_one_cpu()
    # A run rewrites its result after each batch: what it finished survives a crash.
    result = run(task, result_path) if task["kind"] == "run" else TASKS[task["kind"]](task)
    result_path.write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
