"""``mlrelease ops``: run the conformance cases, write or check the supported-operators index."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from mlrelease.config import Config, of_command
from mlrelease.edges import files
from mlrelease.errors import UserError
from mlrelease.gates import parse_shard
from mlrelease.ops import diff as diff_mod
from mlrelease.ops import index as index_mod
from mlrelease.ops import policy as policy_mod
from mlrelease.ops import progress, service, source_cli, staleness
from mlrelease.ops.cases import shard as take_shard
from mlrelease.ops.config import OpsConfig
from mlrelease.ops.verdicts import ConformanceVerdict
from mlrelease.terminal import make_console

console = make_console()


def _setup(args: argparse.Namespace) -> tuple[Config, OpsConfig, policy_mod.Policy]:
    config = of_command(args)
    ops = service.ops_config(config)
    policy = policy_mod.load(config.root, ops.tolerances, ops.known_failures)
    return config, ops, policy


def _jobs(args: argparse.Namespace, ops: OpsConfig) -> int:
    jobs: int = args.jobs or service.default_jobs(ops)
    return jobs


def _run(
    args: argparse.Namespace,
    config: Config,
    ops: OpsConfig,
    policy: policy_mod.Policy,
    shard: tuple[int, int] | None = None,
) -> service.ConformanceRun:
    def generating(path: Path) -> None:
        console.print(f"Generating the onnx node test cases (once per onnx version) into {path}")

    with console.status("Loading the conformance cases"):
        cases = service.load_cases(
            config, ops, select=getattr(args, "select", []) or [], on_generate=generating
        )
    if shard:
        cases = take_shard(cases, *shard)
    display = progress.Display(progress.bar(console))
    with display.progress:
        outcome = service.run(
            config,
            ops,
            cases,
            policy=policy,
            jobs=_jobs(args, ops),
            only_backends=args.backend,
            on_start=display.start,
            on_result=display.result,
        )
    for name, reason in outcome.skipped.items():
        console.print(f"[yellow]skipped[/] backend {name}: {reason}", soft_wrap=True)
    return outcome


def _report(outcome: service.ConformanceRun, policy: policy_mod.Policy, known_path: str) -> None:
    """Totals per backend, cases near their tolerance, known failures to remove."""
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
    near = service.borderline(outcome.results)
    if near:
        console.print(
            f"{len(near)} case(s) within 2x of their tolerance (a verdict another CPU "
            "may flip): "
            + ", ".join(f"{r.case} on {r.backend} ({r.tolerance_ratio:.2f}x)" for r in near[:8])
            + (" ..." if len(near) > 8 else "")
        )
    rows = ((r.case, r.backend, r.verdict.ok) for r in outcome.results)
    for entry, why in policy.unneeded(rows, set(outcome.measured)):
        console.print(f"[yellow]remove[/] {entry.label(known_path)}: {why}")
    for note in outcome.environment_notes():
        console.print(f"[dim]environment[/] {escape(note)}", soft_wrap=True)


def cmd_index(args: argparse.Namespace) -> int:
    config, ops, policy = _setup(args)
    if ops.source:
        return source_cli.cmd_index(args, config, ops)
    if args.from_results:
        outcome = service.read_results(args.from_results)
    else:
        outcome = _run(args, config, ops, policy)
    service.write_results(config.path(service.WORK_DIR) / "results.json", outcome)
    _report(outcome, policy, ops.known_failures)
    try:
        committed = service.read_committed(config, ops)
        committed_error = ""
    except UserError as exc:
        if not args.check:
            raise
        committed, committed_error = None, str(exc)
    fresh = service.build_index(outcome, policy, committed, ops.domains)
    text = index_mod.dumps(fresh)
    status = 0
    if args.check:
        found = staleness.check(config, ops, policy, outcome, fresh, committed, committed_error)
        for problem in [*found.stale, *found.expired]:
            console.print(f"[bold red]fail[/] {problem}", soft_wrap=True)
        if found.stale:
            console.print(f"Run `{ops.regenerate_command}` and commit the result.")
        if found.expired:
            console.print(
                f"Fix the expired failures or renew their entries in {ops.known_failures}."
            )
        if found.ok:
            console.print(f"{ops.index} and {ops.page} are current.")
        else:
            status = 1
    else:
        page = service.render_page(config, ops, fresh)
        generated = [
            files.Generated(config.path(ops.index), text, ops.index),
            files.Generated(config.path(ops.page), page, ops.page),
        ]
        files.run(args, generated, command="mlrelease ops index", say=_say)
        for line in staleness.expired(policy, ops.known_failures):
            console.print(f"[bold red]expired[/] {line}", soft_wrap=True)
    if args.diff:
        status = max(status, _print_diff(config, ops, policy, args.diff, fresh))
    return status


def _say(text: str) -> None:
    console.print(escape(text), soft_wrap=True)


def _print_diff(
    config: Config, ops: OpsConfig, policy: policy_mod.Policy, spec: str, new: dict[str, Any]
) -> int:
    previous = diff_mod.load_previous(config.root, spec, ops.index, config.version, config.names)
    if previous is None:
        console.print(f"No previous index for {spec!r}; nothing to compare.")
        return 0
    label, old = previous
    changes = diff_mod.diff(old, new, lambda c, b: policy.known(c, b) is not None)
    console.print(f"Changes since {label}:")
    for line in changes.lines() or ["none"]:
        console.print(f"  {line}", soft_wrap=True)
    return 1 if changes.regressions else 0


def cmd_run(args: argparse.Namespace) -> int:
    config, ops, policy = _setup(args)
    try:
        shard = parse_shard(args.shard) if args.shard else None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    outcome = _run(args, config, ops, policy, shard)
    output = args.output or config.path(service.WORK_DIR) / (
        f"results-{shard[0]}-of-{shard[1]}.json" if shard else "results.json"
    )
    service.write_results(output, outcome)
    _report(outcome, policy, ops.known_failures)
    console.print(f"Results: {output}")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    config, ops, policy = _setup(args)
    if ops.source:
        return source_cli.cmd_diff(args, config, ops)
    if args.new:
        new_previous = diff_mod.load_previous(config.root, args.new, ops.index, "0", config.names)
        assert new_previous is not None
        new = new_previous[1]
    else:
        new = service.read_committed(config, ops) or {}
        if not new:
            raise UserError(f"{ops.index} does not exist; run `{ops.regenerate_command}` first.")
    return _print_diff(config, ops, policy, args.old, new)


def cmd_cases(args: argparse.Namespace) -> int:
    config, ops, _ = _setup(args)
    cases = service.load_cases(config, ops, select=args.select)
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
