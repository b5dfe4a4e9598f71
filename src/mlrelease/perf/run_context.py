"""What one profile run holds from its start to its end (:class:`RunContext`, built once by
:func:`mlrelease.perf.runner.execute` and handed to every step), and how the run shows its
progress to whoever watches it (:class:`ProfileProgress`; the console's is
:class:`mlrelease.perf.progress.ProfileBar`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from mlrelease.perf import catalog
from mlrelease.perf.config import Profile
from mlrelease.perf.launch import Worker
from mlrelease.perf.replies import ProbeReply


class ProfileProgress(Protocol):
    """How a profile run shows itself while it runs (the runner tells; the watcher draws)."""

    def probing(self, build: str, python: str) -> None:
        """Build ``build`` (interpreter ``python``) is being probed."""

    def running(self, total: int) -> AbstractContextManager[None]:
        """Around the worker calls: ``total`` steps (a model prepared in a build, a row timed in
        a round)."""

    def step(self, description: str) -> None:
        """What the run does now (``[build] model shape framework round N``)."""

    def advance(self, steps: int = 1) -> None:
        """``steps`` more steps are done."""

    def extend(self, steps: int) -> None:
        """``steps`` more steps than ``running`` announced (an adaptive run's added round)."""


class UnwatchedRun:
    """A profile run nobody watches."""

    def probing(self, build: str, python: str) -> None:
        pass

    def running(self, total: int) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    def step(self, description: str) -> None:
        pass

    def advance(self, steps: int = 1) -> None:
        pass

    def extend(self, steps: int) -> None:
        pass


@dataclass(frozen=True)
class Group:
    """One model at one shape: what a build prepares once and then times per framework."""

    model: str
    shape: str
    ref: str
    """The profile's entry of the model, as the workers resolve it."""

    @property
    def folder(self) -> str:
        """The name of its work folder (under each build's work folder)."""
        return f"{self.model}-{self.shape}"

    def holds(self, planned: catalog.Planned) -> bool:
        return (planned.combination.model, planned.combination.shape) == (self.model, self.shape)


@dataclass(frozen=True)
class RunContext:
    """What does not change while a profile runs: the profile, one worker per build (in the
    builds' order: the first is the baseline of adaptive rounds), what each build was found to
    run and what it plans, whom to tell, and when the timed work began."""

    profile_name: str
    profile: Profile
    workers: Mapping[str, Worker]
    probes: Mapping[str, ProbeReply]
    plans: Mapping[str, Sequence[catalog.Planned]]
    """Every row of the matrix per build, with the status that keeps it out (None: it runs)."""
    progress: ProfileProgress
    started: float
    """``time.perf_counter()`` when the timed work began: an adaptive run adds rounds while
    ``profile.budget_s`` lasts."""
    first_round: int = 0
    """Rounds run before this run (it adds to them): the builds' order goes on from there."""

    @property
    def names(self) -> list[str]:
        return list(self.workers)

    def runnable(self, name: str, group: Group | None = None) -> list[catalog.Planned]:
        """The rows build ``name`` runs (of ``group`` only, when given)."""
        return [
            p for p in self.plans[name] if p.status is None and (group is None or group.holds(p))
        ]

    def groups(self) -> list[Group]:
        """Every model and shape some build runs, in the plans' order."""
        return list(
            dict.fromkeys(
                Group(p.combination.model, p.combination.shape, p.spec_ref)
                for name in self.workers
                for p in self.runnable(name)
            )
        )

    @property
    def family_size(self) -> int:
        """The tests an adaptive run corrects for: two per row of the largest build."""
        return 2 * max(len(self.runnable(name)) for name in self.workers)

    def budget_spent(self) -> bool:
        return time.perf_counter() - self.started > self.profile.budget_s
