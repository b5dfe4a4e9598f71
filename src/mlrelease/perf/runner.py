"""Run a profile: probe, export once per model and shape, then every combination in its own
subprocess; with two builds, rounds interleave (A B B A ...) so drift hits both alike.

This is the edge of the perf package: it starts ``python -m mlrelease.perf.worker`` processes
(each in its own session, killed as a group on timeout), reads their JSON, and maps exit codes
to statuses: a timeout is ``timeout``, a SIGKILL (the kernel's out-of-memory killer) is ``oom``,
any other crash ``runtime_error`` with the end of its log.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mlrelease.edges import proc as isolation
from mlrelease.perf import catalog
from mlrelease.perf.config import ONNX_FRAMEWORKS, Profile
from mlrelease.perf.results import (
    BUILD_FAILED,
    EXPORT_FAILED,
    OK,
    OOM,
    RUNTIME_ERROR,
    TIMEOUT,
    Results,
    Row,
    excerpt,
)
from mlrelease.perf.verdict import looks_at
from mlrelease.terminal import make_console


@dataclass(frozen=True)
class Build:
    """A Python environment to measure (its torch, onnxruntime, ... and mlrelease)."""

    name: str
    python: str = sys.executable
    env: tuple[tuple[str, str], ...] = ()
    """Extra environment of this build's workers (e.g. an injected slowdown)."""
    model_from: str = ""
    """A build listed before this one, of the same interpreter, whose prepared (built and
    exported) models this build reuses instead of exporting again (the regression benchmark's
    copies of one environment)."""


@dataclass
class Outcome:
    """What one worker call gave: its result, or the status and error of its failure."""

    result: dict[str, Any] | None
    status: str = ""
    error: str = ""
    seconds: float = 0.0
    """Wall time of the whole subprocess (start-up, imports, the task)."""


class Worker:
    """Starts worker subprocesses for one build, with logs and task files under ``work``."""

    def __init__(self, build: Build, work: Path, root: Path, timeout_s: int, threads: int) -> None:
        self.build = build
        self.work = work
        self.root = root
        self.timeout_s = timeout_s
        self.env = dict(os.environ)
        # The project root first, so a profile's `module:attribute` models import in workers.
        self.env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p
        )
        self.env.update(
            {
                "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_VERBOSITY": "error",
                "TOKENIZERS_PARALLELISM": "false",
                "PYTHONHASHSEED": "0",
            }
        )
        self.env.update(dict(build.env))
        if threads:
            for name in (
                "OMP_NUM_THREADS",
                "MKL_NUM_THREADS",
                "OPENBLAS_NUM_THREADS",
                "TORCHINDUCTOR_COMPILE_THREADS",
            ):
                self.env[name] = str(threads)
        (work / "logs").mkdir(parents=True, exist_ok=True)

    def call(self, label: str, task: dict[str, Any]) -> Outcome:
        """Run one task; never raises for what the task does."""
        safe = label.replace("/", "_")
        task_path = self.work / "logs" / f"{safe}.task.json"
        result_path = self.work / "logs" / f"{safe}.result.json"
        log_path = self.work / "logs" / f"{safe}.log"
        result_path.unlink(missing_ok=True)
        task_path.write_text(json.dumps(task), encoding="utf-8")
        command = [
            self.build.python,
            "-m",
            "mlrelease.perf.worker",
            str(task_path),
            str(result_path),
        ]
        started = time.perf_counter()
        outcome = self._call(command, log_path, result_path)
        outcome.seconds = time.perf_counter() - started
        return outcome

    def _call(self, command: list[str], log_path: Path, result_path: Path) -> Outcome:
        with log_path.open("w", encoding="utf-8") as log:
            try:
                proc = isolation.start(
                    command,
                    stdout=log,
                    stderr=isolation.STDOUT,
                    stdin=isolation.DEVNULL,
                    cwd=self.root,
                    env=self.env,
                )
            except OSError as exc:
                return Outcome(None, RUNTIME_ERROR, f"cannot start {self.build.python}: {exc}")
            try:
                code = proc.wait(timeout=self.timeout_s)
            except isolation.TimeoutExpired:
                _kill_group(proc)
                return Outcome(
                    None,
                    TIMEOUT,
                    f"ran past the {self.timeout_s} s limit (profile timeout-s); log: {log_path}",
                )
        if code == 0 and result_path.is_file():
            return Outcome(json.loads(result_path.read_text(encoding="utf-8")))
        tail = excerpt(log_path.read_text(encoding="utf-8", errors="replace"))
        if isolation.classify(code, killed=False)[0] is isolation.Status.OUT_OF_MEMORY:
            return Outcome(
                None,
                OOM,
                f"killed by SIGKILL (most likely the kernel's out-of-memory killer)\n{tail}",
            )
        return Outcome(None, RUNTIME_ERROR, f"worker exited with {code}\n{tail}")


def resolve_in(root: Path, ref: str, profile_name: str) -> catalog.ModelSpec:
    """Resolve a profile's model entry with the project root importable, as in the workers."""
    added = str(root) not in sys.path
    if added:
        sys.path.insert(0, str(root))
    try:
        return catalog.resolve_model(ref, key=f"tool.mlrelease.perf.profiles.{profile_name}.models")
    finally:
        if added:
            sys.path.remove(str(root))


def _kill_group(proc: isolation.Popen[bytes]) -> None:
    # torch.compile and TensorRT start helper processes: end the whole session we started.
    isolation.kill_group(proc)


def _probe(worker: Worker, profile_name: str, profile: Profile, console: Console) -> dict[str, Any]:
    """What the build can run here (and its device key), or a clear error."""
    name = worker.build.name
    console.print(f"[{name}] probing {worker.build.python} ...")
    outcome = worker.call(
        "probe",
        {
            "kind": "probe",
            "device": profile.device,
            "frameworks": profile.frameworks,
            "threads": profile.threads,
        },
    )
    if outcome.result is None:
        from mlrelease.errors import UserError

        raise UserError(
            f"the perf worker could not start in {worker.build.python} ({outcome.status}): "
            f"{outcome.error}\nInstall the perf dependencies there: "
            "pip install -e . --group perf (or run `nox -s perf`)."
        )
    if profile.device == "cuda" and outcome.result["device_key"] == "cuda-none":
        from mlrelease.errors import PreconditionError

        reason = outcome.result["unavailable"].get("pytorch", "no CUDA device")
        raise PreconditionError(
            f"profile `{profile_name}` runs on a CUDA device, and {worker.build.python} "
            f"sees none ({reason}). Run it on a GPU machine (`nox -s perf_gpu`)."
        )
    return dict(outcome.result)


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
    probe = _probe(worker, profile_name, profile, console)
    specs = [(ref, resolve_in(root, ref, profile_name)) for ref in profile.models]
    plan = catalog.plan(
        specs,
        p2_shapes=profile.p2_shapes,
        batch_sizes=profile.batch_sizes,
        frameworks=profile.frameworks,
        unavailable=probe["unavailable"],
    )
    groups = list(
        dict.fromkeys(
            (p.combination.model, p.combination.shape, p.spec_ref) for p in plan if p.status is None
        )
    )

    def one(group: tuple[str, str, str]) -> Outcome:
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
                "frameworks": frameworks,
                "batches": sorted({p.combination.batch for p in mine if p.status is None}),
                "warmup_iters": 0,
                "warmup_s": 0.0,
                "iters": CHECK_ITERS,
                "min_time_s": 0.0,
                "parity_tolerance": profile.parity_tolerance,
                "clock": profile.clock,
            },
        )
        shutil.rmtree(worker.work / f"{model}-{shape}", ignore_errors=True)
        return outcome

    # Nothing is timed: the checks of two models may share the machine (one per core).
    from concurrent.futures import ThreadPoolExecutor

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
    environment = dict(probe["environment"])
    environment["python_executable"] = worker.build.python
    settings = settings_of(profile)
    settings.update({"status_only": True, "iters": CHECK_ITERS, "warmup_iters": 0, "rounds": 0})
    return Results(
        profile=profile_name,
        device_key=probe["device_key"],
        device_name=probe["device_name"],
        settings=settings,
        environment=environment,
        rows=rows,
        duration_s=time.perf_counter() - started,
    )


def _checked(row: Row, outcome: Outcome) -> None:
    """Set ``row``'s status from its model's ``check`` worker (a crash fails every row)."""
    if outcome.result is None:
        row.status = BUILD_FAILED if outcome.status == RUNTIME_ERROR else outcome.status
        row.error = f"the check worker of {row.model} {row.shape} failed: {outcome.error}"
        return
    prepared = outcome.result["prepared"]
    if row.framework in ONNX_FRAMEWORKS:
        row.export_s = prepared.get("export_s")
        row.extra["onnx"] = prepared.get("onnx")
        if prepared.get("export_error"):
            row.status, row.error = EXPORT_FAILED, prepared["export_error"]
            return
    result = outcome.result["runs"].get(f"{row.batch}/{row.framework}")
    if result is None:
        row.status, row.error = RUNTIME_ERROR, "the check worker gave no result for this row"
        return
    row.build_s, row.first_s = result.get("build_s"), result.get("first_s")
    row.parity = result.get("parity")
    row.extra["checked_iters"] = len(result.get("samples_ns", []))
    if result["status"] != OK:
        row.status, row.error = result["status"], result.get("error", "")


def settings_of(profile: Profile) -> dict[str, Any]:
    return dataclasses.asdict(profile)


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
        name: _probe(worker, profile_name, profile, console) for name, worker in workers.items()
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
    budget = Budget(time.perf_counter())
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task("perf", total=total)
        for model, shape, ref in groups:
            prepared: dict[str, Outcome] = {}
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
    out: dict[str, Results] = {}
    for name in workers:
        ordered: list[Row] = []
        for planned in plans[name]:
            c = planned.combination
            if planned.status is not None:
                ordered.append(
                    Row(
                        c.model, c.shape, c.batch, c.framework, planned.status, error=planned.reason
                    )
                )
            else:
                ordered.append(rows[name][c.key])
        probe = probes[name]
        environment = dict(probe["environment"])
        environment["python_executable"] = workers[name].build.python
        out[name] = Results(
            profile=profile_name,
            device_key=probe["device_key"],
            device_name=probe["device_name"],
            settings=settings_of(profile),
            environment=environment,
            rows=ordered,
            duration_s=duration,
        )
    return out


def _run_group(
    model: str,
    shape: str,
    profile: Profile,
    workers: dict[str, Worker],
    runnable: dict[str, list[catalog.Planned]],
    prepared: dict[str, Outcome],
    rows: dict[str, dict[str, Row]],
    progress: Progress,
    bar: Any,
    family_size: int,
    budget: Budget,
) -> None:
    """Run (rounds of) every combination of one model and shape, interleaving the builds; with
    ``max_rounds``, add rounds until the row's tests are conclusive (see :class:`Budget`)."""
    names = list(workers)
    mine = {
        name: [
            p
            for p in runnable[name]
            if (p.combination.model, p.combination.shape) == (model, shape)
        ]
        for name in names
    }
    keys = list(dict.fromkeys(p.combination.key for n in names for p in mine[n]))
    adaptive = len(names) >= 2 and (profile.max_rounds or 0) > profile.rounds
    last = (profile.max_rounds or profile.rounds) if adaptive else profile.rounds
    looks = looks_at(profile.rounds, last, profile.looks) if adaptive else [profile.rounds]
    for key in keys:
        for round_index in range(last):
            if round_index in looks and (
                _conclusive(key, rows, names, profile, family_size)
                or time.perf_counter() - budget.started > profile.budget_s
            ):
                break
            # A B, then B A: the order alternates so a drifting machine favours neither build.
            order = names if round_index % 2 == 0 else names[::-1]
            for name in order:
                planned = next((p for p in mine[name] if p.combination.key == key), None)
                if planned is None:
                    continue
                c = planned.combination
                row = rows[name].setdefault(key, Row(c.model, c.shape, c.batch, c.framework, OK))
                progress.update(bar, description=f"[{name}] {key} round {round_index + 1}")
                if row.status == OK:
                    _run_one(workers[name], planned, profile, prepared[name], row)
                progress.advance(bar)


@dataclass
class Budget:
    """When the run started: an adaptive run adds rounds while its budget lasts."""

    started: float


def _conclusive(
    key: str, rows: dict[str, dict[str, Row]], names: list[str], profile: Profile, family: int
) -> bool:
    """Whether every candidate build's tests of ``key`` against the first build are conclusive
    (or cannot become so: a failing row), at the bound level of the whole family."""
    from mlrelease.perf.compare import samples_of
    from mlrelease.perf.verdict import Design, judge

    assert profile.threshold is not None
    design = Design(profile.threshold, profile.alpha, profile.looks)
    base = rows[names[0]].get(key)
    for name in names[1:]:
        cand = rows[name].get(key)
        if base is None or cand is None or OK not in (base.status, cand.status):
            continue
        if base.status != OK or cand.status != OK:
            return True
        samples = samples_of(key, base, cand, profile.clock, profile.clock)
        if not judge(samples, design, family_size=family).conclusive():
            return False
    return True


def _run_one(
    worker: Worker, planned: catalog.Planned, profile: Profile, prepared: Outcome, row: Row
) -> None:
    """Run one round of one combination into ``row`` (a failure sets its status)."""
    c = planned.combination
    onnx = c.framework in ONNX_FRAMEWORKS
    row.extra["prepare_s"] = round(prepared.seconds, 2)
    if prepared.result is None:
        row.status = BUILD_FAILED if prepared.status == RUNTIME_ERROR else prepared.status
        row.error = f"building the model failed: {prepared.error}"
        return
    if onnx:
        row.export_s = prepared.result.get("export_s")
        row.extra["onnx"] = prepared.result.get("onnx")
        if prepared.result.get("export_error"):
            row.status = EXPORT_FAILED
            row.error = prepared.result["export_error"]
            return
    task = {
        "kind": "run",
        "model": planned.spec_ref,
        "shape": c.shape,
        "batch": c.batch,
        "framework": c.framework,
        "device": profile.device,
        "threads": profile.threads,
        "layers": profile.layers.get(c.model),
        "work_dir": str(worker.work / f"{c.model}-{c.shape}"),
        "warmup_iters": profile.warmup_iters,
        "warmup_s": profile.warmup_s,
        "iters": profile.iters,
        "min_time_s": profile.min_time_s,
        "parity_tolerance": profile.parity_tolerance,
        "clock": profile.clock,
        "pin": profile.threads == 1,
    }
    outcome = worker.call(f"run-{c.key}", task)
    row.extra.setdefault("worker_s", []).append(round(outcome.seconds, 2))
    if outcome.result is None:
        row.status, row.error = outcome.status, outcome.error
        return
    result = outcome.result
    row.build_s = _first(row.build_s, result.get("build_s"))
    row.first_s = _first(row.first_s, result.get("first_s"))
    row.parity = result.get("parity", row.parity)
    extra = dict(result.get("extra", {}))
    if "wall_median_ms" in extra:
        row.extra.setdefault("wall_median_ms", []).append(extra.pop("wall_median_ms"))
    row.extra.update(extra)
    if result["status"] != OK:
        row.status, row.error = result["status"], result.get("error", "")
        return
    row.samples_ns.append([int(s) for s in result["samples_ns"]])
    if result.get("active_wall_ns"):
        row.wall_ns.append([int(s) for s in result["active_wall_ns"]])
    row.round_facts.append(dict(result.get("round_facts", {})))
    row.warmup_iters = int(result.get("warmup_iters", 0))


def _first(current: float | None, new: float | None) -> float | None:
    """Build and first-inference times of the first round (later rounds hit warm caches)."""
    return current if current is not None else new
