"""Peak memory of the model verifier: a model over 2 GB with external data (steps 0-3), and a
graph of 1,000,000 nodes.

Weights: builds, in a temp folder, a MatMul model whose 24576 x 24576 float32 weight (2.4 GB)
lives in a sparse external data file, then verifies it in the sandboxed worker -- integrity,
onnx.checker full check, strict shape inference with data propagation, opset imports -- and
reports the worker's own peak RSS (getrusage ru_maxrss), next to the same steps on a 1 KB
model run in the same session, so the figure can be read as "does it grow with the model".

Nodes (``--nodes``): a chain of N ``Identity`` nodes (30 MB on disk for 1,000,000), verified
as ``mlrelease models verify`` does by default (every default step, the default budget and
memory limit), then again with the node budget lifted (``max-nodes = 0``) through steps 0-4
(no runtime), and, with ``--full``, through every default step: peak RSS, wall time and the
verdict of each.

    python scripts/bench_large_model_rss.py            # 3 rounds, medians
    python scripts/bench_large_model_rss.py --rounds 5
    python scripts/bench_large_model_rss.py --nodes 1000000 --rounds 1
    python scripts/bench_large_model_rss.py --nodes 1000000 --rounds 1 --full   # minutes

Exits 1 when a verdict fails or the median exceeds --limit-mb (default 300); with --nodes,
when the default verification is neither declined before loading nor under --limit-nodes-mb
(default 2048).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from mlrelease.models import sandbox
from mlrelease.models.config import ModelsConfig
from mlrelease.models.manifest import ModelJob, single
from mlrelease.models.verdicts import DEFAULT_STEPS, ModelVerdict

STEPS = ["integrity", "checker", "shape_inference", "opset_imports"]
NO_RUNTIME = [*STEPS, "compat"]


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def build_chain(folder: Path, nodes: int) -> Path:
    """y = Identity(...Identity(x)) with ``nodes`` nodes, written field by field (onnx's Python
    builder takes minutes for a million nodes), with one test data set."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    rest = helper.make_graph([], "chain", [x], [y]).SerializeToString()
    names = ["x", *(f"v{i}" for i in range(1, nodes)), "y"]
    op = _field(4, b"Identity")
    body = b"".join(
        _field(1, _field(1, names[i].encode()) + _field(2, names[i + 1].encode()) + op)
        for i in range(nodes)
    )
    model = helper.make_model(
        helper.make_graph([], "chain", [x], [y]),
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 21)],
    )
    model.ClearField("graph")
    path = folder / "model.onnx"
    path.write_bytes(model.SerializeToString() + _field(7, body + rest))
    data = folder / "test_data_set_0"
    data.mkdir()
    ones = np.ones((2, 3), np.float32)
    for name in ("input_0.pb", "output_0.pb"):
        (data / name).write_bytes(numpy_helper.from_array(ones).SerializeToString())
    return path


def build_large(folder: Path, side: int) -> Path:
    """y = x @ W with W (side x side float32) in a sparse external file next to the model."""
    w = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[side, side])
    w.data_location = TensorProto.EXTERNAL
    nbytes = side * side * 4
    for key, value in (("location", "weights.bin"), ("offset", "0"), ("length", str(nbytes))):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, side])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, side])
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"])], "large", [x], [y], initializer=[w]
    )
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    onnx.save(model, folder / "model.onnx")
    with open(folder / "weights.bin", "wb") as handle:
        handle.truncate(nbytes)  # sparse: no disk blocks, reads as zeros
    return folder / "model.onnx"


def build_small(folder: Path) -> Path:
    w = numpy_helper.from_array(np.ones((4, 4), np.float32), "W")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"])], "small", [x], [y], initializer=[w]
    )
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    onnx.save(model, folder / "model.onnx")
    return folder / "model.onnx"


def verify(path: Path) -> ModelVerdict:
    job: ModelJob = single(path)
    job.steps = list(STEPS)
    return sandbox.run(job)


def verify_chain(path: Path, steps: list[str], max_nodes: int) -> tuple[ModelVerdict, float]:
    """The chain through ``steps`` under the default limits, with ``max_nodes``; wall seconds."""
    defaults = ModelsConfig()
    job = single(path)
    job.steps = steps
    job.max_nodes = max_nodes
    job.max_model_bytes = defaults.max_model_bytes
    job.memory_limit_mb = defaults.memory_limit_mb
    job.time_limit_s = 1800
    start = time.perf_counter()
    verdict = sandbox.run(job)
    return verdict, time.perf_counter() - start


def bench_nodes(nodes: int, rounds: int, full: bool, limit_mb: float) -> int:
    """The node-count case; exits 1 when the default verification is neither declined before
    loading nor under ``limit_mb``."""
    defaults = ModelsConfig()
    cases = [
        ("default", list(DEFAULT_STEPS), defaults.max_nodes),
        ("no budget, steps 0-4", NO_RUNTIME, 0),
    ]
    if full:
        cases.append(("no budget, every default step", list(DEFAULT_STEPS), 0))
    status = 0
    with tempfile.TemporaryDirectory(prefix="mlrelease-bench-") as tmp:
        started = time.perf_counter()
        path = build_chain(Path(tmp), nodes)
        print(
            f"chain of {nodes:,} Identity nodes: {path.stat().st_size / 1e6:.1f} MB "
            f"(built in {time.perf_counter() - started:.1f} s); memory limit "
            f"{defaults.memory_limit_mb} MB, budget {defaults.max_nodes:,} nodes"
        )
        for name, steps, max_nodes in cases:
            peaks, walls = [], []
            for _ in range(rounds):
                verdict, wall = verify_chain(path, steps, max_nodes)
                peaks.append(verdict.peak_rss_mb or 0.0)
                walls.append(wall)
            failed = next((s for s in verdict.steps if s.outcome.value == "fail"), None)
            said = f"FAIL at {failed.step}: {failed.summary[:160]}" if failed else "pass"
            print(
                f"{name}: median peak RSS {statistics.median(peaks):,.0f} MB, median wall "
                f"{statistics.median(walls):.1f} s over {rounds} round(s): {said}"
            )
            if name == "default":
                declined = failed is not None and "declined before loading" in failed.summary
                if not declined and statistics.median(peaks) >= limit_mb:
                    print(f"neither declined before loading nor under {limit_mb:.0f} MB")
                    status = 1
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--side", type=int, default=24576, help="W is side x side float32")
    parser.add_argument("--limit-mb", type=float, default=300.0)
    parser.add_argument("--nodes", type=int, default=0, help="bench a chain of N nodes instead")
    parser.add_argument("--full", action="store_true", help="with --nodes: every default step")
    parser.add_argument("--limit-nodes-mb", type=float, default=2048.0)
    args = parser.parse_args(argv)
    if args.nodes:
        return bench_nodes(args.nodes, args.rounds, args.full, args.limit_nodes_mb)
    with tempfile.TemporaryDirectory(prefix="mlrelease-bench-") as tmp:
        large_dir, small_dir = Path(tmp) / "large", Path(tmp) / "small"
        large_dir.mkdir()
        small_dir.mkdir()
        large, small = build_large(large_dir, args.side), build_small(small_dir)
        size = (large_dir / "weights.bin").stat().st_size
        print(f"model: {large} + weights.bin {size / 1e9:.2f} GB ({size / 2**30:.2f} GiB, sparse)")
        rss: dict[str, list[float]] = {"large": [], "small": []}
        seconds: dict[str, list[float]] = {"large": [], "small": []}
        for round_ in range(1, args.rounds + 1):
            for name, path in (("large", large), ("small", small)):  # side by side, interleaved
                start = time.perf_counter()
                verdict = verify(path)
                seconds[name].append(time.perf_counter() - start)
                if not verdict.ok or verdict.peak_rss_mb is None:
                    print(f"round {round_} {name}: FAILED {verdict.to_dict()}")
                    return 1
                rss[name].append(verdict.peak_rss_mb)
                steps = ", ".join(f"{s.step} {s.outcome.value}" for s in verdict.steps)
                print(
                    f"round {round_} {name:5}: peak RSS {verdict.peak_rss_mb:6.1f} MB, "
                    f"{seconds[name][-1]:.2f} s ({steps})"
                )
    large_mb, small_mb = statistics.median(rss["large"]), statistics.median(rss["small"])
    print(
        f"median worker peak RSS, steps 0-3: {size / 1e9:.2f} GB model {large_mb:.1f} MB; "
        f"1 KB model {small_mb:.1f} MB; ratio {large_mb / small_mb:.2f} "
        f"(median time {statistics.median(seconds['large']):.2f} s vs "
        f"{statistics.median(seconds['small']):.2f} s)"
    )
    try:
        import resource

        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (
            2**20 if sys.platform == "darwin" else 2**10
        )
        print(f"(this benchmark process, which never opens the model: peak RSS {own:.1f} MB)")
    except ImportError:
        pass
    if large_mb >= args.limit_mb:
        print(f"over the limit of {args.limit_mb:.0f} MB")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
