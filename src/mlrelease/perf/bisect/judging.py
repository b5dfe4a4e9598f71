"""What one step's facts decide, and how an answer is put together (pure; for
:mod:`~mlrelease.perf.bisect.plan` and :mod:`~mlrelease.perf.bisect.axes`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mlrelease.perf.bisect.paired import DIFFERENT, UNKNOWN, Interval, decide, log_ratios
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


@dataclass(frozen=True)
class Ends:
    """The two sides a step times its subject against, in the same rounds: ``good`` (runs like
    the good side) and ``bad`` (like the bad side)."""

    good: Side
    bad: Side


def judge(
    snap: BisectSnapshot,
    pick: RowPick,
    ends: Ends,
    subject: Side,
    axis: str,
    label: str,
    *,
    named: bool = False,
) -> Step | JudgedPoint:
    """What the facts say of ``subject`` against both ``ends``, or the step that says it.

    ``named``: the subject is about to be named the culprit, so a ``DIFFERENT`` decided at an
    early look is timed on to the last one first. An early look stops as soon as the subject is
    shown unlike the good side, before the rounds can show whether it runs like the bad side or
    slower still (a commit that adds more than the regression, later undone); the last look is
    the one whose bounds the row's minimum detectable effect was checked against."""
    facts = snap.facts
    reference = ends.good
    for side in (reference, subject, ends.bad):
        if side.key not in facts.prepared:
            return PrepareSide(side)  # the bad end was prepared for an earlier step
    base = dict(snap.history.locks[0])
    moved = {n: v for n, v in subject.pins if base.get(n) != v}
    shown = BisectStep(axis, label, UNKNOWN, commit=subject.commit, pins=moved)
    broken = facts.prepared[subject.key] or facts.prepared[reference.key]
    broken = broken or facts.prepared[ends.bad.key]
    pair = (reference.key, subject.key)
    if broken or pair in facts.failed:
        error = broken or facts.failed[pair]
        return JudgedPoint(dataclasses.replace(shown, word=UNBUILDABLE, error=error))
    good, other, bad = facts.rounds.get((*pair, ends.bad.key), ([], [], []))
    decision = decide(log_ratios(good, other), log_ratios(other, bad), snap.design)
    if decision.more:
        return Measure(reference, subject, decision.more, label, ends.bad)
    last = snap.design.schedule()[-1]
    early = decision.interval is not None and decision.interval.pairs < last
    if named and decision.word == DIFFERENT and not decision.beyond and early:
        return Measure(reference, subject, last, label, ends.bad)
    return JudgedPoint(
        dataclasses.replace(
            shown,
            word=decision.word,
            interval=decision.interval,
            versus_bad=decision.versus_bad,
            beyond=decision.beyond,
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
    if record.versus_bad is not None:
        shown = f"subject / good {shown}, bad / subject {record.versus_bad.text()}"
    beyond = f" ({record.beyond}: more than one change)" if record.beyond else ""
    pairs = judged.interval.pairs if judged.interval else 0
    return Skipped(name, f"{UNKNOWN} after {pairs} rounds: {shown}{beyond}")


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
