"""The stateful adversary of ``release rc`` under ``rc-model = "bump"`` with ``rc-tagged``
(:mod:`helpers.bump_tagged_machine`, issue 53): the maintainer's runs, kills and re-runs
interleaved with a colleague's fixes, hand bumps and hand tags over real repositories; the RC
tag invariants checked against origin after every step."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.bump_tagged_machine import BumpTaggedMachine, Harness, make_template
from helpers.release import GIT_ENV
from helpers.stateful import machine_settings
from hypothesis.stateful import run_state_machine_as_test

EXAMPLES = 6
STEPS = 12


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """One adopted, prepared template world for every example."""
    base = tmp_path_factory.mktemp("bump-tagged")
    (base / "scratch").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        for key, value in GIT_ENV.items():
            patch.setenv(key, value)
        yield Harness(make_template(base / "template"), base / "scratch")


def test_no_interleaving_breaks_a_tag_invariant(harness: Harness) -> None:
    BumpTaggedMachine.harness = harness
    run_state_machine_as_test(
        BumpTaggedMachine,
        settings=machine_settings(EXAMPLES, STEPS),
    )
    assert harness.examples >= 1 and harness.steps >= 1
    print(
        f"bump-tagged machine: {harness.examples} examples, {harness.checks} invariant checks, "
        f"{harness.steps} release rc runs ({harness.kills} killed, {harness.reruns} re-runs, "
        f"{harness.refusals} refused, {harness.tagged} RC tags pushed)"
    )
    print("\n".join(harness.log))


def test_the_machine_catches_a_candidate_numbered_below_origins_newest(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The oracle is not vacuous: with the rc-tagged decision blind to the RC tags that exist,
    a colleague's hand tag rc2 on origin and files saying rc1 make ``release rc`` push rc1
    after rc2, which the machine reports as (2)."""
    from mlrelease.release import rules

    monkeypatch.setattr(rules, "rc_tags", lambda *a, **k: {})
    BumpTaggedMachine.harness = harness
    machine = BumpTaggedMachine()
    try:
        machine.rc(kill=None)  # 1.17.0 -> 1.17.0rc1, a bump
        assert not machine.found, machine.found
        machine.colleague_tag(back=0, above=1)  # v1.17.0rc2 on rc1's commit, by hand
        machine.rc(kill=None)
        said = [v for v in machine.found if "(2) v1.17.0rc1 was pushed at or below" in v]
        assert said, machine.found
    finally:
        machine.teardown()


def test_the_machine_catches_a_tag_on_files_that_say_another_version(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The oracle is not vacuous: with the rc-tagged decision reading the files' version from
    the wrong place (the final version read as rc1), ``release rc`` tags a commit whose files
    say 1.17.0 as rc1, which the machine reports as (1)."""
    from packaging.version import Version

    from mlrelease.release import bump_model

    real = bump_model._untagged_rc
    monkeypatch.setattr(
        bump_model,
        "_untagged_rc",
        lambda world, config, carried, *a: real(world, config, Version("1.17.0rc1"), *a),
    )
    BumpTaggedMachine.harness = harness
    machine = BumpTaggedMachine()
    try:
        machine.rc(kill=None)
        said = [v for v in machine.found if "(1) v1.17.0rc1 was pushed on" in v]
        assert said and "files say 1.17.0" in said[0], machine.found
    finally:
        machine.teardown()
