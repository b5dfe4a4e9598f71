"""``mlrelease perf bisect``: the executor of a bisect, over its pure planner.

Each turn reads the journal into the facts (:mod:`~mlrelease.perf.bisect.facts`), asks the planner
(:mod:`~mlrelease.perf.bisect.plan`) for the next step, carries it out and journals what it found: a
build and an install (:mod:`~mlrelease.perf.bisect.envs`), the endpoints' comparison, or more
rounds of one row, timed by the perf runner with the sides interleaved (a step's subject between
the good and the bad side: :func:`mlrelease.perf.runner.execute`). A killed run resumes from its
journal; the answer is written as ``bisect.json`` and ``bisect.md`` under the perf results
folder."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.console import Console

from mlrelease.config import Config
from mlrelease.edges import faults, git
from mlrelease.edges.journal import read_entries
from mlrelease.errors import ConfigError
from mlrelease.perf import service as perf_service
from mlrelease.perf.bisect import plan, reader, render
from mlrelease.perf.bisect.facts import replay
from mlrelease.perf.bisect.paired import StepDesign, min_pairs
from mlrelease.perf.bisect.state import BisectAnswer, BisectHistory, BisectSnapshot
from mlrelease.perf.bisect.steps import Executor
from mlrelease.perf.config import BisectConfig, PerfConfig, Profile

CACHE = "mlrelease/bisect"
"""Below the clone's git folder: journals, wheels built with ``--build pip``, environments."""


@dataclass(frozen=True)
class BisectRequest:
    """What the command line asks (the typed boundary below argparse)."""

    good: str
    bad: str
    profile: str
    row: str = ""
    restart: bool = False
    confidence: float | None = None
    max_pairs: int | None = None
    looks: int | None = None
    builder: Literal["reference", "pip"] | None = None


@dataclass
class BisectOutcome:
    """The answer, where it was written, and how the run went."""

    answer: BisectAnswer
    document: dict[str, object]
    paths: dict[str, Path]
    resumed: int
    seconds: float


def settings_of(config: Config, request: BisectRequest) -> BisectConfig:
    """``[tool.mlrelease.perf.bisect]`` with the command line's overrides, checked."""
    table = config.table(PerfConfig).bisect
    settings = dataclasses.replace(
        table,
        confidence=table.confidence if request.confidence is None else request.confidence,
        max_pairs=table.max_pairs if request.max_pairs is None else request.max_pairs,
        looks=table.looks if request.looks is None else request.looks,
        builder=table.builder if request.builder is None else request.builder,
    )
    source = str(config.pyproject_path)
    prefix = "tool.mlrelease.perf.bisect"
    if not 0 < settings.confidence < 1:
        raise ConfigError(
            f"{prefix}.confidence (or --confidence)",
            "a probability between 0 and 1 (0.95)",
            str(settings.confidence),
            source=source,
        )
    for key, value, low in (("max-pairs", settings.max_pairs, 4), ("looks", settings.looks, 1)):
        if value < low:
            raise ConfigError(
                f"{prefix}.{key} (or --{key})", f"an integer >= {low}", str(value), source=source
            )
    return settings


def check_design(design: StepDesign, settings: BisectConfig, source: str) -> None:
    """A step must be able to decide at all: its bounds must exist at ``max-pairs``."""
    fewest = min_pairs(design.tail)
    if fewest > settings.max_pairs:
        raise ConfigError(
            "tool.mlrelease.perf.bisect.max-pairs (or --max-pairs)",
            f"at least {fewest}: the fewest pairs whose bounds exist at one-sided error "
            f"{design.tail:.2g} (confidence {settings.confidence:g} over {design.steps} steps "
            f"and {design.looks} looks)",
            str(settings.max_pairs),
            source=source,
            hint="Raise max-pairs, or lower the confidence or the looks.",
        )


def run(config: Config, request: BisectRequest, *, console: Console) -> BisectOutcome:
    """Bisect ``request``: every step until the answer, journalled; the answer written."""
    started = time.monotonic()
    settings = settings_of(config, request)
    profile = perf_service.profile_of(config, request.profile)
    history = reader.read(config.root, request.good, request.bad, settings)
    design = plan.design_for(history, settings.confidence, settings.max_pairs, settings.looks)
    check_design(design, settings, str(config.pyproject_path))
    cache = git.git_dir(config.root) / CACHE
    journal = cache / f"{_key(history, request, profile, design, settings)}.jsonl"
    executor = Executor(
        config, request.profile, profile, settings, design, cache, journal, console, row=request.row
    )  # a malformed --row, or one naming no model of the profile, is refused here
    if request.restart:
        journal.unlink(missing_ok=True)
    entries = read_entries(journal)
    two_way = replay(entries).two_way
    render.header(console, history, request.profile, design, len(entries), journal, two_way)
    while True:
        snap = BisectSnapshot(history, replay(read_entries(journal)), design, row=request.row)
        step = plan.next_step(snap)
        if isinstance(step, BisectAnswer):
            break
        executor.carry_out(step, snap)
        faults.fault_point(f"bisect:after:{type(step).__name__.lower()}")
    document = render.document(step, history, request.profile, design, settings)
    folder = config.path(config.table(PerfConfig).results_dir) / "bisect"
    paths = render.write(document, folder / f"{history.good[:12]}-{history.bad[:12]}")
    return BisectOutcome(step, document, paths, len(entries), time.monotonic() - started)


def _key(
    history: BisectHistory,
    request: BisectRequest,
    profile: Profile,
    design: StepDesign,
    settings: BisectConfig,
) -> str:
    """The journal's name: the same question (sides, row, profile, design) resumes it."""
    data = {
        "good": history.good,
        "bad": history.bad,
        "profile": request.profile,
        "settings": dataclasses.asdict(profile),
        "row": request.row,
        "design": dataclasses.asdict(design),
        "bisect": dataclasses.asdict(settings),
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
