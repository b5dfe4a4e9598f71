"""A simulated world for the bisect planner's unit tests: it stands in for the executor (builds,
installs, timed rounds) with a known ratio per side and Gaussian noise, and records only the
facts the real executor journals. The real executor is tested in
``tests/perf_integration/test_perf_bisect.py``."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mlrelease.perf.bisect import plan
from mlrelease.perf.bisect.lock import Pins
from mlrelease.perf.bisect.state import (
    BisectAnswer,
    BisectHistory,
    BisectSnapshot,
    EndpointFacts,
    EndpointRow,
    Endpoints,
    Facts,
    Measure,
    PrepareSide,
    RowTest,
    Side,
)
from mlrelease.perf.verdict import REGRESSED

ROW = "work/v256/b1/pytorch"
BASE_NS = 1_000_000.0


@dataclass
class World:
    """Commits ``c1 .. cN`` after ``c0``; ``ratio(side)`` is how much slower a side runs."""

    history: BisectHistory
    ratio: Callable[[Side], float]
    broken: set[str] = field(default_factory=set)
    spread: float = 0.005
    verdict: str = REGRESSED
    seed: int = 0
    steps: list[object] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.draw = random.Random(self.seed)
        self.facts = Facts()

    def _round(self, side: Side) -> float:
        return BASE_NS * self.ratio(side) * math.exp(self.draw.gauss(0, self.spread))

    def run(self, *, confidence: float = 0.95, row: str = "", budget: int = 0) -> BisectAnswer:
        design = plan.design_for(self.history, confidence, 24, 3)
        for _ in range(200):
            snap = BisectSnapshot(self.history, self.facts, design, row=row, budget=budget)
            step = plan.next_step(snap)
            self.steps.append(step)
            if isinstance(step, BisectAnswer):
                return step
            self.carry_out(step, design.first)
        raise AssertionError("the planner did not finish")

    def carry_out(self, step: object, first: int) -> None:
        if isinstance(step, PrepareSide):
            self.facts.built.setdefault(step.side.commit, "")
            error = "setup.py exits" if step.side.commit in self.broken else ""
            self.facts.prepared[step.side.key] = error
        elif isinstance(step, Endpoints):
            good = [self._round(step.good) for _ in range(first)]
            bad = [self._round(step.bad) for _ in range(first)]
            estimate = self.ratio(step.bad)
            tests = (RowTest("cpu", self.verdict, estimate, estimate * 0.98, estimate * 1.02),)
            found = EndpointRow(ROW, self.verdict, "", tests, {"cpu": good}, {"cpu": bad})
            self.facts.endpoints = EndpointFacts((found,), "1 row")
        elif isinstance(step, Measure):
            trio = (step.reference.key, step.subject.key, step.bad.key)
            sides = (step.reference, step.subject, step.bad)
            have = self.facts.rounds.get(trio, ([], [], []))
            more = step.pairs - len(have[0])
            good, other, bad = (
                series + [self._round(side) for _ in range(more)]
                for series, side in zip(have, sides, strict=True)
            )
            self.facts.rounds[trio] = (good, other, bad)


def history(
    count: int,
    locks: Mapping[int, Pins] | None = None,
    versions: Mapping[str, tuple[str, ...]] | None = None,
) -> BisectHistory:
    commits = tuple(f"c{i:039x}" for i in range(1, count + 1))
    pins = [dict((locks or {}).get(0, {}))]
    for i in range(1, count + 1):
        pins.append(dict((locks or {}).get(i, pins[-1])))
    return BisectHistory(f"c{0:039x}", commits[-1], commits, {}, tuple(pins), versions or {})


def slowed_from(h: BisectHistory, position: int, by: float = 1.10) -> Callable[[Side], float]:
    order = {sha: i for i, sha in enumerate((h.good, *h.commits))}
    return lambda side: by if order[side.commit] >= position else 1.0
