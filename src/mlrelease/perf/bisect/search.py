"""The search over one ordered axis: commits, packages or versions of a package (pure).

Positions ``0 .. count``: position 0 runs like the good side and ``count`` like the bad one,
by construction. :func:`bisect` replays every step the facts already decide and returns either
the next step to run or where the first change lies. A position whose step cannot decide (its
subject does not build, or stays ``UNKNOWN``) is skipped, never a half: the probe moves to the
nearest open position, and the answer becomes a range over the skipped ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mlrelease.perf.bisect.paired import DIFFERENT, SAME, Interval
from mlrelease.perf.bisect.state import BisectStep, Step


@dataclass(frozen=True)
class JudgedPoint:
    """What the facts say of one subject: a word (SAME, DIFFERENT, UNKNOWN, UNBUILDABLE)."""

    record: BisectStep

    @property
    def word(self) -> str:
        return self.record.word

    @property
    def interval(self) -> Interval | None:
        return self.record.interval


Probe = Callable[[int], "Step | JudgedPoint"]
"""Position -> the step that would decide it, or what the facts decide."""


@dataclass
class FoundSpan:
    """Where the first change lies: after position ``lo``, at or before ``hi``."""

    lo: int
    hi: int
    judged: dict[int, JudgedPoint] = field(default_factory=dict)
    """Every probed position (in probing order), skipped ones included."""
    untested: list[int] = field(default_factory=list)
    """Open positions left when the budget ran out."""

    @property
    def exact(self) -> bool:
        return self.hi == self.lo + 1

    def skipped(self) -> list[int]:
        """The probed positions inside the range (each UNKNOWN or UNBUILDABLE)."""
        return [p for p in range(self.lo + 1, self.hi) if p in self.judged]


def bisect(
    count: int, probe: Probe, *, may_probe: Callable[[int], bool] | None = None
) -> Step | FoundSpan:
    """The next step, or the first change between 0 (good) and ``count`` (bad).

    ``may_probe(position)`` says whether a position may still be probed (a budget of builds);
    when the nearest open one may not, the search ends with the open positions untested."""
    lo, hi = 0, count
    found = FoundSpan(lo, hi)
    while True:
        open_ = [p for p in range(lo + 1, hi) if p not in found.judged]
        if not open_:
            return FoundSpan(lo, hi, found.judged)
        middle = (lo + hi) / 2
        position = min(open_, key=lambda p: (abs(p - middle), p))
        if may_probe is not None and not may_probe(position):
            return FoundSpan(lo, hi, found.judged, untested=open_)
        outcome = probe(position)
        if not isinstance(outcome, JudgedPoint):
            return outcome
        found.judged[position] = outcome
        if outcome.word == SAME:
            lo = position
        elif outcome.word == DIFFERENT:
            hi = position
