"""Statistics of the perf comparison, on synthetic samples (no timing in the tests)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mlrelease.perf.stats import (
    _u_distribution,
    compare,
    hodges_lehmann_ratio,
    percentile,
    summarize,
)


def rounds(
    rng: np.random.Generator,
    median: float,
    *,
    count: int = 5,
    size: int = 30,
    spread: float = 0.02,
    drift: float = 0.01,
) -> list[list[float]]:
    """Latency-like samples: log-normal around ``median`` with a per-round drift."""
    out = []
    for _ in range(count):
        centre = median * (1 + rng.normal(0, drift))
        out.append(list(centre * rng.lognormal(0, spread, size)))
    return out


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


def test_same_build_never_fails() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        a, b = rounds(rng, 10.0), rounds(rng, 10.0)
        verdict = compare(a, b, threshold=0.10, alpha=0.01, resamples=500)
        assert not verdict.regression, verdict
        assert 0.95 < verdict.ratio < 1.05


@pytest.mark.parametrize("method", ["bootstrap", "mannwhitney"])
def test_slowdown_at_the_threshold_is_a_regression(method: str) -> None:
    rng = np.random.default_rng(2)
    for _ in range(10):
        a = rounds(rng, 10.0)
        b = [[x * 1.10 for x in r] for r in rounds(rng, 10.0)]
        verdict = compare(a, b, threshold=0.10, alpha=0.01, method=method, resamples=500)
        assert verdict.significant and verdict.regression, verdict


def test_small_real_slowdown_is_reported_not_failed() -> None:
    rng = np.random.default_rng(3)
    a = rounds(rng, 10.0, count=8, size=60, spread=0.005, drift=0.002)
    b = [
        [x * 1.03 for x in r]
        for r in rounds(rng, 10.0, count=8, size=60, spread=0.005, drift=0.002)
    ]
    verdict = compare(a, b, threshold=0.10, alpha=0.01, method="bootstrap", resamples=500)
    assert verdict.significant and not verdict.regression
    assert verdict.ci_high < 1.10


def test_single_round_uses_sample_bootstrap() -> None:
    rng = np.random.default_rng(4)
    a, b = rounds(rng, 5.0, count=1), rounds(rng, 5.0, count=1)
    verdict = compare(a, b, threshold=0.10, alpha=0.01, method="bootstrap", resamples=300)
    assert verdict.method == "bootstrap over samples"
    assert not verdict.regression


def test_too_few_samples_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least 2 samples"):
        compare([[1.0]], [[1.0, 2.0]], threshold=0.1, alpha=0.01)


def test_one_disturbed_round_does_not_hide_a_slowdown() -> None:
    rng = np.random.default_rng(5)
    base = rounds(rng, 10.0, drift=0.005)
    base[0] = [x * 1.08 for x in base[0]]  # a neighbour woke up during one baseline round
    slower = [[x * 1.10 for x in r] for r in rounds(rng, 10.0, drift=0.005)]
    verdict = compare(base, slower, threshold=0.10, alpha=0.05)
    assert verdict.method.startswith("Mann-Whitney U over 5+5 round medians")
    assert verdict.regression, verdict
    assert not compare(base, rounds(rng, 10.0, drift=0.005), threshold=0.10, alpha=0.05).regression


def test_u_distribution_and_hodges_lehmann() -> None:
    counts = _u_distribution(5, 5)
    assert sum(counts) == math.comb(10, 5) and counts[0] == counts[-1] == 1
    estimate, low, high = hodges_lehmann_ratio([1.0, 1.0, 1.0], [2.0, 2.0, 2.0], confidence=0.9)
    assert (estimate, low, high) == (2.0, 2.0, 2.0)
