"""Peak memory of the model verifier on a model over 2 GB with external data (steps 0-3).

Builds, in a temp folder, a MatMul model whose 24576 x 24576 float32 weight (2.4 GB) lives in
a sparse external data file, then verifies it by path in the sandboxed worker -- integrity,
onnx.checker full check, strict shape inference with data propagation, opset imports -- and
reports the worker's own peak RSS (getrusage ru_maxrss), next to the same steps on a 1 KB
model run in the same session, so the figure can be read as "does it grow with the model".

    python scripts/bench_large_model_rss.py            # 3 rounds, medians
    python scripts/bench_large_model_rss.py --rounds 5

Exits 1 when a verdict fails or the median exceeds --limit-mb (default 300).
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
from mlrelease.models.manifest import ModelJob, single
from mlrelease.models.verdicts import ModelVerdict

STEPS = ["integrity", "checker", "shape_inference", "opset_imports"]


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--side", type=int, default=24576, help="W is side x side float32")
    parser.add_argument("--limit-mb", type=float, default=300.0)
    args = parser.parse_args(argv)
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
