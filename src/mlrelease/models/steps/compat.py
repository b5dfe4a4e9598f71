"""Step 4: the model loads within every probed runtime's limits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlrelease.models import compat as compat_rules
from mlrelease.models.runtimes import RuntimeLimits
from mlrelease.models.steps.state import State, verdict
from mlrelease.models.verdicts import StepStatus, StepVerdict

if TYPE_CHECKING:
    from onnx import ModelProto


def compat_findings(
    model: ModelProto, name: str, limits: list[RuntimeLimits]
) -> list[compat_rules.CompatFinding]:
    produced = compat_rules.model_produced(
        name, model.ir_version, [(o.domain, o.version) for o in model.opset_import]
    )
    return [f for lim in limits for f in compat_rules.judge(produced, lim)]


def step_compat(state: State) -> StepVerdict:
    assert state.header is not None
    limits = [RuntimeLimits.from_dict(d) for d in state.job.limits]
    if not limits:
        return verdict(
            "compat", StepStatus.SKIP, "no runtime limits were probed (no runtime usable)"
        )
    findings = compat_findings(state.header, "the model", limits)
    bad = [f.message for f in findings if not f.ok]
    if bad:
        return verdict("compat", StepStatus.FAIL, bad[0], bad)
    labels = ", ".join(lim.label for lim in limits)
    return verdict(
        "compat",
        StepStatus.PASS,
        f"loads within the probed limits of {labels}",
        [f.message for f in findings],
    )
