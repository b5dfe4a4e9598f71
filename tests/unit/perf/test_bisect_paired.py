"""The statistics of a bisect step: exact signed-rank bounds, SAME / DIFFERENT / UNKNOWN from
three-way rounds (each bound against 1), one noisy round never deciding, and the blind-row
projection."""

from __future__ import annotations

import itertools
import math
import random
from statistics import NormalDist

import pytest

from mlrelease.perf.bisect.paired import (
    BETWEEN,
    DIFFERENT,
    SAME,
    UNKNOWN,
    Decision,
    StepDesign,
    bound_rank,
    decide,
    log_ratios,
    min_pairs,
    sensitivity,
    walsh_interval,
)
from mlrelease.perf.runner import round_order

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


def _step(subject: float, bad: float, n: int, spread: float, seed: int = 0) -> list[list[float]]:
    """Three-way rounds: the good side at 1, the subject at ``subject``, the bad side at
    ``bad``, each round's medians with noise of ``spread`` (log scale); the log-ratios
    ``log(subject / good)`` and ``log(bad / subject)`` of the same rounds."""
    draw = random.Random(seed)
    ahead, behind = [], []
    for _ in range(n):
        g, s, b = (math.log(r) + draw.gauss(0, spread) for r in (1.0, subject, bad))
        ahead.append(s - g)
        behind.append(b - s)
    return [ahead, behind]


def _decide(subject: float, bad: float, n: int, spread: float, seed: int = 0) -> Decision:
    return decide(*_step(subject, bad, n, spread, seed), DESIGN)


@pytest.mark.parametrize(
    ("subject", "word"),
    [(1.0, SAME), (1.10, DIFFERENT), (1.05, UNKNOWN)],
    ids=["like-the-good-side", "like-the-bad-side", "between"],
)
def test_same_different_unknown(subject: float, word: str) -> None:
    """Against a 10% regression: 1.0 is SAME (bad / subject clears 1), 1.10 DIFFERENT (subject /
    good clears 1), and 1.05 clears both: between the sides, UNKNOWN with the reason."""
    decision = _decide(subject, 1.10, 24, 0.005)
    assert decision.word == word
    assert decision.more == 0
    assert decision.beyond == ("" if word != UNKNOWN else BETWEEN)


def test_neither_bound_clear_asks_for_the_next_look_then_unknown() -> None:
    """A subject the noise cannot place (like both sides within it): more rounds at each
    look, UNKNOWN after the last."""
    looks = DESIGN.schedule()
    ahead = _spread(1.0, looks[-1], 0.05)
    behind = _spread(1.0, looks[-1], 0.05)
    first = decide(ahead[: looks[0]], behind[: looks[0]], DESIGN)
    assert first.word == UNKNOWN and first.more == looks[1]
    last = decide(ahead, behind, DESIGN)
    assert last.word == UNKNOWN and last.more == 0 and not last.beyond


def test_too_few_pairs_ask_for_the_first_look() -> None:
    decision = _decide(1.10, 1.10, 3, 0.005)
    assert (decision.word, decision.more) == (UNKNOWN, DESIGN.schedule()[0])


def test_the_shorter_series_sets_the_look() -> None:
    ahead, behind = _step(1.10, 1.10, DESIGN.schedule()[0], 0.005)
    assert decide(ahead, behind[:-1], DESIGN).more == DESIGN.schedule()[0]


def test_one_noisy_round_never_decides_a_half() -> None:
    """A subject like the good side with one round 60% slow: never DIFFERENT (at most a later
    look); like the bad side with one round 60% fast: never SAME."""
    n = DESIGN.schedule()[0]
    for subject, outlier, wrong in ((1.0, 0.47, DIFFERENT), (1.10, -0.47, SAME)):
        for at in range(n):
            ahead, behind = _step(subject, 1.10, n, 0.005, seed=at)
            ahead[at] += outlier
            behind[at] -= outlier
            assert decide(ahead, behind, DESIGN).word != wrong


def test_a_subject_beyond_the_bad_side_is_flagged() -> None:
    decision = _decide(1.25, 1.10, 12, 0.005)
    assert decision.word == DIFFERENT
    assert decision.beyond == "slower than the bad side"


def test_a_subject_beyond_the_good_side_is_flagged() -> None:
    decision = _decide(0.85, 1.10, 12, 0.005)
    assert decision.word == SAME
    assert decision.beyond == "faster than the good side"


def _spread(ratio: float, n: int, spread: float) -> list[float]:
    """``n`` pairs around ``ratio`` at the normal quantiles of ``spread`` (no draw)."""
    return [math.log(ratio) + spread * NormalDist().inv_cdf((i + 0.5) / n) for i in range(n)]


C05 = 1.05
"""A planted 5% regression, as the benchmark's ``c05-*`` histories plant it."""
NOISE = 0.055
"""Spread of one step's log-ratios in the benchmark's ``c05-3`` on the loaded development
machine: its good-side step x1.002 [0.982, 1.027] over 40 pairs (the machine's noise, 0.025 to
0.038 in the BERT rows it borrows, plus the workload's own)."""
C05_3_ENDPOINTS_LOW = 1.017
"""``c05-3``'s endpoints' lower bound for the bad side (x1.053 [1.017, 1.091])."""


@pytest.mark.parametrize("n", [24, 40])
def test_a_5_percent_regression_at_the_machines_noise_is_placed(n: int) -> None:
    """``c05-3``'s misses: good-side commits (x1.002, x1.008) whose pairs against the good
    side alone left the upper bound above the halfway point sqrt(1.05) and above the endpoints'
    lower bound: UNKNOWN under the two-way rules, at 24 pairs and at the last look, 40. Timed
    against both sides in the same rounds at the same noise, bad / subject clears 1 by the
    whole 5% and the step says SAME; the mirror, a bad-side commit, DIFFERENT."""
    design = StepDesign(confidence=0.95, steps=4, max_pairs=40, looks=3)
    like_good = decide(_spread(1.002, n, NOISE), _spread(C05 / 1.002, n, NOISE), design)
    assert like_good.interval is not None and like_good.interval.high is not None
    # the two-way rules could not place it: its interval holds the halfway point, and the
    # endpoints' lower bound for the bad side
    assert like_good.interval.high > max(math.sqrt(C05), C05_3_ENDPOINTS_LOW)
    assert (like_good.word, like_good.more) == (SAME, 0)
    like_bad = decide(_spread(C05, n, NOISE), _spread(1.0, n, NOISE), design)
    assert like_bad.interval is not None and like_bad.interval.low is not None
    assert like_bad.interval.low < math.sqrt(C05)
    assert (like_bad.word, like_bad.more) == (DIFFERENT, 0)


def test_5_percent_steps_at_the_noise_are_placed_and_err_at_most_at_the_tail() -> None:
    """Simulated steps of a 5% regression at the machine's noise (rounds with their own
    noise on every side): almost every step is placed, and the wrong call (a good-side subject
    DIFFERENT, a bad-side one SAME) is at most at the step's error, looks x tail."""
    design = StepDesign(confidence=0.95, steps=4, max_pairs=40, looks=3)
    trials, spread = 400, NOISE / math.sqrt(2)  # a round's log-ratio then spreads by NOISE
    for subject, right, wrong in ((1.0, SAME, DIFFERENT), (C05, DIFFERENT, SAME)):
        words = []
        for seed in range(trials):
            ahead, behind = _step(subject, C05, 40, spread, seed)
            decision = decide(ahead, behind, design)
            for m in design.schedule():
                decision = decide(ahead[:m], behind[:m], design)
                if not decision.more:
                    break
            words.append(decision.word)
        assert words.count(right) / trials >= 0.95
        assert words.count(wrong) / trials <= design.tail * design.looks * 1.5


def test_each_wrong_call_errs_at_most_at_the_tail() -> None:
    """At the last look alone, with both sides like the subject's wrong side as near as can
    be: a good-side subject is called DIFFERENT, a bad-side one SAME, at most at the tail."""
    trials = 1000
    for subject, wrong in ((1.0, DIFFERENT), (C05, SAME)):
        words = [
            decide(*_step(subject, C05, 24, 0.03, seed), DESIGN).word for seed in range(trials)
        ]
        assert words.count(wrong) / trials <= DESIGN.tail * 1.5


def test_blind_when_the_noise_cannot_place_the_regression() -> None:
    """A 3% regression in 12% noise cannot be placed in 24 rounds; a 10% one in 1% noise can."""
    noisy = sensitivity(_pairs(1.03, 8, 0.12), 1.03, DESIGN)
    assert noisy.blind and noisy.mde > 0.03
    assert noisy.pairs_needed is not None and noisy.pairs_needed > DESIGN.max_pairs
    quiet = sensitivity(_pairs(1.10, 8, 0.01), 1.10, DESIGN)
    assert not quiet.blind and quiet.mde < 0.10


def test_the_blind_check_asks_the_bound_to_clear_1_by_the_regression() -> None:
    """The projection is the one-sided bound's distance from its estimate at ``max_pairs``:
    a regression is placeable when that distance is below the whole regression (the halfway
    rule asked for half of it: four times the rounds)."""
    diffs = _spread(1.0, 40, 0.035)
    spread = sensitivity(diffs, 1.05, DESIGN).spread
    z = NormalDist().inv_cdf(1 - DESIGN.tail)
    half = z * spread * math.sqrt(math.pi / 3) / math.sqrt(DESIGN.max_pairs)
    found = sensitivity(diffs, 1.05, DESIGN)
    assert found.mde == pytest.approx(math.exp(half) - 1)
    assert not found.blind  # 5% at 0.035: placeable in 24 rounds
    width = half * math.sqrt(DESIGN.max_pairs)
    assert found.pairs_needed == max(math.ceil((width / math.log(1.05)) ** 2), DESIGN.first)


def test_log_ratios_pair_rounds_by_position() -> None:
    assert log_ratios([1.0, 2.0, 4.0], [2.0, 2.0]) == [math.log(2.0), 0.0]


def test_three_sides_take_every_order_in_turn() -> None:
    """The rounds' order (:func:`mlrelease.perf.runner.round_order`): two sides alternate; three
    take every rotation and its reverse, so each runs first in a third of the rounds and each
    two run in each order equally often (within-round drift cancels, symmetric differences)."""
    assert [round_order(["a", "b"], i) for i in range(3)] == [["a", "b"], ["b", "a"], ["a", "b"]]
    six = [tuple(round_order(["g", "s", "b"], i)) for i in range(6)]
    assert sorted(six) == sorted(itertools.permutations("gsb"))
    assert [tuple(round_order(["g", "s", "b"], i)) for i in range(6, 12)] == six
    for first, second in itertools.permutations("gsb", 2):
        shifts = [order.index(second) - order.index(first) for order in six]
        assert sorted(shifts) == sorted(-d for d in shifts)


def test_a_subject_slower_than_the_bad_side_by_less_than_half_the_regression_is_flagged() -> None:
    """``pair-2`` of the benchmark: commit 4 adds 20% (undone at 8), the culprit 6 adds 10%.
    Commit 4's step: x1.183 against the good side, and the bad side x0.923 [0.882, 0.962] of it,
    above the halfway point 1 / sqrt(1.11) = 0.949. Flagged against the halfway point, it was
    not, and commit 4 was named the culprit; against 1, as the decision's own bounds, it is."""
    design = StepDesign(confidence=0.95, steps=4, max_pairs=40, looks=3)
    decision = decide(_spread(1.183, 8, 0.04), _spread(0.923, 8, 0.025), design)
    assert decision.versus_bad is not None and decision.versus_bad.high is not None
    assert 1 / math.sqrt(1.11) < decision.versus_bad.high < 1
    assert (decision.word, decision.beyond) == (DIFFERENT, "slower than the bad side")
