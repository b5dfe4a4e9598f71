"""The ``perf`` gate: run the gate profile (``cpu``) and compare with this device's baseline."""

from __future__ import annotations

import io

from rich.console import Console

from mlrelease.gates import Context, GateResult, gate
from mlrelease.perf import session


@gate(
    "perf",
    "The `cpu` perf profile runs every combination with a status, and compared with this "
    "device's baseline (`ci/perf_baselines/`) no row newly fails and none is significantly "
    "slower beyond the profile's threshold; without a baseline for this device only statuses "
    "are compared.",
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
