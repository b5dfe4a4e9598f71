"""``mlrelease opset snapshot``: write the declared schemas' snapshot (what to write and the rule
violations on the way are :func:`mlrelease.opsets.service.snapshot`'s)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from mlrelease.config import of_command
from mlrelease.gates import Context
from mlrelease.opsets import service
from mlrelease.opsets.config import OpsetRulesConfig
from mlrelease.terminal import make_console


def cmd_snapshot(args: argparse.Namespace) -> int:
    from rich.markup import escape

    console = make_console()
    config = of_command(args)
    if args.schema_module:
        options = config.table(OpsetRulesConfig)
        config = config.with_table(
            dataclasses.replace(options, schema_modules=list(args.schema_module))
        )
    outcome = service.snapshot(config, args.output, args.execute)
    shown = Context(config=config).display(outcome.path)
    if outcome.current:
        console.print(f"{shown} is current; nothing to write.")
        return 0
    if outcome.existed:
        for fact in outcome.facts:
            console.print(f"  {escape(fact)}")
        for problem in outcome.problems:
            console.print(f"  [bold red]rule violation[/]: {escape(problem)}")
        console.print(f"{shown}: {outcome.changed} diff lines against the committed snapshot.")
    else:
        console.print(f"{shown} does not exist yet.")
    if not outcome.written:
        console.print(
            "Dry run: nothing written. Re-run with --execute to write the snapshot "
            "(at release time, then commit it)."
        )
        return 0
    console.print(
        f"Wrote {shown}: {outcome.operators} operator versions in {outcome.domains} domain(s)."
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``opset snapshot`` to the mlrelease command line."""
    p = sub.add_parser("opset", help="operator-versioning snapshots (gate opset_rules)")
    opset_sub = p.add_subparsers(dest="opset_command", required=True, metavar="ACTION")
    s = opset_sub.add_parser(
        "snapshot",
        help="write the declared schemas' snapshot (dry run unless --execute)",
        description="Collect every declared operator schema (the installed onnx's domains and "
        "the custom ones registered by [tool.mlrelease.opset-rules] schema-modules) and write "
        "them to the snapshot file the opset_rules gate compares against. Run at release time "
        "and commit the file. Dry run (shows what changed and any rule violation) unless "
        "--execute.",
    )
    s.add_argument(
        "--output",
        type=Path,
        default=None,
        help="write here instead of [tool.mlrelease.opset-rules] snapshot",
    )
    s.add_argument(
        "--schema-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import this module instead of [tool.mlrelease.opset-rules] "
        "schema-modules (repeatable)",
    )
    s.add_argument("--execute", action="store_true", help="write the file")
    s.set_defaults(func=cmd_snapshot)
