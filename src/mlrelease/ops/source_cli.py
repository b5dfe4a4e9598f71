"""``mlrelease ops index`` and ``ops diff`` when ``[tool.mlrelease.ops] source`` declares the
index source: the adopter's callable instead of the conformance run."""

from __future__ import annotations

import argparse
from typing import Any

from rich.markup import escape

from mlrelease.config import Config
from mlrelease.edges import files
from mlrelease.errors import UserError
from mlrelease.ops import diff as diff_mod
from mlrelease.ops import source_index
from mlrelease.ops.config import OpsConfig
from mlrelease.terminal import make_console

console = make_console()


def _say(text: str) -> None:
    console.print(escape(text), soft_wrap=True)


def cmd_index(args: argparse.Namespace, config: Config, ops: OpsConfig) -> int:
    """Run the source; show, write or check the index and page (never with a bad row)."""
    if getattr(args, "from_results", None):
        raise UserError(
            "--from-results: the index comes from [tool.mlrelease.ops] source "
            f"({ops.source}), not from conformance results; drop the option."
        )
    fresh = source_index.run(config, ops)
    for problem in fresh.problems:
        console.print(f"[bold red]bad row[/] {escape(problem)}", soft_wrap=True)
    if fresh.problems:
        console.print(
            f"{len(fresh.problems)} bad row(s) from {ops.source}: fix the source, then re-run "
            f"`{ops.regenerate_command}`. Nothing written."
        )
        return 1
    console.print(f"{ops.source}: {len(fresh.index['operators'])} operators.")
    status = files.run(args, fresh.generated(config, ops), command="mlrelease ops index", say=_say)
    if args.diff:
        status = max(status, _print_diff(config, ops, args.diff, fresh.index))
    return status


def _print_diff(config: Config, ops: OpsConfig, spec: str, new: dict[str, Any]) -> int:
    """The changes since ``spec`` (a file, a git ref, ``auto``); 1 when an operator is gone
    without a ``dropped`` decision."""
    previous = diff_mod.load_previous(
        config.root, spec, ops.index, config.version, config.names, loads=source_index.loads
    )
    if previous is None:
        console.print(f"No previous index for {spec!r}; nothing to compare.")
        return 0
    label, old = previous
    changes = source_index.diff(old, new)
    console.print(f"Changes since {escape(label)}:")
    for line in changes.lines() or ["none"]:
        console.print(f"  {escape(line)}", soft_wrap=True)
    gone = source_index.unwaived(changes, ops)
    if gone:
        console.print(escape(source_index.removal_message(gone, label)), soft_wrap=True)
    return 1 if gone else 0


def cmd_diff(args: argparse.Namespace, config: Config, ops: OpsConfig) -> int:
    """``ops diff OLD [NEW]`` between two indices of the source."""
    new = source_index.read(config, args.new, ops) if args.new else None
    if new is None:
        new = source_index.committed(config, ops)
    if new is None:
        raise UserError(f"{ops.index} does not exist; run `{ops.regenerate_command}` first.")
    return _print_diff(config, ops, args.old, new)
