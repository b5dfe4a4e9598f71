"""Gates ``compat`` (runtimes load what the project ships) and ``models`` (the model set)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mlrelease.config import Config
from mlrelease.gates import Context, GateResult, gate
from mlrelease.models import compat as rules
from mlrelease.models import integrity, service, verdicts
from mlrelease.models.config import CompatConfig, ModelsConfig, display_domain
from mlrelease.models.runtimes import describe
from mlrelease.terminal import make_console


@dataclass
class CompatReport:
    """Everything the compat judgement found, for the gate and ``mlrelease compat probe``."""

    problems: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    limits: list[dict[str, object]] = field(default_factory=list)
    produced: list[rules.Produced] = field(default_factory=list)


def model_declarations(config: Config) -> tuple[list[rules.Produced], list[str]]:
    """What the manifest's models declare (read without external data), and unreadable ones."""
    produced: list[rules.Produced] = []
    problems: list[str] = []
    if not config.path(config.table(ModelsConfig).manifest).is_file():
        return produced, problems
    for job in service.project_jobs(config):
        path = Path(job.model)
        problem = integrity.check_file(path, Path(job.confine), "model", hard_links=job.trusted)
        try:
            if problem:
                raise ValueError(problem)
            header = integrity.load_header(path, path.parent, hard_links=job.trusted)
        except ValueError as exc:
            problems.append(f"model {job.name}: cannot read its versions: {exc}")
            continue
        produced.append(
            rules.model_produced(
                f"model {job.name}",
                header.ir_version,
                [(o.domain, o.version) for o in header.opset_import],
            )
        )
    return produced, problems


def judge_project(ctx: Context, *, refresh: bool = False) -> CompatReport:
    """Pinned onnx metadata, what the project stamps, what its models declare, per runtime."""
    config = ctx.config
    report = CompatReport()
    facts = rules.onnx_facts()
    report.problems.extend(rules.version_table_problems(facts))
    pin_problems, pin_notes = rules.pin_problems(config.pyproject, "onnx", facts.version)
    report.problems.extend(pin_problems)
    report.facts.extend(pin_notes)
    stamped = rules.declared(
        config.table(CompatConfig).ir_version, config.table(CompatConfig).opsets, facts.made
    )
    report.produced.append(stamped)
    models, unreadable = model_declarations(config)
    report.produced.extend(models)
    report.problems.extend(unreadable)
    domains = {d for p in report.produced for d in p.opsets}
    probed = service.probe_runtimes(
        config.table(CompatConfig),
        root=config.root,
        source=str(config.pyproject_path),
        domains=domains,
        refresh=refresh,
    )
    for missing in probed.unavailable:
        line = f"{missing.label}: {missing.reason}"
        (report.problems if missing.required else report.facts).append(line)
    for limits in probed.limits:
        cached = "cached" if probed.from_cache.get(limits.label) else "probed now"
        report.facts.append(f"{limits.label} ({cached}): {', '.join(describe(limits))}")
        report.limits.append(limits.to_dict())
        for produced in report.produced:
            for finding in rules.judge(produced, limits):
                (report.facts if finding.ok else report.problems).append(finding.message)
    return report


@gate(
    "compat",
    "Every supported runtime really loads (probed, cached by runtime version) the IR version and "
    "opsets the project stamps (declared in tool.mlrelease.compat, else the pinned onnx's "
    "defaults) and its models declare; the pinned onnx's version table agrees with its defaults.",
    extra="models",
)
def check_compat(ctx: Context) -> GateResult:
    report = judge_project(ctx)
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
