"""Run a profile: probe, export once per model and shape, then every combination in its own
subprocess; with two builds, rounds interleave (A B B A ...) so drift hits both alike.

Workers start through :mod:`.launch` (the edge); :func:`check` (from :mod:`.smoke`) gives every
row a status without timing anything.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mlrelease.perf import catalog
from mlrelease.perf.config import ONNX_FRAMEWORKS, Profile
from mlrelease.perf.launch import Build as Build
from mlrelease.perf.launch import Worker, WorkerReply, probe_build, resolve_in, settings_of
from mlrelease.perf.results import (
    BUILD_FAILED,
    EXPORT_FAILED,
    OK,
    RUNS,
    RUNTIME_ERROR,
    Results,
    Row,
)
from mlrelease.perf.smoke import CHECK_ITERS as CHECK_ITERS
from mlrelease.perf.smoke import check as check
from mlrelease.perf.verdict import looks_at
from mlrelease.terminal import make_console


def execute(
    profile_name: str,
    profile: Profile,
    *,
    root: Path,
    work: Path,
    builds: Sequence[Build] = (Build("current"),),
    console: Console | None = None,
    keep_work: bool = False,
) -> dict[str, Results]:
    """Run ``profile`` for every build; one :class:`Results` per build name."""
    console = console or make_console()
    started = time.perf_counter()
    workers = {
        b.name: Worker(b, work / b.name, root, profile.timeout_s, profile.threads) for b in builds
    }
    probes = {
        name: probe_build(worker, profile_name, profile, console)
        for name, worker in workers.items()
    }
    specs = [(ref, resolve_in(root, ref, profile_name)) for ref in profile.models]
    plans = {
        name: catalog.plan(
            specs,
            p2_shapes=profile.p2_shapes,
            batch_sizes=profile.batch_sizes,
            frameworks=profile.frameworks,
            unavailable=probes[name]["unavailable"],
        )
        for name in workers
    }
    rows: dict[str, dict[str, Row]] = {name: {} for name in workers}
    runnable = {name: [p for p in plan if p.status is None] for name, plan in plans.items()}
    groups = list(
        dict.fromkeys(
            (p.combination.model, p.combination.shape, p.spec_ref)
            for b in runnable.values()
            for p in b
        )
    )
    total = len(groups) * len(workers) + sum(len(r) for r in runnable.values()) * profile.rounds
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    budget = TimeBudget(time.perf_counter())
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task("perf", total=total)
        for model, shape, ref in groups:
            prepared = _prepare(model, shape, ref, profile, workers, runnable, progress, bar)
            _run_group(
                model,
                shape,
                profile,
                workers,
                runnable,
                prepared,
                rows,
                progress,
                bar,
                family_size=2 * max(len(r) for r in runnable.values()),
                budget=budget,
            )
            if not keep_work:
                for worker in workers.values():
                    shutil.rmtree(worker.work / f"{model}-{shape}", ignore_errors=True)
    duration = time.perf_counter() - started
    return {
        name: _results(
            name, profile_name, profile, plans[name], rows[name], probes[name], workers, duration
        )
        for name in workers
    }


def _results(
    name: str,
    profile_name: str,
    profile: Profile,
    plan: Sequence[catalog.Planned],
    rows: dict[str, Row],
    probe: dict[str, Any],
    workers: dict[str, Worker],
    duration: float,
) -> Results:
    """One build's results: every planned row, measured or with the status that kept it out."""
    ordered: list[Row] = []
    for planned in plan:
        c = planned.combination
        if planned.status is not None:
            ordered.append(
                Row(c.model, c.shape, c.batch, c.framework, planned.status, error=planned.reason)
            )
        else:
            ordered.append(rows[c.key])
    environment = dict(probe["environment"])
    environment["python_executable"] = workers[name].build.python
    return Results(
        profile=profile_name,
        device_key=probe["device_key"],
        device_name=probe["device_name"],
        settings=settings_of(profile),
        environment=environment,
        rows=ordered,
        duration_s=duration,
    )


def _prepare(
    model: str,
    shape: str,
    ref: str,
    profile: Profile,
    workers: dict[str, Worker],
    runnable: dict[str, list[catalog.Planned]],
    progress: Progress,
    bar: Any,
) -> dict[str, WorkerReply]:
    """Build (and export, for the ONNX frameworks) one model and shape in each build that runs
    it; a build whose model comes from another one copies that build's prepared folder."""
    prepared: dict[str, WorkerReply] = {}
    for name, worker in workers.items():
        mine = [
            p
            for p in runnable[name]
            if (p.combination.model, p.combination.shape) == (model, shape)
        ]
        if not mine:
            continue
        progress.update(bar, description=f"[{name}] {model} {shape}: build + export")
        export = any(p.combination.framework in ONNX_FRAMEWORKS for p in mine)
        source = worker.build.model_from
        if source in prepared and prepared[source].result is not None:
            shutil.copytree(
                workers[source].work / f"{model}-{shape}",
                worker.work / f"{model}-{shape}",
                dirs_exist_ok=True,
            )
            prepared[name] = prepared[source]
            progress.advance(bar)
            continue
        prepared[name] = worker.call(
            f"prepare-{model}-{shape}",
            {
                "kind": "prepare",
                "model": ref,
                "shape": shape,
                "layers": profile.layers.get(model),
                "opset": profile.opset,
                "export": export,
                "work_dir": str(worker.work / f"{model}-{shape}"),
                "threads": profile.threads,
            },
        )
        progress.advance(bar)
    return prepared


def _run_group(
    model: str,
    shape: str,
    profile: Profile,
    workers: dict[str, Worker],
    runnable: dict[str, list[catalog.Planned]],
    prepared: dict[str, WorkerReply],
    rows: dict[str, dict[str, Row]],
    progress: Progress,
    bar: Any,
    family_size: int,
    budget: TimeBudget,
) -> None:
    """Run (rounds of) every combination of one model and shape: per framework and round, one
    worker of each build serves every batch size, the builds interleaving; with
    ``max_rounds``, add rounds until the rows' tests are conclusive (see :class:`TimeBudget`)."""
    names = list(workers)
    mine = {
        name: [
            p
            for p in runnable[name]
            if (p.combination.model, p.combination.shape) == (model, shape)
        ]
        for name in names
    }
    adaptive = len(names) >= 2 and (profile.max_rounds or 0) > profile.rounds
    last = (profile.max_rounds or profile.rounds) if adaptive else profile.rounds
    looks = looks_at(profile.rounds, last, profile.looks) if adaptive else [profile.rounds]
    frameworks = list(dict.fromkeys(p.combination.framework for n in names for p in mine[n]))
    for framework in frameworks:
        keys = list(
            dict.fromkeys(
                p.combination.key
                for n in names
                for p in mine[n]
                if p.combination.framework == framework
            )
        )
        settled: set[str] = set()
        for round_index in range(last):
            if round_index in looks:
                settled |= {k for k in keys if _conclusive(k, rows, names, profile, family_size)}
                if (
                    len(settled) == len(keys)
                    or time.perf_counter() - budget.started > profile.budget_s
                ):
                    break
            # A B, then B A: the order alternates so a drifting machine favours neither build.
            for name in names if round_index % 2 == 0 else names[::-1]:
                batch = [
                    p
                    for p in mine[name]
                    if p.combination.framework == framework and p.combination.key not in settled
                ]
                progress.update(
                    bar, description=f"[{name}] {model} {shape} {framework} round {round_index + 1}"
                )
                _run_batches(
                    workers[name], batch, profile, prepared.get(name), rows[name], round_index
                )
                progress.advance(bar, len(batch))


@dataclass
class TimeBudget:
    """When the run started: an adaptive run adds rounds while its budget lasts."""

    started: float


def _conclusive(
    key: str, rows: dict[str, dict[str, Row]], names: list[str], profile: Profile, family: int
) -> bool:
    """Whether every candidate build's tests of ``key`` against the first build are conclusive
    (or cannot become so: a row a side no longer times), at the bound level of the whole
    family."""
    from mlrelease.perf.compare import samples_of
    from mlrelease.perf.verdict import Design, judge

    assert profile.threshold is not None
    design = Design(profile.threshold, profile.alpha, profile.looks)
    base = rows[names[0]].get(key)
    for name in names[1:]:
        cand = rows[name].get(key)
        if base is None or cand is None or not (base.timing or cand.timing):
            continue
        if not (base.timing and cand.timing):
            return True
        samples = samples_of(key, base, cand, profile.clock, profile.clock)
        if not judge(samples, design, family_size=family).conclusive():
            return False
    return True


def _run_batches(
    worker: Worker,
    planned: list[catalog.Planned],
    profile: Profile,
    prepared: WorkerReply | None,
    rows: dict[str, Row],
    round_index: int,
) -> None:
    """One round of one framework's rows of one model and shape, every batch size in one worker
    (a failure sets the status of the rows it reached; a crash costs only the batch it happened
    in: the batches after it run in a new worker)."""
    live = []
    for p in planned:
        c = p.combination
        row = rows.setdefault(c.key, Row(c.model, c.shape, c.batch, c.framework, OK))
        if row.status in RUNS:  # a row that runs is timed, whatever its parity
            live.append(row)
    if not live or prepared is None:
        return
    first = live[0]
    onnx = first.framework in ONNX_FRAMEWORKS
    for row in live:
        row.extra["prepare_s"] = round(prepared.seconds, 2)
        if prepared.result is None:
            row.status = BUILD_FAILED if prepared.status == RUNTIME_ERROR else prepared.status
            row.error = f"building the model failed: {prepared.error}"
        elif onnx:
            row.export_s = prepared.result.get("export_s")
            row.extra["onnx"] = prepared.result.get("onnx")
            if prepared.result.get("export_error"):
                row.status, row.error = EXPORT_FAILED, prepared.result["export_error"]
        if prepared.result is not None:
            row.extra["reference"] = prepared.result.get("reference")
    live = [r for r in live if r.status in RUNS]
    attempt = 0
    while live:
        task = _task(worker, planned[0].spec_ref, profile, live)
        label = f"run-{first.model}-{first.shape}-{first.framework}-r{round_index}-{attempt}"
        outcome = worker.call(label, task, rows=len(live))
        served = (outcome.result or outcome.partial or {}).get("rows", {})
        for row in live:
            if str(row.batch) in served:
                _apply(row, served[str(row.batch)], outcome.seconds)
        pending = [r for r in live if str(r.batch) not in served]
        if outcome.result is not None or not pending:
            return
        crashed = pending[0]  # the worker died in this batch: its status, the rest retried
        crashed.status, crashed.error = outcome.status, outcome.error
        live, attempt = pending[1:], attempt + 1


def _task(worker: Worker, ref: str, profile: Profile, rows: list[Row]) -> dict[str, Any]:
    first = rows[0]
    return {
        "kind": "run",
        "model": ref,
        "shape": first.shape,
        "batches": [r.batch for r in rows],
        "framework": first.framework,
        "device": profile.device,
        "precision": profile.precision,
        "threads": profile.threads,
        "layers": profile.layers.get(first.model),
        "work_dir": str(worker.work / f"{first.model}-{first.shape}"),
        "warmup_iters": profile.warmup_iters,
        "warmup_s": profile.warmup_s,
        "iters": profile.iters,
        "min_time_s": profile.min_time_s,
        "parity_tolerance": profile.parity_tolerance,
        "clock": profile.clock,
        "pin": profile.threads == 1,
    }


def _apply(row: Row, result: dict[str, Any], seconds: float) -> None:
    """One batch's result from a worker into its row: the status it reached (a parity failure
    beside the timing), and the round's samples whenever it was timed."""
    row.extra.setdefault("worker_s", []).append(round(seconds, 2))
    row.build_s = _first(row.build_s, result.get("build_s"))
    row.first_s = _first(row.first_s, result.get("first_s"))
    row.parity = result.get("parity", row.parity)
    extra = dict(result.get("extra", {}))
    if "wall_median_ms" in extra:
        row.extra.setdefault("wall_median_ms", []).append(extra.pop("wall_median_ms"))
    if "device_ns" in extra:
        row.extra.setdefault("device_ns", []).append([int(s) for s in extra.pop("device_ns")])
    row.extra.update(extra)
    row.extra["models_built_in_worker"] = result.get("models_built")
    if result["status"] != OK:
        row.status, row.error = result["status"], result.get("error", "")
    if result.get("samples_ns"):
        row.samples_ns.append([int(s) for s in result["samples_ns"]])
        if result.get("active_wall_ns"):
            row.wall_ns.append([int(s) for s in result["active_wall_ns"]])
        row.round_facts.append(dict(result.get("round_facts", {})))
        row.warmup_iters = int(result.get("warmup_iters", 0))


def _first(current: float | None, new: float | None) -> float | None:
    """Build and first-inference times of the first round (later rounds hit warm caches)."""
    return current if current is not None else new
