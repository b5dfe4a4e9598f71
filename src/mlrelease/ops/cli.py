"""``mlrelease ops``: run the conformance cases, write or check the supported-operators index.

Each command turns its options into one :class:`~mlrelease.ops.arguments.OpsArguments`, makes
one call into :mod:`mlrelease.ops.verbs`, and prints what it returns."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from mlrelease.config import of_command
from mlrelease.edges import files
from mlrelease.errors import UserError
from mlrelease.gates import parse_shard
from mlrelease.ops import progress, verbs
from mlrelease.ops.arguments import OpsArguments
from mlrelease.ops.verdicts import ConformanceVerdict
from mlrelease.terminal import make_console

console = make_console()


def _say(text: str) -> None:
    console.print(escape(text), soft_wrap=True)


def _report(summary: verbs.RunSummary) -> None:
    """Backends skipped, totals per backend, cases near their tolerance, known failures to
    remove, what the machine lacked."""
    outcome = summary.run
    for name, reason in summary.skipped:
        console.print(f"[yellow]skipped[/] backend {name}: {reason}", soft_wrap=True)
    table = Table(title="Verdicts", title_justify="left")
    table.add_column("verdict")
    for name in outcome.measured:
        table.add_column(name, justify="right")
    counts = {
        name: Counter(r.verdict for r in outcome.results if r.backend == name)
        for name in outcome.measured
    }
    for verdict in ConformanceVerdict:
        if any(counts[n][verdict] for n in outcome.measured):
            table.add_row(
                f"[{progress.STYLES[verdict]}]{verdict.label}[/]",
                *(str(counts[n][verdict]) for n in outcome.measured),
            )
    console.print(table)
    near = summary.borderline
    if near:
        console.print(
            f"{len(near)} case(s) within 2x of their tolerance (a verdict another CPU "
            "may flip): "
            + ", ".join(f"{r.case} on {r.backend} ({r.tolerance_ratio:.2f}x)" for r in near[:8])
            + (" ..." if len(near) > 8 else "")
        )
    for line in summary.unneeded:
        console.print(f"[yellow]remove[/] {line}")
    for note in outcome.environment_notes():
        console.print(f"[dim]environment[/] {escape(note)}", soft_wrap=True)


def _print_since(since: verbs.Since) -> None:
    if since.label is None:
        console.print(f"No previous index for {since.spec!r}; nothing to compare.")
        return
    console.print(f"Changes since {escape(since.label)}:")
    for line in since.lines or ("none",):
        console.print(f"  {escape(line)}", soft_wrap=True)
    if since.advice:
        console.print(escape(since.advice), soft_wrap=True)


def _print_check(outcome: verbs.IndexOutcome) -> None:
    """What ``--check`` found in the committed index, its page and the known failures."""
    ops, found = outcome.ops, outcome.staleness
    assert found is not None
    for problem in [*found.stale, *found.expired]:
        console.print(f"[bold red]fail[/] {problem}", soft_wrap=True)
    if found.stale:
        console.print(f"Run `{ops.regenerate_command}` and commit the result.")
    if found.expired:
        console.print(f"Fix the expired failures or renew their entries in {ops.known_failures}.")
    if found.ok:
        console.print(f"{ops.index} and {ops.page} are current.")


def _print_bad_rows(outcome: verbs.IndexOutcome) -> None:
    ops = outcome.ops
    for problem in outcome.bad_rows:
        console.print(f"[bold red]bad row[/] {escape(problem)}", soft_wrap=True)
    console.print(
        f"{len(outcome.bad_rows)} bad row(s) from {ops.source}: fix the source, then re-run "
        f"`{ops.regenerate_command}`. Nothing written."
    )


def cmd_index(args: argparse.Namespace) -> int:
    arguments = OpsArguments(
        mode=files.mode(args, _say),
        wrote_by_default=args.wrote_by_default,
        jobs=args.jobs,
        backends=tuple(args.backend),
        diff=args.diff or "",
        from_results=tuple(args.from_results or ()),
    )
    outcome = verbs.index(of_command(args), arguments, progress.ConsoleProgress(console))
    if outcome.summary is not None:
        _report(outcome.summary)
    if outcome.staleness is not None:
        _print_check(outcome)
    if outcome.bad_rows:
        _print_bad_rows(outcome)
        return outcome.exit_code
    if outcome.ops.source:
        console.print(f"{outcome.ops.source}: {outcome.operators} operators.")
    status = 0
    if outcome.generated:
        status = files.apply(
            outcome.generated,
            arguments.mode,
            command="mlrelease ops index",
            say=_say,
            wrote_by_default=arguments.wrote_by_default,
        )
    for line in outcome.expired:
        console.print(f"[bold red]expired[/] {line}", soft_wrap=True)
    if outcome.since is not None:
        _print_since(outcome.since)
    return max(status, outcome.exit_code)


def cmd_run(args: argparse.Namespace) -> int:
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    arguments = OpsArguments(
        jobs=args.jobs,
        backends=tuple(args.backend),
        select=tuple(args.select),
        shard=shard,
        output=args.output,
    )
    outcome = verbs.run(of_command(args), arguments, progress.ConsoleProgress(console))
    _report(outcome.summary)
    console.print(f"Results: {outcome.output}")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    since = verbs.diff(of_command(args), OpsArguments(old=args.old, new=args.new or ""))
    _print_since(since)
    return since.exit_code


def cmd_cases(args: argparse.Namespace) -> int:
    cases = verbs.cases(of_command(args), OpsArguments(select=tuple(args.select)))
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "name": c.name,
                        "domain": c.domain,
                        "op_type": c.op_type,
                        "since_version": c.since_version,
                        "expanded": c.expanded,
                        "source": c.source,
                    }
                    for c in cases
                ],
                indent=1,
            )
        )
        return 0
    for case in cases:
        print(f"{case.name:60} {case.domain} {case.op_type}-{case.since_version}")
    console.print(f"{len(cases)} cases")
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="worker processes (default: [tool.mlrelease.ops] jobs, else one per CPU)",
    )
    p.add_argument(
        "--backend",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this configured backend (repeatable); the index keeps the "
        "other backends' columns as committed",
    )


def register(subparsers: Any) -> None:
    """Add ``mlrelease ops ...``."""
    p = subparsers.add_parser(
        "ops",
        help="supported-operators index from measured conformance",
        description="Run the ONNX node test cases (and your own case folders) on the backends of "
        "[tool.mlrelease.ops], each case isolated in a worker process, and write or check the "
        "supported-operators index and its docs page.",
    )
    sub = p.add_subparsers(dest="ops_command", required=True, metavar="ACTION")

    i = sub.add_parser(
        "index",
        help="regenerate the index and page (or --check them)",
        description="Run every configured case on every configured backend, then show how "
        "docs/indices/supported_ops.json and its page would change (a dry run), write them "
        "(--execute), or with --check fail (exit 1) when they differ from the fresh run or a "
        "known failure has expired.",
    )
    _common(i)
    files.add_arguments(i, what="the index and its page", wrote_by_default=True)
    i.add_argument(
        "--diff",
        metavar="REF_OR_FILE",
        help="also compare with a previous index (a file, a git ref such as v1.3.0, "
        "or 'auto' for the previous release); exit 1 on unlisted regressions",
    )
    i.add_argument(
        "--from-results",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="build the index from `ops run` results files (CI shards) instead of running",
    )
    i.set_defaults(func=cmd_index)

    r = sub.add_parser(
        "run",
        help="run the cases and write a results file (no index)",
        description="Run the cases and write per-case verdicts, errors and timings as JSON; "
        "shards of a CI matrix merge with `mlrelease ops index --from-results`.",
    )
    _common(r)
    r.add_argument("--shard", metavar="I/N", help="run shard I of N (round-robin over cases)")
    r.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="PATTERN",
        help="run only cases whose name matches this fnmatch pattern (repeatable)",
    )
    r.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="FILE",
        help="results file (default: build/ops-index/results.json)",
    )
    r.set_defaults(func=cmd_run)

    d = sub.add_parser(
        "diff",
        help="compare two indices: ops added, removed, newly failing, newly passing",
        description="Compare the index OLD (a file, a git ref, or 'auto' for the previous "
        "release) with NEW (default: the committed index); exit 1 when a case regressed "
        "and no known failure lists it.",
    )
    d.add_argument("old", metavar="OLD")
    d.add_argument("new", nargs="?", metavar="NEW")
    d.set_defaults(func=cmd_diff)

    c = sub.add_parser("cases", help="list the configured cases and the operator each tests")
    c.add_argument("--select", action="append", default=[], metavar="PATTERN")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=cmd_cases)
