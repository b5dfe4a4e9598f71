"""The ``mlrelease`` command line. Every nox session and invoke task calls into it.

Feature packages add their own sub-commands: each module in :data:`COMMANDS` (a feature's
``cli.py``) has ``register(subparsers)``, which adds parsers whose ``func`` default takes the
parsed arguments and returns an exit code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from rich.markup import escape

from mlrelease import (
    __version__,
    bump,
    changelog,
    doctor,
    exit_criteria,
    report,
    requirements,
    verify,
)
from mlrelease.config import Config, find_root, load
from mlrelease.docs import cli as docs_cli
from mlrelease.edges import files, installed
from mlrelease.errors import UserError
from mlrelease.gates import load_gates, select
from mlrelease.init import cli as init_cli
from mlrelease.models import cli as models_cli
from mlrelease.ops import cli as ops_cli
from mlrelease.opsets import cli as opsets_cli
from mlrelease.perf import cli as perf_cli
from mlrelease.release import cli as release_cli
from mlrelease.release.config import Names
from mlrelease.terminal import make_console
from mlrelease.wheels import cli as wheels_cli


class Commands(Protocol):
    """A module that adds sub-commands (a feature's ``cli.py``)."""

    def register(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...


COMMANDS: tuple[Commands, ...] = (
    wheels_cli,
    release_cli,
    docs_cli,
    models_cli,
    opsets_cli,
    ops_cli,
    perf_cli,
    init_cli,
)
"""The modules that add sub-commands, in the order ``mlrelease --help`` lists them."""

console = make_console()


def _config(args: argparse.Namespace) -> Config:
    return load(args.root)


def cmd_verify(args: argparse.Namespace) -> int:
    try:
        shard = verify.parse_shard(args.shard) if args.shard else None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    options = verify.Options(
        only=args.only,
        skip=args.skip,
        strict=args.strict,
        shard=shard,
        report_dir=args.report_dir,
    )
    outcome = verify.run(_config(args), options, console)
    return 0 if outcome.ok else 1


def cmd_report_merge(args: argparse.Namespace) -> int:
    merged = report.merge([report.read(Path(p)) for p in args.reports])
    paths = report.write(merged, args.output)
    console.print(verify.summary_table(merged))
    console.print(f"Merged {len(args.reports)} reports into {paths['json'].parent}")
    return 0 if merged.ok else 1


def cmd_gates_list(args: argparse.Namespace) -> int:
    config = _config(args)
    if args.all:
        for name, g in sorted(load_gates(config).items()):
            mark = "*" if name in config.gates else " "
            print(f"{mark} {name:20} {g.description}")
        print("(* configured in tool.mlrelease.gates)")
        return 0
    for g in select(config):
        print(f"{g.name:20} {g.description}")
    return 0


def _say(text: str) -> None:
    console.print(escape(text), soft_wrap=True)


def cmd_gates_doc(args: argparse.Namespace) -> int:
    config = _config(args)
    page = files.Generated(
        config.path(config.exit_criteria_doc),
        exit_criteria.render(select(config)),
        config.exit_criteria_doc,
    )
    return files.run(args, [page], command="mlrelease gates doc", say=_say)


def cmd_changelog(args: argparse.Namespace) -> int:
    config = _config(args)
    names = Names.of(config.release, str(config.pyproject_path))
    after = changelog.generate(
        config.root,
        config.changelog,
        bump=changelog.bump_tag(args.bump, names.tag_of),
        repository_url=changelog.repository_url(config.pyproject),
        other_changes=config.changelog_other_changes,
        write=False,
    )
    log = files.Generated(config.path(config.changelog), after, config.changelog)
    return files.run(args, [log], command="mlrelease changelog", say=_say)


def cmd_bump(args: argparse.Namespace) -> int:
    # An interrupted bump is undone first, before any (maybe half-written) file is read.
    for note in bump.recover(args.root or find_root(Path.cwd()), execute=args.execute):
        console.print(note)
    config = _config(args)
    bump_plan = bump.plan(config, to=args.to, part=args.part)
    if bump_plan.from_tags:
        console.print(
            "The version comes from git tags (tool.mlrelease.version-source = 'scm'): a bump "
            "has no file to write. The release is its tag (`mlrelease release` verbs make it)."
        )
        return 0
    if bump_plan.noop:
        console.print(f"Version is already {bump_plan.new}; nothing to do.")
        return 0
    console.print(f"Bump {bump_plan.current} -> {bump_plan.new} in:")
    for file, line in bump_plan.changes:
        console.print(f"  {file}:{line}")
    if not args.execute:
        console.print("Dry run: nothing written. Re-run with --execute to apply.")
        return 0
    bump.execute(config, bump_plan, journal=True)
    console.print(f"Version is now {bump_plan.new}. Review and commit the change.")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    root = doctor.project_root(args.root)
    return doctor.run(load(root) if root else None, console)


def cmd_version(args: argparse.Namespace) -> int:
    config = _config(args)
    print(config.version)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mlrelease",
        description="Release engineering for ML libraries: run the release exit criteria (gates), "
        "write reports, generate the changelog and exit-criteria page, bump versions. "
        "Configuration: [tool.mlrelease] in pyproject.toml.",
    )
    parser.add_argument("--version", action="version", version=f"mlrelease {__version__}")
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="project root (default: nearest folder with a pyproject.toml)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "verify",
        help="run the release gates and write the reports",
        description="Run the gates listed in [tool.mlrelease] gates, in order; "
        "write report.md, report.json and junit.xml; exit 0 only when no gate "
        "failed or errored.",
    )
    p.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GATE",
        help="run only this gate (repeatable)",
    )
    p.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="GATE",
        help="do not run this gate (repeatable)",
    )
    p.add_argument("--strict", action="store_true", help="a skipped required gate fails")
    p.add_argument("--shard", metavar="I/N", help="run shard I of N (round-robin over the gates)")
    p.add_argument(
        "--report-dir",
        type=Path,
        default=None,
        help="where to write the reports (default: [tool.mlrelease] report-dir)",
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("report", help="work with release_verify reports")
    report_sub = p.add_subparsers(dest="report_command", required=True, metavar="ACTION")
    m = report_sub.add_parser("merge", help="merge shard report.json files into one report")
    m.add_argument("reports", nargs="+", metavar="REPORT_JSON")
    m.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("build/release-verify"),
        help="folder for the merged report (default: build/release-verify)",
    )
    m.set_defaults(func=cmd_report_merge)

    p = sub.add_parser("gates", help="list the gates or write the exit-criteria page")
    gates_sub = p.add_subparsers(dest="gates_command", required=True, metavar="ACTION")
    g = gates_sub.add_parser("list", help="the configured gates, in order")
    g.add_argument("--all", action="store_true", help="every available gate, configured or not")
    g.set_defaults(func=cmd_gates_list)
    d = gates_sub.add_parser(
        "doc",
        help="generate docs/release/exit-criteria.md from the gates",
        description="Regenerate the exit-criteria page from the configured gates. Dry run "
        "(prints the diff) unless --execute; --check fails when the page is stale.",
    )
    files.add_arguments(d, what="the page", wrote_by_default=True)
    d.set_defaults(func=cmd_gates_doc)

    p = sub.add_parser(
        "changelog",
        help="generate the changelog from Conventional Commits",
        description="Regenerate the changelog in place with git-changelog's angular "
        "convention. Dry run (prints the diff) unless --execute; --check fails when the "
        "changelog differs from a regeneration.",
    )
    p.add_argument(
        "--bump",
        metavar="VERSION",
        help="title the unreleased section with this version ('auto' to infer it)",
    )
    files.add_arguments(p, what="the changelog")
    p.set_defaults(func=cmd_changelog)

    p = sub.add_parser(
        "bump",
        help="bump the version in every listed file (bump-my-version)",
        description="Change the version in every file listed in [tool.bumpversion]. "
        "Dry run unless --execute; refuses a dirty tree.",
    )
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--to", metavar="VERSION", help="the new version, e.g. 1.5.0 or 1.5.0rc1")
    group.add_argument("--part", choices=sorted(bump.PARTS), help="the part to increment")
    p.add_argument("--execute", action="store_true", help="write the files")
    p.set_defaults(func=cmd_bump)

    sub.add_parser("version", help="print the project version").set_defaults(func=cmd_version)

    sub.add_parser(
        "doctor",
        help="say whether each configured gate and each command can run here",
        description="For each configured gate and each command: the extra of mlrelease that "
        "brings what it needs, its distributions as installed here, the programs and locales "
        "it uses, and one install line for what is missing. Exit 1 when a configured gate "
        "cannot run.",
    ).set_defaults(func=cmd_doctor)

    for commands in COMMANDS:
        commands.register(sub)
    return parser


def _actions(args: argparse.Namespace) -> list[str]:
    """The sub-command words after the command (``perf merge`` -> ``["merge"]``)."""
    return [
        str(value)
        for key, value in vars(args).items()
        if key.endswith("_command") and key != "command" and isinstance(value, str)
    ]


def _fail(exc: UserError) -> int:
    console.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
    return exc.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ImportError, requirements.MissingDependency) as exc:  # never a traceback
        words = [w for w in (args.command, *_actions(args)) if w]
        missing = (
            exc
            if isinstance(exc, requirements.MissingDependency)
            else requirements.MissingDependency.of(exc)
        )
        return _fail(
            missing.within(
                installed.environment(),
                needed_by=f"`mlrelease {' '.join(words)}`",
                extra=requirements.command_extra(words),
            )
        )
    except UserError as exc:
        return _fail(exc)
    except OSError as exc:  # a missing folder, a permission: the user's to fix, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(UserError(f"{where}{exc.strerror or exc}"))
    except KeyboardInterrupt:
        console.print("interrupted")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
