"""The release machine's rules for what bind compares (issue 48,
:mod:`helpers.release_reference_rules`), played in a fixed order: each doctored dist/, clone
setup and cache write is refused by bind, and the oracle is not vacuous: with the comparison
switched off, the same steps are a violation of (c). Only bind runs, so no index is served."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.release import GIT_ENV
from helpers.release_machine import Harness, ReleaseMachine, make_template

from mlrelease.release.promotion import provenance


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    base = tmp_path_factory.mktemp("machine-reference")
    saved = {k: os.environ.get(k) for k in GIT_ENV}
    os.environ.update(GIT_ENV)
    (base / "index").mkdir()
    (base / "scratch").mkdir()
    url = "http://127.0.0.1:9/"  # never read: no step here publishes
    try:
        yield Harness(
            make_template(base / "t", url), base / "index", {"sha256": url}, base / "scratch"
        )
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _to_rc(machine: ReleaseMachine) -> None:
    for step in (machine.cut, machine.prepare, machine.rc):
        step(kill=None)
    machine.build()


def test_doctored_files_clone_setups_and_cache_writes_are_refused(harness: Harness) -> None:
    ReleaseMachine.harness = harness
    for act in (
        lambda m: m.dist_doctored("bare-extension"),
        lambda m: m.dist_doctored("extra-wheel"),
        lambda m: m.dist_doctored("second-wheel"),
        lambda m: (m.clone_configuration("smudge-env"), m.build()),
        lambda m: m.reference_cache_written(),
    ):
        machine = ReleaseMachine()
        machine.fresh_world()
        try:
            _to_rc(machine)
            act(machine)
            machine.bind(kill=None)
            assert not machine.found, machine.found
            assert not oracle_bindings(machine), harness.log[-1]
        finally:
            machine.teardown()


def oracle_bindings(machine: ReleaseMachine) -> dict[str, str]:
    from helpers import release_oracle as oracle

    return oracle.refs(Path(machine.origin), "refs/mlrelease/bound")


def test_the_machine_catches_a_comparison_that_compares_nothing(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The oracle is not vacuous: with the reference comparison switched off, binding an
    import hook in the wheel is a violation of (c)."""
    from mlrelease.wheels.differences import ReferenceVerdict

    monkeypatch.setattr(provenance, "built_from", lambda *a, **k: ReferenceVerdict())
    ReleaseMachine.harness = harness
    machine = ReleaseMachine()
    machine.fresh_world()
    try:
        _to_rc(machine)
        machine.dist_doctored("pth")
        machine.bind(kill=None)
        assert any("(c)" in v for v in machine.found), harness.log[-3:]
    finally:
        machine.teardown()
