"""Harness overhead: the perf timing loop around an ONNX Runtime session against a bare loop.

Both time the same ``InferenceSession.run`` (one intra-op thread) on a small real ONNX model
(an MLP made with ``onnx.helper``, about a millisecond per run, so fixed per-iteration costs
show). The harness side is what a combination runs: the ``onnxruntime_cpu`` runner from
:mod:`mlrelease.perf.frameworks` inside :func:`mlrelease.perf.harness.measure`; the bare side is
``t0 = perf_counter_ns(); session.run(...); perf_counter_ns() - t0`` in a list. Rounds
alternate the order. Acceptance: the medians differ by under 2%, for the wall clock (and, for
the CPU clock of the ``cpu`` profile, against a bare ``process_time_ns`` loop).

    python scripts/bench_harness_overhead.py

Writes build/bench/harness_overhead.json; figures are quoted in docs/perf/methodology.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mlrelease.perf import frameworks, harness
from mlrelease.perf.stats import bootstrap_ratio_ci

LIMIT = 0.02


def mlp(path: Path, width: int, depth: int) -> None:
    """An ONNX MLP (MatMul + Relu layers), opset 20, IR 10: loads in onnxruntime 1.31."""
    rng = np.random.default_rng(0)
    nodes, weights = [], []
    previous = "x"
    for i in range(depth):
        w = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
        weights.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(helper.make_node("MatMul", [previous, f"w{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Relu", [f"m{i}"], [f"y{i}"]))
        previous = f"y{i}"
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, ["batch", width])],
        initializer=weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=10)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def bare(
    session: Any,
    names: list[str],
    feeds: dict[str, np.ndarray],
    iters: int,
    warmup: int,
    clock: Callable[[], int],
) -> list[int]:
    for _ in range(warmup):
        session.run(names, feeds)
    samples = []
    for _ in range(iters):
        t0 = clock()
        session.run(names, feeds)
        samples.append(clock() - t0)
    return samples


def compare(
    clock_name: str,
    runner: frameworks.Runner,
    feeds: dict[str, np.ndarray],
    rounds: int,
    iters: int,
) -> dict[str, Any]:
    session = runner.handle
    names = [o.name for o in session.get_outputs()]
    timer = harness.CLOCKS[clock_name]
    ours: list[list[int]] = []
    theirs: list[list[int]] = []
    for index in range(rounds):

        def measured() -> list[int]:
            return harness.measure(
                runner.run,
                runner.sync,
                warmup_iters=10,
                warmup_s=0.0,
                iters=iters,
                clock=clock_name,
            ).samples_ns

        def plain() -> list[int]:
            return bare(session, names, feeds, iters, 10, timer)

        if index % 2 == 0:
            ours.append(measured())
            theirs.append(plain())
        else:
            theirs.append(plain())
            ours.append(measured())
    flat_ours = [s for r in ours for s in r]
    flat_theirs = [s for r in theirs for s in r]
    median_ours = statistics.median(flat_ours)
    median_theirs = statistics.median(flat_theirs)
    low, high, method = bootstrap_ratio_ci(theirs, ours, confidence=0.95, resamples=1000)
    difference = median_ours / median_theirs - 1
    return {
        "clock": clock_name,
        "rounds": rounds,
        "iterations_per_round": iters,
        "median_harness_us": round(median_ours / 1e3, 2),
        "median_bare_us": round(median_theirs / 1e3, 2),
        "difference": round(difference, 5),
        "ci95": [round(low - 1, 5), round(high - 1, 5)],
        "interval_method": method,
        "per_round_differences": sorted(
            round(statistics.median(a) / statistics.median(b) - 1, 4)
            for a, b in zip(ours, theirs, strict=True)
        ),
        "pass": abs(difference) < LIMIT,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--output", type=Path, default=Path("build/bench/harness_overhead.json"))
    args = parser.parse_args(argv)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    model = args.output.parent / "harness_mlp.onnx"
    mlp(model, args.width, args.depth)
    feeds = {
        "x": np.random.default_rng(1).standard_normal((args.batch, args.width), dtype=np.float32)
    }
    job = frameworks.RunnerSpec(
        device="cpu",
        threads=1,
        inputs=feeds,
        output_shape=(args.batch, args.width),
        onnx_path=model,
        work_dir=args.output.parent,
        build_model=lambda: None,
    )
    runner = frameworks.build_runner("onnxruntime_cpu", job)
    started = time.perf_counter()
    results = [compare(clock, runner, feeds, args.rounds, args.iters) for clock in ("wall", "cpu")]
    report = {
        "model": f"MLP {args.depth}x{args.width}, batch {args.batch}, one thread",
        "onnxruntime": runner.facts["onnxruntime"],
        "limit": LIMIT,
        "results": results,
        "duration_s": round(time.perf_counter() - started, 1),
    }
    args.output.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    for r in results:
        print(
            f"{r['clock']:>4} clock: harness median {r['median_harness_us']} us, bare "
            f"{r['median_bare_us']} us, difference {r['difference']:+.2%} (95% CI "
            f"{r['ci95'][0]:+.2%} .. {r['ci95'][1]:+.2%}) over {r['rounds']} x "
            f"{r['iterations_per_round']} iterations: {'PASS' if r['pass'] else 'FAIL'}"
        )
    return 0 if all(r["pass"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
