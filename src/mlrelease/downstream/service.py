"""The paired run over every consumer (used by ``mlrelease downstream run`` and the gate), and
what ``downstream run`` and ``downstream report merge`` decide: the run judged and written
(:func:`run_judged`, :func:`merge_judged`).

Consumers run in parallel; each heavy step (an environment build, a test process) holds one of
``jobs`` slots (default: the cores), so the machine runs that many at once. A consumer's result
is cached under (its configuration, the candidate's content hashes, the baseline, the
interpreter): the same question is answered from the cache; a side run is cached under (its
environment, its tests, its selection), so a new candidate re-runs only the candidate side.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import mlrelease
from mlrelease.config import Config
from mlrelease.downstream import (
    envs,
    known,
    matrix,
    pair,
    render,
    runner,
    sources,
    subjects,
    verdicts,
)
from mlrelease.downstream.config import Consumer, DownstreamConfig, package_of
from mlrelease.downstream.results import (
    COMPARED,
    NOT_INSTALLED,
    ConsumerResult,
    Judgement,
    RunResults,
)
from mlrelease.downstream.results import judge as judge_against_known
from mlrelease.downstream.results import merge as merge_runs
from mlrelease.downstream.verdicts import SideRun
from mlrelease.errors import UserError

FORMAT = 3
"""Bumped whenever what a run does changes (cached results of older runs are then ignored)."""
Say = Callable[[str, str], None]
"""Progress: (consumer, what it is doing)."""


@dataclass(frozen=True)
class Request:
    """What ``downstream run`` was asked."""

    candidate: str
    baseline: str = ""
    only: Sequence[str] = ()
    shard: tuple[int, int] | None = None
    jobs: int = 0
    refresh: bool = False


def cache_root(table: DownstreamConfig, root: Path) -> Path:
    """``cache-dir``, else ``$MLRELEASE_CACHE_DIR/downstream``, else the user cache."""
    if table.cache_dir:
        path = Path(table.cache_dir)
        return path if path.is_absolute() else root / path
    base = os.environ.get("MLRELEASE_CACHE_DIR")
    if base:
        return Path(base) / "downstream"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "mlrelease" / "downstream"


def select(
    table: DownstreamConfig, only: Sequence[str], shard: tuple[int, int] | None
) -> list[Consumer]:
    """The consumers of this run: those named (all when none), then this shard's."""
    names = [c.name for c in table.consumers]
    for name in only:
        if name not in names:
            raise UserError(
                f"--consumer {name}: no such consumer in tool.mlrelease.downstream.consumers "
                f"(configured: {', '.join(names) or 'none'})."
            )
    chosen = [c for c in table.consumers if not only or c.name in only]
    if shard is not None:
        mine = set(matrix.shards(chosen, shard[1])[shard[0] - 1])
        chosen = [c for c in chosen if c.name in mine]
    return chosen


def _digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


class _Cache:
    """Results and side runs on disk (JSON, written atomically)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / f"{key[:32]}.json"

    def get(self, kind: str, key: str) -> dict[str, object] | None:
        try:
            data = json.loads(self._path(kind, key).read_text(encoding="utf-8"))
            return data if isinstance(data, dict) and data.get("format") == FORMAT else None
        except (OSError, ValueError):
            return None

    def put(self, kind: str, key: str, data: dict[str, object]) -> None:
        path = self._path(kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{threading.get_ident()}.partial")
        partial.write_text(json.dumps({**data, "format": FORMAT}), encoding="utf-8")
        partial.replace(path)


def _run_key(env: envs.Env, tests: sources.Tests, spec: runner.RunSpec) -> str:
    """A side run's key: its environment, its tests' content and every other input of the run
    (selection, pytest arguments, command, limits, threads, environment variables)."""
    inputs = {k: v for k, v in dataclasses.asdict(spec).items() if k not in ("python", "source")}
    return _digest(env.path.name, tests.digest, inputs, mlrelease.__version__)


LOCATIONS = ("consumers", "cache_dir", "results_dir", "known_failures", "candidate", "baseline")
"""Table keys that are no input of a consumer's result (the candidate and the baseline are in
the key by their identity)."""


def _result_key(table: DownstreamConfig, consumer: Consumer, kept: str, setup: pair.Setup) -> str:
    """A consumer's result key: its configuration, the table's settings, both subjects, the
    interpreter, the threads of its runs, this mlrelease."""
    settings = {k: v for k, v in dataclasses.asdict(table).items() if k not in LOCATIONS}
    sides = (setup.candidate.identity, setup.baseline.identity if setup.baseline else ())
    where = (setup.python_version, setup.threads, mlrelease.__version__)
    return _digest(dataclasses.asdict(consumer), kept, settings, sides, where)


def _check_resolves(
    setup: pair.Setup, store: _Cache, which: str, subject: subjects.Subject
) -> None:
    """A subject that cannot be installed by itself is a usage error, not each consumer's
    verdict (``--baseline 0.0.1``); a success is remembered."""
    spec = envs.EnvSpec(
        python=str(setup.python),
        python_version=setup.python_version,
        requirements=(subject.requirement,),
        index_url=setup.table.index_url,
        find_links=pair.links(setup, subject.find_links),
        identity=subject.identity,
        no_build=(setup.package,),
    )
    key = spec.key()
    if not setup.refresh and store.get("resolved", key) is not None:
        return
    failure = envs.resolve(spec, setup.cache)
    if failure is not None:
        raise UserError(
            f"--{which} {subject.label}: it cannot be installed from {setup.table.index_url}"
            f"{' or find-links' if spec.find_links else ''}, so no consumer can be compared: "
            f"{failure.reason}\nPass a version that exists there (or set "
            f"tool.mlrelease.downstream.{which}); to see it: {failure.reproduce}"
        )
    store.put("resolved", key, {"requirement": subject.requirement})


def _subjects(
    table: DownstreamConfig, root: Path, package: str, request: Request, python: Path, cache: Path
) -> tuple[subjects.Subject, subjects.Subject]:
    channel = table.candidate_index
    candidate = subjects.candidate(
        request.candidate,
        package,
        root=root,
        index_url=table.index_url,
        channel=channel,
        python=python,
        cache=cache,
    )
    version = request.baseline or table.baseline
    if not version:
        version = subjects.previous_release(package, candidate.version, table.index_url)
    return candidate, subjects.from_version(version, package, table.index_url)


def run(
    table: DownstreamConfig, root: Path, package: str, request: Request, say: Say
) -> RunResults:
    """Every selected consumer, paired; the results in configured order."""
    started = time.perf_counter()
    chosen = select(table, request.only, request.shard)
    python = runner.interpreter(table.python)
    cache = cache_root(table, root)
    store = _Cache(cache)
    candidate, baseline = _subjects(table, root, package, request, python, cache)
    jobs = request.jobs or table.jobs or os.cpu_count() or 1
    setup = pair.Setup(
        table=table,
        root=root,
        package=package,
        candidate=candidate,
        baseline=baseline,
        python=python,
        python_version=runner.python_version(python),
        cache=cache,
        slots=threading.BoundedSemaphore(jobs),
        threads=1 if jobs > 1 else 0,
        refresh=request.refresh,
        rounds=verdicts.rounds(table.confidence, table.reruns),
        run_cache=lambda key: _side(store.get("runs", key)),
        save_run=lambda key, side: store.put("runs", key, side.to_dict()),
    )
    _check_resolves(setup, store, "baseline", baseline)
    _check_resolves(setup, store, "candidate", candidate)

    def one(consumer: Consumer) -> ConsumerResult:
        # Tests kept in the project are part of the question: their content is in the key.
        kept = sources.project(consumer, root).digest if consumer.source == "project" else ""
        key = _result_key(table, consumer, kept, setup)
        cached = None if request.refresh else store.get("results", key)
        if cached is not None:
            say(consumer.name, "answered from the results cache")
            return dataclasses.replace(ConsumerResult.from_dict(cached), cached=True)
        result = pair.run(setup, consumer, lambda text: say(consumer.name, text), _run_key)
        if result.status in (COMPARED, NOT_INSTALLED):
            store.put("results", key, result.to_dict())
        say(consumer.name, "done")
        return result

    with ThreadPoolExecutor(max_workers=max(1, len(chosen))) as pool:
        results = list(pool.map(one, chosen))
    names = [c.name for c in table.consumers if not request.only or c.name in request.only]
    return RunResults(
        package=package,
        candidate=candidate.label,
        candidate_identity=list(candidate.identity),
        baseline=baseline.label,
        python=setup.python_version,
        consumers=names,
        results=results,
        shard=request.shard,
        seconds=time.perf_counter() - started,
    )


def _side(data: dict[str, object] | None) -> SideRun | None:
    return None if data is None else SideRun.from_dict(data)


def results_name(shard: tuple[int, int] | None) -> str:
    """``results.json``, or ``results-2-of-3.json`` for a shard."""
    return "results.json" if shard is None else f"results-{shard[0]}-of-{shard[1]}.json"


def read(path: Path) -> RunResults:
    """A results file, with an error naming it when it is missing or foreign."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(
            f"{path}: no such results file; run `mlrelease downstream run` first."
        ) from None
    except ValueError as exc:
        raise UserError(f"{path}: not a results file ({exc}).") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: not a results file.")
    return RunResults.from_dict(data, source=str(path))


def judge(config: Config, table: DownstreamConfig, run: RunResults) -> Judgement:
    """The run judged today against the known-downstream-failures list (``known-failures``):
    what ``downstream run``, ``downstream report merge`` and the gate decide."""
    entries = known.load(config.path(table.known_failures))
    return judge_against_known(run, entries, dt.date.today())


def write(run: RunResults, judgement: Judgement, folder: Path) -> list[Path]:
    """The results file (a shard's own name), results.md and junit.xml in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / results_name(run.shard)
    data.write_text(json.dumps(run.to_dict(), indent=2) + "\n", encoding="utf-8")
    page = folder / "results.md"
    page.write_text(render.page(run, judgement), encoding="utf-8")
    junit = folder / "junit.xml"
    junit.write_text(render.junit(run, judgement), encoding="utf-8")
    return [data, page, junit]


@dataclass(frozen=True)
class Judged:
    """A run judged and written: what ``downstream run`` and ``downstream report merge`` print."""

    run: RunResults
    judgement: Judgement
    paths: tuple[Path, ...]
    """The results file, results.md and junit.xml written."""


def run_judged(
    config: Config, table: DownstreamConfig, request: Request, say: Say, folder: Path
) -> Judged:
    """``downstream run``: the selected consumers run paired, judged, written into ``folder``."""
    found = run(table, config.root, package_of(config), request, say)
    return _judged(config, table, found, folder)


def merge_judged(
    config: Config, table: DownstreamConfig, paths: Sequence[Path], folder: Path
) -> Judged:
    """``downstream report merge``: the shards' results files joined into one run, judged,
    written into ``folder``."""
    return _judged(config, table, merge_runs([read(p) for p in paths]), folder)


def _judged(config: Config, table: DownstreamConfig, found: RunResults, folder: Path) -> Judged:
    judgement = judge(config, table, found)
    return Judged(found, judgement, tuple(write(found, judgement, folder)))
