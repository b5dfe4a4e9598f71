"""Part of ``scripts/bench_perf_bisect.py``: ``--single``, one bisect of the built-in BERT row
on the GPU profile (or the CPU one), a slowdown planted at a hidden commit through the perf
worker's injection hook."""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench_perf_bisect_judge import Scenario, judge  # it puts tests/ on the path
from helpers import bisect_history as histories  # type: ignore[import-not-found]
from rich.console import Console

from mlrelease.perf.bisect import service as bisect
from mlrelease.registry import load_config

SINGLE_PROFILES = {
    "gpu": """\
[tool.mlrelease.perf.profiles.gpu]
device = "cuda"
models = ["bisectee.gpu:BERT"]
layers = { bert = 2 }
frameworks = ["pytorch"]
batch-sizes = [1]
threads = 0
iters = 30
min-time-s = 0.2
warmup-iters = 5
warmup-s = 0.1
threshold = 0.05
rounds = 4
""",
    "cpu": """\
[tool.mlrelease.perf.profiles.cpu]
models = ["bisectee.gpu:BERT"]
layers = { bert = 2 }
frameworks = ["pytorch"]
batch-sizes = [1]
threads = 1
clock = "cpu"
iters = 10
warmup-iters = 3
warmup-s = 0.05
threshold = 0.05
rounds = 4
""",
}


def single(args: argparse.Namespace) -> int:
    """One bisect of the built-in BERT row on ``--profile``, a slowdown planted through the
    perf worker's injection hook (``device``: GPU time after each forward)."""
    if shutil.which("git") is None:
        raise SystemExit("bench_perf_bisect --single: git is not on PATH; the histories need it.")
    if args.profile == "gpu" and not _cuda():
        print(  # exit 2: nothing was bisected (1 is an inexact answer)
            "bench_perf_bisect --single --profile gpu: this interpreter's torch sees no CUDA "
            "device, so a device-time slowdown cannot be planted. On a GPU machine run it with "
            "a CUDA build of torch; here, the same bisect on the CPU is --profile cpu "
            "--slowdown cpu.",
            file=sys.stderr,
        )
        return 2
    console = Console(stderr=True)
    base = args.workdir or Path(tempfile.mkdtemp(prefix="bisect-single-"))
    culprit = args.culprit or random.Random(args.seed).randint(1, args.commits)
    planted = histories.Planted(args.commits, culprit)
    injected = f"{args.fraction}:{args.slowdown}"
    made = histories.make(
        base / "history", planted, profiles=SINGLE_PROFILES[args.profile], injected=injected
    )
    request = request_for(made, args.profile, args)
    started = time.monotonic()
    outcome = bisect.run(load_config(made.root), request, console=console)
    seconds = time.monotonic() - started
    found = judge(Scenario("single", planted, "commit", culprit), made, outcome.document, seconds)
    report = {
        "injected": injected,
        "profile": args.profile,
        "judged": found,
        "answer": outcome.document,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(
        f"planted {injected} at commit {culprit} of {args.commits}: {outcome.answer.verdict} "
        f"{found['answered'] or ''} ({'exact' if found['exact'] else 'NOT exact'}), "
        f"{found['builds']} builds of at most {found['budget']}, {found['steps']} steps, "
        f"{seconds:.0f} s; {args.output}"
    )
    return 0 if found["exact"] else 1


def request_for(
    made: histories.Generated, profile: str, args: argparse.Namespace
) -> bisect.BisectRequest:
    """The bisect of a generated history's two ends, with the command line's design."""
    return bisect.BisectRequest(
        good=made.good,
        bad=made.bad,
        profile=profile,
        confidence=args.confidence,
        max_pairs=args.max_pairs,
        looks=args.looks,
        builder=args.build,
    )


def _cuda() -> bool:
    """Whether this interpreter's torch has a CUDA device (the GPU profile's workers use it)."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())
