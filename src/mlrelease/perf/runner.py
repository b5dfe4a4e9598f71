"""Run a profile: probe, export once per model and shape, then every combination in its own
subprocess; with several builds, rounds interleave (A B, B A, ...; with three or more, every
rotation of the builds and its reverse in turn) so drift hits them alike.

Workers start through :mod:`.launch` (the edge) and answer with typed replies (:mod:`.replies`);
one round of a framework's rows is :func:`.rounds.play`. What stays the same during a run is one
:class:`~.run_context.RunContext`, and the run tells its progress to a
:class:`~.run_context.ProfileProgress` the caller gives (the console's:
:class:`.progress.ProfileBar`). :func:`check` (from :mod:`.smoke`) gives every row a status
without timing anything.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path

from mlrelease.perf import catalog, rounds
from mlrelease.perf.config import ONNX_FRAMEWORKS, Profile
from mlrelease.perf.launch import Build as Build
from mlrelease.perf.launch import Worker, WorkerReply, probe_build, resolve_in, settings_of
from mlrelease.perf.replies import PrepareReply, ProbeReply
from mlrelease.perf.results import OK, Results, Row
from mlrelease.perf.run_context import Group, ProfileProgress, RunContext, UnwatchedRun
from mlrelease.perf.smoke import CHECK_ITERS as CHECK_ITERS
from mlrelease.perf.smoke import check as check
from mlrelease.perf.verdict import looks_at


def execute(
    profile_name: str,
    profile: Profile,
    *,
    root: Path,
    work: Path,
    builds: Sequence[Build] = (Build("current"),),
    progress: ProfileProgress | None = None,
    keep_work: bool = False,
    first_round: int = 0,
) -> dict[str, Results]:
    """Run ``profile`` for every build; one :class:`Results` per build name. ``progress`` is
    told what the run does (nobody, when None). ``first_round``: rounds the caller already ran
    (a run that adds rounds to earlier ones), so the builds' order goes on where it stopped."""
    started = time.perf_counter()
    watcher = progress or UnwatchedRun()
    workers = {
        b.name: Worker(b, work / b.name, root, profile.timeout_s, profile.threads) for b in builds
    }
    probes: dict[str, ProbeReply] = {}
    for name, worker in workers.items():
        watcher.probing(name, worker.build.python)
        probes[name] = probe_build(worker, profile_name, profile)
    specs = [(ref, resolve_in(root, ref, profile_name)) for ref in profile.models]
    plans = {
        name: catalog.plan(
            specs,
            p2_shapes=profile.p2_shapes,
            batch_sizes=profile.batch_sizes,
            frameworks=profile.frameworks,
            unavailable=dict(probes[name].unavailable),
        )
        for name in workers
    }
    run = RunContext(
        profile_name, profile, workers, probes, plans, watcher, time.perf_counter(), first_round
    )
    rows = _run_all(run, keep_work=keep_work)
    duration = time.perf_counter() - started
    return {name: _results(run, name, rows[name], duration) for name in workers}


def _run_all(run: RunContext, *, keep_work: bool) -> dict[str, dict[str, Row]]:
    """Every group (model and shape) in turn: prepared in each build, then timed; its work
    folders go once it is done unless ``keep_work``. The rows by build and key."""
    groups = run.groups()
    runnable = sum(len(run.runnable(name)) for name in run.names)
    total = len(groups) * len(run.workers) + runnable * run.profile.rounds
    rows: dict[str, dict[str, Row]] = {name: {} for name in run.names}
    with run.progress.running(total):
        for group in groups:
            prepared = _prepare(run, group)
            for name, timed in _run_group(run, group, prepared).items():
                rows[name].update(timed)
            if not keep_work:
                for worker in run.workers.values():
                    shutil.rmtree(worker.work / group.folder, ignore_errors=True)
    return rows


def _results(run: RunContext, name: str, rows: dict[str, Row], duration: float) -> Results:
    """One build's results: every planned row, measured or with the status that kept it out."""
    ordered: list[Row] = []
    for planned in run.plans[name]:
        c = planned.combination
        if planned.status is not None:
            ordered.append(
                Row(c.model, c.shape, c.batch, c.framework, planned.status, error=planned.reason)
            )
        else:
            ordered.append(rows[c.key])
    probe = run.probes[name]
    environment = dict(probe.environment)
    environment["python_executable"] = run.workers[name].build.python
    return Results(
        profile=run.profile_name,
        device_key=probe.device_key,
        device_name=probe.device_name,
        settings=settings_of(run.profile),
        environment=environment,
        rows=ordered,
        duration_s=duration,
    )


def _prepare(run: RunContext, group: Group) -> dict[str, WorkerReply[PrepareReply]]:
    """Build (and export, for the ONNX frameworks) one model and shape in each build that runs
    it; a build whose model comes from another one copies that build's prepared folder."""
    prepared: dict[str, WorkerReply[PrepareReply]] = {}
    for name, worker in run.workers.items():
        mine = run.runnable(name, group)
        if not mine:
            continue
        run.progress.step(f"[{name}] {group.model} {group.shape}: build + export")
        export = any(p.combination.framework in ONNX_FRAMEWORKS for p in mine)
        source = worker.build.model_from
        if source in prepared and prepared[source].result is not None:
            shutil.copytree(
                run.workers[source].work / group.folder,
                worker.work / group.folder,
                dirs_exist_ok=True,
            )
            prepared[name] = prepared[source]
            run.progress.advance()
            continue
        prepared[name] = worker.call(
            f"prepare-{group.model}-{group.shape}",
            {
                "kind": "prepare",
                "model": group.ref,
                "shape": group.shape,
                "layers": run.profile.layers.get(group.model),
                "opset": run.profile.opset,
                "export": export,
                "work_dir": str(worker.work / group.folder),
                "threads": run.profile.threads,
            },
            PrepareReply.parse,
        )
        run.progress.advance()
    return prepared


def _run_group(
    run: RunContext, group: Group, prepared: dict[str, WorkerReply[PrepareReply]]
) -> dict[str, dict[str, Row]]:
    """Run (rounds of) every combination of one model and shape: per framework and round, one
    worker of each build serves every batch size, the builds interleaving; with
    ``max_rounds``, add rounds until the rows' tests are conclusive (or the budget is spent).
    The group's rows by build and key."""
    profile, names = run.profile, run.names
    mine = {name: run.runnable(name, group) for name in names}
    rows = {name: {p.combination.key: _fresh(p) for p in planned} for name, planned in mine.items()}
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
                settled |= {k for k in keys if _conclusive(run, k, rows)}
                if len(settled) == len(keys) or run.budget_spent():
                    break
            for name in round_order(names, run.first_round + round_index):
                batch = [
                    rows[name][p.combination.key]
                    for p in mine[name]
                    if p.combination.framework == framework and p.combination.key not in settled
                ]
                if round_index >= profile.rounds:  # an added round: the bar announced fewer
                    run.progress.extend(len(batch))
                run.progress.step(
                    f"[{name}] {group.model} {group.shape} {framework} round {round_index + 1}"
                )
                rounds.play(run, name, group, batch, prepared.get(name), round_index)
                run.progress.advance(len(batch))
    return rows


def round_order(names: Sequence[str], index: int) -> list[str]:
    """The builds' order in round ``index``. Two: A B, then B A, so a drifting machine favours
    neither. Three or more: rotation ``index // 2`` of the builds, reversed in odd rounds (for
    three: A B C, C B A, B C A, A C B, C A B, B A C): every build runs first as often as any,
    and each two run in each order equally often, so within-round drift cancels and each pair's
    difference stays symmetric."""
    if len(names) < 3:
        return list(names) if index % 2 == 0 else list(names)[::-1]
    turn = (index // 2) % len(names)
    rotated = [*names[turn:], *names[:turn]]
    return rotated if index % 2 == 0 else rotated[::-1]


def _fresh(planned: catalog.Planned) -> Row:
    """A row about to run: ``ok`` until a worker says otherwise."""
    c = planned.combination
    return Row(c.model, c.shape, c.batch, c.framework, OK)


def _conclusive(run: RunContext, key: str, rows: dict[str, dict[str, Row]]) -> bool:
    """Whether every candidate build's tests of ``key`` against the first build are conclusive
    (or cannot become so: a row a side no longer times), at the bound level of the whole
    family."""
    from mlrelease.perf.compare import samples_of
    from mlrelease.perf.verdict import Design, judge

    profile, names = run.profile, run.names
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
        if not judge(samples, design, family_size=run.family_size).conclusive():
            return False
    return True
