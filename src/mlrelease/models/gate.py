"""Gates ``compat`` (runtimes load what the project ships) and ``models`` (the model set)."""

from __future__ import annotations

import json

from mlrelease.gates import Context, GateResult, gate
from mlrelease.models import service, verdicts
from mlrelease.models.config import display_domain
from mlrelease.terminal import make_console


@gate(
    "compat",
    "Every supported runtime really loads (probed, cached by runtime version) the IR version and "
    "opsets the project stamps (declared in tool.mlrelease.compat, else the pinned onnx's "
    "defaults) and its models declare; the pinned onnx's version table agrees with its defaults.",
    extra="models",
)
def check_compat(ctx: Context) -> GateResult:
    report = service.judge_compat(ctx.config)
    evidence = ctx.evidence_path("compat", "compat.json")
    evidence.write_text(
        json.dumps(
            {
                "problems": report.problems,
                "facts": report.facts,
                "limits": report.limits,
                "produced": [
                    {
                        "source": p.source,
                        "ir_version": p.ir_version,
                        "opsets": {display_domain(d): v for d, v in p.opsets.items()},
                    }
                    for p in report.produced
                ],
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    stamped = report.produced[0]
    what = f"{stamped.source}: IR {stamped.ir_version}, " + ", ".join(
        f"{display_domain(d)} {v}" for d, v in sorted(stamped.opsets.items())
    )
    details = [f"**{p}**" for p in report.problems] + report.facts
    if report.problems:
        return GateResult.failed(
            f"{len(report.problems)} problem(s): {report.problems[0]}",
            details=details,
            evidence=[ctx.display(evidence)],
        )
    runtimes = len(report.limits)
    return GateResult.passed(
        f"{what}; {len(report.produced) - 1} model(s); loads on {runtimes} runtime target(s)",
        details=details,
        evidence=[ctx.display(evidence)],
    )


@gate(
    "models",
    "Every model of the manifest (tool.mlrelease.models.manifest) passes, each in a sandboxed "
    "subprocess: integrity, onnx.checker full check, strict shape inference, opset imports, "
    "runtime compatibility, inference against expected outputs and the reference evaluator, "
    "and the version-converter round trip.",
    extra="models",
)
def check_models(ctx: Context) -> GateResult:

    jobs = service.project_jobs(ctx.config)
    results = service.verify(
        jobs,
        ctx.config,
        console=make_console(),
        cache_dir=service.verdict_cache_dir(ctx.config),
    )
    md = ctx.evidence_path("models", "verdicts.md")
    md.write_text(verdicts.markdown(results), encoding="utf-8")
    js = ctx.evidence_path("models", "verdicts.json")
    js.write_text(json.dumps([v.to_dict() for v in results], indent=2), encoding="utf-8")
    evidence = [ctx.display(md), ctx.display(js)]
    details = verdicts.markdown_table(results).splitlines() + verdicts.findings(results)
    line = verdicts.summary(results)
    if all(v.ok for v in results):
        return GateResult.passed(line, details=details, evidence=evidence)
    return GateResult.failed(line, details=details, evidence=evidence)


GATES = (check_compat, check_models)
