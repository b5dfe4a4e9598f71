"""The ``wheels`` gate: cibuildwheel's plan covers every required platform.

For a native project each required platform needs a build identifier for each CPython
version of the classifiers. A pure project builds one ``py3-none-any`` wheel; its
``[tool.cibuildwheel]`` names where that wheel is smoke-tested, and the same coverage applies:
a platform missing there is a platform on which nobody installed the release before it shipped.
"""

from __future__ import annotations

import json

from mlrelease.gates import Context, GateResult, gate
from mlrelease.wheels import matrix, promote, service
from mlrelease.wheels.config import WheelsConfig
from mlrelease.wheels.project import from_config


@gate(
    "wheels",
    "Every platform in `[tool.mlrelease.wheels] required-platforms` has a cibuildwheel build "
    "identifier for each CPython version of the classifiers (for a pure project: a smoke-test "
    "job of its one py3-none-any wheel), and no platform or Python version of the previous "
    "release's artifacts is dropped without a recorded decision.",
)
def check_wheels(ctx: Context) -> GateResult:
    wheels = ctx.config.table(WheelsConfig)
    # A project that states no name anywhere: its folder names the CI artifacts.
    name = ctx.config.project_name or ctx.root.name
    if wheels.kind == "pure" and "cibuildwheel" not in ctx.config.pyproject.get("tool", {}):
        required = wheels.required_platforms
        return GateResult.passed(
            "pure: one py3-none-any wheel installs on every platform"
            + (f" ({', '.join(required)})" if required else "")
            + "; no [tool.cibuildwheel] table, so no per-platform smoke-test jobs",
            details=[
                "Add [tool.cibuildwheel] to smoke-test the wheel on each required platform "
                "(the gate then checks it covers them)."
            ],
        )
    jobs, identifiers = service.jobs_of(".", ctx.root, ctx.config.pyproject, name, wheels)
    versions = matrix.classifier_versions(ctx.config.pyproject)
    evidence = ctx.evidence_path("wheels", "plan.json")
    evidence.write_text(
        json.dumps(matrix.BuildMatrix(jobs, {".": identifiers}).matrix(), indent=2) + "\n",
        encoding="utf-8",
    )
    problems = matrix.coverage_problems(identifiers, wheels.required_platforms, versions)
    if wheels.kind == "native":  # the plan's identifiers spell the artifact keys
        project = from_config(ctx.config)
        problems += [m for _, m in promote.against_previous(project, {str(i) for i in identifiers})]
    if problems:
        return GateResult.failed(
            f"{len(problems)} coverage problem(s): {'; '.join(problems)}",
            details=[
                *problems,
                "Add the platform (archs) or CPython version to "
                "[tool.cibuildwheel] in pyproject.toml, or drop it from "
                "[tool.mlrelease.wheels] required-platforms.",
            ],
            evidence=[ctx.display(evidence)],
        )
    tags = sorted({i.tag for i in identifiers})
    how = (
        "one py3-none-any wheel, smoke-tested on"
        if wheels.kind == "pure"
        else "native wheels built on"
    )
    return GateResult.passed(
        f"{len(identifiers)} build identifiers; {how} {len(jobs) - 1} runners; required "
        f"platforms covered: {', '.join(wheels.required_platforms)}",
        details=[f"`{t}`" for t in tags] + [f"CPython {', '.join(versions)} (classifiers)"],
        evidence=[ctx.display(evidence)],
    )


GATES = (check_wheels,)
