"""One planted world per session: real wheels and sdists of a small ONNX library (baseline and
candidate) and of its consumers in find-links folders, one mlrelease cache (the uv
environments are built once and shared by every test), and one paired run over them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import downstream as planted

from mlrelease.downstream import service
from mlrelease.downstream.config import Consumer, DownstreamConfig
from mlrelease.downstream.results import RunResults


@dataclass(frozen=True)
class World:
    root: Path
    """A project folder (the library's repository stand-in)."""
    links: Path
    """find-links: the baseline library and the consumers."""
    candidate: Path
    """The candidate's files (the RC's dist/)."""
    cache: Path
    state: Path
    """The flaky test's state file."""

    def table(self, **changes: object) -> DownstreamConfig:
        values: dict[str, object] = {
            "package": planted.LIB,
            "consumers": [
                Consumer(
                    name="consumer",
                    requirement=planted.CONSUMER,
                    owner="@consumer-dev",
                    repository="https://example.invalid/consumer",
                    time_budget_s=300,
                ),
                Consumer(name="pinned", requirement=planted.PINNED, time_budget_s=300),
            ],
            "find_links": [str(self.links)],
            "cache_dir": str(self.cache),
            "candidate": str(self.candidate),
            "baseline": "1.0.0",
            "jobs": 2,
        }
        values.update(changes)
        return DownstreamConfig(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    base = tmp_path_factory.mktemp("downstream")
    links, candidate, src = base / "links", base / "dist", base / "src"
    state = base / "flaky-ran-once"
    planted.lib(src, "1.0.0", "Add", links)
    planted.lib(src, "1.1.0", "Sub", candidate)
    planted.consumer(src, state, links)
    planted.pinned(src, links)
    root = base / "project"
    root.mkdir()
    return World(root, links, candidate, base / "cache", state)


@pytest.fixture(scope="session")
def paired(world: World) -> RunResults:
    """The paired run: candidate 1.1.0 (files) vs baseline 1.0.0, both consumers."""
    request = service.Request(candidate=str(world.candidate), baseline="1.0.0")
    return service.run(world.table(), world.root, planted.LIB, request, lambda c, m: None)
