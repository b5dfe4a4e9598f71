"""Statistics of latency samples: summaries, and the slowdown test of a comparison (pure).

Samples are per-iteration latencies in nanoseconds, grouped in rounds (one round = one worker
subprocess). The comparison rule:

* ``ratio`` = median(candidate) / median(baseline), over all samples;
* a (1 - alpha) confidence interval of that ratio: for rounds that ran interleaved (three or
  more a side), a t-interval over the round pairs' ratios (the ratio is then their geometric
  mean); otherwise by bootstrap, over rounds then over samples within each drawn round when both
  sides have at least two rounds (so drift between rounds is part of the interval), else over
  samples;
* the slowdown is *significant* when the interval lies above 1 (``method = "bootstrap"``), or when
  a one-sided Mann-Whitney U test of candidate > baseline gives p < alpha (``"mannwhitney"``);
* it is a *regression* only when it is significant **and** a slowdown of the threshold is inside
  or below the interval (the interval's upper end reaches ``1 + threshold``): a slowdown the data
  cannot show to be smaller than the threshold fails; a real but provably small one is reported.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

NS = 1e9


@dataclass(frozen=True)
class Summary:
    """Steady-state statistics of one combination (milliseconds, except throughput and cov)."""

    n: int
    median_ms: float
    mean_ms: float
    p90_ms: float
    p95_ms: float
    p99_ms: float
    min_ms: float
    max_ms: float
    std_ms: float
    cov: float
    """Coefficient of variation: std / mean."""
    throughput: float
    """Samples (batch items) per second at the median latency."""

    def to_dict(self) -> dict[str, float | int]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) of sorted values, linear interpolation (numpy's default)."""
    if not ordered:
        raise ValueError("percentile of no samples")
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(samples_ns: Sequence[int | float], batch: int) -> Summary:
    """Summary statistics of latency samples (ns) of a batch of ``batch`` items."""
    if len(samples_ns) < 2:
        raise ValueError(f"need at least 2 samples to summarize, got {len(samples_ns)}")
    ms = sorted(s / 1e6 for s in samples_ns)
    mean = statistics.fmean(ms)
    std = statistics.stdev(ms)
    median = percentile(ms, 50)
    return Summary(
        n=len(ms),
        median_ms=median,
        mean_ms=mean,
        p90_ms=percentile(ms, 90),
        p95_ms=percentile(ms, 95),
        p99_ms=percentile(ms, 99),
        min_ms=ms[0],
        max_ms=ms[-1],
        std_ms=std,
        cov=std / mean if mean > 0 else 0.0,
        throughput=batch / (median / 1e3) if median > 0 else 0.0,
    )


@dataclass(frozen=True)
class Slowdown:
    """The timing verdict of one combination: candidate against baseline."""

    ratio: float
    """median(candidate) / median(baseline); above 1 is slower."""
    ci_low: float
    ci_high: float
    p_value: float
    """One-sided Mann-Whitney U p-value of candidate > baseline (raw samples)."""
    significant: bool
    regression: bool
    method: str
    """How the interval was drawn, for the report."""

    def to_dict(self) -> dict[str, Any]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def _flat(rounds: Sequence[Sequence[float]]) -> list[float]:
    return [float(s) for r in rounds for s in r]


def mann_whitney_greater(candidate: Sequence[float], baseline: Sequence[float]) -> float:
    """One-sided Mann-Whitney U p-value for "candidate tends to be larger than baseline"."""
    from scipy.stats import mannwhitneyu

    return float(mannwhitneyu(candidate, baseline, alternative="greater").pvalue)


def bootstrap_ratio_ci(
    baseline: Sequence[Sequence[float]],
    candidate: Sequence[Sequence[float]],
    *,
    confidence: float,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, str]:
    """A percentile-bootstrap interval of median(candidate) / median(baseline).

    With two or more rounds on both sides the resampling is hierarchical (rounds, then samples
    within each drawn round); otherwise the samples are resampled as one pool.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    hierarchical = min(len(baseline), len(candidate)) >= 2

    def draw(rounds: Sequence[Sequence[float]], count: int) -> Any:
        arrays = [np.asarray(r, dtype=float) for r in rounds if len(r)]
        if not hierarchical:
            pool = np.concatenate(arrays)
            picks = rng.integers(0, len(pool), size=(count, len(pool)))
            return np.median(pool[picks], axis=1)
        medians = np.empty(count)
        for i in range(count):
            chosen = rng.integers(0, len(arrays), size=len(arrays))
            parts = [
                arrays[c][rng.integers(0, len(arrays[c]), size=len(arrays[c]))] for c in chosen
            ]
            medians[i] = np.median(np.concatenate(parts))
        return medians

    ratios = draw(candidate, resamples) / draw(baseline, resamples)
    how = (
        f"bootstrap over {len(baseline)}+{len(candidate)} rounds"
        if hierarchical
        else "bootstrap over samples"
    )
    return (*_interval(ratios, confidence), how)


def _interval(ratios: Any, confidence: float) -> tuple[float, float]:
    import numpy as np

    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(low), float(high)


def round_medians(rounds: Sequence[Sequence[float]]) -> list[float]:
    return [statistics.median(r) for r in rounds if len(r)]


def paired_ratio(
    baseline: Sequence[Sequence[float]], candidate: Sequence[Sequence[float]]
) -> float:
    """Geometric mean over interleaved rounds of median(candidate round) / median(baseline)."""
    pairs = zip(round_medians(baseline), round_medians(candidate), strict=True)
    return math.exp(statistics.fmean(math.log(c / b) for b, c in pairs))


def paired_ratio_ci(
    baseline: Sequence[Sequence[float]],
    candidate: Sequence[Sequence[float]],
    *,
    confidence: float,
) -> tuple[float, float, str]:
    """A Student-t interval of :func:`paired_ratio` over the round pairs (log scale).

    Rounds of two builds that ran interleaved (A B, B A, ...) saw the same machine state: the
    ratio within a pair cancels the drift between pairs, and the spread of the pairs' ratios is
    the noise left. With a handful of pairs a percentile bootstrap of them is too narrow: in 300
    synthetic trials of a true 10% slowdown over five pairs, the upper end of a 99% bootstrap
    interval reached 1.10 in 93% of them, that of this t-interval (pairs - 1 degrees of
    freedom) in 98%.
    """
    from scipy.stats import t as student

    logs = [
        math.log(c / b)
        for b, c in zip(round_medians(baseline), round_medians(candidate), strict=True)
    ]
    centre = statistics.fmean(logs)
    half = (
        student.ppf(1 - (1 - confidence) / 2, len(logs) - 1)
        * statistics.stdev(logs)
        / (math.sqrt(len(logs)))
    )
    return (
        math.exp(centre - half),
        math.exp(centre + half),
        (f"t-interval over {len(logs)} interleaved round pairs"),
    )


def compare(
    baseline: Sequence[Sequence[float]],
    candidate: Sequence[Sequence[float]],
    *,
    threshold: float,
    alpha: float,
    method: str = "bootstrap",
    paired: bool = False,
    resamples: int = 2000,
    seed: int = 0,
) -> Slowdown:
    """Decide whether ``candidate`` is a regression of ``baseline`` (rounds of samples each).

    ``paired``: the rounds ran interleaved, round i of each side together; with at least 3
    rounds a side, the ratio and its interval come from the round pairs.
    """
    base, cand = _flat(baseline), _flat(candidate)
    if len(base) < 2 or len(cand) < 2:
        raise ValueError("compare needs at least 2 samples on each side")
    if paired and len(baseline) == len(candidate) >= 2:
        ratio = paired_ratio(baseline, candidate)
        low, high, how = paired_ratio_ci(baseline, candidate, confidence=1 - alpha)
    else:
        ratio = statistics.median(cand) / statistics.median(base)
        low, high, how = bootstrap_ratio_ci(
            baseline, candidate, confidence=1 - alpha, resamples=resamples, seed=seed
        )
    p_value = mann_whitney_greater(cand, base)
    if method == "mannwhitney":
        significant = p_value < alpha
        how = f"Mann-Whitney U (p={p_value:.2g}); interval by {how}"
    else:
        significant = low > 1.0
    regression = significant and high >= 1.0 + threshold
    return Slowdown(ratio, low, high, p_value, significant, regression, how)
