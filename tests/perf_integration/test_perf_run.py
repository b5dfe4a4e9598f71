"""End to end: a real profile run (torch, the ONNX exporter, onnxruntime) in a temporary
project, with a model whose export fails, and the baseline rule applied to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.projects import perf_adopter

from mlrelease.cli import main

pytestmark = pytest.mark.xdist_group("perf-run")
"""The module's profile runs are made once (module-scoped fixtures): its tests share one
xdist worker (``nox -s tests_perf`` runs the lane under ``--dist loadgroup``)."""

TINY = {
    "models": ["tiny_models:TINY", "tiny_models:UNEXPORTABLE"],
    "frameworks": ["pytorch", "onnxruntime_cpu", "onnxruntime_cuda"],
    "batch-sizes": [1, 4],
    "opset": 20,
    "iters": 5,
    "warmup-iters": 2,
    "warmup-s": 0.0,
}
"""The profile ``tiny``: a model that exports and one that does not, a framework this machine
lacks."""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return perf_adopter.write(tmp_path_factory.mktemp("adopter"), {"tiny": TINY})


@pytest.fixture(scope="module")
def first_run(project: Path) -> tuple[int, dict[str, dict[str, object]]]:
    code = main(["--root", str(project), "perf", "run", "--profile", "tiny"])
    data = json.loads((project / "build/perf/tiny/results.json").read_text())
    return code, {row["key"]: row for row in data["rows"]}


@pytest.mark.slow
def test_every_combination_has_a_status(
    first_run: tuple[int, dict[str, dict[str, object]]], project: Path
) -> None:
    _, rows = first_run
    assert {k: r["status"] for k, r in rows.items()} == {
        "tiny/v16/b1/pytorch": "ok",
        "tiny/v16/b1/onnxruntime_cpu": "ok",
        "tiny/v16/b1/onnxruntime_cuda": "unavailable",
        "tiny/v16/b4/pytorch": "ok",
        "tiny/v16/b4/onnxruntime_cpu": "ok",
        "tiny/v16/b4/onnxruntime_cuda": "unavailable",
        **{
            f"tiny/v65536/b{b}/{f}": "not_applicable"
            for b in (1, 4)
            for f in ("pytorch", "onnxruntime_cpu", "onnxruntime_cuda")
        },
        "unexportable/v16/b1/pytorch": "ok",
        "unexportable/v16/b4/pytorch": "ok",
        "unexportable/v16/b1/onnxruntime_cpu": "export_failed",
        "unexportable/v16/b4/onnxruntime_cpu": "export_failed",
        "unexportable/v16/b1/onnxruntime_cuda": "unavailable",
        "unexportable/v16/b4/onnxruntime_cuda": "unavailable",
    }
    ort = rows["tiny/v16/b4/onnxruntime_cpu"]
    assert ort["parity"] is not None and float(str(ort["parity"])) < 1e-5
    assert len(ort["samples_ns"][0]) == 5  # type: ignore[index]
    assert ort["extra"]["onnx"] == {"ir_version": 10, "opsets": {"ai.onnx": 20}}  # type: ignore[index]
    assert "mlrelease_tests" in str(rows["unexportable/v16/b1/onnxruntime_cpu"]["error"])
    assert "CUDAExecutionProvider" in str(rows["tiny/v16/b1/onnxruntime_cuda"]["error"])
    for name in ("results.csv", "results.md", "latency.png", "speedup.png", "comparison.md"):
        assert (project / "build/perf/tiny" / name).is_file()
    # The run is in the device class's history (no git repository here: commit "unknown"),
    # and the docs render it.
    (history,) = (project / "ci/perf_baselines/history").glob("*.jsonl")
    entry = json.loads(history.read_text().splitlines()[0])
    row = entry["rows"]["tiny/v16/b1/pytorch"]
    assert entry["commit"] == "unknown" and "cpu_ms" not in row and row["wall_ms"] > 0
    assert (project / "docs/perf/history.md").read_text().startswith("# Performance history")
    assert (project / "docs/perf/report.md").read_text().startswith("# Performance report")


@pytest.mark.slow
def test_baseline_rule(
    first_run: tuple[int, dict[str, dict[str, object]]],
    project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _ = first_run
    assert code == 1  # no baseline: the export failure is a new failure
    results = project / "build/perf/tiny/results.json"
    assert main(["--root", str(project), "perf", "baseline", "--profile", "tiny"]) == 0
    assert not list((project / "ci/perf_baselines").glob("*.json"))  # dry run
    assert main(["--root", str(project), "perf", "baseline", "--profile", "tiny", "--execute"]) == 0
    capsys.readouterr()
    # The same failure, now known: passes. Timings are the same samples: no regression.
    assert main(["--root", str(project), "perf", "compare", str(results)]) == 0
    out = capsys.readouterr().out
    assert "known failure" in out
    # ... on status only: its rows never ran, so were timed on neither side, and the
    # comparison does not pass them on timing (it says so).
    assert "timing inconclusive: timed on neither side" in out
    assert "failing row(s) not timed on both sides, so not passed on timing" in out
    # A baseline where the export still worked: the failure is new again.
    data = json.loads(results.read_text())
    for row in data["rows"]:
        if row["status"] == "export_failed":
            row["status"], row["error"] = "ok", ""
            row["samples_ns"] = [[1000, 1100, 1050]]
    fixed = project / "fixed.json"
    fixed.write_text(json.dumps(data))
    assert (
        main(["--root", str(project), "perf", "compare", str(results), "--baseline", str(fixed)])
        == 1
    )
    assert "new failure" in capsys.readouterr().out
