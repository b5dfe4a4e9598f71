"""A status probe of a profile (the perf gate): every row loads, runs and matches PyTorch eager,
one worker per model and shape; nothing is timed."""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rich.console import Console

from mlrelease.perf import catalog
from mlrelease.perf.config import ONNX_FRAMEWORKS, Profile
from mlrelease.perf.launch import Build, Worker, WorkerReply, probe_build, resolve_in, settings_of
from mlrelease.perf.replies import CheckReply
from mlrelease.perf.results import (
    BUILD_FAILED,
    EXPORT_FAILED,
    OK,
    RUNTIME_ERROR,
    Results,
    Row,
)
from mlrelease.terminal import make_console

CHECK_ITERS = 0
"""Timed iterations of a status probe (``check``) after its first inference (which runs the
model and checks its output against PyTorch eager): it proves a row runs; it times nothing."""


def check(
    profile_name: str,
    profile: Profile,
    *,
    root: Path,
    work: Path,
    console: Console | None = None,
    jobs: int = 2,
) -> Results:
    """Give every row of ``profile`` a status quickly, timing nothing: one worker per model and
    shape builds and exports the model, then loads, runs once (parity) and iterates
    :data:`CHECK_ITERS` time(s) per framework and batch size; ``jobs`` workers at a time. The
    rows carry no samples."""
    console = console or make_console()
    started = time.perf_counter()
    worker = Worker(Build("current"), work / "current", root, profile.timeout_s, profile.threads)
    # `[current]` is not markup: rich would swallow it as a style tag.
    console.print(f"[{worker.build.name}] probing {worker.build.python} ...", markup=False)
    probe = probe_build(worker, profile_name, profile)
    specs = [(ref, resolve_in(root, ref, profile_name)) for ref in profile.models]
    plan = catalog.plan(
        specs,
        p2_shapes=profile.p2_shapes,
        batch_sizes=profile.batch_sizes,
        frameworks=profile.frameworks,
        unavailable=dict(probe.unavailable),
    )
    groups = list(
        dict.fromkeys(
            (p.combination.model, p.combination.shape, p.spec_ref) for p in plan if p.status is None
        )
    )

    def one(group: tuple[str, str, str]) -> WorkerReply[CheckReply]:
        return _check_group(worker, profile, plan, group, console)

    # Nothing is timed: the checks of two models may share the machine (one per core).
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(one, groups))
    outcomes = {(m, s): o for (m, s, _), o in zip(groups, done, strict=True)}
    rows: list[Row] = []
    for planned in plan:
        c = planned.combination
        row = Row(c.model, c.shape, c.batch, c.framework, planned.status or OK, planned.reason)
        if planned.status is None:
            _checked(row, outcomes[(c.model, c.shape)])
        rows.append(row)
    environment = dict(probe.environment)
    environment["python_executable"] = worker.build.python
    settings = settings_of(profile)
    settings.update({"status_only": True, "iters": CHECK_ITERS, "warmup_iters": 0, "rounds": 0})
    return Results(
        profile=profile_name,
        device_key=probe.device_key,
        device_name=probe.device_name,
        settings=settings,
        environment=environment,
        rows=rows,
        duration_s=time.perf_counter() - started,
    )


def _check_group(
    worker: Worker,
    profile: Profile,
    plan: Sequence[catalog.Planned],
    group: tuple[str, str, str],
    console: Console,
) -> WorkerReply[CheckReply]:
    """One worker call: build (and export) a model and shape, then run each of its rows once."""
    model, shape, ref = group
    mine = [p for p in plan if (p.combination.model, p.combination.shape) == (model, shape)]
    frameworks = list(dict.fromkeys(p.combination.framework for p in mine if p.status is None))
    console.print(f"checking {model} {shape}: {', '.join(frameworks)}")
    outcome = worker.call(
        f"check-{model}-{shape}",
        {
            "kind": "check",
            "model": ref,
            "shape": shape,
            "layers": profile.layers.get(model),
            "opset": profile.opset,
            "export": any(f in ONNX_FRAMEWORKS for f in frameworks),
            "work_dir": str(worker.work / f"{model}-{shape}"),
            "threads": profile.threads,
            "device": profile.device,
            "precision": profile.precision,
            "frameworks": frameworks,
            "batches": sorted({p.combination.batch for p in mine if p.status is None}),
            "warmup_iters": 0,
            "warmup_s": 0.0,
            "iters": CHECK_ITERS,
            "min_time_s": 0.0,
            "parity_tolerance": profile.parity_tolerance,
            "clock": profile.clock,
        },
        CheckReply.parse,
    )
    shutil.rmtree(worker.work / f"{model}-{shape}", ignore_errors=True)
    return outcome


def _checked(row: Row, outcome: WorkerReply[CheckReply]) -> None:
    """Set ``row``'s status from its model's ``check`` worker (a crash fails every row)."""
    if outcome.result is None:
        row.status = BUILD_FAILED if outcome.status == RUNTIME_ERROR else outcome.status
        row.error = f"the check worker of {row.model} {row.shape} failed: {outcome.error}"
        return
    prepared = outcome.result.prepared
    if row.framework in ONNX_FRAMEWORKS:
        row.export_s = prepared.export_s
        row.extra["onnx"] = prepared.onnx
        if prepared.export_error:
            row.status, row.error = EXPORT_FAILED, prepared.export_error
            return
    result = outcome.result.runs.get(f"{row.batch}/{row.framework}")
    if result is None:
        row.status, row.error = RUNTIME_ERROR, "the check worker gave no result for this row"
        return
    row.build_s, row.first_s = result.build_s, result.first_s
    row.parity = result.parity
    row.extra["checked_iters"] = len(result.samples_ns)
    if result.status != OK:
        row.status, row.error = result.status, result.error
