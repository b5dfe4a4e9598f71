"""The GPU check a maintainer runs in one command on a GPU machine (issue #43).

Three steps, in the interpreter that runs this script (its own CUDA stack; nothing installed):

1. **The profile** (``--profile``, default ``gpu``): every row's status, each eager row's
   parity under the profile's precision policy, the profile's time.
2. **A null comparison and an injected slowdown**, in one run of three builds of this same
   environment whose rounds interleave (A B C, C B A, ...), on one row (``--model`` at
   ``--batch``, ``--framework``): ``same`` is A again (it must not be ``regressed``), ``slowed``
   adds ``--fraction`` of real device time after each forward (``torch.cuda._sleep`` sized from
   the forward's measured device time: ``MLRELEASE_PERF_INJECT_SLOWDOWN=...:device``). Each is
   compared with A as ``mlrelease perf compare`` does.
3. What was caught, and the figures, printed; the whole as JSON in ``--output``.

    python scripts/gpu_check.py                        # on a GPU machine: the full check
    python scripts/gpu_check.py --profile cpu --model efficientnet_b0 --batch 1 \\
        --framework onnxruntime_cpu --slowdown cpu --fraction 0.10   # the same logic on a CPU

On a CPU the slowdown is a busy wait inside the timed region (``--slowdown cpu``): the check's
logic runs, its GPU figures do not exist.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from mlrelease.perf import compare, runner
from mlrelease.perf.config import PerfConfig, Profile
from mlrelease.perf.launch import resolve_in
from mlrelease.perf.progress import ProfileBar
from mlrelease.perf.results import Results
from mlrelease.perf.verdict import REGRESSED
from mlrelease.perf.worker import INJECT_ENV
from mlrelease.registry import load_config


def profile_step(
    name: str, profile: Profile, root: Path, work: Path, console: Console
) -> dict[str, Any]:
    """Run the whole profile once: statuses, eager parity, its time."""
    started = time.perf_counter()
    results = runner.execute(
        name, profile, root=root, work=work / "profile", progress=ProfileBar(console)
    )
    current = results["current"]
    eager = {
        r.key: {"status": r.status, "parity": r.parity}
        for r in current.rows
        if r.framework == "pytorch" and r.status != "not_applicable"
    }
    return {
        "profile": name,
        "device": current.device_name,
        "precision": profile.precision,
        "seconds": round(time.perf_counter() - started, 1),
        "counts": current.counts(),
        "eager": eager,
        "eager_all_ok": all(e["status"] == "ok" for e in eager.values()),
        "libraries": current.environment.get("libraries", {}),
    }


def _verdict(results: Results, base: Results, profile: Profile, key: str) -> dict[str, Any]:
    assert profile.threshold is not None
    adaptive = (profile.max_rounds or 0) > profile.rounds
    comparison = compare.compare(
        results,
        base,
        threshold=profile.threshold,
        alpha=profile.alpha,
        looks=profile.looks if adaptive else 1,
    )
    verdict = next(v for v in comparison.verdicts if v.key == key)
    return {"word": comparison.word, "row": verdict.kind, "detail": verdict.message}


def slowdown_step(
    profile: Profile, args: argparse.Namespace, root: Path, work: Path, console: Console
) -> dict[str, Any]:
    """A, same and slowed builds interleaved on one row; same and slowed compared with A."""
    refs = [m for m in profile.models if resolve_in(root, m, args.profile).name == args.model]
    if not refs:
        raise SystemExit(f"gpu_check: model {args.model!r} is not in profile {args.profile!r}")
    one = dataclasses.replace(
        profile,
        models=refs[:1],
        p2_shapes=False,
        batch_sizes=[args.batch],
        frameworks=[args.framework],
        rounds=args.rounds,
        # Rounds are added (up to --max-rounds, the error rate split over the looks) until both
        # comparisons are conclusive: a noisy machine widens the interval, more rounds narrow it.
        max_rounds=max(args.max_rounds, args.rounds),
    )
    injected = f"{args.framework}={args.fraction}:{args.slowdown}"
    builds = (
        runner.Build("A"),
        runner.Build("same", model_from="A"),
        runner.Build("slowed", env=((INJECT_ENV, injected),), model_from="A"),
    )
    started = time.perf_counter()
    out = runner.execute(
        "gpu-check",
        one,
        root=root,
        work=work / "pair",
        builds=builds,
        progress=ProfileBar(console),
    )
    seconds = time.perf_counter() - started
    row = out["A"].rows[0]
    key = row.key
    slowed = out["slowed"].row(key)
    return {
        "row": key,
        "rounds": len(row.samples_ns),
        "injected": injected,
        "injection": slowed.extra.get("injected_slowdown") if slowed else None,
        "seconds": round(seconds, 1),
        "null": _verdict(out["same"], out["A"], one, key),
        "slowed": _verdict(out["slowed"], out["A"], one, key),
    }


def summary(report: dict[str, Any]) -> list[str]:
    """What was caught, in a few lines (and whether the check passed)."""
    lines: list[str] = []
    run = report.get("profile_run")
    if run:
        bad = [k for k, e in run["eager"].items() if e["status"] != "ok"]
        lines.append(
            f"profile {run['profile']} on {run['device']} ({run['precision']}): {run['counts']} "
            f"in {run['seconds']} s; eager rows ok: {len(run['eager']) - len(bad)} of "
            f"{len(run['eager'])}" + (f" (not ok: {', '.join(bad)})" if bad else "")
        )
    pair = report["pair"]
    lines.append(f"row {pair['row']}, {pair['rounds']} rounds a side, {pair['seconds']} s:")
    lines.append(f"  null comparison: {pair['null']['row']} ({pair['null']['detail']})")
    lines.append(
        f"  injected {pair['injected']} [{pair['injection']}]: {pair['slowed']['row']} "
        f"({pair['slowed']['detail']})"
    )
    caught = pair["slowed"]["row"] == REGRESSED
    clean = pair["null"]["row"] != REGRESSED
    eager_ok = run["eager_all_ok"] if run else True
    report["passed"] = caught and clean and eager_ok
    lines.append(
        f"check: slowdown {'caught' if caught else 'NOT caught'}; null comparison "
        f"{'clean' if clean else 'REGRESSED (false alarm)'}"
        + (f"; eager rows {'all ok' if eager_ok else 'NOT all ok'}" if run else "")
    )
    return lines


def _write(path: Path, report: dict[str, Any]) -> None:
    path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


def trim(profile: Profile, args: argparse.Namespace) -> Profile:
    """The profile cut to what the options keep, so the check fits a short GPU lease."""
    models = profile.models
    if args.profile_models:
        models = [m for m in models if m in args.profile_models]
        unknown = sorted(set(args.profile_models) - set(models))
        if unknown:
            raise SystemExit(f"gpu_check: --profile-models {unknown} not in the profile's {models}")
    return dataclasses.replace(
        profile,
        models=models,
        batch_sizes=args.profile_batches or profile.batch_sizes,
        frameworks=args.profile_frameworks or profile.frameworks,
        p2_shapes=profile.p2_shapes and not args.no_p2,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project (pyproject.toml)")
    parser.add_argument("--profile", default="gpu")
    parser.add_argument("--skip-profile", action="store_true", help="only the comparisons")
    parser.add_argument(
        "--profile-models", nargs="+", help="run only these of the profile's models (a short lease)"
    )
    parser.add_argument("--profile-batches", nargs="+", type=int, help="only these batch sizes")
    parser.add_argument("--profile-frameworks", nargs="+", help="only these frameworks")
    parser.add_argument("--no-p2", action="store_true", help="leave out the P2 input shapes")
    parser.add_argument("--model", default="bert")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--framework", default="pytorch")
    parser.add_argument("--slowdown", default="device", choices=("device", "cpu", "wait"))
    parser.add_argument("--fraction", type=float, default=0.05)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds a side, first")
    parser.add_argument(
        "--max-rounds",
        type=int,
        default=15,
        help="add rounds (up to this many a side) while a comparison is inconclusive",
    )
    parser.add_argument("--output", type=Path, default=Path("build/bench/gpu_check.json"))
    args = parser.parse_args(argv)
    args.root = args.root.resolve()  # the workers run elsewhere: a relative root would miss
    console = Console(stderr=True)
    config = load_config(args.root)
    profile = config.table(PerfConfig).profile(args.profile)
    work = args.output.parent / "gpu_check_work"
    report: dict[str, Any] = {"argv": sys.argv[1:] if argv is None else argv}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    if not args.skip_profile:
        trimmed = trim(profile, args)
        report["profile_run"] = profile_step(args.profile, trimmed, args.root, work, console)
        # Written now: a lease that ends during the pair step still keeps the profile's figures.
        _write(args.output, report)
    report["pair"] = slowdown_step(profile, args, args.root, work, console)
    lines = summary(report)
    _write(args.output, report)
    print("\n".join(lines))
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
