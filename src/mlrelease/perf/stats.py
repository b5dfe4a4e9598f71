"""Statistics of latency samples: summaries, and the rank tools of a comparison (pure).

Samples are per-iteration latencies in nanoseconds, grouped in rounds (one round = one worker
subprocess; the unit of replication, since processes of one build differ more than iterations
of one process). A comparison works on the rounds' medians: a one-sided Mann-Whitney U test
and the matching Hodges-Lehmann estimate and bounds of the ratio candidate / baseline; ranks
make one disturbed round count as one round, not as a 10% shift. The verdicts built on them
are in :mod:`mlrelease.perf.verdict`.
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


def mann_whitney(candidate: Sequence[float], baseline: Sequence[float], alternative: str) -> float:
    """One-sided Mann-Whitney U p-value: ``greater`` (candidate tends to be larger than
    baseline) or ``less`` (exact for small samples without ties, as scipy chooses)."""
    from scipy.stats import mannwhitneyu

    return float(mannwhitneyu(candidate, baseline, alternative=alternative).pvalue)


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


def _u_distribution(n: int, m: int) -> list[int]:
    """Counts of each value of the Mann-Whitney U statistic under the null (n x m, no ties)."""
    table: dict[tuple[int, int], list[int]] = {}

    def counts(a: int, b: int) -> list[int]:
        if a == 0 or b == 0:
            return [1]
        if (a, b) not in table:
            # The largest value is from side a (U grows by b) or from side b (U unchanged).
            left, right = counts(a - 1, b), counts(a, b - 1)
            out = [0] * (a * b + 1)
            for u, c in enumerate(left):
                out[u + b] += c
            for u, c in enumerate(right):
                out[u] += c
            table[(a, b)] = out
        return table[(a, b)]

    return counts(n, m)


def hodges_lehmann_bounds(
    baseline: Sequence[float], candidate: Sequence[float], *, tail: float
) -> tuple[float, float | None, float | None]:
    """(estimate, low, high) of candidate / baseline from all pairwise ratios (log scale).

    ``low`` and ``high`` are each a one-sided bound at error ``tail`` (together a
    ``1 - 2 * tail`` interval): the exact distribution-free bounds that invert the one-sided
    Mann-Whitney test, the k-th smallest and largest pairwise ratios with
    ``P(U < k) <= tail`` under the null. A bound is None when even the extreme ratio does not
    reach that level (too few rounds for the confidence asked).
    """
    ratios = sorted(math.log(c / b) for b in baseline for c in candidate)
    counts = _u_distribution(len(baseline), len(candidate))
    total = sum(counts)
    k, cumulative = 0, 0
    for count in counts:
        cumulative += count
        if cumulative / total > tail:
            break
        k += 1
    centre = math.exp(statistics.median(ratios))
    if k == 0:
        return centre, None, None
    return centre, math.exp(ratios[k - 1]), math.exp(ratios[-k])
