"""Gate ``git_state``: the tree is clean and the branch, the release tags and the version agree."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from mlrelease import version_files, versions
from mlrelease.edges import git
from mlrelease.gates import Context, GateResult, gate
from mlrelease.release.config import ReleaseConfig, series, series_text, version_model
from mlrelease.release.world import queries


@gate(
    "git_state",
    "The working tree is clean; on the main branch (branch model) the version is a development "
    'version of the project\'s version model (`.dev`; under `version-source = "tag"` also '
    "`a0` or the bare next version) not yet cut to a release branch; on a release branch it "
    "belongs to the branch's series; a release or RC tag on HEAD agrees with the version the "
    "files carry (under `tag`: the same series, the version coming from the tag).",
    programs=(git.PROGRAM,),
)
def check_git_state(ctx: Context) -> GateResult:
    root, rel = ctx.root, ctx.config.table(ReleaseConfig)
    if not git.is_repo(root):
        return GateResult.skipped("not a git repository (e.g. an unpacked sdist): nothing to check")
    if git.head(root) is None:
        return GateResult.skipped("the repository has no commit yet")
    names, model = ctx.names, version_model(ctx.config)
    source = str(ctx.config.pyproject_path)
    text = str(version_files.bumpversion_table(ctx.config.pyproject, source)["current_version"])
    try:
        version = Version(text)
    except InvalidVersion:
        return GateResult.failed(f"tool.bumpversion.current_version {text!r} is not PEP 440")
    details: list[str] = []
    # The reports of this very run are not a change to the project.
    report = ctx.config.report_dir.strip("/") + "/"
    dirty = [
        f
        for f in git.dirty_files(root)
        if not (f.endswith("/") and report.startswith(f)) and not f.startswith(report)
    ]
    if dirty:
        shown = ", ".join(f"`{f}`" for f in dirty[:10]) + (" ..." if len(dirty) > 10 else "")
        details.append(
            f"uncommitted changes: {shown}; commit or stash them, and list generated files "
            "(`__pycache__/`, build output) in .gitignore (a release is built from a commit, "
            "not from a working tree)"
        )
    branch = git.current_branch(root)
    shown = f"version {version}" if model.files_carry else "the tags' version (scm)"
    facts = [shown, f"branch {branch or '(detached HEAD)'}"]
    notes: list[str] = []  # what the summary says after what agrees
    if not model.files_carry:
        pass  # no file carries the version: no branch is judged by what it carries
    elif branch == rel.main_branch and rel.model == "trunk":
        notes.append("trunk model: releases are tagged on main")
    elif branch == rel.main_branch:
        _judge_main(ctx, branch, version, details, notes)
    elif branch is not None:
        owned = names.series_of_branch(branch)
        if owned is not None and series(version) != owned:
            details.append(f"`{branch}` carries {version}, not a {series_text(owned)} version")
    tags = queries.tags(root)
    head = git.head(root)
    for name in sorted(t for t, commit in tags.items() if commit == head):
        parsed = names.read_tag(name)
        if parsed is None:
            continue
        facts.append(f"tag {name}")
        tagged, rc = parsed
        if not model.agrees(tagged, version):
            kind = f"release candidate {rc} of {tagged}" if rc else f"release {tagged}"
            details.append(
                f"HEAD is tagged `{name}` ({kind}) but the files carry {version}; "
                f"the tagged commit must carry {tagged}"
                + (
                    f" or a development version of {series_text(series(tagged))}"
                    if model.from_tag
                    else ""
                )
            )
    if details:
        return GateResult.failed(f"{len(details)} problem(s): {details[0]}", details=details)
    return GateResult.passed("; ".join(["clean tree", ", ".join(facts) + " agree", *notes]))


def _judge_main(
    ctx: Context, branch: str, version: Version, details: list[str], notes: list[str]
) -> None:
    """What main (branch model) carries: a development version, or a bare one not below the
    newest release (:meth:`~mlrelease.versions.VersionModel.on_main`); a release branch cut
    for main's own unreleased version means the cut did not finish."""
    names, model = ctx.names, version_model(ctx.config)
    newest = names.newest_final(queries.tags(ctx.root))
    if not model.on_main(version, newest):
        expected = model.expected_on_main(*series(version))
        details.append(
            f"`{branch}` carries {version}, {versions.kind(version)}; main carries a "
            f"development version (e.g. {expected}) and releases are prepared on their "
            "release branch"
        )
    elif version == newest:  # main keeps the newest release's version (tensordict)
        notes.append(f"{branch} keeps {version}, the newest release: no development yet")
    elif queries.branch_exists(ctx.root, names.branch_for(series(version))):
        details.append(
            f"`{names.branch_for(series(version))}` exists but `{branch}` still carries "
            f"{version}: the cut did not finish; run `mlrelease release cut --version "
            f"{series_text(series(version))} --execute`"
        )


TABLES: dict[str, type] = {"release": ReleaseConfig}

GATES = (check_git_state,)
