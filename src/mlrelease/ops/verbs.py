"""What each ``mlrelease ops`` command decides, without the command line: one call per command
(:func:`index`, :func:`run`, :func:`diff`, :func:`cases`), given the configuration and the
command's :class:`~mlrelease.ops.arguments.OpsArguments`, returning what the command prints.

``ops index`` runs the conformance cases (or merges CI shards' results, or runs the declared
source), writes the run's results into the build folder, builds the fresh index and page, and
under ``--check`` decides whether the committed ones are current and no known failure expired
(:mod:`mlrelease.ops.staleness`); with ``--diff`` it compares the fresh index with a previous
one. The command prints the decision and shows, writes or checks the generated files
(:mod:`mlrelease.edges.files`). A run shows its progress through a :class:`RunProgress` the
caller gives (the console's: :class:`mlrelease.ops.progress.ConsoleProgress`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mlrelease.config import Config
from mlrelease.edges import files
from mlrelease.errors import UserError
from mlrelease.ops import diff as diff_mod
from mlrelease.ops import index as index_mod
from mlrelease.ops import policy as policy_mod
from mlrelease.ops import service, source_index, staleness
from mlrelease.ops.arguments import OpsArguments
from mlrelease.ops.cases import Case
from mlrelease.ops.cases import shard as take_shard
from mlrelease.ops.config import BackendConfig, OpsConfig
from mlrelease.ops.staleness import Staleness
from mlrelease.ops.verdicts import CaseResult


class RunProgress(Protocol):
    """How a conformance run shows itself while it runs."""

    def loading(self) -> AbstractContextManager[Any]:
        """Around loading (maybe generating) the cases."""

    def generating(self, path: Path) -> None:
        """The onnx node cases are being generated into the cache at ``path``."""

    def running(self) -> AbstractContextManager[Any]:
        """Around running the cases."""

    def start(self, backends: list[BackendConfig], cases: int) -> None:
        """The run starts: ``cases`` cases on each of ``backends``."""

    def result(self, result: CaseResult) -> None:
        """One case finished on one backend."""


class Unwatched:
    """A run nobody watches."""

    def loading(self) -> AbstractContextManager[Any]:
        return contextlib.nullcontext()

    def generating(self, path: Path) -> None:
        pass

    def running(self) -> AbstractContextManager[Any]:
        return contextlib.nullcontext()

    def start(self, backends: list[BackendConfig], cases: int) -> None:
        pass

    def result(self, result: CaseResult) -> None:
        pass


@dataclass(frozen=True)
class RunSummary:
    """A conformance run as the commands show it."""

    run: service.ConformanceRun
    borderline: tuple[CaseResult, ...]
    """Cases within 2x of their tolerance (a verdict another CPU may flip)."""
    unneeded: tuple[str, ...]
    """One line per known failure to remove: its entry and why."""
    skipped: tuple[tuple[str, str], ...] = ()
    """Backends this run could not use here, with why (none for results read from files)."""


@dataclass(frozen=True)
class Since:
    """An index compared with a previous one (``ops index --diff``, ``ops diff``)."""

    spec: str
    """The previous index as it was named: a file, a git ref or ``auto``."""
    label: str | None = None
    """Where the previous index was found; None: there is none."""
    lines: tuple[str, ...] = ()
    failing: bool = False
    """A case regressed unlisted, or (declared source) an operator is gone undecided."""
    advice: str = ""
    """What to do about what failed, when the failure needs more than its lines."""

    @property
    def exit_code(self) -> int:
        return 1 if self.failing else 0


@dataclass(frozen=True)
class IndexOutcome:
    """The decision of one ``ops index``: what it prints, the files it shows, writes or checks
    (:attr:`generated`), and its exit code."""

    ops: OpsConfig
    summary: RunSummary | None = None
    """The conformance run; None when a declared source gives the index."""
    operators: int = 0
    """A declared source: the operators of its fresh index."""
    bad_rows: tuple[str, ...] = ()
    """A declared source's rows that are not valid: nothing is shown or written."""
    generated: tuple[files.Generated, ...] = ()
    """The fresh index and page, in the command's mode (none under a conformance ``--check``,
    which :attr:`staleness` decides)."""
    staleness: Staleness | None = None
    expired: tuple[str, ...] = ()
    """Known failures past their expiry date (dry run and ``--execute``)."""
    since: Since | None = None

    @property
    def exit_code(self) -> int:
        """1 on a bad row, a stale or expired ``--check`` or a failing ``--diff``."""
        stale = self.staleness is not None and not self.staleness.ok
        failing = self.since is not None and self.since.failing
        return 1 if self.bad_rows or stale or failing else 0


@dataclass(frozen=True)
class RunOutcome:
    """The decision of one ``ops run``: the run, and the results file it wrote."""

    summary: RunSummary
    output: Path


def _setup(config: Config) -> tuple[OpsConfig, policy_mod.Policy]:
    ops = service.ops_config(config)
    return ops, policy_mod.load(config.root, ops.tolerances, ops.known_failures)


def _conformance(
    config: Config,
    ops: OpsConfig,
    policy: policy_mod.Policy,
    arguments: OpsArguments,
    progress: RunProgress,
) -> service.ConformanceRun:
    """The configured cases (this shard's) run on the configured backends (or those asked)."""
    with progress.loading():
        cases = service.load_cases(
            config, ops, select=arguments.select, on_generate=progress.generating
        )
    if arguments.shard:
        cases = take_shard(cases, *arguments.shard)
    with progress.running():
        return service.run(
            config,
            ops,
            cases,
            policy=policy,
            jobs=arguments.jobs or service.default_jobs(ops),
            only_backends=arguments.backends,
            on_start=progress.start,
            on_result=progress.result,
        )


def _summary(
    run: service.ConformanceRun, policy: policy_mod.Policy, path: str, *, here: bool = True
) -> RunSummary:
    """``run`` as shown; ``here``: it ran here (not read from results files)."""
    rows = ((r.case, r.backend, r.verdict.ok) for r in run.results)
    unneeded = [f"{e.label(path)}: {why}" for e, why in policy.unneeded(rows, set(run.measured))]
    skipped = tuple(run.skipped.items()) if here else ()
    return RunSummary(run, tuple(service.borderline(run.results)), tuple(unneeded), skipped)


def index(
    config: Config, arguments: OpsArguments, progress: RunProgress | None = None
) -> IndexOutcome:
    """``ops index``: the fresh index and page and, as asked, whether the committed ones are
    current (``--check``) and what changed since a previous index (``--diff``)."""
    ops, policy = _setup(config)
    if ops.source:
        return _from_source(config, ops, arguments)
    if arguments.from_results:
        outcome = service.read_results(arguments.from_results)
    else:
        outcome = _conformance(config, ops, policy, arguments, progress or Unwatched())
    service.write_results(config.path(service.WORK_DIR) / "results.json", outcome)
    summary = _summary(outcome, policy, ops.known_failures, here=not arguments.from_results)
    checking = arguments.mode is files.Mode.CHECK
    try:
        committed, committed_error = service.read_committed(config, ops), ""
    except UserError as exc:
        if not checking:
            raise
        committed, committed_error = None, str(exc)
    fresh = service.build_index(outcome, policy, committed, ops.domains)
    since = _since(config, ops, policy, arguments.diff, fresh) if arguments.diff else None
    if checking:
        found = staleness.check(config, ops, policy, outcome, fresh, committed, committed_error)
        return IndexOutcome(ops, summary, staleness=found, since=since)
    generated = (
        files.Generated(config.path(ops.index), index_mod.dumps(fresh), ops.index),
        files.Generated(config.path(ops.page), service.render_page(config, ops, fresh), ops.page),
    )
    expired = tuple(staleness.expired(policy, ops.known_failures))
    return IndexOutcome(ops, summary, generated=generated, expired=expired, since=since)


def _from_source(config: Config, ops: OpsConfig, arguments: OpsArguments) -> IndexOutcome:
    """``ops index`` of a declared source: its fresh index and page, never with a bad row."""
    if arguments.from_results:
        raise UserError(
            "--from-results: the index comes from [tool.mlrelease.ops] source "
            f"({ops.source}), not from conformance results; drop the option."
        )
    fresh = source_index.run(config, ops)
    if fresh.problems:
        return IndexOutcome(ops, bad_rows=tuple(fresh.problems))
    since = _source_since(config, ops, arguments.diff, fresh.index) if arguments.diff else None
    return IndexOutcome(
        ops,
        operators=len(fresh.index["operators"]),
        generated=tuple(fresh.generated(config, ops)),
        since=since,
    )


def run(config: Config, arguments: OpsArguments, progress: RunProgress | None = None) -> RunOutcome:
    """``ops run``: the cases (a shard of them) run, their results written as JSON."""
    ops, policy = _setup(config)
    outcome = _conformance(config, ops, policy, arguments, progress or Unwatched())
    shard = arguments.shard
    output = arguments.output or config.path(service.WORK_DIR) / (
        f"results-{shard[0]}-of-{shard[1]}.json" if shard else "results.json"
    )
    service.write_results(output, outcome)
    return RunOutcome(_summary(outcome, policy, ops.known_failures), output)


def diff(config: Config, arguments: OpsArguments) -> Since:
    """``ops diff OLD [NEW]``: index NEW (default: the committed one) against OLD."""
    ops, policy = _setup(config)
    if ops.source:
        new = source_index.read(config, arguments.new, ops) if arguments.new else None
        new = new if new is not None else source_index.committed(config, ops)
        if new is None:
            raise UserError(f"{ops.index} does not exist; run `{ops.regenerate_command}` first.")
        return _source_since(config, ops, arguments.old, new)
    if arguments.new:
        found = diff_mod.load_previous(config.root, arguments.new, ops.index, "0", config.names)
        assert found is not None
        fresh = found[1]
    else:
        fresh = service.read_committed(config, ops) or {}
        if not fresh:
            raise UserError(f"{ops.index} does not exist; run `{ops.regenerate_command}` first.")
    return _since(config, ops, policy, arguments.old, fresh)


def cases(config: Config, arguments: OpsArguments) -> Sequence[Case]:
    """``ops cases``: the configured cases (those selected)."""
    ops, _ = _setup(config)
    return service.load_cases(config, ops, select=arguments.select)


def _since(
    config: Config, ops: OpsConfig, policy: policy_mod.Policy, spec: str, new: dict[str, Any]
) -> Since:
    """The conformance index ``new`` against the one ``spec`` names: a case that passed there
    and fails now, unlisted, fails."""
    previous = diff_mod.load_previous(config.root, spec, ops.index, config.version, config.names)
    if previous is None:
        return Since(spec)
    label, old = previous
    changes = diff_mod.diff(old, new, lambda c, b: policy.known(c, b) is not None)
    return Since(spec, label, tuple(changes.lines()), bool(changes.regressions))


def _source_since(config: Config, ops: OpsConfig, spec: str, new: dict[str, Any]) -> Since:
    """A declared source's index ``new`` against the one ``spec`` names: an operator gone
    without a ``dropped`` decision fails."""
    previous = diff_mod.load_previous(
        config.root, spec, ops.index, config.version, config.names, loads=source_index.loads
    )
    if previous is None:
        return Since(spec)
    label, old = previous
    changes = source_index.diff(old, new)
    gone = source_index.unwaived(changes, ops)
    advice = source_index.removal_message(gone, label) if gone else ""
    return Since(spec, label, tuple(changes.lines()), bool(gone), advice)
