"""The ``opset_rules`` gate: declared schemas against the previous release's snapshot."""

from __future__ import annotations

from mlrelease.gates import Context, GateResult, gate
from mlrelease.opsets import service
from mlrelease.opsets.config import OpsetRulesConfig
from mlrelease.opsets.snapshot import read_snapshot, render, snapshot_path


@gate(
    "opset_rules",
    "Operator-versioning rules (ONNX PR 186) hold for every declared schema (the installed "
    "onnx's and custom domains) against the previous release's committed snapshot: inventory "
    "changes raise the opset version, no signature changes under a published since_version, "
    "no published operator version removed, since_version <= opset version.",
    extra="opsets",
)
def check_opset_rules(ctx: Context) -> GateResult:
    config = ctx.config
    options: OpsetRulesConfig = config.table(OpsetRulesConfig)
    previous = read_snapshot(
        snapshot_path(config),
        key="tool.mlrelease.opset-rules.snapshot",
        source=str(config.pyproject_path),
    )
    current = service.declared(config)
    problems, facts = service.violations(config, previous, current)
    evidence = ctx.evidence_path("opset_rules", "current-snapshot.json")
    evidence.write_text(render(current), encoding="utf-8")
    against = (
        f"snapshot {options.snapshot} (onnx {previous.get('onnx_version')}) vs declared "
        f"schemas (onnx {current['onnx_version']})"
    )
    if problems:
        return GateResult.failed(
            f"{len(problems)} rule violation(s): {problems[0]}",
            details=[f"**{p}**" for p in problems] + facts,
            evidence=[ctx.display(evidence)],
        )
    count = sum(len(d["operators"]) for d in current["domains"].values())
    return GateResult.passed(
        f"{count} operator versions in {len(current['domains'])} domain(s) "
        f"follow the rules; {against}",
        details=facts,
        evidence=[ctx.display(evidence)],
    )


GATES = (check_opset_rules,)
