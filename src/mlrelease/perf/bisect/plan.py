"""The bisect's planner: one snapshot in, the next step or the answer out (pure).

The order is fixed:

1. prepare the good and the bad side (each commit built once, installed with its lock's pins);
2. the endpoints: the profile's rows timed on both sides and compared as ``perf compare``
   does; the row to bisect is one the comparison called ``regressed`` (``--row``, or the most
   certain one). A row whose noise cannot place its regression is refused here
   (:func:`mlrelease.perf.bisect.paired.sensitivity`), before any bisect step;
3. the environment axis, when the two locks differ: the good commit in the bad side's
   environment, timed against both sides. ``SAME``: the environment is not the cause, on to the
   commits; ``DIFFERENT``: which package (when several changed, by applying their changes in
   order) and which version of it (every version the index holds between the two pins,
   prebuilt wheels only);
4. the project's own commits, each installed in the bad side's environment and timed against
   the good commit in that same environment and the bad side, in the same rounds, at most
   ``ceil(log2 N) + 3`` builds in all.
"""

from __future__ import annotations

import dataclasses

from mlrelease.perf.bisect import lock
from mlrelease.perf.bisect.axes import commits, environment
from mlrelease.perf.bisect.judging import RowPick, answer, budget_of, probe_cap
from mlrelease.perf.bisect.paired import (
    DIFFERENT,
    StepDesign,
    log_ratios,
    sensitivity,
    walsh_interval,
)
from mlrelease.perf.bisect.state import (
    UNKNOWN_VERDICT,
    BisectAnswer,
    BisectHistory,
    BisectSnapshot,
    BisectStep,
    Endpoints,
    PrepareSide,
    Side,
    Step,
)
from mlrelease.perf.verdict import REGRESSED

FAILING_KINDS = frozenset({"new_failure", "known_failure"})
"""Endpoint rows that did not run on a side (their message says why)."""


def steps_bound(history: BisectHistory) -> int:
    """The most steps any path of the bisect takes (its error is split over them)."""
    commit_probes = budget_of(history) - 2 if len(history.commits) > 1 else 0
    changes = lock.changes(history.locks[0], history.locks[-1])
    if not changes:
        return max(1, commit_probes)
    versions = max(len(lock.between(c, history.versions.get(c.name, ()))) for c in changes)
    dependency = probe_cap(len(changes)) + probe_cap(versions)
    return 1 + max(commit_probes, dependency)


def design_for(history: BisectHistory, confidence: float, max_pairs: int, looks: int) -> StepDesign:
    return StepDesign(confidence, steps_bound(history), max_pairs, looks)


def next_step(snap: BisectSnapshot) -> Step | BisectAnswer:
    """What to do next, or what was found."""
    history, facts = snap.history, snap.facts
    budget = snap.budget or budget_of(history)
    good = Side.of(history.good, history.locks[0])
    bad = Side.of(history.bad, history.locks[-1])
    for name, side in (("good", good), ("bad", bad)):
        if side.key not in facts.prepared:
            return PrepareSide(side)
        if facts.prepared[side.key]:
            reason = f"the {name} side ({side.commit}) does not build or install here"
            why = f"{reason}: {facts.prepared[side.key]}"
            return BisectAnswer(UNKNOWN_VERDICT, why, builds=len(facts.built), budget=budget)
    if facts.endpoints is None:
        return Endpoints(good, bad)
    pick = pick_row(snap)
    if isinstance(pick, BisectAnswer):
        return dataclasses.replace(pick, builds=len(facts.built), budget=budget)
    start = BisectStep(
        "endpoints", "the bad side against the good side", DIFFERENT, pick.regression
    )
    noise = sensitivity(pick.diffs, pick.regression.estimate, snap.design)
    if noise.blind:
        needed = noise.pairs_needed
        return answer(
            snap,
            pick,
            [start],
            BisectAnswer(
                UNKNOWN_VERDICT,
                f"refused before bisecting: row `{pick.row}` ({pick.clock} clock) regressed by "
                f"{noise.regression:.1%}, and at this noise a step of {snap.design.max_pairs} "
                f"pairs can place a regression of {noise.mde:.1%} at least (minimum detectable "
                "effect); "
                + (f"about {needed} pairs a step would do (--max-pairs)." if needed else ""),
                refused=True,
            ),
        )
    records = [start]
    if lock.changes(history.locks[0], history.locks[-1]):
        outcome = environment(snap, pick, good, bad, records)
        if outcome is not None:
            return outcome
    return commits(snap, pick, bad, records)


def pick_row(snap: BisectSnapshot) -> RowPick | BisectAnswer:
    """The row to bisect: ``--row`` when it regressed, else the regressed row (and clock) with
    the highest lower bound; an :class:`BisectAnswer` saying why there is none."""
    endpoints = snap.facts.endpoints
    assert endpoints is not None
    rows = {r.key: r for r in endpoints.rows}
    regressed = [r for r in endpoints.rows if r.kind == REGRESSED]
    if snap.row and snap.row not in rows:
        known = ", ".join(f"`{k}`" for k in rows)
        return BisectAnswer(
            UNKNOWN_VERDICT, f"row `{snap.row}` is not a row of the profile ({known})"
        )
    if snap.row and rows[snap.row].kind != REGRESSED:
        chosen = rows[snap.row]
        return BisectAnswer(
            UNKNOWN_VERDICT,
            f"row `{snap.row}` did not regress between the two sides "
            f"({chosen.kind.replace('_', ' ')}: {chosen.message}): nothing to bisect",
            row=snap.row,
        )
    if not regressed:
        failing = [f"`{r.key}`: {r.message}" for r in endpoints.rows if r.kind in FAILING_KINDS]
        return BisectAnswer(
            UNKNOWN_VERDICT,
            f"no row regressed between the two sides ({endpoints.summary}): nothing to bisect"
            + (f"; rows that did not run: {'; '.join(failing)}" if failing else ""),
        )
    candidates = [rows[snap.row]] if snap.row else regressed
    tests = [(r, t) for r in candidates for t in r.tests if t.verdict == REGRESSED]
    row, test = max(tests, key=lambda rt: (rt[1].low or 0.0, rt[1].estimate or 0.0))
    diffs = log_ratios(row.good.get(test.clock, []), row.bad.get(test.clock, []))
    interval = walsh_interval(diffs, snap.design.tail)
    return RowPick(row.key, test.clock, interval, diffs)
