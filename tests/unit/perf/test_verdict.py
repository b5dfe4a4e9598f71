"""Timing verdicts: vocabulary, Holm across rows, one-sided bounds, sequential looks (pure)."""

from __future__ import annotations

import numpy as np
import pytest

from mlrelease.perf.verdict import (
    DISTURBED_SHARE,
    IMPROVED,
    INCONCLUSIVE,
    NOT_MEASURED,
    REGRESSED,
    SAME,
    Design,
    Sample,
    clean,
    gate_verdict,
    holm,
    judge,
    looks_at,
)


def medians(
    rng: np.random.Generator, n: int, ratio: float = 1.0, noise: float = 0.01
) -> list[float]:
    """Round medians (ns) of a 10 ms row, ``ratio`` times slower, log-normal round noise."""
    return list(1e7 * ratio * rng.lognormal(0, noise, n))


def one(base: list[float], cand: list[float], threshold: float = 0.07, **kw: int) -> str:
    return judge([Sample("m/s/b1/f", "cpu", base, cand)], Design(threshold, **kw)).tests[0].verdict


def test_holm_steps_down() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005], 0.05) == [True, False, False, True]
    assert holm([0.001, 0.013, 0.02], 0.05) == [True, True, True]
    assert holm([0.02], 0.05, m=4) == [False]  # part of a family of four: needs 0.0125


def test_same_build_is_never_regressed_and_mostly_same() -> None:
    rng = np.random.default_rng(1)
    found = [one(medians(rng, 8), medians(rng, 8)) for _ in range(200)]
    assert REGRESSED not in found
    assert found.count(SAME) >= 180


def test_clear_slowdown_is_regressed_with_a_one_sided_bound_above_one() -> None:
    rng = np.random.default_rng(2)
    for _ in range(50):
        family = judge([Sample("k", "cpu", medians(rng, 8), medians(rng, 8, 1.15))], Design(0.07))
        (test,) = family.tests
        assert test.verdict == REGRESSED, test
        assert test.low is not None and test.low > 1, test  # never a "regression" around 1


def test_slowdown_at_the_threshold_is_rarely_same() -> None:
    """A slowdown of exactly the threshold: regressed or inconclusive, `same` at most at rate
    alpha (one test here; in a family the simultaneous bounds make it alpha over all)."""
    rng = np.random.default_rng(3)
    found = [one(medians(rng, 6), medians(rng, 6, 1.10), threshold=0.10) for _ in range(300)]
    assert found.count(SAME) <= 0.05 * 300
    assert found.count(REGRESSED) + found.count(INCONCLUSIVE) >= 0.95 * 300
    rng = np.random.default_rng(3)
    family = [
        judge(
            [Sample(f"k{i}", "cpu", medians(rng, 6), medians(rng, 6, 1.10)) for i in range(4)],
            Design(0.10),
        )
        for _ in range(75)
    ]
    same = sum(any(t.verdict == SAME for t in f.tests) for f in family)
    assert same <= 0.05 * 75  # any false `same` in a whole comparison: at most alpha


def test_noise_too_high_is_inconclusive_with_the_detectable_effect() -> None:
    rng = np.random.default_rng(4)
    family = judge(
        [Sample("k", "wall", medians(rng, 5, noise=0.3), medians(rng, 5, 1.05, noise=0.3))],
        Design(0.07),
    )
    (test,) = family.tests
    assert test.verdict == INCONCLUSIVE
    assert "minimum detectable effect" in test.reason and test.mde is not None
    assert test.mde > 0.07


def test_holm_over_the_family_reduces_false_alarms() -> None:
    """Eight rows, each alone just significant at 0.05 (p = 0.004 with 5 rounds a side, but
    overlapping ranks): as a family under Holm at 0.05 none is; one row alone is."""
    base = [10.0, 10.2, 10.4, 10.6, 10.8]
    cand = [10.7, 11.5, 11.6, 11.7, 11.8]  # U = 24 of 25: p = 2/252
    alone = one([b * 1e6 for b in base], [c * 1e6 for c in cand])
    assert alone == REGRESSED
    family = judge([Sample(f"k{i}", "cpu", base, cand) for i in range(8)], Design(0.07))
    assert all(t.verdict != REGRESSED for t in family.tests)


def test_looks_split_alpha() -> None:
    base = [10.0, 10.2, 10.4, 10.6, 10.8]
    cand = [10.7, 11.5, 11.6, 11.7, 11.8]
    assert one(base, cand, looks=1) == REGRESSED
    assert one(base, cand, looks=10) != REGRESSED  # p = 2/252 > 0.05 / 10
    assert "3 planned look(s)" in Design(0.07, looks=3).statement(4)
    assert looks_at(5, 10, 2) == [5, 10]
    assert looks_at(6, 12, 3) == [6, 9, 12]
    assert looks_at(4, 4, 3) == [4]


def test_improved_and_not_measured() -> None:
    rng = np.random.default_rng(5)
    assert one(medians(rng, 8), medians(rng, 8, 0.8)) == IMPROVED
    family = judge([Sample("k", "cpu", [1.0, 2.0, 3.0], [1.0, 2.0, 3.0])], Design(0.07))
    assert family.tests[0].verdict == NOT_MEASURED
    assert "needs 4" in family.tests[0].reason


def test_gate_word() -> None:
    rng = np.random.default_rng(6)
    tests = judge(
        [
            Sample("a", "cpu", medians(rng, 8), medians(rng, 8)),
            Sample("b", "wall", medians(rng, 8), medians(rng, 8, 1.3)),
        ],
        Design(0.07),
    ).tests
    assert [t.verdict for t in tests] == [SAME, REGRESSED]
    assert gate_verdict(tests) == REGRESSED
    assert gate_verdict(tests[:1]) == SAME
    assert gate_verdict([]) == NOT_MEASURED


def test_disturbed_rounds_are_dropped_only_when_enough_remain() -> None:
    base, cand = [1.0] * 6, [2.0] * 6
    quiet, busy = 0.0, DISTURBED_SHARE + 0.1
    kept_b, kept_c, dropped = clean(
        base, cand, [busy, quiet, quiet, quiet, quiet, quiet], [quiet] * 6
    )
    assert (len(kept_b), len(kept_c), dropped) == (5, 6, (1, 0))
    kept_b, kept_c, dropped = clean(base, cand, [busy] * 3 + [quiet] * 3, [quiet] * 6)
    assert (len(kept_b), dropped) == (6, (0, 0))


@pytest.mark.parametrize("threshold", [0.05, 0.07, 0.10])
def test_same_requires_the_interval_inside_the_threshold(threshold: float) -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        family = judge([Sample("k", "cpu", medians(rng, 8), medians(rng, 8))], Design(threshold))
        test = family.tests[0]
        if test.verdict == SAME:
            assert test.high is not None and test.high < 1 + threshold
            assert test.low is not None and test.low > 1 / (1 + threshold)


def test_disturbed_rounds_are_kept_when_the_rest_cannot_reach_the_level() -> None:
    """Seen in the regression benchmark: six of ten rounds a side disturbed left four, and four
    a side cannot reach a family-of-four level (1/70 > 0.0125): a 10% slowdown was only
    `inconclusive`. Every round is then kept."""
    rng = np.random.default_rng(8)
    base, cand = medians(rng, 10), medians(rng, 10, 1.12)
    samples = [
        Sample(f"k{i}", "cpu", base[:4], cand[:4], (6, 6), every_round=(base, cand))
        for i in range(4)
    ]
    family = judge(samples, Design(0.07))
    assert [t.verdict for t in family.tests] == [REGRESSED] * 4
    assert all(t.rounds == (10, 10) for t in family.tests)
    assert "disturbed rounds kept" in family.tests[0].reason


# Round medians (us) and run-queue shares of the gpu_check test's pair in the perf lane on a
# loaded machine (load 5.75 on 2 cores): A, and a build slowed 50% by a busy wait.
LOADED_A = [557, 608, 941, 442, 518, 1225, 439, 458, 1020, 657]
LOADED_A += [780, 1068, 854, 444, 569, 795, 642, 452, 644, 748]
LOADED_A_SHARES = [0.03, 0.57, 0.60, 0.39, 0.48, 0.50, 0.66, 0.00, 0.00, 0.00]
LOADED_A_SHARES += [0.04, 0.52, 0.53, 0.00, 0.51, 0.49, 0.57, 0.00, 0.43, 0.47]
LOADED_SLOWED = [1456, 1417, 1755, 756, 674, 808, 1199, 719, 779, 780]
LOADED_SLOWED += [1072, 1335, 934, 877, 1517, 1390, 1520, 930, 1548, 852]
LOADED_SLOWED_SHARES = [0.47, 0.51, 0.53, 0.34, 0.39, 0.56, 0.49, 0.01, 0.00, 0.00]
LOADED_SLOWED_SHARES += [0.02, 0.34, 0.54, 0.55, 0.37, 0.54, 0.53, 0.35, 0.52, 0.06]


def test_disturbed_rounds_are_kept_when_most_rounds_are_disturbed() -> None:
    """Seen in the perf lane: 13 of 20 baseline rounds and 15 of 20 slowed ones were disturbed,
    and the 7 and 5 left (no quieter: an undisturbed A round took 1020 us) made a 50% slowdown
    `inconclusive` (x1.528 [0.765, 2.340]). When disturbed rounds are most of a side, the
    disturbance is the machine's state, not a few outliers: every round is kept, and the 20 a
    side call it `regressed`."""
    kept_b, kept_c, dropped = clean(LOADED_A, LOADED_SLOWED, LOADED_A_SHARES, LOADED_SLOWED_SHARES)
    assert (kept_b, kept_c, dropped) == (LOADED_A, LOADED_SLOWED, (0, 0))
    sample = Sample("wide/v16/b1/pytorch", "cpu", kept_b, kept_c, dropped)
    (test,) = judge([sample], Design(0.07, 0.05, looks=3), family_size=2).tests
    assert test.verdict == REGRESSED, test.reason
    # A minority of disturbed rounds is still dropped.
    quiet = [0.0] * 20
    kept_b, _, dropped = clean(LOADED_A, LOADED_SLOWED, [0.5] * 9 + [0.0] * 11, quiet)
    assert dropped == (9, 0) and len(kept_b) == 11
