"""``mlrelease wheels ...``: plan, build, smoke, collect, audit, sums, promote (and, from
:mod:`~mlrelease.wheels.reference_cli`, source-digest and provenance).

Each command turns its options into one :class:`~mlrelease.wheels.arguments.WheelsArguments`
and the projects it names into their configurations, makes one call into
:mod:`mlrelease.wheels.verbs`, and prints what it returns."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from mlrelease.config import Config, of_command
from mlrelease.errors import PreconditionError, UserError
from mlrelease.terminal import make_console
from mlrelease.wheels import artifacts, build, promote, reference_cli, verbs
from mlrelease.wheels.arguments import WheelsArguments
from mlrelease.wheels.artifacts import FileProblem

console = make_console()


def _projects(args: argparse.Namespace) -> Iterator[tuple[str, Config]]:
    """(folder as given, configuration) for each PROJECT argument, read as iterated; default:
    the --root project."""
    given = args.projects or [str(args.root) if args.root else None]
    for folder in given:
        config = of_command(args, root=Path(folder) if folder else None)
        yield Path(folder or ".").as_posix(), config


def _project(args: argparse.Namespace) -> Config:
    """The configuration of the one project a command handles (the last named)."""
    ((_, config),) = list(_projects(args))[-1:]
    return config


def _report(findings: tuple[FileProblem, ...] | list[FileProblem], what: str) -> None:
    for finding in findings:
        console.print(f"  [bold red]x[/] {escape(str(finding))}", soft_wrap=True)
    console.print(f"[bold red]{what}: {len(findings)} problem(s)[/]")


def cmd_plan(args: argparse.Namespace) -> int:
    result = verbs.plan(_projects(args), WheelsArguments(release_tag=args.release_tag))
    table = Table(
        title="wheel build plan (cibuildwheel --print-build-identifiers)", title_justify="left"
    )
    for column in ("project", "job", "runner", "platform tags", "pythons"):
        table.add_column(column, overflow="fold")
    for row in result.rows():
        table.add_row(*row)
    console.print(table)
    document = result.matrix()
    text = json.dumps(document, separators=(",", ":"))
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        console.print(f"Wrote {args.output}")
    if args.github_output:
        target = os.environ.get("GITHUB_OUTPUT")
        if not target:
            raise UserError("--github-output: $GITHUB_OUTPUT is not set (not on GitHub Actions).")
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(f"build={json.dumps(document['build'], separators=(',', ':'))}\n")
            handle.write(f"smoke={json.dumps(document['smoke'], separators=(',', ':'))}\n")
    if args.json:
        print(text)
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    arguments = WheelsArguments(
        release_tag=args.release_tag,
        builder=args.builder,
        platform=args.platform or "",
        archs=args.archs or "",
        smoke=not args.no_smoke,
    )
    failed = 0
    for built in verbs.builds(_projects(args), arguments, console):
        outcome = built.outcome
        for note in outcome.notes:
            console.print(f"  note: {escape(note)}", soft_wrap=True)
        if not outcome.ok:
            _report(outcome.findings, f"{outcome.project} {outcome.version}")
            console.print(f"  {built.dist_dir}/ left as it was.")
            failed += 1
            continue
        for path in outcome.files:
            console.print(f"  [green]ok[/] {path.name}")
        for name in outcome.smoked:
            console.print(f"  [green]smoke test passed[/] in a fresh venv: {name}")
        if outcome.sums:
            sums = Path(built.label, built.dist_dir, artifacts.SUMS)
            console.print(f"  wrote {sums.as_posix()}")
    return 1 if failed else 0


def cmd_smoke(args: argparse.Namespace) -> int:
    found = verbs.smoke(_project(args), WheelsArguments(folder=args.folder), console)
    for name in found.passed:
        console.print(f"  [green]smoke test passed[/] in a fresh venv: {name}")
    if not found.ok:
        _report(found.findings, f"smoke test of {found.folder}")
        return 1
    return 0


def cmd_collect(args: argparse.Namespace) -> int:
    arguments = WheelsArguments(
        downloads=args.downloads, output=args.output, release_tag=args.release_tag
    )
    collection = verbs.collect(_projects(args), arguments)
    if collection.download_problems:
        _report(collection.download_problems, f"downloads in {collection.downloads}")
        return 1
    for merged in collection.projects:
        if merged.problems:
            _report(merged.problems, f"{merged.name} {merged.version} ({merged.label})")
            return 1
        console.print(
            f"{merged.target}: {merged.count} artifacts of {merged.name} "
            f"{merged.version}, audited and complete; wrote {artifacts.SUMS}"
        )
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    arguments = WheelsArguments(
        folder=args.folder, version=args.version, release_tag=args.release_tag
    )
    found = verbs.audit_folder(_project(args), arguments)
    if not found.ok:
        _report(found.findings, f"audit of {found.folder}")
        return 1
    console.print(f"{found.folder}: {found.count} artifacts pass the audit")
    return 0


def cmd_sums(args: argparse.Namespace) -> int:
    found = verbs.sums(WheelsArguments(folder=args.folder, check=args.check))
    if not found.ok:
        _report(found.findings, f"{found.folder}/{artifacts.SUMS}")
        return 1
    if found.written is None:
        console.print(f"{found.folder}: every file matches {artifacts.SUMS}")
    else:
        console.print(f"Wrote {found.written} ({found.count} artifacts)")
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    arguments = WheelsArguments(artifacts=args.artifacts, version=args.version)
    promotion = verbs.promotion(_project(args), arguments)
    if not promotion.ok:
        _report(promotion.findings, f"promotion of {args.artifacts}")
        console.print("Nothing was uploaded.")
        return 1
    console.print(
        f"{len(promotion.files)} artifacts of {promotion.project} {promotion.version} "
        f"verified against {artifacts.SUMS}:"
    )
    for path in promotion.files:
        console.print(f"  {path.name}")
    if args.execute:
        raise PreconditionError(
            "wheels promote --execute: release files are published only through `mlrelease "
            "release publish --rc vX.Y.Z-rcN --execute`, from the store filled when they were "
            "bound to the RC and checked against that manifest (a fresh clone adds --artifacts "
            f"{args.artifacts} to import them). Nothing was uploaded."
        )
    console.print("Verified; nothing uploaded (publishing is `mlrelease release publish`).")
    return 0


def _projects_argument(parser: argparse.ArgumentParser, many: bool) -> None:
    parser.add_argument(
        "--project",
        dest="projects",
        action="append",
        metavar="DIR",
        help="project folder"
        + (" (repeatable)" if many else "")
        + " (default: the --root project)",
    )


def register(subparsers: Any) -> None:
    """Add ``mlrelease wheels`` and its actions."""
    p = subparsers.add_parser(
        "wheels",
        help="plan, build, audit, checksum and promote wheels",
        description="Wheels for every platform: the cibuildwheel plan, local builds with audits "
        "and clean-venv smoke tests, SHA256SUMS, and promotion of a release candidate's files.",
    )
    sub = p.add_subparsers(dest="wheels_command", required=True, metavar="ACTION")
    _add_plan(sub)
    _add_build(sub)
    _add_audit(sub)
    _add_smoke(sub)
    _add_collect(sub)
    _add_sums(sub)
    _add_promote(sub)
    reference_cli.add_source_digest(sub)
    reference_cli.add_provenance(sub)


def _add_plan(sub: Any) -> None:
    """``mlrelease wheels plan``."""
    q = sub.add_parser(
        "plan",
        help="the build matrix from cibuildwheel's build identifiers",
        description="Ask cibuildwheel which build identifiers [tool.cibuildwheel] "
        "selects per platform and group them into one job per platform and arch "
        "on a native runner: a table, and the JSON matrix the wheel workflow uses.",
    )
    _projects_argument(q, many=True)
    q.add_argument("--json", action="store_true", help="print the matrix JSON on stdout")
    q.add_argument("--output", type=Path, help="write the matrix JSON to this file")
    q.add_argument(
        "--github-output",
        action="store_true",
        help="append build=... and smoke=... to $GITHUB_OUTPUT",
    )
    q.add_argument(
        "--release-tag",
        default="",
        metavar="TAG",
        help="check that the files carry this tag's version (empty: no check)",
    )
    q.set_defaults(func=cmd_plan)


def _add_build(sub: Any) -> None:
    """``mlrelease wheels build``."""
    b = sub.add_parser(
        "build",
        help="build, audit and smoke-test; write dist/ and SHA256SUMS",
        description="Build the sdist and wheels in a temporary folder, audit "
        "them (twine check --strict, check-wheel-contents, abi3audit, expected "
        "files, version in the file name), install each host-compatible wheel "
        "into a fresh virtual environment and run the smoke command; only then "
        "copy them to dist/ and write dist/SHA256SUMS.",
    )
    _projects_argument(b, many=True)
    b.add_argument(
        "--builder",
        choices=build.BUILDERS,
        default="build",
        help="build: python -m build (+ auditwheel repair); sdist: the sdist only; "
        "cibuildwheel: one platform's wheels on a native CI runner (default: build)",
    )
    b.add_argument("--platform", help="cibuildwheel --platform (builder cibuildwheel)")
    b.add_argument("--archs", help="cibuildwheel --archs (builder cibuildwheel)")
    b.add_argument(
        "--release-tag",
        default="",
        metavar="TAG",
        help="build for this release tag: vX.Y.Z-rcN builds the final X.Y.Z in a "
        "temporary copy of the tree (empty: the files' version)",
    )
    b.add_argument("--no-smoke", action="store_true", help="skip the clean-venv smoke tests")
    b.set_defaults(func=cmd_build)


def _add_audit(sub: Any) -> None:
    """``mlrelease wheels audit``."""
    a = sub.add_parser(
        "audit",
        help="audit the artifacts in a folder",
        description="Run every artifact audit on the wheels and sdist in DIR.",
    )
    a.add_argument("folder", type=Path, metavar="DIR")
    _projects_argument(a, many=False)
    a.add_argument("--version", help="the version the artifacts carry (default: the project's)")
    a.add_argument(
        "--release-tag", default="", help="or the tag they were built for (--version wins)"
    )
    a.set_defaults(func=cmd_audit)


def _add_smoke(sub: Any) -> None:
    """``mlrelease wheels smoke``."""
    m = sub.add_parser(
        "smoke",
        help="smoke-test the wheels of a folder in fresh venvs",
        description="Verify DIR against DIR/SHA256SUMS, then install each wheel this "
        "interpreter can install into a fresh virtual environment and run the smoke command "
        "(the wheel workflow's per-platform check of a pure wheel).",
    )
    m.add_argument("folder", type=Path, metavar="DIR")
    _projects_argument(m, many=False)
    m.set_defaults(func=cmd_smoke)


def _add_collect(sub: Any) -> None:
    """``mlrelease wheels collect``."""
    c = sub.add_parser(
        "collect",
        help="merge a CI run's artifacts per project, audited",
        description="Verify each folder of DOWNLOADS (one per CI job) against its SHA256SUMS, "
        "merge the artifacts per project into OUTPUT/<name>/ with the provenance statements "
        "of its wheels' builds (*.intoto.json, which `release bind` reads), audit them, check "
        "that every required platform has a wheel, and write OUTPUT/<name>/SHA256SUMS.",
    )
    c.add_argument("downloads", type=Path, metavar="DOWNLOADS")
    c.add_argument("--output", type=Path, default=Path("dist"), help="default: dist")
    _projects_argument(c, many=True)
    c.add_argument(
        "--release-tag",
        default="",
        metavar="TAG",
        help="the release tag the artifacts were built for (empty: none)",
    )
    c.set_defaults(func=cmd_collect)


def _add_sums(sub: Any) -> None:
    """``mlrelease wheels sums``."""
    s = sub.add_parser(
        "sums",
        help="write or check DIR/SHA256SUMS",
        description="Write DIR/SHA256SUMS over the artifacts in DIR and the provenance "
        "statements beside them (*.intoto.json), or with --check verify every file against it "
        "(missing, extra, tampered).",
    )
    s.add_argument("folder", type=Path, metavar="DIR")
    s.add_argument("--check", action="store_true", help="verify instead of writing")
    s.set_defaults(func=cmd_sums)


def _add_promote(sub: Any) -> None:
    """``mlrelease wheels promote``."""
    r = sub.add_parser(
        "promote",
        help="verify an RC's artifacts (publishing is `release publish`)",
        description=promote.__doc__.split("\n\n")[0] + " Verifies every file "
        "against DIR/SHA256SUMS, the version in each file name and the set's "
        "completeness. Uploads nothing: release files are published by `mlrelease release "
        "publish`, from the store, against the manifest bound to the RC.",
    )
    r.add_argument(
        "--artifacts",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder holding the RC's artifacts and their SHA256SUMS",
    )
    _projects_argument(r, many=False)
    r.add_argument("--version", help="the final version (default: the project's)")
    r.add_argument(
        "--repository-url", help=argparse.SUPPRESS
    )  # accepted, unused (it uploads nothing)
    r.add_argument("--execute", action="store_true", help="refused: see `release publish`")
    r.set_defaults(func=cmd_promote)
