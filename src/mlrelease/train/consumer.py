"""A train member tested as a consumer of its upstream's candidate before ``train bind`` binds
it (train invariant T6), through the downstream feature's paired run
(:func:`mlrelease.downstream.pair.run`).

The member's own tests (``[tool.mlrelease.train.tests]``, at the candidate's commit: bind runs
there, on a clean tree) run in two isolated environments that differ only by the upstream:

- the candidate side: the upstream candidate's wheel that the member's record names (the one
  this interpreter installs), downloaded from the train's staging index and checked against
  the record's SHA-256, never chosen by a version;
- the baseline side: the upstream's previous final release on the train's release index, its
  wheel downloaded from there (SHA-256 checked against the index), installed over the member's
  pin on the candidate (uv's ``--override``: a member built against 2.5.0 pins it).

On both sides the member is installed from its own wheel (the bytes being bound), its other
upstreams from their recorded candidates' files. With no previous release (a train's first), or
one that cannot be installed with the member, the candidate side runs alone and the record says
that nothing could be compared; :mod:`.tested` reads the result into the record.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from mlrelease.config import Config
from mlrelease.downstream import pair, runner, subjects, verdicts
from mlrelease.downstream import service as downstream_service
from mlrelease.downstream.config import Consumer, DownstreamConfig
from mlrelease.downstream.results import NOT_INSTALLED
from mlrelease.edges import index as edge_index
from mlrelease.edges.digests import sha256
from mlrelease.errors import UserError
from mlrelease.release.promotion.manifest import Entry, Upstream, Verdict
from mlrelease.train import tested
from mlrelease.train.config import MemberTests, TrainConfig
from mlrelease.train.declaration import Member
from mlrelease.train.world import TrainWorld

Say = Callable[[str], None]
NO_COMPARISON = "no regression comparison was possible"


@dataclass(frozen=True)
class _Run:
    """What the runs of one member's tests share, one run per upstream."""

    root: Path
    table: MemberTests
    member: Member
    world: TrainWorld
    python: Path
    python_version: str
    accepted: tuple[str, ...]
    cache: Path
    say: Say


@dataclass(frozen=True)
class Fetched:
    """A wheel ready to install (``path``), or why there is none."""

    path: Path | None
    entry: Entry | None
    why: str = ""


def with_tests(
    config: Config,
    world: TrainWorld,
    member: Member,
    records: Sequence[Upstream],
    files: Sequence[Path],
    say: Say,
) -> tuple[Upstream, ...]:
    """``records``, each with the member's tests (its built ``files``) run against the
    upstream candidate it names (:attr:`Upstream.tests`)."""
    if not records:
        return ()
    table = config.table(TrainConfig).tests
    python = runner.interpreter(table.python)
    run = _Run(
        root=config.root,
        table=table,
        member=member,
        world=world,
        python=python,
        python_version=runner.python_version(python),
        accepted=tuple(subjects.interpreter_tags(python)),
        cache=downstream_service.cache_root(DownstreamConfig(), config.root),
        say=say,
    )
    wheels = {r.project: _upstream_wheel(run, r) for r in records}
    mine = _member_wheel(run, files)
    return tuple(replace(r, tests=_one(run, r, mine, wheels)) for r in records)


def _upstream_wheel(run: _Run, record: Upstream) -> Fetched:
    """The wheel of ``record``'s candidate this interpreter installs, from the staging index,
    its bytes the recorded SHA-256."""
    entries = {e.name: e for e in record.files}
    chosen = subjects.best_wheel(entries, run.accepted)
    if chosen is None:
        return Fetched(
            None,
            None,
            f"no wheel of {record.project}'s {record.rc_tag} installs on Python "
            f"{run.python_version} ({run.python}); its files: {', '.join(sorted(entries))}",
        )
    entry = entries[chosen]
    staged = run.world.of(run.world.train.member(record.project)).staged
    listed = next((f for f in (staged.files if staged else ()) if f.filename == chosen), None)
    if staged is None or staged.error or listed is None or listed.sha256 != entry.sha256:
        where = staged.url if staged else run.world.train.staging_index
        found = staged.error if staged and staged.error else "not the recorded file"
        why = f"the staging index ({where}) does not serve {chosen} (sha256 {entry.sha256}): "
        return Fetched(None, entry, why + found)
    try:
        folder = run.cache / "train" / "upstream" / entry.sha256
        return Fetched(edge_index.download(replace(listed, sha256=entry.sha256), folder), entry)
    except UserError as exc:
        return Fetched(None, entry, str(exc))


def _member_wheel(run: _Run, files: Sequence[Path]) -> Fetched:
    """The member's own wheel this interpreter installs, copied under its SHA-256 (the
    environments are keyed by what they install)."""
    wheels = {p.name: p for p in files if p.name.endswith(".whl")}
    chosen = subjects.best_wheel(wheels, run.accepted)
    if chosen is None:
        shown = ", ".join(p.name for p in files) or "none"
        why = (
            f"no wheel of {run.member.name} among the candidate's files ({shown}) installs on "
            f"Python {run.python_version} ({run.python}): build one"
        )
        return Fetched(None, None, why)
    digest = sha256(wheels[chosen])
    target = run.cache / "train" / "member" / digest / chosen
    if not target.is_file() or sha256(target) != digest:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".partial-{os.getpid()}-{threading.get_ident()}")
        shutil.copyfile(wheels[chosen], partial)
        partial.replace(target)
    entry = Entry(chosen, target.stat().st_size, sha256(target))
    if entry.sha256 != digest:
        return Fetched(None, entry, f"{chosen} changed while it was read; build it again")
    return Fetched(target, entry)


def _baseline(run: _Run, record: Upstream) -> tuple[subjects.Subject | None, str]:
    """The upstream's previous final release on the train's release index, as files; or
    None and why nothing can be compared."""
    index = edge_index.simple_url(run.world.train.release_index)
    try:
        version = subjects.newest_before(record.project, record.version, index)
    except UserError as exc:
        return None, f"{NO_COMPARISON}: the release index {index} could not be read ({exc})"
    if version is None:
        return None, (
            f"{NO_COMPARISON}: {record.project} has no final release before {record.version} "
            f"on the train's release index ({index}), the train's first; the tests ran against "
            "the candidate alone, and every failure counts"
        )
    folder = run.cache / "train" / "baseline"
    try:
        found = subjects.from_channel(version, record.project, index, run.python, folder)
    except UserError as exc:
        why = f"{record.project} {version}, its previous release, cannot be taken from {index}"
        return None, f"{NO_COMPARISON}: {why} ({exc})"
    name, _, digest = found.identity[0].partition(" ")
    return replace(found, label=f"{record.project} {version} ({name}, sha256 {digest})"), ""


def _setup(
    run: _Run, package: str, candidate: subjects.Subject, baseline: subjects.Subject | None
) -> pair.Setup:
    jobs = os.cpu_count() or 1
    table = DownstreamConfig(
        package=package,
        index_url=run.table.index_url,
        find_links=list(run.table.find_links),
        python=run.table.python,
        confidence=run.table.confidence,
        memory_limit_mb=run.table.memory_limit_mb,
    )
    return pair.Setup(
        table=table,
        root=run.root,
        package=package,
        candidate=candidate,
        baseline=baseline,
        python=run.python,
        python_version=run.python_version,
        cache=run.cache,
        slots=threading.BoundedSemaphore(jobs),
        threads=1 if jobs > 1 else 0,
        rounds=verdicts.rounds(run.table.confidence),
        override=True,
    )


def _no_key(*_: object) -> str:
    """Side runs are not cached: every binding runs the tests it records."""
    return ""


def _consumer(run: _Run, wheel: Path, others: dict[str, Path]) -> Consumer:
    """The member as the downstream feature's consumer: its wheel, its tests folder, its
    other upstreams' candidate files (each by direct reference: those bytes, no other)."""
    pinned = [f"{project} @ {path.as_uri()}" for project, path in others.items()]
    return Consumer(
        name=run.member.key,
        requirement=f"{run.member.name} @ {wheel.as_uri()}",
        tests_dir=run.table.folder,
        tests=list(run.table.select),
        pytest_args=list(run.table.pytest_args),
        requirements=[*pinned, *run.table.requirements],
        time_budget_s=run.table.time_budget_s,
    )


def _one(run: _Run, record: Upstream, mine: Fetched, wheels: dict[str, Fetched]) -> Verdict:
    """The member's tests against ``record``'s candidate (and the upstream's previous release)."""
    fetched = wheels[record.project]
    installed = tested.Installed(
        upstream_file=fetched.entry.name if fetched.entry else "",
        upstream_sha256=fetched.entry.sha256 if fetched.entry else "",
        member_file=mine.entry.name if mine.entry else "",
        member_sha256=mine.entry.sha256 if mine.entry else "",
        python=run.python_version,
        folder=run.table.folder,
    )
    folder = run.root / run.table.folder
    why = fetched.why or mine.why or next((f.why for f in wheels.values() if f.why), "")
    if not why and not folder.is_dir():
        why = (
            f"{run.member.name} has no tests folder {run.table.folder!r} at the candidate's "
            f"commit ({folder}; [tool.mlrelease.train.tests] folder)"
        )
    if why or fetched.path is None or mine.path is None:
        return tested.not_run(installed, why)
    candidate = subjects.from_files(fetched.path, record.project)
    baseline, note = _baseline(run, record)
    installed = replace(installed, baseline=baseline.label if baseline else "", note=note)
    others = {p: f.path for p, f in wheels.items() if p != record.project and f.path}
    consumer = _consumer(run, mine.path, others)
    setup = _setup(run, record.project, candidate, baseline)

    def say(text: str) -> None:
        run.say(f"{run.member.name} against {record.project} {record.rc_tag}: {text}")

    result = pair.run(setup, consumer, say, _no_key)
    if baseline and result.status == NOT_INSTALLED and set(result.install) == {"baseline"}:
        why = result.unverified.get("baseline", {}).get("why", "")
        cannot = f"{baseline.label} cannot be installed with {run.member.name} ({why})"
        note = f"{NO_COMPARISON}: {cannot}; every failure counts"
        installed = replace(installed, baseline="", note=note)
        result = pair.run(replace(setup, baseline=None), consumer, say, _no_key)
    return tested.verdict(installed, result)
