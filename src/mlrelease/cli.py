"""The ``mlrelease`` command line. Every nox session and invoke task calls into it.

It owns the commands that know every gate (``verify``, ``report merge``, ``gates``); features
add their own sub-commands: each feature's ``cli.py`` (named in its entry of
:data:`mlrelease.registry.FEATURES`) has ``register(subparsers)``, which adds parsers whose
``func`` default takes the parsed arguments and returns an exit code. :func:`main` builds the
parser for the words it is given: with the command word plainly there, only the feature that
adds that command is imported and registered (:func:`needed`), so one command's process does
not import every feature's services (nor this module's own commands' modules: ``verify``,
``report merge``, ``gates doc`` and ``doctor`` import theirs when they run); ``--help``, an
unknown word or anything unusual before the command word registers every feature, as
:func:`build_parser` does without words. A command reads the configuration with
:func:`mlrelease.config.of_command`, which calls the loader this module hands down as
``args.load_config`` (:func:`mlrelease.registry.load_config`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Collection, Sequence
from pathlib import Path

from rich.markup import escape

from mlrelease import __version__, registry, requirements, terminal
from mlrelease.config import of_command
from mlrelease.edges import files, installed
from mlrelease.entries import Commands
from mlrelease.errors import UserError
from mlrelease.gates import parse_shard
from mlrelease.registry import load_gates, select
from mlrelease.terminal import make_console

console = make_console()


def cmd_verify(args: argparse.Namespace) -> int:
    from mlrelease import verify  # imported when the command runs (see above)

    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    options = verify.VerifyOptions(
        only=args.only,
        skip=args.skip,
        strict=args.strict,
        shard=shard,
        report_dir=args.report_dir,
    )
    outcome = verify.run(of_command(args), options, console)
    return 0 if outcome.ok else 1


def cmd_report_merge(args: argparse.Namespace) -> int:
    from mlrelease import report, verify

    merged = report.merge([report.read(Path(p)) for p in args.reports])
    paths = report.write(merged, args.output)
    console.print(verify.summary_table(merged))
    console.print(f"Merged {len(args.reports)} reports into {paths['json'].parent}")
    return 0 if merged.ok else 1


def cmd_gates_list(args: argparse.Namespace) -> int:
    config = of_command(args)
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
    from mlrelease.project import service

    config = of_command(args)
    page = service.exit_criteria_page(config, select(config))
    return files.run(args, [page], command="mlrelease gates doc", say=_say)


def cmd_doctor(args: argparse.Namespace) -> int:
    from mlrelease import doctor

    root = doctor.project_root(args.root)
    return doctor.run(registry.load_config(root) if root else None, console)


def _add_verify(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``verify`` command and its options."""
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


def command_word(argv: Sequence[str]) -> str | None:
    """The COMMAND word of ``argv`` when argparse will plainly take it as such: the first word
    after ``--root ROOT``, ``--root=ROOT`` and ``--version`` (which prints and exits whatever
    follows); ``""`` when there is none. None when another option comes first (``-h``, an
    abbreviated ``--ro``, a misspelt one), whose help or error may list every command."""
    words = iter(argv)
    for word in words:
        if word == "--root":
            next(words, None)
        elif word.startswith("--root=") or word == "--version":
            continue
        elif word.startswith("-"):
            return None
        else:
            return word
    return ""


def needed(argv: Sequence[str] | None, built_in: Collection[str]) -> tuple[Commands, ...]:
    """The features' sub-commands parsing ``argv`` needs, in :data:`mlrelease.registry.FEATURES`
    order: the feature's that adds its command word; none for a command ``built_in`` or no
    command word; every feature's without ``argv`` or for anything else (``--help``, a word no
    command has: argparse lists every command then)."""
    every = registry.commands()
    word = None if argv is None else command_word(argv)
    if word is None:
        return every
    if word == "" or word in built_in:
        return ()
    return tuple(c for c in every if word in c.names) or every


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``mlrelease``: every command's, or, given the words ``argv`` it is to
    parse, the built-in commands' and those of the feature :func:`needed` names."""
    parser = argparse.ArgumentParser(
        prog="mlrelease",
        description="Release engineering for ML libraries: run the release exit criteria (gates), "
        "write reports, generate the changelog and exit-criteria page, bump versions. "
        "Configuration: [tool.mlrelease] in pyproject.toml.",
    )
    parser.add_argument("--version", action="version", version=f"mlrelease {__version__}")
    # `json`: a command without `--json` prints no JSON, not even for a refusal's repair.
    parser.set_defaults(
        load_config=registry.load_config, gate_extras=registry.gate_extras, json=False
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="project root (default: nearest folder with a pyproject.toml)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _add_verify(sub)

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

    sub.add_parser(
        "doctor",
        help="say whether each configured gate and each command can run here",
        description="For each configured gate and each command: the extra of mlrelease that "
        "brings what it needs, its distributions as installed here, the programs and locales "
        "it uses, and one install line for what is missing. Exit 1 when a configured gate "
        "cannot run.",
    ).set_defaults(func=cmd_doctor)

    for commands in needed(argv, built_in=tuple(sub.choices)):
        commands.register(sub)
    return parser


def _actions(args: argparse.Namespace) -> list[str]:
    """The sub-command words after the command (``perf merge`` -> ``["merge"]``)."""
    return [
        str(value)
        for key, value in vars(args).items()
        if key.endswith("_command") and key != "command" and isinstance(value, str)
    ]


def _fail(exc: UserError, *, as_json: bool = False) -> int:
    console.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
    if exc.repair is not None and as_json:
        # The repair a program follows: stdout holds one JSON object, as on success.
        print(json.dumps({"error": str(exc), "repair": exc.repair.data()}, indent=2), flush=True)
    return exc.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(words).parse_args(words)
    terminal.quiet_third_party()
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
                extra=registry.command_extra(words),
            ),
            as_json=args.json,
        )
    except UserError as exc:
        return _fail(exc, as_json=args.json)
    except OSError as exc:  # a missing folder, a permission: the user's to fix, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(UserError(f"{where}{exc.strerror or exc}"))
    except KeyboardInterrupt:
        console.print("interrupted")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
