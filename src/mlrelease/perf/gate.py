"""The ``perf`` gate: run the gate profile (``cpu``) and compare with this device's baseline."""

from __future__ import annotations

import io

from rich.console import Console

from mlrelease.gates import Context, GateResult, gate
from mlrelease.perf import session


@gate(
    "perf",
    "The `cpu` perf profile gives every model x framework combination a status and, against "
    "this device's baseline (`ci/perf_baselines/`), no row newly fails and none with 4+ rounds "
    "a side is significantly slower beyond the threshold (another device: statuses only).",
)
def check_perf(ctx: Context) -> GateResult:
    name = ctx.config.perf.gate_profile
    profile = session.profile_of(ctx.config, name)
    if profile.device == "cuda":
        from mlrelease.perf.frameworks import unavailable

        reason = unavailable("pytorch", "cuda")
        if reason:
            return GateResult.skipped(f"profile `{name}` needs a CUDA device: {reason}")
    folder = ctx.evidence_path("perf", "results.json").parent
    log = io.StringIO()
    outcome = session.run(
        ctx.config, name, console=Console(file=log, width=120), output=folder, docs=False
    )
    evidence = [ctx.display(p) for p in outcome.paths.values()]
    comparison = outcome.comparison
    details = [f"`{v.key}`: {v.kind.replace('_', ' ')}: {v.message}" for v in comparison.failed]
    counts = ", ".join(f"{n} {s}" for s, n in outcome.results.counts().items())
    summary = f"{outcome.results.device_key}, {counts}: {comparison.summary()}"
    if comparison.ok:
        return GateResult.passed(summary, evidence=evidence)
    return GateResult.failed(summary, details=details, evidence=evidence)
