"""Timing verdicts of a comparison: one honest word per row and clock, and one for the gate (pure).

Vocabulary (:data:`VERDICTS`):

* ``regressed``: significantly slower (one-sided Mann-Whitney U of the rounds' medians, Holm
  across the whole family of row x clock tests) **and** the estimated slowdown is at least the
  threshold;
* ``improved``: the mirror image (significantly faster by at least the threshold);
* ``same``: conclusive: the simultaneous interval lies inside ``(1 / (1 + t), 1 + t)`` (a
  real but smaller change is reported in the detail, not failed);
* ``inconclusive``: none of these: the noise is too high for the threshold at this number of
  rounds; the detail gives the minimum detectable effect at this noise;
* ``not_measured``: no timing (too few rounds, a failing row, another device class ...), with
  the reason.

Error rates (the design, stated in :func:`Design.statement`): a run makes at most ``looks``
looks (adaptive rounds); each look tests at ``alpha / looks`` (Bonferroni over looks), Holm
across the ``m`` row x clock tests inside a look; the bounds of the intervals are simultaneous
(Bonferroni: each one-sided bound at ``alpha / (looks * m)``). Hence the probability that a
whole comparison prints any false ``regressed`` (a row that is not slower at all) is at most
``alpha``, and so is the probability of any false ``same`` (a row slower by the threshold or
more).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from mlrelease.perf.stats import hodges_lehmann_bounds, mann_whitney

REGRESSED = "regressed"
IMPROVED = "improved"
SAME = "same"
INCONCLUSIVE = "inconclusive"
NOT_MEASURED = "not_measured"
VERDICTS = (REGRESSED, IMPROVED, SAME, INCONCLUSIVE, NOT_MEASURED)
CONCLUSIVE = frozenset({REGRESSED, IMPROVED, SAME})

CLOCKS = ("cpu", "wall")
"""The gated clocks: process CPU time, and wall time minus the time spent waiting for a CPU
(run-queue delay: another tenant's doing, not the code's). A slowdown that waits (sleep, I/O,
a lock) shows on ``wall`` only; one that burns CPU on both."""

MIN_ROUNDS = 4
"""Rounds a side below which no timing verdict is given: with three a side the exact one-sided
Mann-Whitney U test cannot go below p = 0.05."""

DISTURBED_SHARE = 0.25
"""A round is *disturbed* when its worker waited for a CPU (run-queue delay) for more than this
share of its timed wall time: another tenant held the CPU."""


@dataclass(frozen=True)
class Design:
    """How a comparison decides: threshold, error rate, and the planned sequential looks."""

    threshold: float
    alpha: float = 0.05
    looks: int = 1
    """Looks of an adaptive run (1: fixed rounds); alpha is split evenly over them."""

    @property
    def alpha_per_look(self) -> float:
        return self.alpha / self.looks

    def statement(self, tests: int) -> str:
        """The error rates of this design over ``tests`` row x clock tests, in words."""
        bound = self.alpha_per_look / max(tests, 1)
        return (
            f"{tests} row x clock test(s); {self.looks} planned look(s), each at "
            f"alpha {self.alpha:g}/{self.looks}, Holm across the tests; simultaneous one-sided "
            f"bounds at {bound:.2g} each: P(any false `regressed`) <= {self.alpha:g} and "
            f"P(any false `same`) <= {self.alpha:g} per comparison"
        )


@dataclass(frozen=True)
class Sample:
    """The input of one test: one row and clock, the rounds' medians of each side (ns)."""

    key: str
    clock: str
    baseline: list[float]
    candidate: list[float]
    disturbed: tuple[int, int] = (0, 0)
    """Disturbed rounds (see :func:`clean`) dropped from (baseline, candidate)."""
    note: str = ""
    every_round: tuple[list[float], list[float]] | None = None
    """Both sides before disturbed rounds were dropped (used when the rounds left are too few
    for the design's level)."""


@dataclass(frozen=True)
class Test:
    """The verdict of one row and clock."""

    key: str
    clock: str
    verdict: str
    reason: str
    estimate: float | None = None
    """Hodges-Lehmann estimate of candidate / baseline (above 1: slower)."""
    low: float | None = None
    high: float | None = None
    """Simultaneous one-sided bounds (None: too few rounds for the level)."""
    p_slower: float | None = None
    p_faster: float | None = None
    mde: float | None = None
    """Minimum detectable effect at this noise: the relative margin between the estimate and
    the far bound (a change smaller than this cannot be told from none)."""
    rounds: tuple[int, int] = (0, 0)

    def to_dict(self) -> dict[str, Any]:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(self).items()}

    def interval(self) -> str:
        if self.estimate is None:
            return ""
        low = "0" if self.low is None else f"{self.low:.3f}"
        high = "inf" if self.high is None else f"{self.high:.3f}"
        return f"x{self.estimate:.3f} [{low}, {high}]"


@dataclass
class Family:
    """Every test of one comparison, with the design that judged them."""

    design: Design
    tests: list[Test] = field(default_factory=list)

    def of(self, key: str) -> list[Test]:
        return [t for t in self.tests if t.key == key]

    @property
    def measured(self) -> int:
        return sum(t.verdict != NOT_MEASURED for t in self.tests)

    def conclusive(self) -> bool:
        return all(t.verdict in CONCLUSIVE for t in self.tests if t.verdict != NOT_MEASURED)


def holm(p_values: Sequence[float], alpha: float, m: int = 0) -> list[bool]:
    """Holm's step-down rejections at family-wise level ``alpha`` (same order as given);
    ``m``: the family's size when these are only part of it."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    m = max(m, len(p_values))
    for rank, index in enumerate(order):
        if p_values[index] <= alpha / (m - rank):
            rejected[index] = True
        else:
            break
    return rejected


def clean(
    baseline: Sequence[float],
    candidate: Sequence[float],
    baseline_shares: Sequence[float | None],
    candidate_shares: Sequence[float | None],
) -> tuple[list[float], list[float], tuple[int, int]]:
    """Drop disturbed rounds (run-queue share over :data:`DISTURBED_SHARE`) when they are a
    few outliers: each side keeps :data:`MIN_ROUNDS` undisturbed ones, and at least half its
    rounds. Otherwise keep every round (the rank test gives a disturbed round the weight of one
    round, whatever its size): when most rounds are disturbed, the disturbance is the machine's
    state, the few quiet rounds are no cleaner, and dropping the rest only widens the interval
    (a 50% slowdown left `inconclusive`). :func:`judge` restores every round when those left
    cannot reach the design's level."""

    def keep(values: Sequence[float], shares: Sequence[float | None]) -> list[float]:
        return [
            v
            for i, v in enumerate(values)
            if i >= len(shares) or shares[i] is None or (shares[i] or 0.0) <= DISTURBED_SHARE
        ]

    base, cand = keep(baseline, baseline_shares), keep(candidate, candidate_shares)
    few = min(len(base), len(cand)) < MIN_ROUNDS
    if few or 2 * len(base) < len(baseline) or 2 * len(cand) < len(candidate):
        return list(baseline), list(candidate), (0, 0)
    return base, cand, (len(baseline) - len(base), len(candidate) - len(cand))


def judge(samples: Sequence[Sample], design: Design, *, family_size: int = 0) -> Family:
    """Verdicts of a family of tests (one comparison: every row x clock).

    ``family_size``: the size of the whole family when ``samples`` is a part of it (an adaptive
    run deciding whether one row needs more rounds); the bounds then have the whole family's
    level.
    """
    family = Family(design)
    m = max(sum(_enough(s) for s in samples), family_size)
    level = design.alpha_per_look
    bound_tail = level / max(m, 1)
    samples = [_undisturbed_or_all(s, bound_tail) for s in samples]
    testable = [s for s in samples if _enough(s)]
    p_slow = [mann_whitney(s.candidate, s.baseline, "greater") for s in testable]
    p_fast = [mann_whitney(s.candidate, s.baseline, "less") for s in testable]
    slower, faster = holm(p_slow, level, m), holm(p_fast, level, m)
    for sample in samples:
        rounds = (len(sample.baseline), len(sample.candidate))
        if sample not in testable:
            family.tests.append(
                Test(
                    sample.key,
                    sample.clock,
                    NOT_MEASURED,
                    f"{min(rounds)} round(s) a side; a timing verdict needs {MIN_ROUNDS}",
                    rounds=rounds,
                )
            )
            continue
        i = testable.index(sample)
        estimate, low, high = hodges_lehmann_bounds(
            sample.baseline, sample.candidate, tail=bound_tail
        )
        far = max(high / estimate if high else math.inf, estimate / low if low else math.inf)
        test = Test(
            sample.key,
            sample.clock,
            INCONCLUSIVE,
            "",
            estimate,
            low,
            high,
            p_slow[i],
            p_fast[i],
            far - 1,
            rounds,
        )
        verdict, reason = _word(design, estimate, low, high, far, slower[i], faster[i])
        extra = _dropped(sample)
        family.tests.append(
            Test(
                sample.key,
                sample.clock,
                verdict,
                reason + extra + (f"; {sample.note}" if sample.note else ""),
                estimate,
                low,
                high,
                p_slow[i],
                p_fast[i],
                test.mde,
                rounds,
            )
        )
    return family


def _word(
    design: Design,
    estimate: float,
    low: float | None,
    high: float | None,
    far: float,
    slower: bool,
    faster: bool,
) -> tuple[str, str]:
    """The verdict of one test and why: a change beyond the threshold that Holm finds
    significant, an interval within it, or neither (with the effect this noise could detect)."""
    limit = 1 + design.threshold
    change = f"{(estimate - 1) * 100:+.1f}%"
    if slower and estimate >= limit:
        return REGRESSED, f"{change}, significant (Holm), beyond {_pct(design)}"
    if faster and estimate <= 1 / limit:
        return IMPROVED, f"{change}, significant (Holm), beyond {_pct(design)}"
    if high is not None and low is not None and high < limit and low > 1 / limit:
        return SAME, f"{change}, interval within ±{_pct(design)}" + (
            " (significantly slower, but under the threshold)" if slower else ""
        )
    why = (
        "significantly slower, but the estimate is under the threshold and the interval reaches it"
        if slower
        else "the interval holds both no change and the threshold"
    )
    mde = "unbounded" if math.isinf(far) else f"{(far - 1) * 100:.0f}%"
    return INCONCLUSIVE, (
        f"{change}: {why}; minimum detectable effect at this noise: {mde} "
        f"(threshold {_pct(design)}); more rounds narrow it"
    )


def _enough(sample: Sample) -> bool:
    return min(len(sample.baseline), len(sample.candidate)) >= MIN_ROUNDS or bool(
        sample.every_round and min(map(len, sample.every_round)) >= MIN_ROUNDS
    )


def _undisturbed_or_all(sample: Sample, tail: float) -> Sample:
    """The sample without its disturbed rounds when the rounds left can still reach the
    bound's level (an exact test of a and b rounds cannot go below 1 / C(a + b, a)); else
    every round."""
    if not sample.every_round:
        return sample
    a, b = len(sample.baseline), len(sample.candidate)
    if min(a, b) >= MIN_ROUNDS and math.comb(a + b, a) * tail >= 1:
        return sample
    base, cand = sample.every_round
    note = f"{sample.note}; " if sample.note else ""
    return Sample(
        sample.key,
        sample.clock,
        base,
        cand,
        note=note + "disturbed rounds kept: too few undisturbed ones for the design's level",
    )


def _pct(design: Design) -> str:
    return f"{design.threshold:.0%}"


def _dropped(sample: Sample) -> str:
    base, cand = sample.disturbed
    if not base and not cand:
        return ""
    return f"; disturbed rounds dropped: {base} baseline, {cand} candidate"


def looks_at(first: int, last: int, count: int) -> list[int]:
    """The round counts at which an adaptive run looks: ``count`` points from first to last."""
    if last <= first or count <= 1:
        return [max(first, last)] if last >= first else [first]
    step = (last - first) / (count - 1)
    points = sorted({round(first + step * i) for i in range(count)})
    return points


def gate_verdict(tests: Sequence[Test]) -> str:
    """The whole comparison's word: regressed if any test is; inconclusive if any is; same when
    every measured test is same or improved; not_measured when none was measured."""
    kinds = {t.verdict for t in tests}
    if REGRESSED in kinds:
        return REGRESSED
    if INCONCLUSIVE in kinds:
        return INCONCLUSIVE
    measured = kinds - {NOT_MEASURED}
    if not measured:
        return NOT_MEASURED
    return IMPROVED if measured == {IMPROVED} else SAME


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))
