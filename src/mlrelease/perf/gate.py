"""The ``perf`` gate of ``release_verify``: a status probe of the gate profile, no timing.

Every model x framework x batch row of the gate profile (``cpu``) gets a status (exported,
loads, runs, matches PyTorch eager) from :func:`mlrelease.perf.runner.check`, compared with
the statuses of the device class's baseline: a new failure fails. Timing needs rounds of
worker processes that do not fit a release check on a small machine, so the gate times
nothing: with every status fine it is a *skip* whose reason says so (``--strict`` makes it a
failure); the timing verdict is ``nox -s perf`` / ``mlrelease perf compare``.
"""

from __future__ import annotations

import io
import os

from rich.console import Console

from mlrelease.edges import reuse
from mlrelease.gates import Context, GateResult, ReuseOptions, gate
from mlrelease.perf import device, runner, service
from mlrelease.perf.config import PerfConfig

NOT_TIMED = (
    "timing not measured here: timing needs `nox -s perf` (rounds of worker processes "
    "against the baseline) or `mlrelease perf compare --python OLD` (two builds, interleaved)"
)


@gate(
    "perf",
    "Every model x framework x batch row of the gate perf profile exports, loads, runs and "
    "matches PyTorch eager (a status probe, compared with the device class's baseline in "
    "`ci/perf_baselines/`: no row newly fails); timing is judged by `nox -s perf`, so without "
    "a failure the gate is skipped (a failure under `--strict`).",
    options=ReuseOptions,
    extra="perf",
)
def check_perf(ctx: Context) -> GateResult:
    name = ctx.config.table(PerfConfig).gate_profile
    profile = service.profile_of(ctx.config, name)
    if profile.device == "cuda":
        from mlrelease.perf.frameworks import unavailable

        reason = unavailable("pytorch", "cuda")
        if reason:
            return GateResult.skipped(f"profile `{name}` needs a CUDA device: {reason}")
    folder = ctx.evidence_path("perf", "results.json").parent
    stamp = folder / "probed.json"
    now = _reuse_key(ctx, name, profile.device)
    last = reuse.recall(stamp, now)
    if now and last:
        details = [str(d) for d in last.facts.get("details", [])]  # type: ignore[attr-defined]
        evidence = [str(e) for e in last.facts.get("evidence", [])]  # type: ignore[attr-defined]
        note = last.note(now, "[tool.mlrelease.gate-options.perf]")
        return GateResult.skipped(f"{last.summary} {note}", details=details, evidence=evidence)
    log = io.StringIO()
    results = runner.check(
        name,
        profile,
        root=ctx.config.root,
        work=folder / "work",
        console=Console(file=log, width=120),
        jobs=min(2, os.cpu_count() or 1),
    )
    paths = service.write_results(results, folder, with_plots=False)
    comparison = service.compare_with(ctx.config, profile, results, timing=False)
    (folder / "comparison.md").write_text(comparison.to_markdown(), encoding="utf-8")
    evidence = [ctx.display(p) for p in (*paths.values(), folder / "comparison.md")]
    counts = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in results.counts().items())
    ran = sum(r.status == "ok" for r in results.rows)
    what = (
        f"{results.device_key}: status probe of {len(results.rows)} rows ({counts}); "
        f"{ran} exported, loaded, ran one inference matching PyTorch eager; 0 rows timed"
    )
    details = [f"`{v.key}`: {v.kind.replace('_', ' ')}: {v.message}" for v in comparison.failed]
    gaps = [r for r in results.rows if r.status == "unavailable"]
    if gaps:  # never a verdict, but said where it is seen
        what += (
            f"; {len(gaps)} row(s) not measured here, an environment gap ({gaps[0].key}: "
            f"{gaps[0].error})"
        )
        details += [f"`{r.key}`: not measured here: {r.error}" for r in gaps]
    details += [f"baseline: {comparison.note}"] if comparison.note else []
    if not comparison.ok:
        return GateResult.failed(
            f"{what}; {len(comparison.failed)} row(s) newly fail",
            details=details,
            evidence=evidence,
        )
    reuse.remember(stamp, now, f"{what}; {NOT_TIMED}", details=details, evidence=evidence)
    return GateResult.skipped(f"{what}; {NOT_TIMED}", details=details, evidence=evidence)


def _reuse_key(ctx: Context, profile: str, kind: str) -> reuse.Key | None:
    """The probe's key: the tree, the profile, the machine (its device key) and the
    environment; None when reuse is off (``[tool.mlrelease.gate-options.perf] reuse``)."""
    if not ctx.options("perf", ReuseOptions).reuse:
        return None
    machine = [device.cpu_key()]
    if kind == "cuda":
        machine += [gpu.get("name", "") for gpu in device.nvidia_smi()]
    return reuse.key(ctx.root, "perf", profile, kind, *machine)


GATES = (check_perf,)
