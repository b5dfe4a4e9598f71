"""Statistics of the perf comparison, on synthetic samples (no timing in the tests)."""

from __future__ import annotations

import numpy as np
import pytest

from mlrelease.perf.stats import compare, percentile, summarize


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
    verdict = compare(a, b, threshold=0.10, alpha=0.01, resamples=500)
    assert verdict.significant and not verdict.regression
    assert verdict.ci_high < 1.10


def test_single_round_uses_sample_bootstrap() -> None:
    rng = np.random.default_rng(4)
    a, b = rounds(rng, 5.0, count=1), rounds(rng, 5.0, count=1)
    verdict = compare(a, b, threshold=0.10, alpha=0.01, resamples=300)
    assert verdict.method == "bootstrap over samples"
    assert not verdict.regression


def test_too_few_samples_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least 2 samples"):
        compare([[1.0]], [[1.0, 2.0]], threshold=0.1, alpha=0.01)


def test_interleaved_pairs_cancel_drift_between_rounds() -> None:
    rng = np.random.default_rng(5)
    for _ in range(10):
        drift = rng.normal(0, 0.10, 5)  # the machine's state: shared by both sides of a pair

        def side(factor: float, drift: np.ndarray = drift) -> list[list[float]]:
            return [list(10.0 * factor * (1 + d) * rng.lognormal(0, 0.01, 30)) for d in drift]

        same = compare(side(1.0), side(1.0), threshold=0.10, alpha=0.01, paired=True, resamples=500)
        slower = compare(
            side(1.0), side(1.10), threshold=0.10, alpha=0.01, paired=True, resamples=500
        )
        assert same.method == "t-interval over 5 interleaved round pairs"
        assert not same.regression and slower.regression, (same, slower)
        # Unpaired, the drift swamps the difference: no significance either way.
        assert not compare(
            side(1.0), side(1.10), threshold=0.10, alpha=0.01, resamples=500
        ).significant
