"""Statistics of the perf comparison, on synthetic samples (no timing in the tests)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mlrelease.perf.stats import (
    _u_distribution,
    hodges_lehmann_bounds,
    mann_whitney,
    percentile,
    summarize,
)


def test_summary_statistics() -> None:
    samples = [i * 1_000_000 for i in range(1, 101)]  # 1..100 ms
    summary = summarize(samples, batch=4)
    assert summary.n == 100
    assert summary.median_ms == pytest.approx(50.5)
    assert summary.p90_ms == pytest.approx(90.1)
    assert summary.p99_ms == pytest.approx(99.01)
    assert summary.min_ms == 1.0 and summary.max_ms == 100.0
    assert summary.cov == pytest.approx(summary.std_ms / summary.mean_ms)
    assert summary.throughput == pytest.approx(4 / 0.0505)
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5


def test_u_distribution() -> None:
    counts = _u_distribution(5, 5)
    assert sum(counts) == math.comb(10, 5) and counts[0] == counts[-1] == 1
    assert counts == counts[::-1]


@pytest.mark.parametrize("tail", [0.05, 0.01, 0.004])
def test_bounds_invert_the_one_sided_test(tail: float) -> None:
    """The lower bound is above 1 exactly when the one-sided test rejects "not slower" at the
    bound's level: the interval matches the test (the issue's two-sided-interval mismatch)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(4, 9))
        base = list(rng.lognormal(0, 0.05, n))
        cand = list(rng.lognormal(float(rng.uniform(-0.02, 0.12)), 0.05, n))
        _, low, high = hodges_lehmann_bounds(base, cand, tail=tail)
        p_greater = mann_whitney(cand, base, "greater")
        p_less = mann_whitney(cand, base, "less")
        if low is not None:
            assert (low > 1) == (p_greater <= tail), (low, p_greater)
        if high is not None:
            assert (high < 1) == (p_less <= tail), (high, p_less)


def test_bounds_are_none_when_rounds_cannot_reach_the_level() -> None:
    # 3 a side: the smallest one-sided p is 1/20 = 0.05; a 1% bound does not exist.
    estimate, low, high = hodges_lehmann_bounds([1.0, 1.1, 1.2], [2.0, 2.1, 2.2], tail=0.01)
    assert estimate == pytest.approx(2.1 / 1.1) and low is None and high is None
    estimate, low, high = hodges_lehmann_bounds([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], tail=0.05)
    assert (estimate, low, high) == (2.0, 2.0, 2.0)
