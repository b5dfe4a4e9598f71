"""The pages name what they cannot see: rows over the stability threshold, and rows whose
minimum detectable effect stays above the comparison's threshold (#43)."""

from __future__ import annotations

import numpy as np

from mlrelease.perf import tables
from mlrelease.perf.compare import compare
from mlrelease.perf.results import Results, Row
from mlrelease.perf.sensitivity import Blind, blind_rows


def rounds(median_ms: float, spread: float, seed: int, count: int = 5) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [
        [int(median_ms * 1e6 * x) for x in rng.lognormal(0, spread, 30)]
        # each round's level moves too: what makes the rounds' medians disagree
        for _ in range(count)
    ]


def drifting(median_ms: float, drift: float, seed: int, count: int = 5) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    levels = rng.lognormal(0, drift, count)
    return [
        [int(median_ms * 1e6 * level * x) for x in rng.lognormal(0, 0.005, 30)] for level in levels
    ]


def results(rows: list[Row]) -> Results:
    return Results(
        profile="cpu",
        device_key="cpu-test-2c",
        device_name="Test CPU",
        settings={"unstable_cov": 0.02, "clock": "wall"},
        environment={},
        rows=rows,
    )


def quiet(seed: int) -> Row:
    return Row("bert", "s", 32, "onnxruntime", "ok", samples_ns=drifting(20, 0.002, seed))


def noisy(seed: int) -> Row:
    return Row("effnet", "s", 1, "pytorch", "ok", samples_ns=drifting(5, 0.25, seed))


def test_a_row_whose_noise_hides_the_threshold_is_named_with_the_rounds_it_needs() -> None:
    baseline, current = results([quiet(1), noisy(2)]), results([quiet(3), noisy(4)])
    page = compare(current, baseline, threshold=0.07, alpha=0.05).to_markdown()
    _, found, section = page.partition("Rows blind at the threshold (7%)")
    assert found, page
    assert "`effnet/s/b1/pytorch`" in section and "about" in section
    assert "`bert/s/b32/onnxruntime`" not in section  # the quiet row sees 7%


def test_a_quiet_comparison_names_no_blind_row() -> None:
    comparison = compare(results([quiet(3)]), results([quiet(1)]), threshold=0.07, alpha=0.05)
    assert "blind" not in comparison.to_markdown()


def test_rounds_needed_follow_the_square_root_narrowing() -> None:
    assert Blind("k", "wall", mde=0.14, rounds=4).rounds_needed(0.07) == 16
    assert Blind("k", "wall", mde=float("inf"), rounds=1).rounds_needed(0.07) is None
    assert blind_rows([], 0.07) == []


def test_the_results_page_names_rows_over_the_stability_threshold() -> None:
    launch_bound = Row("bert", "s", 1, "pytorch", "ok", samples_ns=rounds(0.8, 0.09, 1))
    steady = Row("bert", "s", 32, "pytorch", "ok", samples_ns=rounds(20, 0.004, 2))
    page = tables.to_markdown(results([launch_bound, steady]))
    assert "Rows over the profile's stability threshold (2% coefficient of variation)" in page
    assert "`bert/s/b1/pytorch`" in page and "short iterations (0.80 ms)" in page
    assert "`bert/s/b32/pytorch`: variation" not in page
