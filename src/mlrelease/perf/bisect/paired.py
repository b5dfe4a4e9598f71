"""The statistics of one bisect step: paired, interleaved rounds and what they decide (pure).

A step times a subject (a commit, an environment) against the good side in rounds that
interleave (good, subject, then subject, good, ...): round ``i`` of each side ran back to back,
so each pair's log-ratio ``d_i = log(subject_i / good_i)`` of the rounds' medians carries the
machine's drift on both sides and cancels it. The pairs are summarised by the Wilcoxon
signed-rank statistic: the Hodges-Lehmann estimate (the median of the Walsh averages
``(d_i + d_j) / 2``) and its exact distribution-free one-sided bounds (the k-th smallest and
largest Walsh averages, k from the exact null distribution of the statistic).

A step decides between two hypotheses that the endpoints fixed: the subject runs like the good
side (ratio 1) or like the bad side (ratio ``r``, the regression). The boundary is halfway,
``sqrt(r)`` (on the log scale):

* ``DIFFERENT``: the lower bound is above the halfway point;
* ``SAME``: the upper bound is below it;
* at the last look, when the interval still holds the halfway point, the side it excludes:
  ``DIFFERENT`` when its lower bound is above 1 and its upper bound is not below the bad side's
  lower bound (the endpoints' interval: ``r`` is measured, and a bisect only starts when the
  endpoints differed, so ``r`` tends to be measured high and ``sqrt(r)`` to sit above a bad
  subject's ratio); ``SAME`` in the mirror case;
* ``UNKNOWN``: otherwise after the last look (the interval excludes both sides, or neither),
  and before it: more pairs.

A subject whose true ratio is 1 is called ``DIFFERENT`` only when its lower bound exceeds 1
(``sqrt(r) > 1`` before the last look), which has probability at most the bound's tail; a
subject whose true ratio is the bad side's is called ``SAME`` only when its upper bound is below
that ratio, or below the endpoints' lower bound for it, at most the tail (plus that bound's
own). The
looks (pair counts at which a step decides) split the step's error evenly (Bonferroni), and the
bisect splits its own error over its steps (:class:`StepDesign`). One noisy pair cannot decide a
half: a bound is the k-th Walsh average from the end and a step never decides below
:data:`MIN_PAIRS`; an outlying pair moves the bound on its own side only, so it can delay a
decision, never flip it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist

SAME = "SAME"
DIFFERENT = "DIFFERENT"
UNKNOWN = "UNKNOWN"
WORDS = (SAME, DIFFERENT, UNKNOWN)

MIN_PAIRS = 4
"""No step decides on fewer pairs (the comparison's own minimum of rounds a side)."""

HL_VARIANCE = math.pi / 3
"""Variance of the Hodges-Lehmann estimate relative to the mean's, for normal noise (the
signed-rank test's asymptotic efficiency is 3 / pi): used to project a row's noise."""


@cache
def _null_counts(n: int) -> tuple[int, ...]:
    """How many of the ``2**n`` sign patterns give each value of the signed-rank sum W+."""
    counts = [1]
    for rank in range(1, n + 1):
        grown = counts + [0] * rank
        for total, ways in enumerate(counts):
            grown[total + rank] += ways
        counts = grown
    return tuple(counts)


def bound_rank(n: int, tail: float) -> int:
    """The largest k with ``P(W+ <= k - 1) <= tail`` under the null (0: no bound exists)."""
    counts = _null_counts(n)
    whole = 2**n
    k, cumulative = 0, 0
    for ways in counts:
        cumulative += ways
        if cumulative / whole > tail:
            break
        k += 1
    return k


def min_pairs(tail: float) -> int:
    """The fewest pairs whose bounds exist at ``tail`` (``2**-n <= tail``), at least
    :data:`MIN_PAIRS`."""
    return max(MIN_PAIRS, math.ceil(-math.log2(tail)))


@dataclass(frozen=True)
class Interval:
    """The Hodges-Lehmann estimate of a ratio and its one-sided bounds (ratios, not logs)."""

    estimate: float
    low: float | None
    high: float | None
    pairs: int

    def text(self) -> str:
        low = "0" if self.low is None else f"{self.low:.3f}"
        high = "inf" if self.high is None else f"{self.high:.3f}"
        return f"x{self.estimate:.3f} [{low}, {high}]"


def walsh_interval(diffs: Sequence[float], tail: float) -> Interval:
    """The estimate and bounds of ``exp(d)`` from log-ratios ``diffs``, each bound one-sided
    at ``tail``."""
    if not diffs:
        raise ValueError("no pairs")
    n = len(diffs)
    walsh = sorted((diffs[i] + diffs[j]) / 2 for i in range(n) for j in range(i, n))
    k = bound_rank(n, tail)
    centre = math.exp(statistics.median(walsh))
    if k == 0:
        return Interval(centre, None, None, n)
    return Interval(centre, math.exp(walsh[k - 1]), math.exp(walsh[-k]), n)


def log_ratios(good: Sequence[float], subject: Sequence[float]) -> list[float]:
    """``log(subject_i / good_i)`` of the paired rounds' medians (the shorter side sets n)."""
    return [math.log(s / g) for g, s in zip(good, subject, strict=False) if g > 0 and s > 0]


@dataclass(frozen=True)
class StepDesign:
    """How every step of one bisect decides: its error, its looks, its most pairs."""

    confidence: float
    """Probability that no step of the bisect is decided wrongly."""
    steps: int
    """The most steps the bisect can take (its error is split over them)."""
    max_pairs: int
    looks: int

    @property
    def tail(self) -> float:
        """The one-sided error of each bound at each look."""
        return (1 - self.confidence) / (self.steps * self.looks)

    @property
    def first(self) -> int:
        return min(min_pairs(self.tail), self.max_pairs)

    def schedule(self) -> list[int]:
        """The pair counts at which a step looks: from :attr:`first` to ``max_pairs``."""
        first, last = self.first, max(self.first, self.max_pairs)
        if self.looks <= 1 or last == first:
            return [last]
        step = (last - first) / (self.looks - 1)
        return sorted({round(first + step * i) for i in range(self.looks)})

    def statement(self) -> str:
        return (
            f"each step: paired interleaved rounds, looks at {self.schedule()} pairs, each "
            f"bound one-sided at {self.tail:.2g} (Bonferroni over {self.looks} look(s) and "
            f"{self.steps} step(s)): P(any step decided wrongly) <= {1 - self.confidence:.2g}"
        )


@dataclass(frozen=True)
class Decision:
    """What the pairs measured so far say: a word, or the pair count to reach first."""

    word: str
    interval: Interval | None
    more: int = 0
    """Pairs to have before looking again (0: decided)."""
    beyond: str = ""
    """Set when the subject is off both hypotheses: slower than the bad side, or faster than
    the good side, by more than half the regression (more than one change in the range)."""


def decide(diffs: Sequence[float], regression: float | Interval, design: StepDesign) -> Decision:
    """The step's decision at the last look its pairs reach (``regression``: the endpoints'
    ratio, as measured with its bounds, or a ratio known exactly)."""
    looks = design.schedule()
    reached = [n for n in looks if n <= len(diffs)]
    if not reached:
        return Decision(UNKNOWN, None, more=looks[0])
    n = reached[-1]
    interval = walsh_interval(diffs[:n], design.tail)
    if isinstance(regression, Interval):
        ratio, bad_low = regression.estimate, regression.low
    else:
        ratio = bad_low = regression
    half = math.sqrt(ratio)
    word = UNKNOWN
    if interval.low is not None and interval.low > half:
        word = DIFFERENT
    elif interval.high is not None and interval.high < half:
        word = SAME
    elif n == looks[-1]:
        word = _one_side_excluded(interval, bad_low)
    beyond = ""
    if interval.low is not None and interval.low > ratio * half:
        beyond = "slower than the bad side"
    elif interval.high is not None and interval.high < 1 / half:
        beyond = "faster than the good side"
    later = [m for m in looks if m > n]
    if word == UNKNOWN and later:
        return Decision(UNKNOWN, interval, more=later[0], beyond=beyond)
    return Decision(word, interval, beyond=beyond)


def _one_side_excluded(interval: Interval, bad_low: float | None) -> str:
    """At the last look, a subject whose interval holds the halfway point: ``DIFFERENT`` when
    its lower bound is above 1 (it does not run like the good side) and its upper bound is not
    below the bad side's lower bound ``bad_low`` (it may run like the bad side); ``SAME`` in the
    mirror case; ``UNKNOWN`` when it excludes both sides (between them) or neither."""
    unlike_good = interval.low is not None and interval.low > 1
    unlike_bad = interval.high is not None and bad_low is not None and interval.high < bad_low
    if unlike_good and not unlike_bad:
        return DIFFERENT
    if unlike_bad and not unlike_good:
        return SAME
    return UNKNOWN


@dataclass(frozen=True)
class Sensitivity:
    """Whether a row's noise lets a bisect place its regression at all."""

    spread: float
    """Standard deviation of the endpoints' paired log-ratios."""
    mde: float
    """The smallest regression a step can place at ``max_pairs`` (0.05: 5%): both bounds
    must fit between 1 and the halfway point."""
    regression: float
    pairs_needed: int | None
    """Pairs per step that would place this regression (None: no spread measured)."""

    @property
    def blind(self) -> bool:
        return self.mde > self.regression


def sensitivity(endpoint_diffs: Sequence[float], ratio: float, design: StepDesign) -> Sensitivity:
    """The minimum detectable effect of a step at its most pairs, projected from the noise of
    the endpoints' pairs (``1 / sqrt(n)`` narrowing, the Hodges-Lehmann efficiency)."""
    regression = ratio - 1
    if len(endpoint_diffs) < 2 or ratio <= 1:
        return Sensitivity(math.inf, math.inf, regression, None)
    spread = statistics.stdev(endpoint_diffs)
    z = NormalDist().inv_cdf(1 - design.tail)
    width = z * spread * math.sqrt(HL_VARIANCE)
    half = width / math.sqrt(design.max_pairs)
    needed = math.ceil((2 * width / math.log(ratio)) ** 2) if spread > 0 else design.first
    return Sensitivity(spread, math.exp(2 * half) - 1, regression, max(needed, design.first))
