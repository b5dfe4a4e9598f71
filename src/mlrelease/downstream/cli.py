"""``mlrelease downstream ...``: run the consumers paired, print CI shards, merge shards."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

from rich.markup import escape

from mlrelease.config import Config, of_command
from mlrelease.downstream import matrix, render, service
from mlrelease.downstream.config import DownstreamConfig
from mlrelease.errors import UserError
from mlrelease.gates import parse_shard
from mlrelease.terminal import make_console

DESCRIPTION = (
    "Verify a release candidate with its consumers' own tests, paired against the previous "
    "release (crater-style): run, matrix (CI shards), report merge, list."
)

console = make_console()


def _with_table(args: argparse.Namespace) -> tuple[Config, DownstreamConfig]:
    config = of_command(args)  # every table, checked
    return config, config.table(DownstreamConfig)


def _shard(text: str | None) -> tuple[int, int] | None:
    try:
        return parse_shard(text) if text else None
    except ValueError as exc:
        raise UserError(str(exc)) from None


class Progress:
    """One line per step of each consumer, with the time since the run began (a CI log and a
    terminal read the same)."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.lock = threading.Lock()

    def __call__(self, consumer: str, what: str) -> None:
        with self.lock:
            elapsed = time.perf_counter() - self.started
            console.print(f"[dim]{elapsed:7.1f} s[/] {escape(consumer)}: {escape(what)}")


def _finish(judged: service.Judged) -> int:
    run, judgement = judged.run, judged.judgement
    console.print(render.summary(run, judgement))
    for finding in judgement.blocking:
        console.print(
            f"[bold red]regressed[/] {escape(finding.consumer.name)} {escape(finding.nodeid)}"
        )
    for r in judgement.unverified:
        for side, found in r.not_verified.items():
            console.print(
                f"[bold red]not verified[/] {escape(r.name)} ({side}): "
                f"{escape(found['why'].splitlines()[0] if found['why'] else '?')}"
            )
            if found.get("reproduce"):
                console.print(f"  reproduce: {escape(found['reproduce'])}", soft_wrap=True)
    console.print(f"Results: {', '.join(str(p) for p in judged.paths)}")
    return 0 if judgement.ok else 1


def cmd_run(args: argparse.Namespace) -> int:
    config, table = _with_table(args)
    if not table.consumers:
        raise UserError(
            f"{config.pyproject_path}: tool.mlrelease.downstream.consumers is empty; list the "
            "consumers to run (mlrelease init proposes some for known projects)."
        )
    request = service.Request(
        candidate=args.candidate or table.candidate,
        baseline=args.baseline or "",
        only=args.consumer or (),
        shard=_shard(args.shard),
        jobs=args.jobs or 0,
        refresh=args.refresh,
    )
    folder = Path(args.output) if args.output else config.path(table.results_dir)
    return _finish(service.run_judged(config, table, request, Progress(), folder))


def cmd_matrix(args: argparse.Namespace) -> int:
    _, table = _with_table(args)
    count = args.shards or len(table.consumers)
    sys.stdout.write(matrix.render(table.consumers, count) + "\n")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    config, table = _with_table(args)
    folder = Path(args.output) if args.output else config.path(table.results_dir)
    paths = [Path(p) for p in args.results]
    return _finish(service.merge_judged(config, table, paths, folder))


def cmd_list(args: argparse.Namespace) -> int:
    _, table = _with_table(args)
    for c in table.consumers:
        where = {
            "sdist": f"sdist of {c.requirement}",
            "git": f"{c.git} @ {c.ref}",
            "project": c.tests_dir,
        }[c.source]
        what = " ".join(c.command) if c.command else " ".join([*c.selection, *c.pytest_args])
        sys.stdout.write(f"{c.name:24} {where}: {what} ({c.time_budget_s} s)\n")
    return 0


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "downstream",
        help="verify a release candidate with its consumers' tests (paired, crater-style)",
        description=DESCRIPTION,
    )
    commands = p.add_subparsers(dest="downstream_command", required=True)
    r = commands.add_parser(
        "run",
        help="run every consumer's tests on the candidate and on the baseline",
        description="Two environments per consumer (the candidate, the baseline), the same "
        "consumer version and tests on both, differences re-run; writes results.json, "
        "results.md and junit.xml. Exit 1 on a regression the known-failures list does not "
        "accept.",
    )
    r.add_argument(
        "--candidate",
        help="a folder of the RC's files, a wheel, or a version (on the RC channel when "
        "candidate-index is set); default: tool.mlrelease.downstream.candidate",
    )
    r.add_argument("--baseline", help="the release compared against (default: the previous one)")
    r.add_argument("--consumer", action="append", help="run only this consumer (repeatable)")
    r.add_argument("--shard", help="run only shard I/N (as `downstream matrix` splits them)")
    r.add_argument("--jobs", type=int, help="test processes at once (default: the cores)")
    r.add_argument("--refresh", action="store_true", help="rebuild environments, ignore caches")
    r.add_argument(
        "--output", help="results folder (default: tool.mlrelease.downstream.results-dir)"
    )
    r.set_defaults(func=cmd_run)
    m = commands.add_parser(
        "matrix", help="print the consumer shards as a GitHub Actions strategy.matrix (JSON)"
    )
    m.add_argument("--shards", type=int, help="number of shards (default: one per consumer)")
    m.set_defaults(func=cmd_matrix)
    report = commands.add_parser("report", help="downstream results files")
    reports = report.add_subparsers(dest="report_command", required=True)
    merge = reports.add_parser("merge", help="join the shards' results files into one run")
    merge.add_argument("results", nargs="+", help="results-I-of-N.json files")
    merge.add_argument("--output", help="folder of the merged results (default: results-dir)")
    merge.set_defaults(func=cmd_merge)
    lister = commands.add_parser("list", help="the configured consumers and their selections")
    lister.set_defaults(func=cmd_list)
