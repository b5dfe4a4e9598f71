"""The ``wheels`` gate: cibuildwheel's plan covers every required platform, or, for wheels
built by something else (``builder = "external"``), the artifacts that build left pass the audit.

For a native project each required platform needs a build identifier for each CPython
version of the classifiers. A pure project builds one ``py3-none-any`` wheel; its
``[tool.cibuildwheel]`` names where that wheel is smoke-tested, and the same coverage applies:
a platform missing there is a platform on which nobody installed the release before it shipped.
An external build (a reusable workflow, a build script: Torch-TensorRT) has no plan to read, so
the gate audits its output instead of planning one.
"""

from __future__ import annotations

import json

from mlrelease.edges import git
from mlrelease.gates import Context, GateResult, gate
from mlrelease.wheels import matrix, promote, service
from mlrelease.wheels.config import WheelsConfig
from mlrelease.wheels.project import from_config


@gate(
    "wheels",
    'Under `builder = "cibuildwheel"` (the default): every platform in '
    "`[tool.mlrelease.wheels] required-platforms` has a cibuildwheel build identifier for each "
    "CPython version of the classifiers (for a pure project: a smoke-test job of its one "
    "py3-none-any wheel), and no platform or Python version of the previous release's artifacts "
    'is dropped without a recorded decision. Under `builder = "external"` (wheels built by the '
    "project's own workflow or script): the artifacts it left in `dist-dir` open as archives, "
    "carry the project's name and version (on a release tag, the tag's, under "
    '`version-source = "tag"`) in their names and metadata, pass the audit, and include an '
    "sdist and a wheel for every required platform (skipped while `dist-dir` is empty).",
    extra="wheels",
)
def check_wheels(ctx: Context) -> GateResult:
    wheels = ctx.config.table(WheelsConfig)
    if wheels.builder == "external":
        return _audit_external(ctx, wheels)
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


def _audit_external(ctx: Context, wheels: WheelsConfig) -> GateResult:
    """Wheels built by the project's own workflow or script: audit the files it built, never
    plan a build."""
    project = from_config(ctx.config)
    by = wheels.built_by or "the project's own build"
    tags = git.tags_at(ctx.root) if git.is_repo(ctx.root) and git.head(ctx.root) else []
    released = [p[0] for p in map(ctx.names.read_tag, tags) if p is not None]
    files, version, problems = service.audit_built(project, max(released, default=None))
    if not files:
        return GateResult.skipped(
            f"the wheels are built by {by}, not by cibuildwheel; {wheels.dist_dir}/ holds no "
            "artifacts to audit yet",
            details=[
                f"Put the built wheels and sdist in {wheels.dist_dir}/ (or set "
                "[tool.mlrelease.wheels] dist-dir), then re-run: the gate audits their names, "
                "archives, versions and metadata, and the required platforms."
            ],
        )
    if problems:
        return GateResult.failed(
            f"{len(problems)} problem(s) in the {len(files)} artifacts built by {by}: "
            f"{problems[0]}",
            details=[str(p) for p in problems],
        )
    return GateResult.passed(
        f"{len(files)} artifacts of {project.name} {version} built by {by} audited; required "
        "platforms covered: " + (", ".join(wheels.required_platforms) or "none declared"),
        details=[f"`{p.name}`" for p in files],
    )


GATES = (check_wheels,)
