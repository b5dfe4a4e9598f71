"""The workflow rehearsal's fixtures: one temporary clone with a bare origin per test module,
one HOME shared by every act run; every run's per-job account is printed at the end."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from reachability import event_of
from rehearsal import REPOSITORY, Rehearse, Run, World, act, describe, make_world
from runners import REHEARSED, not_rehearsed

RUNS: list[Run] = []
"""Every act run of this session, described in the terminal summary."""


@pytest.fixture(scope="session")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HOME of every act run of the session: its caches fill once (nox, uv, torch)."""
    return tmp_path_factory.mktemp("home")


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
        done = act(world, event, workflow, payload, world.root / f"run-{count}", only, given)
        RUNS.append(done)
        return done

    yield run


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for run in RUNS:
        terminalreporter.write_line(describe(run))
    if RUNS:
        terminalreporter.write_line(not_rehearsed(REPOSITORY / ".github" / "workflows"))
