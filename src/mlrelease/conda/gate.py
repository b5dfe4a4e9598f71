"""The ``conda`` gate: on a final release, the feedstock change of the bound release is ready
(nothing undecided, no lint error, the recipe renders)."""

from __future__ import annotations

import json

from mlrelease.conda import service
from mlrelease.edges import git
from mlrelease.gates import Context, GateResult, gate


@gate(
    "conda",
    "On a final release, the conda-forge feedstock change generated from the bound release is "
    "ready: version, hash and requirements decided from the release's metadata, every patch "
    "applies, no run_exports, loose-pin or dropped-variant error, the recipe renders.",
    extra="conda",
    programs=(git.PROGRAM, "gzip"),
)
def check_conda(ctx: Context) -> GateResult:
    version = service.gate_version(ctx.config)
    if version is None:
        return GateResult.skipped(
            f"{ctx.config.version} is not a final release: the feedstock follows finals"
        )
    outcome = service.plan(ctx.config, version)
    evidence = ctx.evidence_path("conda", "feedstock-change.json")
    evidence.write_text(json.dumps(service.summary(outcome), indent=2), encoding="utf-8")
    shown = [ctx.display(evidence)]
    details = [f"undecided: {u}" for u in outcome.proposal.undecided]
    details += [f"{f.level} {f.rule}: {f.text}" for f in outcome.findings]
    details.append(outcome.build)
    head = f"{outcome.package} {version} on {outcome.stock.remote}/{outcome.stock.branch}"
    if not outcome.ready:
        return GateResult.failed(
            f"{head}: not ready, {len(outcome.blockers)} blocker(s): {outcome.blockers[0]}",
            details=details,
            evidence=shown,
        )
    return GateResult.passed(
        f"{head}: ready, {len(outcome.proposal.changes)} line(s) changed (branch "
        f"{outcome.branch}: `mlrelease conda --version {version} --execute`)",
        details=details,
        evidence=shown,
    )


GATES = (check_conda,)
