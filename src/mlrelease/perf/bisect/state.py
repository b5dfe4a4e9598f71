"""What a bisect knows and what it asks for: one snapshot, the steps, the answer (pure data).

The snapshot (:class:`BisectSnapshot`) is the history read once from git and the index
(:class:`BisectHistory`) plus every fact the journal holds (:class:`Facts`): which sides were
prepared and how, what the endpoints' comparison said, the pairs measured so far. The planner
(:mod:`~mlrelease.perf.bisect.plan`) turns it into the next :data:`Step` or an
:class:`BisectAnswer`; the executor (:mod:`~mlrelease.perf.bisect.service`) carries the step out and
journals what it found."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mlrelease.perf.bisect.lock import Pins
from mlrelease.perf.bisect.paired import Interval, StepDesign

UNBUILDABLE = "UNBUILDABLE"
"""A step whose subject does not build, install or run its row: skipped, never a half."""

CULPRIT, RANGE, UNKNOWN_VERDICT = "culprit", "range", "unknown"
VERDICTS = (CULPRIT, RANGE, UNKNOWN_VERDICT)
COMMIT_AXIS, DEPENDENCY_AXIS = "commit", "dependency"


@dataclass(frozen=True)
class Side:
    """What one side of a step runs: a commit, installed with its environment's pins."""

    commit: str
    pins: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, commit: str, pins: Pins) -> Side:
        return cls(commit, tuple(sorted(pins.items())))

    @property
    def key(self) -> str:
        digest = hashlib.sha256(json.dumps(self.pins).encode()).hexdigest()[:12]
        return f"{self.commit}-{digest}"


@dataclass(frozen=True)
class PrepareSide:
    """Build ``side``'s commit (once) and install it with its pins."""

    side: Side


@dataclass(frozen=True)
class Endpoints:
    """Time the good and the bad side over the profile's rows and compare them."""

    good: Side
    bad: Side


@dataclass(frozen=True)
class Measure:
    """Time ``subject`` against ``reference`` (the good side) and ``bad`` in the same rounds on
    the row until ``pairs`` rounds are measured."""

    reference: Side
    subject: Side
    pairs: int
    label: str
    bad: Side


Step = PrepareSide | Endpoints | Measure


@dataclass(frozen=True)
class RowTest:
    """One clock of one row as the endpoints' comparison judged it."""

    clock: str
    verdict: str
    estimate: float | None = None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class EndpointRow:
    """One row of the endpoints' comparison, with the rounds' medians of each side per clock."""

    key: str
    kind: str
    message: str
    tests: tuple[RowTest, ...] = ()
    good: Mapping[str, list[float]] = field(default_factory=dict)
    bad: Mapping[str, list[float]] = field(default_factory=dict)


@dataclass(frozen=True)
class EndpointFacts:
    rows: tuple[EndpointRow, ...]
    summary: str


@dataclass
class Facts:
    """Everything the journal holds, by side and by (reference, subject) pair of keys."""

    prepared: dict[str, str] = field(default_factory=dict)
    """Side key -> "" (ready) or why it is not (the build's or the install's error)."""
    built: dict[str, str] = field(default_factory=dict)
    """Commit -> "" or the build's error: every commit a build was attempted for."""
    endpoints: EndpointFacts | None = None
    rounds: dict[tuple[str, str, str], tuple[list[float], list[float], list[float]]] = field(
        default_factory=dict
    )
    """(reference key, subject key, bad key) -> the rounds' medians of each of the three (good
    side, subject, bad side), by position: round ``i`` of each ran back to back."""
    failed: dict[tuple[str, str], str] = field(default_factory=dict)
    """(reference key, subject key) -> why the row did not run on one of them."""
    two_way: int = 0
    """Rounds of a journal written before the three-way steps (a subject against the good side
    alone): kept in the journal, not used (their steps are timed again, three-way)."""


@dataclass(frozen=True)
class BisectHistory:
    """The two sides and what lies between them, read from git and the index once."""

    good: str
    bad: str
    commits: tuple[str, ...]
    """Commits after ``good`` up to ``bad`` (first parents, oldest first, ``bad`` last)."""
    titles: Mapping[str, str]
    locks: tuple[Pins, ...]
    """The lock's pins at ``good`` and then at each of :attr:`commits`."""
    versions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per changed package: the versions the index holds (for a version bisect)."""


@dataclass(frozen=True)
class BisectSnapshot:
    history: BisectHistory
    facts: Facts
    design: StepDesign
    row: str = ""
    """The row asked for (``--row``); empty: the most certain regressed row."""
    budget: int = 0
    """The most commits built (0: ``ceil(log2 N) + 3``)."""


@dataclass(frozen=True)
class BisectStep:
    """One step as the answer shows it."""

    axis: str
    label: str
    word: str
    interval: Interval | None = None
    """subject / good."""
    error: str = ""
    beyond: str = ""
    commit: str = ""
    pins: Mapping[str, str] = field(default_factory=dict)
    """The subject's pins that differ from the good side's."""
    versus_bad: Interval | None = None
    """bad / subject, from the same rounds (None: the endpoints, or no rounds)."""

    def to_dict(self) -> dict[str, Any]:
        shown, behind = self.interval, self.versus_bad
        return {
            "axis": self.axis,
            "label": self.label,
            "commit": self.commit or None,
            "pins": dict(self.pins),
            "verdict": self.word,
            "ratio": None if shown is None else round(shown.estimate, 6),
            "low": None if shown is None or shown.low is None else round(shown.low, 6),
            "high": None if shown is None or shown.high is None else round(shown.high, 6),
            "pairs": None if shown is None else shown.pairs,
            "bad_over_subject": None if behind is None else _rounded(behind),
            "error": self.error or None,
            "beyond": self.beyond or None,
        }


def _rounded(shown: Interval) -> dict[str, float | None]:
    return {
        "ratio": round(shown.estimate, 6),
        "low": None if shown.low is None else round(shown.low, 6),
        "high": None if shown.high is None else round(shown.high, 6),
    }


@dataclass(frozen=True)
class Skipped:
    """A commit (or version) inside a range, and why no step could place it."""

    subject: str
    reason: str


@dataclass(frozen=True)
class BisectAnswer:
    """What a bisect found: a culprit, a range with the reasons, or unknown with the reason."""

    verdict: str
    reason: str
    steps: tuple[BisectStep, ...] = ()
    axis: str | None = None
    culprit: str | None = None
    """The full sha of the commit (for a dependency: the commit whose lock brought it in)."""
    dependency: Mapping[str, str] | None = None
    """``name``, ``version`` (the first slow one) and ``previous`` on the dependency axis."""
    after: str | None = None
    """A range: the last subject known to run like the good side."""
    through: str | None = None
    """A range: the first subject known to run like the bad side."""
    skipped: tuple[Skipped, ...] = ()
    row: str | None = None
    clock: str | None = None
    regression: Interval | None = None
    refused: bool = False
    """True when the row's noise is too high to place its regression (nothing was bisected)."""
    builds: int = 0
    budget: int = 0
