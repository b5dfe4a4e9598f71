"""The statistics of one bisect step: three-way interleaved rounds and what they decide (pure).

A step times a subject (a commit, an environment) against BOTH sides of the range in the same
rounds, as Chromium's Pinpoint does: each round runs one worker of the good side, one of the
subject and one of the bad side back to back, the order changing round to round (every rotation
of the three, and its reverse: no side always runs first, and each of the three pairs runs in
each order equally often, so linear drift within a round cancels and leaves each pair's
difference symmetric). Round ``i`` gives two log-ratios of the rounds' medians from the same
minutes of the machine: ``log(subject_i / good_i)`` and ``log(bad_i / subject_i)``. Each series
is summarised by the Wilcoxon signed-rank statistic: the Hodges-Lehmann estimate (the median of
the Walsh averages ``(d_i + d_j) / 2``) and its exact distribution-free one-sided bounds (the
k-th smallest and largest Walsh averages, k from the exact null distribution of the statistic).

The decision is against 1, the ratio of two sides that run alike, not against a boundary set
by the endpoints' measured regression:

* ``DIFFERENT`` (runs like the bad side): the lower bound of subject / good is above 1, and the
  lower bound of bad / subject is not;
* ``SAME`` (runs like the good side): the lower bound of bad / subject is above 1, and the lower
  bound of subject / good is not;
* both lower bounds above 1: the subject is slower than the good side and faster than the bad
  one, so more than one change lies in the range: ``UNKNOWN``, flagged ``beyond`` ("between the
  two sides"), at once (more rounds cannot make a single change of it);
* neither: more rounds at the next look; ``UNKNOWN`` after the last.

A decided subject can still run like neither side: ``DIFFERENT`` with the upper bound of bad /
subject below 1 (slower than the bad side), ``SAME`` with the upper bound of subject / good below
1 (faster than the good side). The step keeps its word, flagged ``beyond``, and a flagged commit
is never named the culprit: a commit that adds more than the regression, later undone, is not
the change between the sides. (Checked against 1, as the decision's own bounds are. Checked
against the halfway point of the endpoints' ratio, as the earlier rule did, a commit 1.183x the
good side with the bad side x0.923 [0.882, 0.962] of it went unflagged and was named.) A step
decided ``DIFFERENT`` at an early look has not had the rounds to show the flag: such a commit
clears 1 against the good side by more than the regression, so it is decided early. The subject
about to be named is therefore timed on to the last look first, the look whose bounds the row's
minimum detectable effect was checked against (:func:`mlrelease.perf.bisect.judging.judge`,
``named``).

Why each wrong call has probability at most a bound's tail. A bisect assumes one change between
the sides, so every subject runs either like the good side or like the bad side. A subject like
the good side has a true subject / good ratio of 1: it is called ``DIFFERENT`` only if that
ratio's lower bound is above its true value, an event of probability at most the tail (the
bound's exact coverage under the null of a symmetric difference, which the balanced order gives
two sides that run alike); the extra condition on bad / subject only makes it rarer. A subject
like the bad side has a true bad / subject ratio of 1 and is called ``SAME`` only when that
ratio's lower bound is above 1: at most the tail again. Neither call uses the endpoints'
measured regression, so its error (the old halfway rule's weak point: ``r`` is measured high
when a bisect starts) no longer enters. A step looks at a few planned counts (:attr:`StepDesign
.schedule`) and may be wrong at each, so its error is at most ``looks x tail``; the bisect takes
at most :attr:`StepDesign.steps` steps on any path, so with ``tail = (1 - confidence) / (steps x
looks)`` (Bonferroni) P(any step decided wrongly) <= 1 - confidence. The halfway point and the
last look's rule of the earlier two-way design are gone: the bad side measured in the same rounds
does what they approximated from the endpoints.

What it costs and buys: three workers a round instead of two, but each call needs its lower bound
to clear 1 by the whole regression (a subject unlike a side differs from it by ``r``), where the
halfway rule needed both bounds within half of it; at the same noise that is about a quarter of
the pairs (:func:`sensitivity` projects it). One noisy round cannot decide a half: a bound is the
k-th Walsh average from its end and no step decides below :data:`MIN_PAIRS` rounds; an outlying
round moves each series' bound on its own side only (a slow subject round raises subject / good
and lowers bad / subject), so it can delay a decision, never flip it.
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
            f"each step: the subject against both sides in interleaved rounds, looks at "
            f"{self.schedule()} rounds, each bound one-sided at {self.tail:.2g} (Bonferroni over "
            f"{self.looks} look(s) and {self.steps} step(s)): P(any step decided wrongly) <= "
            f"{1 - self.confidence:.2g}"
        )


@dataclass(frozen=True)
class Decision:
    """What the rounds measured so far say: a word, or the pair count to reach first."""

    word: str
    interval: Interval | None
    """subject / good: how much slower the subject runs than the good side."""
    versus_bad: Interval | None = None
    """bad / subject, from the same rounds: how much slower the bad side runs than the subject."""
    more: int = 0
    """Pairs to have before looking again (0: decided)."""
    beyond: str = ""
    """Set when the subject runs like neither side (more than one change in the range): between
    the two sides, slower than the bad side or faster than the good side, each bound against 1
    as the decision's own are. A flagged commit is never named the culprit."""


BETWEEN = "between the two sides"


def decide(
    subject_good: Sequence[float], bad_subject: Sequence[float], design: StepDesign
) -> Decision:
    """The step's decision at the last look its rounds reach, from the log-ratios of the same
    rounds ``log(subject / good)`` and ``log(bad / subject)``."""
    looks = design.schedule()
    n = min(len(subject_good), len(bad_subject))
    reached = [m for m in looks if m <= n]
    if not reached:
        return Decision(UNKNOWN, None, more=looks[0])
    n = reached[-1]
    ahead = walsh_interval(subject_good[:n], design.tail)
    behind = walsh_interval(bad_subject[:n], design.tail)
    unlike_good = ahead.low is not None and ahead.low > 1
    unlike_bad = behind.low is not None and behind.low > 1
    word, beyond = UNKNOWN, ""
    if unlike_good and unlike_bad:
        beyond = BETWEEN
    elif unlike_good:
        word = DIFFERENT
        if behind.high is not None and behind.high < 1:
            beyond = "slower than the bad side"
    elif unlike_bad:
        word = SAME
        if ahead.high is not None and ahead.high < 1:
            beyond = "faster than the good side"
    later = [m for m in looks if m > n]
    if word == UNKNOWN and not beyond and later:
        return Decision(UNKNOWN, ahead, behind, more=later[0])
    return Decision(word, ahead, behind, beyond=beyond)


@dataclass(frozen=True)
class Sensitivity:
    """Whether a row's noise lets a bisect place its regression at all."""

    spread: float
    """Standard deviation of the endpoints' paired log-ratios."""
    mde: float
    """The smallest regression a step can place at ``max_pairs`` (0.05: 5%): the lower bound
    of the ratio a subject shows against the side it does not run like must clear 1."""
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
    needed = math.ceil((width / math.log(ratio)) ** 2) if spread > 0 else design.first
    return Sensitivity(spread, math.exp(half) - 1, regression, max(needed, design.first))
