"""What one step's facts decide, and how an answer is put together (pure; for
:mod:`~mlrelease.perf.bisect.plan` and :mod:`~mlrelease.perf.bisect.axes`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mlrelease.perf.bisect.paired import UNKNOWN, Interval, decide, log_ratios
from mlrelease.perf.bisect.search import JudgedPoint
from mlrelease.perf.bisect.state import (
    UNBUILDABLE,
    BisectAnswer,
    BisectHistory,
    BisectSnapshot,
    BisectStep,
    Measure,
    PrepareSide,
    Side,
    Skipped,
    Step,
)


def budget_of(history: BisectHistory) -> int:
    """The most commits a bisect of ``history`` builds: ``ceil(log2 N) + 3``."""
    return math.ceil(math.log2(max(len(history.commits), 1))) + 3


def probe_cap(count: int) -> int:
    """Probes a search over ``count`` positions may make (one more for a skipped one)."""
    return math.ceil(math.log2(count)) + 1 if count > 1 else 0


@dataclass(frozen=True)
class RowPick:
    """The row a bisect places, with the regression its endpoints measured."""

    row: str
    clock: str
    regression: Interval
    diffs: list[float]


def judge(
    snap: BisectSnapshot, pick: RowPick, reference: Side, subject: Side, axis: str, label: str
) -> Step | JudgedPoint:
    """What the facts say of ``subject`` against ``reference``, or the step that says it."""
    facts = snap.facts
    for side in (reference, subject):
        if side.key not in facts.prepared:
            return PrepareSide(side)
    good = dict(snap.history.locks[0])
    moved = {n: v for n, v in subject.pins if good.get(n) != v}
    shown = BisectStep(axis, label, UNKNOWN, commit=subject.commit, pins=moved)
    broken = facts.prepared[subject.key] or facts.prepared[reference.key]
    pair = (reference.key, subject.key)
    if broken or pair in facts.failed:
        error = broken or facts.failed[pair]
        return JudgedPoint(dataclasses.replace(shown, word=UNBUILDABLE, error=error))
    base, other = facts.rounds.get(pair, ([], []))
    decision = decide(log_ratios(base, other), pick.regression, snap.design)
    if decision.more:
        return Measure(reference, subject, decision.more, label)
    return JudgedPoint(
        dataclasses.replace(
            shown, word=decision.word, interval=decision.interval, beyond=decision.beyond
        )
    )


def recorded(
    records: list[BisectStep], probe: Callable[[int], Step | JudgedPoint]
) -> Callable[[int], Step | JudgedPoint]:
    def wrapped(position: int) -> Step | JudgedPoint:
        outcome = probe(position)
        if isinstance(outcome, JudgedPoint):
            records.append(outcome.record)
        return outcome

    return wrapped


def skip(name: str, judged: JudgedPoint) -> Skipped:
    record = judged.record
    if record.word == UNBUILDABLE:
        return Skipped(name, record.error)
    shown = judged.interval.text() if judged.interval else "no interval"
    return Skipped(
        name, f"{UNKNOWN} after {judged.interval.pairs if judged.interval else 0} pairs: {shown}"
    )


def answer(
    snap: BisectSnapshot, pick: RowPick, records: Sequence[BisectStep], found: BisectAnswer
) -> BisectAnswer:
    """``found`` (the verdict, its reason and where it points) about ``pick``'s row, with the
    steps so far and the builds it took."""
    return dataclasses.replace(
        found,
        steps=tuple(records),
        row=pick.row,
        clock=pick.clock,
        regression=pick.regression,
        builds=len(snap.facts.built),
        budget=snap.budget or budget_of(snap.history),
    )
