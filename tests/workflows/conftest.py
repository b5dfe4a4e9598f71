"""The workflow rehearsal's fixtures: one temporary clone with a bare origin per test module,
one HOME shared by every act run; every run's per-job account is printed at the end.

``nox -s workflows`` runs the modules on pytest-xdist workers (``--dist loadscope``: a module
and its act runs on one worker). The modules share only the HOME, whose caches (uv, nox)
take concurrent writers, as the jobs of one act run already are, and the session's mlrelease
cache (tests/conftest.py ``run_cache``); each has its own clone, origin, act cache, artifacts
and index server (port 0)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from reachability import event_of
from rehearsal import REPOSITORY, Rehearse, Run, World, act, describe, make_world
from runners import REHEARSED, not_rehearsed

RUNS: list[tuple[float, str]] = []
"""Every act run of this process (when it started, its description), described in the
terminal summary; an xdist worker hands its own to the controller (``workeroutput``)."""

LONGEST_FIRST = [
    "test_release.py",
    "test_docs_events.py",
    "test_ci_events.py",
    "test_planted_faults.py",
    "test_perf_gpu.py",
]
"""The modules by the length of their act runs, longest first (serially on the 2-core machine:
the RC and final tags about 45% of the lane, docs 25%, ci 20%, the planted faults and perf-gpu
5% each), so that xdist starts the release chain and the docs builds at once and the short
modules fill in; the modules without act runs come last."""


@pytest.hookimpl(trylast=True)  # after pytest's own reordering by fixture
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: each module's own order is kept


@pytest.fixture(scope="session")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HOME of every act run of the session, on every xdist worker: its caches fill once
    (nox, uv, torch)."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "home"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, home: Path) -> World:
    return make_world(tmp_path_factory.mktemp("rehearsal"), home=home)


@pytest.fixture(scope="module")
def rehearse(world: World) -> Iterator[Rehearse]:
    """Run one workflow of the world's clone for one event (each run its own artifacts)."""
    count = 0

    def run(
        event: str,
        workflow: str,
        payload: Mapping[str, object],
        only: str = "",
        given: Mapping[str, Path] | None = None,
    ) -> Run:
        nonlocal count
        count += 1
        kind = event_of(world.clone, event, payload).kind
        assert (workflow, kind) in REHEARSED, f"{workflow} on {kind}: add it to REHEARSED"
        started = time.time()
        done = act(world, event, workflow, payload, world.root / f"run-{count}", only, given)
        RUNS.append((started, describe(done)))
        return done

    yield run


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:  # an xdist worker: its runs go to the controller
        output["rehearsal_runs"] = list(RUNS)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, on the controller
def pytest_testnodedown(node: object, error: object) -> None:
    output = getattr(node, "workeroutput", {})
    RUNS.extend((started, text) for started, text in output.get("rehearsal_runs", ()))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for _, text in sorted(RUNS, key=lambda run: run[0]):
        terminalreporter.write_line(text)
    if RUNS:
        terminalreporter.write_line(not_rehearsed(REPOSITORY / ".github" / "workflows"))
