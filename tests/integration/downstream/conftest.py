"""One planted world per session: real wheels and sdists of a small ONNX library (baseline and
candidate) and of its consumers in find-links folders, one mlrelease cache (the uv
environments are built once and shared by every test), and one paired run over them."""

from __future__ import annotations

import pytest
from helpers import downstream as planted
from helpers.downstream import World

from mlrelease.downstream import service
from mlrelease.downstream.results import RunResults


@pytest.fixture(scope="session")
def downstream_world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """The planted packages built once (tests/conftest.py SHARED_BUILDS: one worker)."""
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
def world(downstream_world: World) -> World:
    """The planted world, under the name the tests take."""
    return downstream_world


@pytest.fixture(scope="session")
def paired(world: World) -> RunResults:
    """The paired run: candidate 1.1.0 (files) vs baseline 1.0.0, both consumers."""
    request = service.Request(candidate=str(world.candidate), baseline="1.0.0")
    return service.run(world.table(), world.root, planted.LIB, request, lambda c, m: None)
