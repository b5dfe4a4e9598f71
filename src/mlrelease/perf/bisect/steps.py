"""Carrying out one bisect step: build and install a side, time the endpoints, or add paired rounds
of one row; each outcome appended to the journal (used by :mod:`~mlrelease.perf.bisect.service`)."""

from __future__ import annotations

import dataclasses
import shutil
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from mlrelease.config import Config
from mlrelease.edges.journal import append_entry
from mlrelease.errors import UserError
from mlrelease.perf import compare, runner
from mlrelease.perf.bisect import envs, facts, plan
from mlrelease.perf.bisect.judging import RowPick
from mlrelease.perf.bisect.paired import StepDesign
from mlrelease.perf.bisect.render import headline
from mlrelease.perf.bisect.state import (
    BisectSnapshot,
    EndpointFacts,
    EndpointRow,
    Endpoints,
    Measure,
    PrepareSide,
    RowTest,
    Side,
    Step,
)
from mlrelease.perf.config import BisectConfig, Profile
from mlrelease.perf.launch import resolve_in
from mlrelease.perf.progress import ProfileBar
from mlrelease.perf.results import RUNS, Results, Row
from mlrelease.perf.stats import round_medians
from mlrelease.perf.verdict import CLOCKS


class Executor:
    """Carries out the planner's steps for one bisect, journalling each outcome."""

    def __init__(
        self,
        config: Config,
        profile_name: str,
        profile: Profile,
        settings: BisectConfig,
        design: StepDesign,
        cache: Path,
        journal: Path,
        console: Console,
        *,
        row: str = "",
    ) -> None:
        self.root = config.root
        self.profile_name = profile_name
        self.profile = profile
        self.settings = settings
        self.design = design
        self.cache = cache
        self.journal = journal
        self.console = console
        self.index = envs.PinIndex(settings.index_url, tuple(settings.extra_index_urls))
        self.row = row
        """The row asked for (``--row``): the endpoints time it alone (else every row of the
        profile); a malformed one, or one naming no model of the profile, is refused here,
        before anything is built."""
        if row:
            self.one_row(row)

    def carry_out(self, step: Step, snap: BisectSnapshot) -> None:
        if isinstance(step, PrepareSide):
            self.prepare(step.side, snap)
        elif isinstance(step, Endpoints):
            self.endpoints(step)
        elif isinstance(step, Measure):
            self.measure(step, snap)

    def _say(self, text: str) -> None:
        self.console.print(escape(text))

    def prepare(self, side: Side, snap: BisectSnapshot) -> None:
        """Build the side's commit (once per commit) and install its environment."""
        started = time.monotonic()
        built = envs.build(self.root, side.commit, self.settings.builder, self.cache)
        if side.commit not in snap.facts.built:
            append_entry(
                self.journal, {"kind": facts.BUILD, "commit": side.commit, "error": built.error}
            )
        error = built.error
        if built.wheel is not None:
            error = self.install(side, built.wheel)[1]
        append_entry(self.journal, {"kind": facts.PREPARED, "side": side.key, "error": error})
        pins = ", ".join(f"{n}=={v}" for n, v in side.pins) or "no pins"
        state = "ready" if not error else f"UNBUILDABLE: {headline(error)}"
        self._say(
            f"  prepared {side.commit[:12]} ({pins}) in {time.monotonic() - started:.1f} s: {state}"
        )

    def install(self, side: Side, wheel: Path) -> tuple[Path | None, str]:
        return envs.install(side, wheel, self.index, self.cache)

    def _build_of(self, name: str, side: Side) -> runner.Build:
        built = envs.build(self.root, side.commit, self.settings.builder, self.cache)
        folder = self.install(side, built.wheel)[0] if built.wheel else None
        if folder is None:
            raise UserError(
                f"perf bisect: the environment of {side.commit[:12]} went missing; run again."
            )
        return runner.Build(
            name, sys.executable, env=(("PYTHONPATH", envs.pythonpath(folder, self.root)),)
        )

    def endpoints(self, step: Endpoints) -> None:
        """Every row of the profile on both sides, interleaved, compared as ``perf compare``."""
        chosen = self.one_row(self.row) if self.row else self.profile
        rounds = max(chosen.rounds, self.design.first)
        # Rounds are added, up to a step's most pairs, while a row is inconclusive: a 5%
        # regression on a busy machine needs more than the first look's rounds to be called,
        # and the more pairs, the nearer its measured ratio (which the blind check projects
        # from) to the truth. The comparison splits its error over the looks, as `perf
        # compare` does.
        last = max(rounds, self.design.max_pairs)
        profile = dataclasses.replace(chosen, rounds=rounds, max_rounds=last)
        self._say(
            f"endpoints: {step.good.commit[:12]} (good) against {step.bad.commit[:12]} (bad), "
            f"{rounds} to {last} rounds each (more while a row is inconclusive)"
        )
        both = self._time(
            profile,
            "endpoints",
            [self._build_of("good", step.good), self._build_of("bad", step.bad)],
        )
        assert profile.threshold is not None
        comparison = compare.compare(
            both["bad"],
            both["good"],
            threshold=profile.threshold,
            alpha=profile.alpha,
            looks=profile.looks if last > rounds else 1,
        )
        rows = []
        for verdict in comparison.verdicts:
            good, bad = both["good"].row(verdict.key), both["bad"].row(verdict.key)
            tests = tuple(
                RowTest(t.clock, t.verdict, t.estimate, t.low, t.high) for t in verdict.tests
            )
            message = verdict.message + _failures(good, bad)
            clock = profile.clock
            rows.append(
                EndpointRow(
                    verdict.key,
                    verdict.kind,
                    message,
                    tests,
                    _medians(good, clock),
                    _medians(bad, clock),
                )
            )
        found = EndpointFacts(tuple(rows), comparison.summary())
        append_entry(self.journal, facts.endpoints_entry(found))
        self._say(f"endpoints: {found.summary}")

    def measure(self, step: Measure, snap: BisectSnapshot) -> None:
        """Add three-way rounds of the bisected row (good side, subject, bad side, the order
        changing round to round) until ``step.pairs`` rounds are measured."""
        pick = plan.pick_row(snap)
        assert isinstance(pick, RowPick)
        trio = (step.reference.key, step.subject.key, step.bad.key)
        have = len(snap.facts.rounds.get(trio, ([], [], []))[0])
        profile = dataclasses.replace(
            self.one_row(pick.row), rounds=step.pairs - have, max_rounds=None
        )
        self._say(f"  {step.label}: rounds {have + 1} to {step.pairs} (good, subject, bad)")
        sides = {"good": step.reference, "subject": step.subject, "bad": step.bad}
        timed = self._time(
            profile,
            "step",
            [self._build_of(name, side) for name, side in sides.items()],
            first_round=have,
        )
        rows = {name: timed[name].row(pick.row) for name in sides}
        entry = {"reference": trio[0], "subject": trio[1]}
        broken = [r for r in rows.values() if r is None or r.status not in RUNS]
        if broken:
            row = next((r for r in broken if r is not None), None)
            why = f"{row.status}: {row.error}" if row else "the row did not run"
            append_entry(self.journal, {**entry, "kind": facts.FAILED, "error": why})
            return
        medians = {n: _medians(r, self.profile.clock).get(pick.clock, []) for n, r in rows.items()}
        if not all(medians.values()):
            why = f"no {pick.clock} clock timings of `{pick.row}` on all three sides"
            append_entry(self.journal, {**entry, "kind": facts.FAILED, "error": why})
            return
        append_entry(
            self.journal,
            {
                **entry,
                "bad_side": trio[2],
                "kind": facts.ROUNDS,
                "good": medians["good"],
                "other": medians["subject"],
                "bad": medians["bad"],
            },
        )

    def one_row(self, key: str) -> Profile:
        """The profile cut to the one row ``key`` (``model/shape/bN/framework``)."""
        parts = key.split("/")
        if len(parts) != 4 or not parts[2].startswith("b") or not parts[2][1:].isdigit():
            raise UserError(
                f"perf bisect --row {key}: a row is MODEL/SHAPE/bBATCH/FRAMEWORK, as the perf "
                "results name it (bert/seq128/b1/pytorch)."
            )
        model, shape, batch, framework = parts
        for ref in self.profile.models:
            spec = resolve_in(self.root, ref, self.profile_name)
            if spec.name != model:
                continue
            _check_row(key, shape, [s.key for s in spec.shapes], framework, self.profile)
            p2 = any(s.key == shape and s.priority > 1 for s in spec.shapes)
            return dataclasses.replace(
                self.profile,
                models=[ref],
                batch_sizes=[int(batch[1:])],
                frameworks=[framework],
                p2_shapes=p2,
            )
        raise UserError(
            f"perf bisect: row `{key}`: no model `{model}` in profile `{self.profile_name}`."
        )

    def _time(
        self, profile: Profile, label: str, builds: list[runner.Build], first_round: int = 0
    ) -> dict[str, Results]:
        work = self.cache / "work" / label
        try:
            return runner.execute(
                self.profile_name,
                profile,
                root=self.root,
                work=work,
                builds=builds,
                progress=ProfileBar(self.console),
                first_round=first_round,
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _check_row(key: str, shape: str, shapes: list[str], framework: str, profile: Profile) -> None:
    """``--row``'s shape must be one of its model's, its framework one of the profile's."""
    if shape not in shapes:
        raise UserError(
            f"perf bisect --row {key}: no shape `{shape}` in its model (its shapes: "
            f"{', '.join(shapes)})."
        )
    if framework not in profile.frameworks:
        raise UserError(
            f"perf bisect --row {key}: framework `{framework}` is not run by the profile (it "
            f"runs {', '.join(profile.frameworks)})."
        )


def _failures(good: Row | None, bad: Row | None) -> str:
    """What kept the row from running on either side: each side's last error line."""
    said = []
    for side, row in (("good", good), ("bad", bad)):
        if row is not None and row.failing:
            lines = [line.strip() for line in row.error.splitlines() if line.strip()]
            said.append(f"{side} side: {row.status}: {lines[-1][:300] if lines else ''}")
    return f" ({'; '.join(said)})" if said else ""


def _medians(row: Row | None, sample_clock: str) -> dict[str, list[float]]:
    """The rounds' medians of ``row`` per clock it has."""
    if row is None:
        return {}
    out = {
        clock: [float(m) for m in round_medians(row.rounds_of(clock, sample_clock))]
        for clock in CLOCKS
    }
    return {clock: medians for clock, medians in out.items() if medians}
