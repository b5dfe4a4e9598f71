"""Real workers: the `perf` gate's status probe (what it says it timed), and a slowdown that
waits, caught by the wall-time verdict only."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from helpers.projects import perf_adopter
from helpers.repo import commit_all, git

from mlrelease.cli import main
from mlrelease.perf import compare, runner
from mlrelease.perf.config import PerfConfig
from mlrelease.perf.worker import INJECT_ENV
from mlrelease.registry import load_config

TINY = {
    "models": ["tiny_models:TINY", "tiny_models:UNEXPORTABLE"],
    "frameworks": ["pytorch", "onnxruntime_cpu"],
    "batch-sizes": [1, 4],
    "opset": 20,
    "threads": 1,
    "clock": "cpu",
    "iters": 200,
    "warmup-iters": 20,
    "warmup-s": 0.0,
}
"""The gate's profile ``tiny``: a model that exports and one that does not."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return perf_adopter.write(tmp_path, {"tiny": TINY}, gate_profile="tiny")


def _report(root: Path) -> dict[str, object]:
    data = json.loads((root / "build/release-verify/report.json").read_text(encoding="utf-8"))
    (gate,) = [g for g in data["results"] if g["name"] == "perf"]
    return dict(gate)


@pytest.mark.slow
def test_gate_is_a_status_probe_that_says_nothing_was_timed(project: Path) -> None:
    # No baseline: the export failure is new, and the gate fails naming it.
    assert main(["--root", str(project), "verify", "--only", "perf"]) == 1
    gate = _report(project)
    assert gate["status"] == "fail"
    assert "status probe of 12 rows (6 ok, 2 export failed, 4 not applicable)" in str(
        gate["summary"]
    )
    assert "0 rows timed" in str(gate["summary"])
    assert any("unexportable/v16/b1/onnxruntime_cpu" in d for d in gate["details"])  # type: ignore[union-attr]
    # Record the probe as the baseline: the failure is known; nothing timed: a skip that says so.
    results = project / "build/release-verify/evidence/perf/results.json"
    baselines = project / "ci/perf_baselines"
    baselines.mkdir(parents=True)
    data = json.loads(results.read_text(encoding="utf-8"))
    (baselines / f"{data['device']['key']}.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["--root", str(project), "verify", "--only", "perf"]) == 0
    gate = _report(project)
    assert gate["status"] == "skip"
    assert "0 rows timed; timing not measured here: timing needs `nox -s perf`" in str(
        gate["summary"]
    )
    assert main(["--root", str(project), "verify", "--only", "perf", "--strict"]) == 1


@pytest.mark.slow
def test_a_clean_probe_is_reused_until_the_tree_changes(project: Path) -> None:
    (project / ".gitignore").write_text("build/\n", encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    commit_all(project, "feat: tiny models")
    assert main(["--root", str(project), "verify", "--only", "perf"]) == 1  # a new failure
    assert "(reused:" not in str(_report(project)["summary"])
    assert main(["--root", str(project), "verify", "--only", "perf"]) == 1  # never reused
    results = project / "build/release-verify/evidence/perf/results.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    baselines = project / "ci/perf_baselines"
    baselines.mkdir(parents=True)
    (baselines / f"{data['device']['key']}.json").write_text(json.dumps(data), encoding="utf-8")
    commit_all(project, "perf: baseline")
    assert main(["--root", str(project), "verify", "--only", "perf"]) == 0
    probed = results.stat().st_mtime_ns
    assert main(["--root", str(project), "verify", "--only", "perf"]) == 0
    gate = _report(project)
    assert gate["status"] == "skip" and "(reused: the run of" in str(gate["summary"])
    assert "0 rows timed" in str(gate["summary"]) and results.stat().st_mtime_ns == probed
    assert main(["--root", str(project), "verify", "--only", "perf", "--strict"]) == 1
    (project / "tiny_builders.py").write_text(  # an uncommitted edit: probe again
        (project / "tiny_builders.py").read_text(encoding="utf-8") + "\n", encoding="utf-8"
    )
    assert main(["--root", str(project), "verify", "--only", "perf"]) == 0
    assert "(reused:" not in str(_report(project)["summary"])
    assert results.stat().st_mtime_ns != probed


@pytest.mark.slow
def test_a_slowdown_that_waits_is_caught_by_wall_time_only(project: Path) -> None:
    config = load_config(project)
    profile = dataclasses.replace(
        config.table(PerfConfig).profile("tiny"),
        models=["tiny_models:WIDE"],
        batch_sizes=[1],
        rounds=8,
        iters=100,
    )
    # A wait as long as the run itself (wall x2), and 8 rounds a side: the verdict needs
    # p <= 0.05 / 4 (Holm over 2 rows x 2 clocks), which 6 rounds miss (p = 0.032) as soon as one
    # baseline round is disturbed past every slowed one; 8 rounds keep it (p = 0.005). And a
    # baseline round must be disturbed 2x, not 1.25x, to be past the slowed ones at all.
    builds = [
        runner.Build("A"),
        runner.Build("W", env=((INJECT_ENV, "onnxruntime_cpu=1.0:wait"),)),
    ]
    out = runner.execute(
        "tiny",
        profile,
        root=project,
        work=project / "work",
        builds=builds,
    )
    comparison = compare.compare(out["W"], out["A"], threshold=0.07, alpha=0.05)
    assert comparison.family is not None
    verdicts = {(t.key.split("/")[-1], t.clock): t.verdict for t in comparison.family.tests}
    assert verdicts[("onnxruntime_cpu", "wall")] == "regressed", comparison.to_markdown()
    # The sleep itself holds no CPU, but waking from it does slow the next iteration (cold
    # caches, a down-clocked or descheduled core): the CPU clock may see some of it, never all.
    ratios = {(t.key.split("/")[-1], t.clock): t.estimate for t in comparison.family.tests}
    assert ratios[("onnxruntime_cpu", "cpu")] < ratios[("onnxruntime_cpu", "wall")], (
        comparison.to_markdown()
    )
    assert verdicts[("pytorch", "wall")] != "regressed", comparison.to_markdown()
    assert verdicts[("pytorch", "cpu")] != "regressed", comparison.to_markdown()
    row = out["W"].row("wide/v16/b1/onnxruntime_cpu")
    assert row is not None and len(row.round_facts) == 8
    assert {"cpu", "load_1m", "runqueue_share"} <= set(row.round_facts[0])
