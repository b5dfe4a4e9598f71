"""Acceptance check of the perf regression gate, on real measurements.

Each repetition runs one profile in three builds whose rounds interleave (A B C, C B A, ...):
A and B are the same environment; C is the same environment with a slowdown injected into one
framework (``MLRELEASE_PERF_INJECT_SLOWDOWN``: a sleep of a fraction of each measured iteration,
inside the timed region). B against A must give no failure; C against A must flag the slowed
framework, and only it.

    python scripts/bench_regression_gate.py --repetitions 10

Writes build/bench/regression_gate.json and prints the figures quoted in docs/perf/methodology.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from mlrelease.config import load
from mlrelease.perf import compare, runner
from mlrelease.perf.worker import INJECT_ENV


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--model", default="efficientnet_b0")
    parser.add_argument("--slowed", default="onnxruntime_cpu", help="framework to slow down")
    parser.add_argument("--slowdown", type=float, default=0.10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, default=Path("build/bench/regression_gate.json"))
    args = parser.parse_args(argv)

    console = Console(stderr=True)
    config = load(Path.cwd())
    profile = dataclasses.replace(
        config.perf.profile("cpu"), models=[args.model], rounds=args.rounds
    )
    assert profile.threshold is not None
    builds = [
        runner.Build("A"),
        runner.Build("B"),
        runner.Build("C", env=((INJECT_ENV, f"{args.slowed}={args.slowdown}"),)),
    ]
    repetitions: list[dict[str, Any]] = []
    started = time.perf_counter()
    for index in range(args.repetitions):
        console.print(f"repetition {index + 1}/{args.repetitions}")
        out = runner.execute(
            "cpu",
            profile,
            root=config.root,
            work=args.output.parent / "regression-gate-work",
            builds=builds,
            console=console,
        )
        entry: dict[str, Any] = {
            "round_medians_ms": {
                name: {
                    row.key: [round(statistics.median(r) / 1e6, 4) for r in row.samples_ns]
                    for row in results.rows
                }
                for name, results in out.items()
            }
        }
        for label, candidate in (("same", out["B"]), ("injected", out["C"])):
            verdicts = compare.compare(
                candidate,
                out["A"],
                threshold=profile.threshold,
                alpha=profile.alpha,
                method=profile.method,
                interleaved=True,
            ).verdicts
            entry[label] = {
                v.key: {"kind": v.kind, **(v.slowdown.to_dict() if v.slowdown else {})}
                for v in verdicts
            }
        repetitions.append(entry)
        console.print(
            json.dumps({k: v for k, v in entry.items() if k != "round_medians_ms"}, indent=1)
        )

    def count(label: str, framework: str, kinds: set[str]) -> int:
        return sum(
            any(k.endswith("/" + framework) and v["kind"] in kinds for k, v in r[label].items())
            for r in repetitions
        )

    frameworks = sorted({k.rsplit("/", 1)[1] for r in repetitions for k in r["same"]})
    others = [f for f in frameworks if f != args.slowed]
    summary = {
        "repetitions": args.repetitions,
        "model": args.model,
        "rounds_per_build": args.rounds,
        "threshold": profile.threshold,
        "alpha": profile.alpha,
        "injected": f"{args.slowed} +{args.slowdown:.0%}",
        "same_build_failures": sum(
            any(v["kind"] in compare.FAILS for v in r["same"].values()) for r in repetitions
        ),
        "injected_flagged": count("injected", args.slowed, {"regression"}),
        "injected_other_frameworks_flagged": sum(
            count("injected", f, {"regression"}) for f in others
        ),
        "injected_ratio_medians": sorted(
            round(v["ratio"], 4)
            for r in repetitions
            for k, v in r["injected"].items()
            if k.endswith("/" + args.slowed)
        ),
        "same_ratio_range": [
            round(min(v["ratio"] for r in repetitions for v in r["same"].values()), 4),
            round(max(v["ratio"] for r in repetitions for v in r["same"].values()), 4),
        ],
        "point_estimate_rule_flagged": sum(
            v["significant"] and v["ratio"] >= 1 + profile.threshold
            for r in repetitions
            for k, v in r["injected"].items()
            if k.endswith("/" + args.slowed)
        ),
        "duration_s": round(time.perf_counter() - started),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(
        json.dumps({"summary": summary, "repetitions": repetitions}, indent=1), encoding="utf-8"
    )
    print(json.dumps(summary, indent=1))
    ok = (
        summary["same_build_failures"] == 0
        and summary["injected_flagged"] == args.repetitions
        and summary["injected_other_frameworks_flagged"] == 0
    )
    print("PASS" if ok else "FAIL", f"(details: {args.output})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
