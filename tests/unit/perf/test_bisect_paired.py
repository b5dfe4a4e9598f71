"""The statistics of a bisect step: exact signed-rank bounds, SAME / DIFFERENT / UNKNOWN at the
halfway point, one noisy pair never deciding, and the blind-row projection."""

from __future__ import annotations

import itertools
import math
import random
from statistics import NormalDist

import pytest

from mlrelease.perf.bisect.paired import (
    DIFFERENT,
    SAME,
    UNKNOWN,
    Interval,
    StepDesign,
    bound_rank,
    decide,
    log_ratios,
    min_pairs,
    sensitivity,
    walsh_interval,
)

DESIGN = StepDesign(confidence=0.95, steps=5, max_pairs=24, looks=3)


def _pairs(ratio: float, n: int, spread: float, seed: int = 0) -> list[float]:
    draw = random.Random(seed)
    return [math.log(ratio) + draw.gauss(0, spread) for _ in range(n)]


def test_the_null_distribution_is_exact() -> None:
    """bound_rank against a brute-force count of every sign pattern."""
    for n in (4, 6, 9):
        sums = [
            sum(rank for rank, positive in zip(range(1, n + 1), signs, strict=True) if positive)
            for signs in itertools.product((False, True), repeat=n)
        ]
        for tail in (0.01, 0.05, 0.1):
            k = bound_rank(n, tail)
            assert sum(s <= k - 1 for s in sums) / 2**n <= tail
            assert sum(s <= k for s in sums) / 2**n > tail


def test_no_bound_below_the_fewest_pairs() -> None:
    tail = DESIGN.tail
    n = min_pairs(tail)
    assert walsh_interval([0.0] * (n - 1), tail).low is None
    assert walsh_interval([0.0] * n, tail).low is not None
    assert DESIGN.schedule()[0] == n


def test_the_bounds_cover_at_their_level() -> None:
    """Each one-sided bound misses the true ratio at most at its tail (simulated)."""
    tail, misses, trials = 0.05, 0, 400
    for seed in range(trials):
        interval = walsh_interval(_pairs(1.05, 10, 0.03, seed), tail)
        assert interval.low is not None
        misses += interval.low > 1.05
    assert misses / trials <= tail * 1.5


@pytest.mark.parametrize(
    ("ratio", "word"),
    [(1.0, SAME), (1.10, DIFFERENT), (1.05, UNKNOWN)],
    ids=["like-the-good-side", "like-the-bad-side", "halfway"],
)
def test_same_different_unknown(ratio: float, word: str) -> None:
    """Against a 10% regression: 1.0 is SAME, 1.10 DIFFERENT, and 1.05 (the halfway point)
    stays UNKNOWN after the last look."""
    decision = decide(_pairs(ratio, 24, 0.005), 1.10, DESIGN)
    assert decision.word == word
    assert decision.more == 0


def test_too_few_pairs_ask_for_the_first_look() -> None:
    decision = decide(_pairs(1.10, 3, 0.005), 1.10, DESIGN)
    assert (decision.word, decision.more) == (UNKNOWN, DESIGN.schedule()[0])


def test_undecided_at_a_look_asks_for_the_next() -> None:
    looks = DESIGN.schedule()
    decision = decide(_pairs(1.06, looks[0], 0.03, seed=3), 1.10, DESIGN)
    assert decision.word == UNKNOWN and decision.more == looks[1]


def test_one_noisy_pair_never_decides_a_half() -> None:
    """A subject like the good side with one pair 60% slower: never DIFFERENT (at most a later
    look); like the bad side with one pair 60% faster: never SAME."""
    n = DESIGN.schedule()[0]
    for ratio, outlier, wrong in ((1.0, 0.47, DIFFERENT), (1.10, -0.47, SAME)):
        for at in range(n):
            diffs = _pairs(ratio, n, 0.005, seed=at)
            diffs[at] = outlier
            assert decide(diffs, 1.10, DESIGN).word != wrong


def test_a_subject_beyond_the_bad_side_is_flagged() -> None:
    decision = decide(_pairs(1.25, 12, 0.005), 1.10, DESIGN)
    assert decision.word == DIFFERENT
    assert decision.beyond == "slower than the bad side"


def _spread(ratio: float, n: int, spread: float) -> list[float]:
    """``n`` pairs around ``ratio`` at the normal quantiles of ``spread`` (no draw)."""
    return [math.log(ratio) + spread * NormalDist().inv_cdf((i + 0.5) / n) for i in range(n)]


C05_1 = Interval(1.066, 0.979, 1.139, 8)
"""The endpoints of the benchmark's ``c05-1`` (a planted 5%), as the bisect measured them."""
MEASURED_12 = Interval(1.12, 1.08, 1.18, 8)


def test_at_the_last_look_a_step_on_the_halfway_point_takes_the_side_it_cannot_be() -> None:
    """``c05-1``'s steps after the culprit, x1.045 against a regression measured x1.066: the
    interval holds sqrt(1.066) but not 1, so DIFFERENT; the mirror, an interval that holds the
    halfway point of a x1.12 regression but is below its lower bound 1.08 and holds 1, SAME."""
    slower = decide(_spread(1.045, 24, 0.05), C05_1, DESIGN)
    assert slower.interval is not None and slower.interval.low is not None
    assert 1 < slower.interval.low < math.sqrt(C05_1.estimate) < (slower.interval.high or 0)
    assert slower.word == DIFFERENT
    like_good = decide(_spread(1.025, 24, 0.07), MEASURED_12, DESIGN)
    assert like_good.interval is not None and like_good.interval.high is not None
    assert math.sqrt(MEASURED_12.estimate) < like_good.interval.high < 1.08
    assert like_good.word == SAME


def test_a_step_that_excludes_both_sides_stays_unknown() -> None:
    """x1.05 against a x1.10 regression measured tightly: unlike the good side and unlike the
    bad one (two changes in the range), so no side."""
    between = decide(_spread(1.05, 24, 0.01), Interval(1.10, 1.09, 1.11, 8), DESIGN)
    assert between.word == UNKNOWN and between.more == 0


def test_before_the_last_look_only_the_halfway_point_decides() -> None:
    first = DESIGN.schedule()[0]
    decision = decide(_spread(1.045, first, 0.03), C05_1, DESIGN)
    assert decision.word == UNKNOWN and decision.more == DESIGN.schedule()[1]


def test_the_last_look_errs_at_most_at_the_tail() -> None:
    """Subjects like the good side (x1.0) are called DIFFERENT, and subjects like the bad side
    (x1.066) SAME, at most at the bound's tail (simulated, ``c05-1``'s endpoints)."""
    trials = 1000
    for ratio, wrong in ((1.0, DIFFERENT), (C05_1.estimate, SAME)):
        words = [
            decide(_pairs(ratio, 24, 0.03, seed), C05_1, DESIGN).word for seed in range(trials)
        ]
        assert words.count(wrong) / trials <= DESIGN.tail * 1.5


def test_one_noisy_pair_at_the_last_look_never_decides_a_half() -> None:
    n = DESIGN.schedule()[-1]
    for at in range(n):
        diffs = _pairs(1.0, n, 0.02, seed=at)
        diffs[at] = 0.47
        assert decide(diffs, C05_1, DESIGN).word != DIFFERENT
        diffs = _pairs(C05_1.estimate, n, 0.02, seed=at)
        diffs[at] = -0.47
        assert decide(diffs, C05_1, DESIGN).word != SAME


def test_blind_when_the_noise_cannot_place_the_regression() -> None:
    """A 3% regression in 6% noise cannot be placed in 24 pairs; a 10% one in 1% noise can."""
    noisy = sensitivity(_pairs(1.03, 8, 0.06), 1.03, DESIGN)
    assert noisy.blind and noisy.mde > 0.03
    assert noisy.pairs_needed is not None and noisy.pairs_needed > DESIGN.max_pairs
    quiet = sensitivity(_pairs(1.10, 8, 0.01), 1.10, DESIGN)
    assert not quiet.blind and quiet.mde < 0.10


def test_log_ratios_pair_rounds_by_position() -> None:
    assert log_ratios([1.0, 2.0, 4.0], [2.0, 2.0]) == [math.log(2.0), 0.0]
