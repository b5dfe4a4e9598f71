"""The perf history: entries, steps (first commit of a shift), rendering, bad files (pure)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.perf import history_results

from mlrelease.errors import UserError
from mlrelease.perf import history
from mlrelease.perf.device import device_class


def points(values: list[float]) -> list[history.Point]:
    return [history.Point(f"c{i:02d}", f"2026-01-{i + 1:02d}", v) for i, v in enumerate(values)]


def test_device_class_groups_cpus_by_vendor_family_and_cores() -> None:
    assert device_class("cpu-amd-epyc-f26m2-2c") == "cpu-amd-f26-2c"
    assert device_class("cpu-amd-epyc-7b13-f26m1-2c") == "cpu-amd-f26-2c"
    assert device_class("cpu-intel-xeon-f6m106-4c") == "cpu-intel-f6-4c"
    assert device_class("cpu-apple-m2-8c") == "cpu-apple-8c"
    assert device_class("cuda-nvidia-h100-80gb-hbm3") == "cuda-nvidia-h100-80gb-hbm3"


def test_a_step_names_the_first_commit_after_the_shift() -> None:
    rng = np.random.default_rng(0)
    values = [10 * x for x in rng.lognormal(0, 0.01, 6)] + [
        11.5 * x for x in rng.lognormal(0, 0.01, 5)
    ]
    (step,) = history.steps(points(values), threshold=0.07, key="k", clock="cpu")
    assert step.commit == "c06" and step.index == 6
    assert step.ratio == pytest.approx(1.15, rel=0.03)


def test_noise_and_small_shifts_are_not_steps() -> None:
    rng = np.random.default_rng(1)
    assert history.steps(points([10 * x for x in rng.lognormal(0, 0.02, 12)]), threshold=0.07) == []
    small = [10.0] * 5 + [10.3] * 5
    assert history.steps(points(small), threshold=0.07) == []


def test_two_steps_are_both_found() -> None:
    values = [10.0, 10.1, 9.9, 10.0, 12.0, 12.1, 11.9, 12.0, 9.0, 9.1, 8.9, 9.0]
    found = history.steps(points(values), threshold=0.07)
    assert [s.commit for s in found] == ["c04", "c08"]
    assert found[0].ratio > 1 > found[1].ratio


def test_entries_append_read_and_render(tmp_path: Path) -> None:
    path = history.path_for(tmp_path, history_results())
    assert path == tmp_path / "history" / "cpu-amd-f26-2c.jsonl"
    for i in range(3):
        history.append(path, history.entry(history_results(), f"{i:040d}"))
    entries = history.read(path)
    assert len(entries) == 3 and entries[0]["device_class"] == "cpu-amd-f26-2c"
    row = entries[0]["rows"]["m/s/b1/f"]
    assert row["cpu_ms"] == 10.5 and row["wall_ms"] == 12.5 and len(row["cpu_rounds_ms"]) == 4
    assert entries[0]["rows"]["m/s/b1/g"] == {"status": "export_failed"}
    assert entries[0]["versions"] == {"torch": "2.13.0"}
    page = history.render(entries, "cpu-amd-f26-2c", threshold=0.07, plot="h.png")
    assert "| cpu | `m/s/b1/f` | cpu | 3 | 10.50 | none |" in page
    assert "![Per-row time series on cpu-amd-f26-2c](h.png)" in page


def test_a_bad_history_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps({"commit": "a", "rows": {}}) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"h.jsonl:2: not a JSON history entry"):
        history.read(path)
    path.write_text('{"rows": {}}\n', encoding="utf-8")
    with pytest.raises(UserError, match="expected an object with 'commit' and 'rows'"):
        history.read(path)
