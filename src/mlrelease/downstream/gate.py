"""The ``downstream`` gate: the release candidate does not break its consumers.

It reads ``results.json`` of ``mlrelease downstream run`` (or of ``downstream report merge``,
CI's shards joined) when that file is about this candidate and this baseline, and runs the
paired run itself otherwise. It fails on a confirmed regression (or a candidate that cannot be
installed where the baseline can) that no live entry of the known-downstream-failures list
covers, and on a consumer that is not verified (its tests did not run on a side) unless that
consumer is optional.
"""

from __future__ import annotations

from pathlib import Path

from packaging.version import InvalidVersion, Version

from mlrelease.config import Config
from mlrelease.downstream import render, results, service, subjects
from mlrelease.downstream.config import TABLES as TABLES
from mlrelease.downstream.config import DownstreamConfig, package_of
from mlrelease.errors import UserError
from mlrelease.gates import Context, GateResult, gate
from mlrelease.terminal import make_console


def _reusable(config: Config, table: DownstreamConfig, package: str) -> results.RunResults | None:
    """The run's results file, when it answers exactly this gate's question."""
    path = config.path(table.results_dir) / "results.json"
    if not path.is_file():
        return None
    try:
        found = service.read(path)
    except UserError:  # another format (an older mlrelease): a question to ask again
        return None
    names = [c.name for c in table.consumers]
    if found.package != package or found.consumers != names or found.shard is not None:
        return None
    spec = Path(table.candidate)
    folder = spec if spec.is_absolute() else config.root / spec
    if not folder.exists():
        return None
    candidate = subjects.from_files(folder, package)
    if list(candidate.identity) != found.candidate_identity:
        return None
    if table.baseline and found.baseline != f"{package} {table.baseline}":
        return None
    return found


@gate(
    "downstream",
    "The release candidate breaks none of its consumers: each consumer of "
    "tool.mlrelease.downstream runs its own tests against the candidate and the previous release "
    "in isolated environments; a test that passes on the baseline and fails on the candidate "
    "(on every re-run of both sides) fails the gate unless the known-downstream-failures list "
    "accepts it, with an owner and an expiry date; so does a consumer whose tests did not run "
    "on a side (not verified), unless it is optional.",
    extra="downstream",
    programs=("uv",),
)
def check_downstream(ctx: Context) -> GateResult:
    table = ctx.config.table(DownstreamConfig)
    if not table.consumers:
        return GateResult.skipped("no consumers in tool.mlrelease.downstream.consumers")
    package = package_of(ctx.config)
    spec = Path(table.candidate)
    folder = spec if spec.is_absolute() else ctx.root / spec
    if not folder.exists():
        try:
            Version(table.candidate)  # a version on the RC channel or the index
        except InvalidVersion:
            return GateResult.skipped(
                f"no candidate yet: {table.candidate} does not exist (build the RC with "
                "`mlrelease wheels build`, or download its bound files there; "
                "tool.mlrelease.downstream.candidate)"
            )
    run = _reusable(ctx.config, table, package)
    reused = run is not None
    if run is None:
        console = make_console()
        request = service.Request(candidate=table.candidate, baseline=table.baseline)
        run = service.run(
            table, ctx.root, package, request, lambda c, m: console.print(f"  {c}: {m}")
        )
    judgement = service.judge(ctx.config, table, run)
    folder_out = ctx.evidence_path("downstream", "results.json").parent
    evidence = [ctx.display(p) for p in service.write(run, judgement, folder_out)]
    line = render.summary(run, judgement)
    if reused:
        line += f" (from {table.results_dir}/results.json, {run.created})"
    details = render.gate_details(run, judgement)
    if judgement.ok:
        return GateResult.passed(line, details=details, evidence=evidence)
    return GateResult.failed(
        f"{render.headline(judgement)}; {line}", details=details, evidence=evidence
    )


GATES = (check_downstream,)
