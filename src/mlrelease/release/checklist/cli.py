"""``mlrelease release checklist`` and ``checklist-doc``: the resumable release checklist, and
the page generated from it."""

from __future__ import annotations

import argparse
from typing import Any

from mlrelease.config import of_command
from mlrelease.edges import files
from mlrelease.release import service
from mlrelease.release.checklist import doc, walker
from mlrelease.release.config import ReleaseConfig
from mlrelease.terminal import message_console

# Release messages name TOML tables ([tool.mlrelease]): never markup.
console = message_console()


def _say(text: str) -> None:
    console.print(text, soft_wrap=True)


def cmd_checklist(args: argparse.Namespace) -> int:
    return walker.run_checklist(
        of_command(args, loader=service.resuming(args.load_config)),
        args.version,
        execute=args.execute,
        confirm=args.confirm,
        redo=args.redo,
        out=_say,
        reason=args.reason,
    )


def cmd_checklist_doc(args: argparse.Namespace) -> int:
    config = of_command(args, loader=service.resuming(args.load_config))
    page = config.table(ReleaseConfig).checklist_doc
    generated = files.Generated(config.path(page), doc.render(config), page)
    return files.run(args, [generated], command="mlrelease release checklist-doc", say=_say)


def add_checklist(sub: Any) -> None:
    s = sub.add_parser(
        "checklist",
        help="walk the release checklist, resumably",
        description="Run the configured checklist steps in order, recording each "
        "in build/release/X.Y.Z/ledger.json; resume at the first unfinished step; "
        "never repeat a finished step. Dry run (shows the ledger and next "
        "commands) unless --execute.",
    )
    s.add_argument("--version", required=True, metavar="X.Y.Z", help="the release version")
    s.add_argument(
        "--confirm",
        action="append",
        default=[],
        metavar="STEP",
        help="mark a manual step as done, or (with --reason) a step the world shows done "
        "(repeatable)",
    )
    s.add_argument("--reason", default="", help="why a step with a command is confirmed")
    s.add_argument(
        "--redo",
        action="append",
        default=[],
        metavar="STEP",
        help="run a finished non-mutating step again (repeatable)",
    )
    s.add_argument("--execute", action="store_true", help="run the steps (default: dry run)")
    s.set_defaults(func=cmd_checklist)


def add_checklist_doc(sub: Any) -> None:
    s = sub.add_parser(
        "checklist-doc",
        help="generate docs/release/checklist.md from the checklist",
        description="Generate the release checklist page from "
        "[tool.mlrelease.release] (steps, names, patch-release criteria, "
        "cherry-pick rules). Dry run (prints the diff) unless --execute; --check fails when "
        "the page is stale.",
    )
    files.add_arguments(s, what="the page", wrote_by_default=True)
    s.set_defaults(func=cmd_checklist_doc)


def register(sub: Any) -> None:
    """Add ``mlrelease release checklist`` and ``checklist-doc``."""
    add_checklist(sub)
    add_checklist_doc(sub)
