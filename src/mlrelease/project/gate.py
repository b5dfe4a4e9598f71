"""The project's gates, which every project has: versions, changelog, exit-criteria page, test
suite."""

from __future__ import annotations

import re
import shlex
import sys

from packaging.version import Version

from mlrelease import version_files, versions
from mlrelease.config import Config
from mlrelease.edges import git, installed
from mlrelease.edges.proc import TimeoutExpired, call, python
from mlrelease.gates import Context, GateResult, Needs, gate
from mlrelease.project import changelog, service, suite
from mlrelease.project.config import TestsOptions


@gate(
    "versions",
    "bump-my-version's own search finds the current version in every file listed for it, and "
    "a release tag on HEAD (as `[tool.mlrelease.release]` spells tags) agrees with it "
    "(`v1.4.0` is `1.4.0`; `v1.4.0-rc2` is `1.4.0rc2`, or `1.4.0` for an RC built with the "
    'final version; under `version-source = "tag"` any version of the tag\'s series up to '
    "it, the build taking the version from the tag).",
    extra="release",
    programs=(git.PROGRAM,),
)
def check_versions(ctx: Context) -> GateResult:
    source = str(ctx.config.pyproject_path)
    table = version_files.bumpversion_table(ctx.config.pyproject, source)
    expected = str(table["current_version"])
    parsed = versions.parse(expected, key="tool.bumpversion.current_version", source=source)
    names, model = ctx.names, versions.VersionModel(ctx.config.version_source)
    tagged_here = [
        (tag, names.read_tag(tag)) for tag in (git.tags_at(ctx.root) if git.head(ctx.root) else [])
    ]
    if ctx.config.version_source == "scm":
        on_head = [t for t, p in tagged_here if p is not None]
        return GateResult.passed(
            "the version comes from git tags (version-source = scm): no file carries it"
            + (f"; HEAD is tagged {', '.join(on_head)}" if on_head else "")
        )
    found, problems = version_files.scan(ctx.root, ctx.config.pyproject, source)
    carried = version_files.hand_edit(found, problems, expected)
    details = [version_files.stale_current(expected, carried)] if carried else []
    details += [f"`{p.file}`: {p.message}" for p in problems]
    details += [
        f"`{o.file}` line {o.line}: found `{o.value}`, expected `{expected}` "
        "(tool.bumpversion.current_version)"
        for o in version_files.mismatches(found, expected)
    ]
    for tag, tag_parsed in tagged_here:
        if tag_parsed is None:
            continue
        base, rc = tag_parsed
        tagged = Version(f"{base}rc{rc}") if rc is not None else base
        if not model.agrees(tagged, parsed):
            details.append(
                f"HEAD is tagged `{tag}` (version {tagged}) but the files carry `{expected}`"
                + (
                    " (version-source = tag: a version of its series up to it)"
                    if model.from_tag
                    else ""
                )
            )
    if details:
        return GateResult.failed(
            f"{len(details)} version problem(s): {details[0]}", details=details
        )
    files = sorted({o.file for o in found})
    return GateResult.passed(
        f"{len(files)} files carry {expected}", details=[f"`{f}`" for f in files]
    )


@gate(
    "changelog",
    "The changelog has a section for the version being released (`Unreleased` for a .dev version; "
    'under `version-source = "tag"` the release tag\'s version on a tagged commit, else '
    "`Unreleased`).",
    extra="release",
    programs=(git.PROGRAM,),
)
def check_changelog(ctx: Context) -> GateResult:
    source = str(ctx.config.pyproject_path)
    table = version_files.bumpversion_table(ctx.config.pyproject, source)
    version = versions.parse(str(table["current_version"]), source=source)
    path = ctx.config.path(ctx.config.changelog)
    if not path.is_file():
        return GateResult.failed(
            f"{ctx.config.changelog} does not exist (tool.mlrelease.changelog)",
            details=[
                "Create it, then run `mlrelease changelog --execute` to fill it from the commits."
            ],
        )
    text = path.read_text(encoding="utf-8")
    model = versions.VersionModel(ctx.config.version_source)
    if model.from_tag:  # the files keep their marker: a release tag on HEAD names the release
        tags = git.tags_at(ctx.root) if git.is_repo(ctx.root) and git.head(ctx.root) else []
        tagged = [p[0] for p in map(ctx.names.read_tag, tags) if p is not None]
        version = model.released_here(version, max(tagged, default=None))
    wanted = changelog.required_title(version)
    if changelog.has_section(text, version):
        return GateResult.passed(f"{ctx.config.changelog} has a section for {wanted}")
    found = ", ".join(changelog.sections(text)[:5]) or "none"
    return GateResult.failed(
        f"{ctx.config.changelog} has no section for {wanted} (sections found: {found})",
        details=[
            f"Run `mlrelease changelog --bump {version} --execute` to generate it from the commits."
        ],
    )


@gate(
    "exit_criteria_doc",
    "The exit-criteria page equals what `mlrelease gates doc` generates from the configured gates.",
)
def check_exit_criteria_doc(ctx: Context) -> GateResult:
    page = ctx.config.exit_criteria_doc
    difference = service.exit_criteria_page(ctx.config, ctx.configured).difference()
    if difference == "missing":
        return GateResult.failed(f"{page} does not exist; run `mlrelease gates doc --execute`")
    if difference:
        return GateResult.failed(
            f"{page} is stale ({difference}); run `mlrelease gates doc --execute` and commit it"
        )
    return GateResult.passed(f"{page} is current")


def tests_needs(config: Config) -> Needs:
    """The test command's program; ``python -m pytest`` runs in mlrelease's own interpreter, so
    pytest must be there."""
    command = Context(config).options("tests", TestsOptions).command
    needs = Needs()
    if len(command) >= 3 and command[0] in ("python", "python3") and command[1] == "-m":
        module = command[2]
        if installed.has(module):
            needs.found.append(f"{module} (in {sys.prefix})")
        else:
            needs.problems.append(
                f"`{' '.join(command)}` runs in mlrelease's interpreter ({sys.executable}), "
                f"which has no {module}: install the project's test dependencies there, or set "
                "[tool.mlrelease.gate-options.tests] command to your test environment's"
            )
    elif command:
        path = installed.program(command[0])
        if path:
            needs.found.append(f"{command[0]} ({path})")
        else:
            needs.problems.append(f"{command[0]} not on PATH")
    return needs


@gate(
    "tests",
    "The project's test suite passes in the release_verify environment.",
    options=TestsOptions,
    preflight=tests_needs,
)
def check_tests(ctx: Context) -> GateResult:
    options = ctx.options("tests", TestsOptions)
    log = ctx.evidence_path("tests", "output.txt")
    command = _interpreter(options.command)
    stamp_path = ctx.evidence_path("tests", "passed.json")
    found = suite.lookup(ctx.root, options.command, options.programs, stamp_path)
    if options.reuse and found.last:
        note = found.note("[tool.mlrelease.gate-options.tests]")
        return GateResult.passed(f"{found.last.summary} {note}", evidence=[ctx.display(stamp_path)])
    try:
        proc = call(command, cwd=ctx.root, timeout=options.timeout_s)
    except TimeoutExpired:
        return GateResult.failed(f"`{shlex.join(options.command)}` ran past {options.timeout_s} s")
    except FileNotFoundError as exc:
        return GateResult.failed(f"cannot run `{shlex.join(options.command)}`: {exc}")
    output = ANSI.sub("", proc.stdout + proc.stderr)
    log.write_text(output, encoding="utf-8")
    # The last words of the run, wherever the runner printed them (pytest: stdout; others:
    # stderr), without colour codes.
    tail = [line for line in output.splitlines() if line.strip()][-1:] or ["(no output)"]
    evidence = [ctx.display(log)]
    summary = f"`{shlex.join(options.command)}`: {tail[0].strip('= ')}"
    if proc.returncode == 0:
        if options.reuse:
            found.remember(summary)
        return GateResult.passed(summary, evidence=evidence)
    return GateResult.failed(f"exit {proc.returncode}; {summary}", evidence=evidence)


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
"""Terminal colour and cursor codes."""


def _interpreter(command: list[str]) -> list[str]:
    """``python`` (or ``python3``) is the interpreter running mlrelease, not whichever one is
    first on PATH, started without the project root on ``sys.path``: ``python -m pytest`` in the
    root imports the installed package, never a same-named folder next to it."""
    if command and command[0] in ("python", "python3"):
        return python(*command[1:])
    return list(command)


GATES = (check_versions, check_changelog, check_exit_criteria_doc, check_tests)
