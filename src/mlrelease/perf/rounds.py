"""One round of one framework's rows of one model and shape, in one build: the ``run`` task sent
to a worker, and its typed reply written into the rows.

Every batch size runs in one worker; a failure sets the status of the rows it reached, and a
crash costs only the batch it happened in (the batches after it run in a new worker).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mlrelease.perf.config import ONNX_FRAMEWORKS
from mlrelease.perf.launch import WorkerReply
from mlrelease.perf.replies import BatchReply, PrepareReply, RunReply
from mlrelease.perf.results import BUILD_FAILED, EXPORT_FAILED, OK, RUNS, RUNTIME_ERROR, Row
from mlrelease.perf.run_context import Group, RunContext


def play(
    run: RunContext,
    name: str,
    group: Group,
    rows: Sequence[Row],
    prepared: WorkerReply[PrepareReply] | None,
    round_index: int,
) -> None:
    """Time ``rows`` (one framework's, of ``group``) once in build ``name``; a row that no
    longer runs is left as it is."""
    # A row that runs is timed, whatever its parity.
    live = [row for row in rows if row.status in RUNS]
    if not live or prepared is None:
        return
    first = live[0]
    for row in live:
        _prepared_into(row, prepared)
    live = [r for r in live if r.status in RUNS]
    worker = run.workers[name]
    attempt = 0
    while live:
        task = _task(run, group, str(worker.work / group.folder), live)
        label = f"run-{first.model}-{first.shape}-{first.framework}-r{round_index}-{attempt}"
        outcome = worker.call(label, task, RunReply.parse, rows=len(live))
        served = (outcome.result or outcome.partial or RunReply({})).rows
        for row in live:
            if str(row.batch) in served:
                _apply(row, served[str(row.batch)], outcome.seconds)
        pending = [r for r in live if str(r.batch) not in served]
        if outcome.result is not None or not pending:
            return
        crashed = pending[0]  # the worker died in this batch: its status, the rest retried
        crashed.status, crashed.error = outcome.status, outcome.error
        live, attempt = pending[1:], attempt + 1


def _prepared_into(row: Row, prepared: WorkerReply[PrepareReply]) -> None:
    """What preparing the model says of a row: how long it took, and whether it failed (the
    build for every row, the export for the ONNX frameworks' rows)."""
    row.extra["prepare_s"] = round(prepared.seconds, 2)
    reply = prepared.result
    if reply is None:
        row.status = BUILD_FAILED if prepared.status == RUNTIME_ERROR else prepared.status
        row.error = f"building the model failed: {prepared.error}"
        return
    if row.framework in ONNX_FRAMEWORKS:
        row.export_s = reply.export_s
        row.extra["onnx"] = reply.onnx
        if reply.export_error:
            row.status, row.error = EXPORT_FAILED, reply.export_error
    row.extra["reference"] = reply.reference


def _task(run: RunContext, group: Group, work_dir: str, rows: list[Row]) -> dict[str, Any]:
    profile = run.profile
    first = rows[0]
    return {
        "kind": "run",
        "model": group.ref,
        "shape": first.shape,
        "batches": [r.batch for r in rows],
        "framework": first.framework,
        "device": profile.device,
        "precision": profile.precision,
        "threads": profile.threads,
        "layers": profile.layers.get(first.model),
        "work_dir": work_dir,
        "warmup_iters": profile.warmup_iters,
        "warmup_s": profile.warmup_s,
        "iters": profile.iters,
        "min_time_s": profile.min_time_s,
        "parity_tolerance": profile.parity_tolerance,
        "clock": profile.clock,
        "pin": profile.threads == 1,
    }


def _apply(row: Row, reply: BatchReply, seconds: float) -> None:
    """One batch's reply from a worker into its row: the status it reached (a parity failure
    beside the timing), and the round's samples whenever it was timed."""
    row.extra.setdefault("worker_s", []).append(round(seconds, 2))
    row.build_s = _first(row.build_s, reply.build_s)
    row.first_s = _first(row.first_s, reply.first_s)
    if reply.parity is not None:
        row.parity = reply.parity
    if reply.wall_median_ms is not None:
        row.extra.setdefault("wall_median_ms", []).append(reply.wall_median_ms)
    if reply.device_ns is not None:
        row.extra.setdefault("device_ns", []).append(list(reply.device_ns))
    row.extra.update(reply.extra)
    row.extra["models_built_in_worker"] = reply.models_built
    if reply.status != OK:
        row.status, row.error = reply.status, reply.error
    if reply.samples_ns:
        row.samples_ns.append(list(reply.samples_ns))
        if reply.active_wall_ns:
            row.wall_ns.append(list(reply.active_wall_ns))
        row.round_facts.append(dict(reply.round_facts))
        row.warmup_iters = reply.warmup_iters


def _first(current: float | None, new: float | None) -> float | None:
    """Build and first-inference times of the first round (later rounds hit warm caches)."""
    return current if current is not None else new
