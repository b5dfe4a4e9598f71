"""The ``train`` gate: the project's release train can be released as it stands."""

from __future__ import annotations

from mlrelease.edges import git
from mlrelease.gates import Context, GateResult, gate
from mlrelease.train import service
from mlrelease.train.config import TrainConfig


@gate(
    "train",
    "The project's release train (tool.mlrelease.train file) can be released: every member's "
    "origin reads, and each newest candidate is bound to the upstream candidates its edges name, "
    "current on their origins and resolved from the staging index, its own tests passed against "
    "them, and ships every variant its upstreams ship unless the train declares the gap (train "
    "invariants T3, T5 and T6).",
    extra="release",
    programs=(git.PROGRAM,),
)
def check_train(ctx: Context) -> GateResult:
    config = ctx.config
    path = config.path(config.table(TrainConfig).file)
    if not path.is_file():
        return GateResult.skipped(f"no train file at {path} ([tool.mlrelease.train] file)")
    train, found = service.problems(config)
    if found:
        return GateResult.failed(
            f"{len(found)} problem(s) in train {train.name}", details=[f"- {p}" for p in found]
        )
    return GateResult.passed(f"train {train.name}: {len(train.members)} members, nothing blocks")


GATES = (check_train,)
