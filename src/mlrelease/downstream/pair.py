"""One consumer's paired run: two environments, the same tests on both, re-runs, verdicts.

Order (each step needs the one before): the baseline environment (it fixes the consumer's
version when the requirement is not pinned), the consumer's tests (the sdist of that version),
the candidate environment (that version pinned, the baseline's resolution preferred), the
exact-bytes check, both side runs at once, then rounds of re-runs of every difference on both
sides (adaptive: a test that flipped leaves the rounds, it is ``spurious``), as many rounds as
the configured confidence asks. A side whose tests did not run (or whose environment could not
be built) marks the consumer not verified there, with why and the command to reproduce it.
Heavy steps (an environment build, a test process) each hold one of the run's ``jobs`` slots.

Without a baseline (a project's first release: nothing to compare with) the candidate side
runs alone: every test is ``new`` to the comparison, with its outcome on the candidate, and
no regression can be told from a test that always failed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from mlrelease.downstream import envs, runner, sources, verdicts
from mlrelease.downstream.config import Consumer, DownstreamConfig
from mlrelease.downstream.results import COMPARED, ERROR, NOT_INSTALLED, ConsumerResult
from mlrelease.downstream.subjects import Subject, exact_bytes
from mlrelease.downstream.verdicts import CaseVerdict, SideRun
from mlrelease.errors import UserError

Say = Callable[[str], None]
MAX_NODEIDS = 500
"""More differences than this are re-run as the whole selection (a command line has limits)."""


@dataclass(frozen=True)
class Setup:
    """What every consumer of a run shares."""

    table: DownstreamConfig
    root: Path
    package: str
    candidate: Subject
    baseline: Subject | None
    """None: the candidate side alone (see the module docstring)."""
    python: Path
    python_version: str
    cache: Path
    slots: AbstractContextManager[object]
    """Held around each heavy step (a semaphore of ``jobs``)."""
    threads: int = 0
    refresh: bool = False
    rounds: int = 1
    """Re-run rounds a difference needs (:func:`verdicts.rounds` of the confidence)."""
    run_cache: Callable[[str], SideRun | None] = lambda key: None
    save_run: Callable[[str, SideRun], None] = lambda key, run: None
    override: bool = False
    """Install each side's version of the project under test even where the consumer pins
    another (uv's ``--override``): a train member pins the upstream it was built against, and
    its baseline side is that member with the upstream's previous release."""


def links(setup: Setup, extra: Sequence[str]) -> tuple[str, ...]:
    out = []
    for link in [*setup.table.find_links, *extra]:
        is_url = "://" in link
        out.append(link if is_url or Path(link).is_absolute() else str(setup.root / link))
    return tuple(out)


def env_spec(
    setup: Setup, consumer: Consumer, subject: Subject, install: str, prefer: Sequence[str] = ()
) -> envs.EnvSpec:
    """What one side's environment holds: the subject, the consumer, its extras, pytest."""
    requirements = [subject.requirement, install, *consumer.requirements]
    if not consumer.command:
        requirements.append("pytest")
    return envs.EnvSpec(
        python=str(setup.python),
        python_version=setup.python_version,
        requirements=tuple(r for r in requirements if r),
        index_url=setup.table.index_url,
        extra_index_urls=tuple(consumer.index_urls),
        find_links=links(setup, [*consumer.find_links, *subject.find_links]),
        identity=subject.identity,
        no_build=(canonicalize_name(setup.package),),
        prefer=tuple(prefer),
        overrides=(subject.requirement,) if setup.override else (),
    )


def changes(before: dict[str, str], after: dict[str, str], package: str) -> list[str]:
    """Dependencies the candidate side resolved differently (the project itself left out)."""
    skip = canonicalize_name(package)
    out = []
    for name in sorted({*before, *after} - {skip}):
        a, b = before.get(name), after.get(name)
        if a != b:
            out.append(f"{name} {a or '(absent)'} -> {b or '(absent)'}")
    return out


def _spec(setup: Setup, consumer: Consumer, env: envs.Env, tests: sources.Tests) -> runner.RunSpec:
    return runner.RunSpec(
        python=env.python,
        source=tests.path,
        selection=tuple(consumer.selection),
        pytest_args=tuple(consumer.pytest_args),
        command=tuple(consumer.command),
        time_budget_s=consumer.time_budget_s,
        memory_limit_mb=memory_limit(setup.table, consumer),
        threads=setup.threads,
        extra_env=dict(consumer.env),
    )


def memory_limit(table: DownstreamConfig, consumer: Consumer) -> int:
    """The consumer's own ``memory-limit-mb``, else the table's (0: none)."""
    return table.memory_limit_mb if consumer.memory_limit_mb is None else consumer.memory_limit_mb


Pair = tuple[SideRun, SideRun]


def _both(
    setup: Setup,
    specs: tuple[runner.RunSpec, runner.RunSpec],
    keys: tuple[str, str] | None,
    only: Sequence[str] | None,
) -> Pair:
    """The two sides at once (each in a slot); ``keys``: reuse and store first runs."""
    out: list[SideRun | None] = [None, None]

    def side(i: int) -> None:
        if keys is not None and not setup.refresh:
            out[i] = setup.run_cache(keys[i])
            if out[i] is not None:
                return
        with setup.slots:
            out[i] = runner.run(specs[i], only=only)
        if keys is not None:
            setup.save_run(keys[i], out[i])  # type: ignore[arg-type]

    other = threading.Thread(target=side, args=(1,))
    other.start()
    side(0)
    other.join()
    assert out[0] is not None and out[1] is not None
    return out[0], out[1]


def _pin(requirement: str, version: str) -> str:
    """``requirement`` at exactly ``version``, its extras kept: ``skl2onnx[x]==1.20.0``."""
    req = Requirement(requirement)
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    return f"{req.name}{extras}=={version}"


def _build(setup: Setup, spec: envs.EnvSpec) -> envs.Env | envs.InstallFailure:
    with setup.slots:
        return envs.build(spec, setup.cache, refresh=setup.refresh)


def run(setup: Setup, consumer: Consumer, say: Say, run_key: Callable[..., str]) -> ConsumerResult:
    """The consumer's result; a problem of its own (no sdist, a bad ref) is its ``error``."""
    result = ConsumerResult(
        consumer.name,
        owner=consumer.owner,
        repository=consumer.repository,
        optional=consumer.optional,
    )
    try:
        return _run(setup, consumer, say, run_key, result)
    except UserError as exc:
        return replace(result, status=ERROR, error=str(exc))


def _run(
    setup: Setup,
    consumer: Consumer,
    say: Say,
    run_key: Callable[..., str],
    result: ConsumerResult,
) -> ConsumerResult:
    tests = None
    if consumer.source == "git":
        tests = sources.checkout(consumer, setup.cache / "sources")
    elif consumer.source == "project":
        tests = sources.project(consumer, setup.root)
    install = consumer.requirement or (tests.install if tests else "")
    if setup.baseline is None:
        return _alone(setup, consumer, say, result, tests, install)
    say("building the baseline environment")
    base = _build(setup, env_spec(setup, consumer, setup.baseline, install))
    if isinstance(base, envs.InstallFailure):
        cand = _build(setup, env_spec(setup, consumer, setup.candidate, install))
        result.status = NOT_INSTALLED
        _not_installed(result, "baseline", base)
        if isinstance(cand, envs.InstallFailure):
            _not_installed(result, "candidate", cand)
        return result
    name = canonicalize_name(Requirement(install).name) if consumer.requirement else ""
    result.version = base.pins.get(name, "") if name else ""
    tests = tests or _sdist(setup, consumer, name, result.version, say)
    result.origin = tests.origin
    pinned = _pin(install, result.version) if name and result.version else install
    prefer = [f"{k}=={v}" for k, v in base.pins.items() if k != canonicalize_name(setup.package)]
    say("building the candidate environment")
    cand = _build(setup, env_spec(setup, consumer, setup.candidate, pinned, prefer))
    if isinstance(cand, envs.InstallFailure):
        result.status, result.install = NOT_INSTALLED, {"candidate": cand.reason}
        return result
    wrong = exact_bytes(setup.candidate, cand.path, setup.package)
    if wrong:
        raise UserError(f"consumer {consumer.name}: {wrong}")
    result.changes = changes(base.pins, cand.pins, setup.package)
    result.seconds["environments"] = base.seconds + cand.seconds
    specs = (_spec(setup, consumer, base, tests), _spec(setup, consumer, cand, tests))
    keys = (run_key(base, tests, specs[0]), run_key(cand, tests, specs[1]))
    say("running the tests on both sides")
    first = _both(setup, specs, keys, None)
    result.seconds.update(baseline=first[0].duration_s, candidate=first[1].duration_s)
    for side, ran in zip(("baseline", "candidate"), first, strict=True):
        if ran.problem:
            result.unverified[side] = {"why": ran.problem, "reproduce": ran.reproduce}
    found = verdicts.compare(*first)
    reruns = _rerun(setup, specs, found, say)
    result.verdicts = verdicts.confirm(found, *reruns, needed=setup.rounds)
    result.status = COMPARED
    return result


def _sdist(setup: Setup, consumer: Consumer, name: str, version: str, say: Say) -> sources.Tests:
    """The consumer's tests from the sdist of the version its environment resolved."""
    say(f"fetching the sdist of {name} {version} (its tests)")
    return sources.sdist(
        consumer,
        name,
        version,
        setup.cache / "sources",
        index_url=setup.table.index_url,
        find_links=links(setup, consumer.find_links),
    )


def _alone(
    setup: Setup,
    consumer: Consumer,
    say: Say,
    result: ConsumerResult,
    tests: sources.Tests | None,
    install: str,
) -> ConsumerResult:
    """No baseline: the candidate side alone, every test ``new`` with its candidate outcome."""
    say("building the candidate environment (no baseline to compare with)")
    cand = _build(setup, env_spec(setup, consumer, setup.candidate, install))
    if isinstance(cand, envs.InstallFailure):
        result.status = NOT_INSTALLED
        _not_installed(result, "candidate", cand)
        return result
    wrong = exact_bytes(setup.candidate, cand.path, setup.package)
    if wrong:
        raise UserError(f"consumer {consumer.name}: {wrong}")
    name = canonicalize_name(Requirement(install).name) if consumer.requirement else ""
    result.version = cand.pins.get(name, "") if name else ""
    tests = tests or _sdist(setup, consumer, name, result.version, say)
    result.origin = tests.origin
    result.seconds["environments"] = cand.seconds
    say("running the tests on the candidate")
    with setup.slots:
        ran = runner.run(_spec(setup, consumer, cand, tests))
    result.seconds["candidate"] = ran.duration_s
    if ran.problem:
        result.unverified["candidate"] = {"why": ran.problem, "reproduce": ran.reproduce}
    result.verdicts = verdicts.compare(SideRun(), ran)
    result.status = COMPARED
    return result


def _not_installed(result: ConsumerResult, side: str, failure: envs.InstallFailure) -> None:
    result.install[side] = failure.reason
    result.unverified[side] = {
        "why": f"could not install: {failure.why}",
        "reproduce": failure.reproduce,
    }


def _rerun(
    setup: Setup, specs: tuple[runner.RunSpec, runner.RunSpec], found: list[CaseVerdict], say: Say
) -> tuple[list[SideRun], list[SideRun]]:
    """Rounds of re-runs of both sides; each round only the differences that still agree."""
    pending = [v for v in found if v.nodeid in set(verdicts.suspects(found))]
    reruns: tuple[list[SideRun], list[SideRun]] = ([], [])
    for i in range(setup.rounds):
        if not pending:
            break
        ids = [v.nodeid for v in pending]
        say(f"re-running {len(ids)} difference(s) on both sides ({i + 1}/{setup.rounds})")
        whole = verdicts.RUN in ids or len(ids) > MAX_NODEIDS
        again = _both(setup, specs, None, None if whole else ids)
        reruns[0].append(again[0])
        reruns[1].append(again[1])
        pending = [v for v in pending if verdicts.still_agrees(v, *again)]
    return reruns
