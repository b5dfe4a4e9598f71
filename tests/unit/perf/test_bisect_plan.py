"""The bisect's planner, driven to an answer over simulated measurements
(:mod:`helpers.bisect_sim`): the rules of the search (an exact culprit within the build budget,
unbuildable commits making a range, a blind row refused before any step, the environment
first), each with its answer."""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from helpers.bisect_sim import World, history, slowed_from

from mlrelease.perf.bisect import facts, plan
from mlrelease.perf.bisect.state import (
    CULPRIT,
    RANGE,
    UNBUILDABLE,
    UNKNOWN_VERDICT,
    BisectHistory,
    BisectSnapshot,
    Measure,
    Side,
)
from mlrelease.perf.verdict import SAME


def test_an_exact_culprit_within_the_build_budget() -> None:
    h = history(16)
    for position in (1, 7, 16):
        world = World(h, slowed_from(h, position))
        answer = world.run()
        assert answer.verdict == CULPRIT, answer.reason
        assert answer.culprit == h.commits[position - 1]
        assert answer.axis == "commit"
        assert answer.builds <= plan.budget_of(h) == math.ceil(math.log2(16)) + 3


def test_unbuildable_commits_make_a_range_with_each_error() -> None:
    """The culprit and the commit before it do not build: the answer is the range from the
    last commit like the good side to the first like the bad side, each skipped commit named
    with its error, never a guess."""
    h = history(8)
    world = World(h, slowed_from(h, 5), broken={h.commits[3], h.commits[4]})
    answer = world.run()
    assert answer.verdict == RANGE, answer.reason
    assert (answer.after, answer.through) == (h.commits[2], h.commits[5])
    assert {s.subject for s in answer.skipped} <= {h.commits[3], h.commits[4]}
    assert all(s.reason == "setup.py exits" for s in answer.skipped)
    assert any(r.word == UNBUILDABLE for r in answer.steps)


def test_an_unbuildable_commit_elsewhere_is_stepped_over() -> None:
    h = history(8)
    world = World(h, slowed_from(h, 6), broken={h.commits[3]})
    answer = world.run()
    assert (answer.verdict, answer.culprit) == (CULPRIT, h.commits[5])


def test_a_blind_row_is_refused_before_any_step() -> None:
    h = history(8)
    world = World(h, slowed_from(h, 3, by=1.03), spread=0.08)
    answer = world.run()
    assert answer.verdict == UNKNOWN_VERDICT and answer.refused
    assert "minimum detectable effect" in answer.reason
    assert not any(isinstance(s, Measure) for s in world.steps)
    assert [r.axis for r in answer.steps] == ["endpoints"]


def test_no_regressed_row_nothing_to_bisect() -> None:
    h = history(4)
    answer = World(h, slowed_from(h, 2), verdict=SAME).run()
    assert answer.verdict == UNKNOWN_VERDICT
    assert "nothing to bisect" in answer.reason


def test_a_row_that_is_not_regressed_is_refused_by_name() -> None:
    h = history(4)
    answer = World(h, slowed_from(h, 2)).run(row="other/v1/b1/pytorch")
    assert answer.verdict == UNKNOWN_VERDICT and "not a row of the profile" in answer.reason


def test_the_build_budget_ends_in_a_range() -> None:
    h = history(16)
    world = World(h, slowed_from(h, 9))
    answer = world.run(budget=4)
    assert answer.verdict == RANGE and answer.builds <= 4
    assert any("budget" in s.reason for s in answer.skipped)


def _pair_and_culprit(
    h: BisectHistory, pair: tuple[int, int], culprit: int
) -> Callable[[Side], float]:
    """25% slower from ``pair[0]`` until ``pair[1]`` undoes it; 10% slower from ``culprit``."""
    order = {sha: i for i, sha in enumerate((h.good, *h.commits))}

    def ratio(side: Side) -> float:
        at = order[side.commit]
        return (1.10 if at >= culprit else 1.0) * (1.25 if pair[0] <= at < pair[1] else 1.0)

    return ratio


def test_a_commit_beyond_the_bad_side_is_not_called_the_culprit() -> None:
    """A cancelling pair (+25% from c5, undone at c9) and the 10% culprit at c11: the search
    lands in the pair and finds its first commit, 25% slower where the regression is 10%: it
    says more than one change lies between the sides instead of naming it."""
    h = history(12)
    answer = World(h, _pair_and_culprit(h, (5, 9), 11)).run()
    assert answer.verdict == UNKNOWN_VERDICT, answer.reason
    assert "more than one change" in answer.reason and h.commits[4] in answer.reason
    assert answer.culprit is None


def _pair_2(h: BisectHistory) -> Callable[[Side], float]:
    """The benchmark's ``pair-2``: +20% from c4, undone at c8, and the 10% culprit at c6, so c4
    runs 1.2x where the bad side runs 1.1x."""
    order = {sha: i for i, sha in enumerate((h.good, *h.commits))}

    def ratio(side: Side) -> float:
        at = order[side.commit]
        return (1.10 if at >= 6 else 1.0) * (1.20 if 4 <= at < 8 else 1.0)

    return ratio


def test_a_commit_slower_than_the_bad_side_by_less_than_half_the_regression_is_not_named() -> None:
    """c4 is slower than the bad side by less than half the regression (1.1 / 1.2 = 0.917, the
    halfway point 1 / sqrt(1.1) = 0.953): checked against the halfway point it went unflagged and
    was named the culprit in 9 of these 12 worlds; checked against 1, none is named."""
    h = history(8)
    for seed in range(12):
        answer = World(h, _pair_2(h), spread=0.02, seed=seed).run()
        assert answer.culprit != h.commits[3], (seed, answer.reason)


def test_a_commit_decided_at_an_early_look_is_timed_on_before_it_is_named() -> None:
    """``pair-2`` at twice the noise: c4 is shown unlike the good side at the first look, before
    its rounds can show it slower than the bad side. Named from that look, it was the culprit in
    6 of these 12 worlds; timed on to the last look first, it is named in none, and the true
    culprit of a single change is still named, from its step at the last look."""
    h = history(8)
    for seed in range(12):
        answer = World(h, _pair_2(h), spread=0.04, seed=seed).run()
        assert answer.culprit != h.commits[3], (seed, answer.reason)
    world = World(h, slowed_from(h, 6), spread=0.04)
    answer = world.run()
    assert answer.culprit == h.commits[5], answer.reason
    (named,) = [r for r in answer.steps if r.commit == h.commits[5]]
    assert named.interval is not None and named.interval.pairs == 24  # World's last look


def test_a_cancelling_pair_away_from_the_probes_leaves_the_culprit() -> None:
    h = history(12)
    answer = World(h, _pair_and_culprit(h, (1, 2), 9)).run()
    assert (answer.verdict, answer.culprit) == (CULPRIT, h.commits[8])


LOCKS = {0: {"slowlib": "1.0"}, 4: {"slowlib": "1.3"}}
VERSIONS = {"slowlib": ("0.9", "1.0", "1.1", "1.2", "1.3", "2.0rc1")}


def test_the_environment_first_then_the_version() -> None:
    """The lock moves slowlib 1.0 -> 1.3 at c4 and 1.2 is the slow one: the answer is on the
    dependency axis, names 1.2 (after 1.1) and the commit that brought it into the lock."""
    h = history(8, LOCKS, VERSIONS)

    def ratio(side: Side) -> float:
        return 1.10 if dict(side.pins).get("slowlib", "1.0") >= "1.2" else 1.0

    world = World(h, ratio)
    answer = world.run()
    assert answer.verdict == CULPRIT, answer.reason
    assert answer.axis == "dependency"
    assert answer.dependency == {"name": "slowlib", "version": "1.2", "previous": "1.1"}
    assert answer.culprit == h.commits[3]
    assert answer.builds == 2  # the good and the bad commit: dependency steps build nothing
    assert [r.axis for r in answer.steps][:2] == ["endpoints", "environment"]


def test_an_innocent_environment_goes_on_to_the_commits() -> None:
    h = history(8, LOCKS, VERSIONS)
    answer = World(h, slowed_from(h, 6)).run()
    assert (answer.verdict, answer.axis, answer.culprit) == (CULPRIT, "commit", h.commits[5])
    assert answer.steps[1].axis == "environment" and answer.steps[1].word == "SAME"


def test_of_two_changed_packages_the_guilty_one() -> None:
    """numpy and slowlib both moved at c3; only slowlib 1.3 is slow: the package step applies
    the changes in order and finds slowlib, then its version."""
    locks = {0: {"numpy": "2.0", "slowlib": "1.0"}, 3: {"numpy": "2.1", "slowlib": "1.3"}}
    h = history(6, locks, {"numpy": ("2.0", "2.1"), "slowlib": ("1.0", "1.3")})
    answer = World(h, lambda s: 1.1 if dict(s.pins)["slowlib"] == "1.3" else 1.0).run()
    assert (answer.verdict, answer.axis) == (CULPRIT, "dependency")
    assert answer.dependency == {"name": "slowlib", "version": "1.3", "previous": "1.0"}
    assert [r.axis for r in answer.steps] == ["endpoints", "environment", "package"]
    assert answer.steps[2].word == "SAME" and answer.steps[2].pins == {"numpy": "2.1"}
    assert answer.culprit == h.commits[2]


def test_a_removed_package_is_named() -> None:
    """The lock drops ``fast`` at c2, and the row needs it: the culprit is the removal."""
    h = history(4, {0: {"fast": "1.0"}, 2: {}})
    answer = World(h, lambda s: 1.0 if "fast" in dict(s.pins) else 1.2).run()
    assert answer.dependency == {"name": "fast", "version": "(removed)", "previous": "1.0"}
    assert answer.culprit == h.commits[1]


def test_every_step_is_timed_against_both_sides() -> None:
    """A commit step's rounds hold the good commit (in the bad side's environment), the subject
    and the bad side; the answer shows both ratios of each step."""
    h = history(8, LOCKS, VERSIONS)
    world = World(h, slowed_from(h, 6))
    answer = world.run()
    measures = [s for s in world.steps if isinstance(s, Measure)]
    assert measures and all(m.bad.commit == h.bad for m in measures)
    assert all(m.bad.pins == (("slowlib", "1.3"),) for m in measures)
    steps = [s for s in answer.steps if s.axis in ("environment", "commit")]
    assert steps and all(s.versus_bad is not None for s in steps)
    assert all(s.to_dict()["bad_over_subject"] is not None for s in steps)


def test_an_environment_slower_than_the_bad_side_is_not_named() -> None:
    """slowlib 1.3 slows the row 20% and a commit takes 8% back, so the bad side runs 1.1x and
    the good commit in its environment 1.2x: it is decided unlike the good side at an early look,
    timed on, and found slower than the bad side, so no version is named the cause (named
    from the early look, it was in all 6 worlds)."""
    h = history(8, LOCKS, VERSIONS)
    order = {sha: i for i, sha in enumerate((h.good, *h.commits))}

    def ratio(side: Side) -> float:
        slow_env = 1.20 if dict(side.pins).get("slowlib", "1.0") >= "1.2" else 1.0
        return slow_env * (1.1 / 1.2 if order[side.commit] >= 6 else 1.0)

    for seed in range(6):
        answer = World(h, ratio, spread=0.04, seed=seed).run()
        assert answer.verdict != "culprit", (seed, answer.reason)
        assert answer.steps[1].axis == "environment"


def test_the_environment_between_the_sides_is_said_so() -> None:
    """The lock's slowlib 1.3 slows the row 5% and a commit 5% more: the good commit in the bad
    side's environment runs unlike both sides, so the answer says the regression has more than
    one cause rather than blaming either axis."""
    h = history(8, LOCKS, VERSIONS)
    order = {sha: i for i, sha in enumerate((h.good, *h.commits))}

    def ratio(side: Side) -> float:
        slow_env = 1.05 if dict(side.pins).get("slowlib") == "1.3" else 1.0
        return slow_env * (1.05 if order[side.commit] >= 6 else 1.0)

    answer = World(h, ratio).run()
    assert answer.verdict == UNKNOWN_VERDICT, answer.reason
    assert "accounts for part of the regression" in answer.reason
    assert answer.steps[1].axis == "environment" and answer.steps[1].beyond


def test_a_journal_from_before_three_way_steps_is_used_and_its_steps_timed_again() -> None:
    """A journal written when a step timed its subject against the good side alone (rounds
    entries without ``bad_side``): its builds, installs and endpoints are used, its rounds are
    counted and not used, and the next step is three-way from the first look."""
    h = history(4)
    world = World(h, slowed_from(h, 2))
    world.run()
    good, bad = Side.of(h.good, {}), Side.of(h.bad, {})
    assert world.facts.endpoints is not None
    subject = Side(h.commits[1])
    entries = [
        {"kind": facts.BUILD, "commit": h.good, "error": ""},
        {"kind": facts.PREPARED, "side": good.key, "error": ""},
        {"kind": facts.BUILD, "commit": h.bad, "error": ""},
        {"kind": facts.PREPARED, "side": bad.key, "error": ""},
        facts.endpoints_entry(world.facts.endpoints),
        {"kind": facts.BUILD, "commit": subject.commit, "error": ""},
        {"kind": facts.PREPARED, "side": subject.key, "error": ""},
        {
            "kind": facts.ROUNDS,
            "reference": good.key,
            "subject": subject.key,
            "good": [1.0] * 6,
            "other": [1.1] * 6,
        },
    ]
    old = facts.replay(json.loads(json.dumps(entries)))
    assert old.two_way == 6 and not old.rounds
    design = plan.design_for(h, 0.95, 24, 3)
    step = plan.next_step(BisectSnapshot(h, old, design))
    assert isinstance(step, Measure)
    assert (step.subject, step.bad, step.pairs) == (subject, bad, design.first)
