"""Results files, the docs page and the plots, from constructed rows (real matplotlib)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from mlrelease.perf import page
from mlrelease.perf.catalog import BUILTIN_MODELS, plan
from mlrelease.perf.results import Results, Row, read
from mlrelease.perf.service import write_results
from mlrelease.perf.tables import to_csv


def sample_results(device: str = "cpu-test-2c") -> Results:
    ok = [[int(x * 1e6) for x in (10, 11, 10.5, 10.2, 10.1)]]
    fast = [[int(x * 1e6) for x in (4, 4.2, 4.1, 4.0, 4.3)]]
    rows = [
        Row("resnet50", "3x224x224", 1, "pytorch", "ok", samples_ns=ok, build_s=1.0),
        Row("resnet50", "3x224x224", 1, "onnxruntime_cpu", "ok", samples_ns=fast, parity=1e-6),
        Row("vit_b16", "3x224x224", 1, "pytorch", "ok", samples_ns=ok),
        Row(
            "vit_b16",
            "3x224x224",
            1,
            "onnxruntime_cpu",
            "export_failed",
            error="Traceback ...\ntorch.onnx.errors.UnsupportedOperatorError: aten::foo",
        ),
        Row("vit_b16", "3x1920x1080", 1, "pytorch", "not_applicable", error="too big"),
    ]
    return Results(
        "cpu",
        device,
        "Test CPU",
        {"unstable_cov": 0.10, "threads": 1, "opset": 20},
        {"host": {"cpu": "Test CPU"}, "libraries": {"torch": "2.13.0"}},
        rows,
    )


def test_write_and_read_back(tmp_path: Path) -> None:
    results = sample_results()
    paths = write_results(results, tmp_path)
    assert read(paths["json"]).rows[1].samples_ns == results.rows[1].samples_ns
    data = json.loads(paths["json"].read_text())
    assert data["counts"] == {"ok": 3, "export_failed": 1, "not_applicable": 1}
    assert data["rows"][0]["summary"]["median_ms"] == 10.2
    lines = list(csv.DictReader(io.StringIO(to_csv(results))))
    assert [line["status"] for line in lines] == [r.status for r in results.rows]
    assert lines[3]["error"].endswith("UnsupportedOperatorError: aten::foo")
    markdown = paths["markdown"].read_text()
    assert "| resnet50 | 3x224x224 | 1 | 10.20 ms | 4.10 ms | 2.49x |" in markdown
    assert "**export_failed**" in markdown and "not applicable" in markdown
    for name in ("latency", "speedup"):
        assert paths[name].read_bytes().startswith(b"\x89PNG")


def test_page_merges_devices_with_one_h1(tmp_path: Path) -> None:
    docs = tmp_path / "perf"
    page.publish([sample_results("cpu-a-2c")], docs, gpu_note="No GPU here.")
    text = page.publish([sample_results("cpu-b-4c")], docs, gpu_note="No GPU here.").read_text()
    assert [line for line in text.splitlines() if line.startswith("# ")] == ["# Performance report"]
    assert text.count("\n## Test CPU: profile `cpu`") == 2
    assert "(cpu-a-2c/latency.png)" in text and "(cpu-b-4c/speedup.png)" in text
    assert "## GPU profile\n\nNo GPU here." in text
    assert (docs / "cpu-b-4c" / "results.csv").is_file()


def test_plan_marks_not_applicable_and_unavailable() -> None:
    specs = [("vit_b16", BUILTIN_MODELS["vit_b16"])]
    rows = plan(
        specs,
        p2_shapes=True,
        batch_sizes=[1, 8],
        frameworks=["pytorch", "torch_tensorrt"],
        unavailable={"torch_tensorrt": "not installed"},
    )
    assert len(rows) == 8
    statuses = {(p.combination.shape, p.combination.framework): p.status for p in rows}
    assert statuses[("3x224x224", "pytorch")] is None
    assert statuses[("3x224x224", "torch_tensorrt")] == "unavailable"
    assert statuses[("3x1920x1080", "pytorch")] == "not_applicable"
    assert (
        len(plan(specs, p2_shapes=False, batch_sizes=[1], frameworks=["pytorch"], unavailable={}))
        == 1
    )
