"""``mlrelease perf``: run a profile, compare with a baseline, merge devices, update baselines."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from rich.markup import escape

from mlrelease.config import of_command
from mlrelease.errors import UserError
from mlrelease.perf import service
from mlrelease.perf.bisect import render as bisect_render
from mlrelease.perf.bisect import service as bisect_service
from mlrelease.perf.compare import Comparison
from mlrelease.perf.config import PerfConfig
from mlrelease.perf.results import read
from mlrelease.terminal import make_console

console = make_console()


def _report(comparison: Comparison) -> int:
    print(comparison.to_markdown())
    line = escape(f"perf: {comparison.summary()}")
    # Not a failure, never a pass either: a failing row not timed on both sides is yellow.
    colour = "bold red" if not comparison.ok else "yellow" if comparison.blind else "green"
    console.print(f"[{colour}]{line}[/]")
    return 0 if comparison.ok else 1


def cmd_run(args: argparse.Namespace) -> int:
    config = of_command(args)
    outcome = service.run(
        config,
        args.profile,
        console=console,
        output=args.output,
        docs=not args.no_docs,
        keep_work=args.keep_work,
        baseline=args.baseline,
        history=not args.no_history,
    )
    results = outcome.results
    console.print(
        f"{results.device_name} ({results.device_key}): "
        + ", ".join(f"{n} {s}" for s, n in results.counts().items())
        + f" in {results.duration_s:.0f} s"
    )
    for name, path in outcome.paths.items():
        console.print(f"  {name}: {path}")
    if outcome.page:
        console.print(f"  page: {outcome.page}")
    return _report(outcome.comparison)


def cmd_compare(args: argparse.Namespace) -> int:
    config = of_command(args)
    if args.python:
        if args.candidate:
            raise UserError(
                "perf compare: give either a CANDIDATE results.json or --python "
                "(run both builds now), not both."
            )
        _, comparison = service.interleaved(
            config,
            args.profile,
            baseline_python=args.python,
            candidate_python=args.candidate_python,
            rounds=args.rounds,
            max_rounds=args.max_rounds,
            console=console,
        )
        return _report(comparison)
    if not args.candidate:
        raise UserError(
            "perf compare: give the CANDIDATE results.json to compare (e.g. "
            "build/perf/cpu/results.json), or --python OLD_PYTHON to run both builds."
        )
    comparison = service.compare_files(
        config, args.candidate, baseline=args.baseline, against=args.against
    )
    return _report(comparison)


def cmd_bisect(args: argparse.Namespace) -> int:
    config = of_command(args)
    request = bisect_service.BisectRequest(
        good=args.good,
        bad=args.bad,
        profile=args.profile,
        row=args.row or "",
        restart=args.restart,
        confidence=args.confidence,
        max_pairs=args.max_pairs,
        looks=args.looks,
        builder=args.build,
    )
    outcome = bisect_service.run(config, request, console=console)
    for line in bisect_render.lines(outcome.document):
        console.print(escape(line))
    for name, path in outcome.paths.items():
        console.print(f"  {name}: {path}")
    console.print(f"  in {outcome.seconds:.0f} s")
    if args.json:
        print(json.dumps(outcome.document, indent=1))
    return 1 if outcome.answer.verdict == "unknown" else 0


def cmd_merge(args: argparse.Namespace) -> int:
    config = of_command(args)
    page = service.merge(config, args.results, args.docs)
    console.print(f"Wrote {page} from {len(args.results)} device report(s)")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    config = of_command(args)
    page = service.history_page(config, args.docs)
    console.print(f"Wrote {page}")
    return 0


def cmd_baseline(args: argparse.Namespace) -> int:
    config = of_command(args)
    source = (
        args.results
        or config.path(config.table(PerfConfig).results_dir) / args.profile / "results.json"
    )
    results = read(source)
    target = config.path(config.table(PerfConfig).baselines_dir) / f"{results.device_key}.json"
    failing = [r.key for r in results.rows if r.failing]
    console.print(
        f"{source} -> {target} ({len(results.rows)} rows, {len(failing)} failing"
        + (f": {', '.join(failing)}" if failing else "")
        + ")"
    )
    if not args.execute:
        console.print("Dry run: nothing written. Re-run with --execute to record this baseline.")
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    console.print(f"Wrote {target}; commit it with the release.")
    return 0


def register(subparsers: Any) -> None:
    """Add ``perf run|compare|merge|baseline``."""
    p = subparsers.add_parser(
        "perf",
        help="release performance matrix: models x batch sizes x frameworks",
        description="Time models (BERT, EfficientNet-B0, ViT-B/16, ResNet-50 and your own) at "
        "each batch size under each framework (PyTorch eager, torch.compile, ONNX Runtime CPU / "
        "CUDA / TensorRT, Torch-TensorRT), every combination in its own subprocess, and compare "
        "with the per-device baseline. Profiles: [tool.mlrelease.perf.profiles].",
    )
    sub = p.add_subparsers(dest="perf_command", required=True, metavar="ACTION")
    _add_run(sub)
    _add_compare(sub)
    _add_bisect(sub)
    _add_merge(sub)
    _add_history(sub)
    _add_baseline(sub)


def _add_run(sub: Any) -> None:
    """``mlrelease perf run``."""
    r = sub.add_parser(
        "run",
        help="run a profile; write JSON/CSV/Markdown/plots, the docs page",
        description="Run a profile, write results.json (raw samples), "
        "results.csv, results.md, latency.png and speedup.png under "
        "[tool.mlrelease.perf] results-dir/PROFILE, update the docs page, then "
        "compare with this device's baseline: exit 1 on a new failure or a "
        "significant slowdown beyond the profile's threshold.",
    )
    r.add_argument("--profile", default="cpu", help="profile name (default: cpu)")
    r.add_argument("--output", type=Path, help="results folder (default: results-dir/PROFILE)")
    r.add_argument(
        "--baseline",
        type=Path,
        help="compare with this results.json instead of ci/perf_baselines/DEVICE.json",
    )
    r.add_argument("--no-docs", action="store_true", help="do not update the docs perf page")
    r.add_argument(
        "--keep-work",
        action="store_true",
        help="keep exported ONNX models and worker logs' model folders",
    )
    r.add_argument(
        "--no-history",
        action="store_true",
        help="do not append this run to baselines-dir/history/<device-class>.jsonl",
    )
    r.set_defaults(func=cmd_run)


def _add_compare(sub: Any) -> None:
    """``mlrelease perf compare``."""
    c = sub.add_parser(
        "compare",
        help="compare results with a baseline, or two builds in interleaved rounds",
        description="Compare a results.json with a baseline (this device's committed baseline, "
        "--baseline FILE, or --against REF: the baseline committed at a git ref such as the "
        "previous release's tag). Or, with --python, run the profile in two Python environments "
        "in interleaved rounds and compare them. A status change ok -> failing fails; a slowdown "
        "fails when significant and not shown to be under the threshold.",
    )
    c.add_argument(
        "candidate", nargs="?", type=Path, metavar="CANDIDATE", help="the results.json to judge"
    )
    c.add_argument("--baseline", type=Path, help="the baseline results.json")
    c.add_argument("--against", metavar="REF", help="the baseline committed at this git ref")
    c.add_argument(
        "--python",
        metavar="OLD_PYTHON",
        help="run the baseline build with this interpreter, interleaved with ...",
    )
    c.add_argument(
        "--candidate-python",
        default=sys.executable,
        metavar="NEW_PYTHON",
        help="... the candidate build's interpreter (default: this one)",
    )
    c.add_argument("--profile", default="cpu", help="profile for --python runs (default: cpu)")
    c.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="interleaved rounds per build with --python (default: 5)",
    )
    c.add_argument(
        "--max-rounds",
        type=int,
        default=12,
        help="adaptive: add interleaved rounds up to this many until every row is conclusive "
        "(default: 12; the error rate is split over the profile's looks)",
    )
    c.set_defaults(func=cmd_compare)


def _add_bisect(sub: Any) -> None:
    """``mlrelease perf bisect``."""
    b = sub.add_parser(
        "bisect",
        help="find the commit or dependency version behind a perf regression",
        description="Start from the rows the comparison of --good and --bad calls regressed "
        "(each side built and installed with its lock's pins, timed in interleaved rounds). "
        "Test the environment first (the good commit with the bad side's pins; then which "
        "package, and which of its versions: prebuilt wheels from the index), then the "
        "project's own commits (first parents), each built once, at most ceil(log2 N) + 3 "
        "builds. Every step times its subject against both sides in interleaved rounds, adding "
        "rounds at each look until the subject runs like the good side (SAME) or the bad side "
        "(DIFFERENT) at the stated confidence, else UNKNOWN; the subject about to be named is "
        "timed on to the last look first, and one that runs like neither side (more than one "
        "change in the range) is never named. A commit that does not "
        "build, install or run is skipped and the answer is a range. A row too noisy to place "
        "its regression is refused before any step. The run is journalled in the clone's git "
        "folder: run the same command again to resume it (--restart starts over). Progress "
        "goes to stderr; the answer (the culprit or range, each step's ratio and interval, the "
        "command that reproduces the culprit's comparison) is printed and written as "
        "bisect.json and bisect.md under the perf results folder (build/perf/bisect/GOOD-BAD/). "
        "Exit 0 with a culprit or a range, 1 when unknown, 2 for bad input. "
        "[tool.mlrelease.perf.bisect] sets the lock, the index and the design.",
    )
    b.add_argument("--good", required=True, metavar="REV", help="a commit that runs fast")
    b.add_argument("--bad", required=True, metavar="REV", help="a later commit that runs slow")
    b.add_argument("--profile", default="cpu", help="the perf profile (default: cpu)")
    b.add_argument(
        "--row",
        help="the row to bisect, MODEL/SHAPE/bBATCH/FRAMEWORK (default: the most "
        "certain regressed row; the endpoints then time every row of the profile)",
    )
    b.add_argument("--json", action="store_true", help="print the answer as one JSON object")
    b.add_argument("--confidence", type=float, help="P(no step decided wrongly) (default 0.95)")
    b.add_argument("--max-pairs", type=int, help="paired rounds a step may add (default 24)")
    b.add_argument("--looks", type=int, help="looks per step (default 3)")
    b.add_argument(
        "--build",
        choices=("reference", "pip"),
        help="how a commit is built: the reference build (default), or pip wheel "
        "--no-build-isolation with this environment's backend (a machine with no index)",
    )
    b.add_argument(
        "--restart", action="store_true", help="drop this bisect's journal and start over"
    )
    b.set_defaults(func=cmd_bisect)


def _add_merge(sub: Any) -> None:
    """``mlrelease perf merge``."""
    m = sub.add_parser(
        "merge",
        help="merge devices' results.json into the docs perf page",
        description="Copy each device's results into DOCS/<device-key>/, draw "
        "its plots and rewrite DOCS/report.md with one section per device.",
    )
    m.add_argument("results", nargs="+", type=Path, metavar="RESULTS_JSON")
    m.add_argument(
        "--docs", type=Path, help="docs folder (default: [tool.mlrelease.perf] docs-dir)"
    )
    m.set_defaults(func=cmd_merge)


def _add_history(sub: Any) -> None:
    """``mlrelease perf history``."""
    h = sub.add_parser(
        "history",
        help="render the per-commit history into the docs (time series, steps)",
        description="Render baselines-dir/history/*.jsonl (one per device class, appended by "
        "every `perf run`) into DOCS/history.md and one plot per device class: per-row "
        "medians by commit, and the first commit of each step.",
    )
    h.add_argument(
        "--docs", type=Path, help="docs folder (default: [tool.mlrelease.perf] docs-dir)"
    )
    h.set_defaults(func=cmd_history)


def _add_baseline(sub: Any) -> None:
    """``mlrelease perf baseline``."""
    b = sub.add_parser(
        "baseline",
        help="record the last run as this device's baseline",
        description="Copy results-dir/PROFILE/results.json to "
        "baselines-dir/<device-key>.json. Dry run unless --execute.",
    )
    b.add_argument("--profile", default="cpu")
    b.add_argument("--results", type=Path, help="results.json to record (default: last run)")
    b.add_argument("--execute", action="store_true", help="write the baseline file")
    b.set_defaults(func=cmd_baseline)
