"""The history and comparison plots, drawn by real matplotlib.

Not in the unit lane: matplotlib's first import on a machine scans the system fonts (it runs
`fc-list`) and writes a font cache into the user's folders, so the test would depend on the
machine having run matplotlib before.
"""

from __future__ import annotations

from pathlib import Path

from helpers.perf import history_results

from mlrelease.perf import history, plots
from mlrelease.perf.compare import compare


def test_history_and_comparison_plots_are_written(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    for i in range(4):
        history.append(path, history.entry(history_results(), f"{i:040d}"))
    out = plots.history(history.read(path), "cpu-amd-f26-2c", 0.07, tmp_path / "h.png")
    assert out.read_bytes()[:4] == b"\x89PNG"
    base, cand = history_results(), history_results()
    comparison = compare(cand, base, threshold=0.07, alpha=0.05)
    assert comparison.family is not None
    picture = plots.comparison(base, cand, comparison.family.tests, 0.07, tmp_path / "c.png")
    assert picture.read_bytes()[:4] == b"\x89PNG"
