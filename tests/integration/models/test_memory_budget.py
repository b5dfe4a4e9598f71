"""Issue 32, class 3: memory bounded by the model.

A 30 MB graph of 1,000,000 ``Identity`` nodes used to verify (ACCEPT) with a worker peak of
2,856 MB: onnxruntime alone needs about 2.4 KB a node, so no limit a shared CI runner can give
holds it. Now it is declined before anything loads it, by the node budget
``[tool.mlrelease.models] max-nodes`` (default 500,000) counted on its bytes, and the report
prints the budget and the memory limit. The benign twin, a chain of 2,000 nodes, is accepted.
Peak memory and wall time of the verification are figures of
``scripts/bench_large_model_rss.py --nodes 1000000`` (docs/guide/models.md).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from helpers import REPO_ROOT, hostile

from mlrelease.cli import main
from mlrelease.models.config import ModelsConfig

sys.path.insert(0, str(REPO_ROOT / "scripts"))
from bench_large_model_rss import build_chain


@pytest.mark.slow
@pytest.mark.parametrize(("nodes", "declined"), [(1_000_000, True), (2_000, False)])
def test_a_million_node_graph_is_declined_before_loading(
    nodes: int,
    declined: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # outside any project: the defaults apply
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "README.md").write_text(hostile.README, encoding="utf-8")
    build_chain(folder, nodes)
    report = tmp_path / "report.json"
    started = time.monotonic()
    # Before the fix no budget stopped it: onnxruntime ran past this time limit.
    code = main(["models", "verify", str(folder), "--json", str(report), "--time-limit-s", "120"])
    took = time.monotonic() - started
    out = capsys.readouterr().out
    (verdict,) = json.loads(report.read_text(encoding="utf-8"))
    budget = ModelsConfig().max_nodes
    assert f"budget {budget:,} nodes" in out and "memory limit 3,072 MB" in out, out
    if declined:
        assert code == 1 and out.startswith("## Model Zoo submission: DECLINE"), out
        first = verdict["steps"][0]
        assert first["step"] == "integrity" and first["outcome"] == "fail", first
        assert f"more than {budget:,} nodes" in first["summary"], first
        assert "max-nodes" in first["summary"] and "declined before loading" in first["summary"]
        assert all(s["outcome"] == "skip" for s in verdict["steps"][1:]), verdict["steps"]
        assert verdict["peak_rss_mb"] < 2048 and took < 60, (verdict["peak_rss_mb"], took)
    else:
        assert code == 0 and out.startswith("## Model Zoo submission: ACCEPT"), out
