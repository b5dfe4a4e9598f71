"""``mlrelease models verify`` and ``mlrelease compat probe``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from mlrelease.config import Config, of_command
from mlrelease.errors import UserError
from mlrelease.models import service, verdicts
from mlrelease.models import verification as verification_mod
from mlrelease.models.config import ModelsConfig
from mlrelease.models.escaping import console as escape_console
from mlrelease.models.verdicts import STEPS
from mlrelease.terminal import make_console

console = make_console()


def _with_limits(args: argparse.Namespace) -> Config:
    """The configuration of ``models verify`` (:func:`~mlrelease.config.of_command`; without PATH
    inside a project, with PATH the defaults outside any project too), with the command line's
    limits: they win, inside a project or not."""
    config = of_command(args, outside_project=args.path is not None)
    limits = {
        "time_limit_s": args.time_limit_s,
        "memory_limit_mb": args.memory_limit_mb,
        "total_time_limit_s": args.total_time_limit_s,
    }
    overrides: dict[str, Any] = {}
    for name, value in limits.items():
        if value is not None:
            if value < 0:
                raise UserError(f"--{name.replace('_', '-')}: expected a number >= 0, got {value}")
            overrides[name] = value
    if overrides:
        config = config.with_table(dataclasses.replace(config.table(ModelsConfig), **overrides))
    return config


def _steps(text: str | None) -> list[str] | None:
    if not text:
        return None
    steps = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        raise UserError(
            f"--steps: unknown step(s) {', '.join(unknown)}; expected a comma-"
            f"separated list of {', '.join(STEPS)}"
        )
    return steps


def cmd_models_verify(args: argparse.Namespace) -> int:
    started = time.monotonic()  # the total budget counts the artifact inspection too
    steps = _steps(args.steps)
    config = _with_limits(args)
    verification = verification_mod.verify_path(
        args.path,
        config,
        steps=steps,
        refresh_probe=args.refresh_probe,
        console=console,
        started=started,
    )
    results = verification.results
    if verification.submission is not None or not sys.stdout.isatty():
        print(verification.report)
    else:
        make_console(stderr=False).print(verdicts.rich_table(results))
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(verification.report, encoding="utf-8")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([v.to_dict() for v in results], indent=2), encoding="utf-8")
    for v in results:
        if v.peak_rss_mb is not None:
            console.print(
                f"{escape_console(v.name)}: verifier peak RSS {v.peak_rss_mb:.1f} MB", style="dim"
            )
    return 0 if verification.accepted else 1


def cmd_compat_probe(args: argparse.Namespace) -> int:
    report = service.judge_compat(of_command(args), refresh=args.refresh)
    if args.json:
        print(
            json.dumps(
                {"problems": report.problems, "facts": report.facts, "limits": report.limits},
                indent=2,
            )
        )
        return 0 if report.ok else 1
    table = Table(title="probed runtime limits", title_justify="left")
    for column in ("runtime", "target", "IR", "opsets (newest loaded)"):
        table.add_column(column)
    for lim in report.limits:
        ir = lim["ir"]
        opsets = lim["opsets"]
        assert isinstance(opsets, dict)
        shown = ", ".join(f"{d or 'ai.onnx'} {v[1] if v else 'any'}" for d, v in opsets.items())
        table.add_row(
            str(lim["runtime"]) + " " + str(lim["version"]),
            str(lim["target"]),
            f"{ir[0]}-{ir[1]}" if isinstance(ir, (list, tuple)) else "none",
            shown,
        )
    make_console(stderr=False).print(table)
    for fact in report.facts:
        console.print(f"  ok   {escape(fact)}")
    for problem in report.problems:
        console.print(f"  [bold red]FAIL[/] {escape(problem)}")
    return 0 if report.ok else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``models`` and ``compat`` to the mlrelease command line."""
    p = sub.add_parser(
        "models",
        help="verify models (the default set, a manifest, a model, a submission)",
        description="Verify ONNX models, each in a sandboxed subprocess with memory and time "
        "limits, step by step: " + ", ".join(f"{v} ({k})" for k, v in STEPS.items()) + ".",
    )
    models_sub = p.add_subparsers(dest="models_command", required=True, metavar="ACTION")
    v = models_sub.add_parser(
        "verify",
        help="verify a model set and print a verdict per model and step",
        description="PATH may be a Model Zoo submission folder (README, model, test data sets, "
        "scripts; prints ACCEPT or DECLINE as Markdown for a PR comment), a manifest (.toml) or "
        "one model (.onnx). Without PATH: the project's manifest ([tool.mlrelease.models] "
        "manifest). Exits 1 on any failed step or a declined submission.",
    )
    v.add_argument("path", nargs="?", type=Path, default=None, metavar="PATH")
    v.add_argument(
        "--steps",
        metavar="LIST",
        help=f"comma-separated steps to run (integrity always runs): {', '.join(STEPS)}",
    )
    v.add_argument("--markdown", type=Path, metavar="FILE", help="also write the Markdown report")
    v.add_argument("--json", type=Path, metavar="FILE", help="also write the verdicts as JSON")
    v.add_argument(
        "--time-limit-s",
        type=int,
        metavar="S",
        help="wall-clock limit per model (default: [tool.mlrelease.models])",
    )
    v.add_argument(
        "--memory-limit-mb",
        type=int,
        metavar="MB",
        help="address-space limit per model (default: [tool.mlrelease.models])",
    )
    v.add_argument(
        "--total-time-limit-s",
        type=int,
        metavar="S",
        help="wall-clock budget of the whole run, 0 for none (default: [tool.mlrelease.models])",
    )
    v.add_argument(
        "--refresh-probe",
        action="store_true",
        help="re-probe the runtimes instead of using the cached limits",
    )
    v.set_defaults(func=cmd_models_verify)

    p = sub.add_parser("compat", help="probe what the runtimes load and judge the project")
    compat_sub = p.add_subparsers(dest="compat_command", required=True, metavar="ACTION")
    c = compat_sub.add_parser(
        "probe",
        help="show each runtime's probed IR/opset limits and the compat verdict",
        description="Probe (or read from the cache) the newest IR version and opsets each "
        "configured runtime loads, and compare them with what the project stamps and its models "
        "declare; the same judgement as the compat gate.",
    )
    c.add_argument("--refresh", action="store_true", help="probe again, ignoring the cache")
    c.add_argument("--json", action="store_true", help="print JSON instead of a table")
    c.set_defaults(func=cmd_compat_probe)
