"""The train's stateful adversary (:mod:`helpers.train_machine`) in CI: a few examples of
promotions killed at any step, an upstream candidate rebuilt after its members bound, an
upstream candidate that breaks its members' API, members re-tagged by a colleague and bound
again, interleaved over the staged train, the train's invariants checked after every step.
``scripts/train_machine.py`` runs many more."""

from __future__ import annotations

from helpers.stateful import machine_settings
from helpers.train_machine import TrainHarness, TrainMachine
from helpers.train_rig import Indexes, Staged
from hypothesis.stateful import run_state_machine_as_test

EXAMPLES = 3
STEPS = 6


def test_no_interleaving_breaks_a_train_invariant(staged_train: Staged, indexes: Indexes) -> None:
    TrainMachine.harness = harness = TrainHarness(staged_train.restore, indexes)
    run_state_machine_as_test(
        TrainMachine,
        settings=machine_settings(EXAMPLES, STEPS),
    )
    assert harness.examples >= 1 and harness.steps >= 1
    print(
        f"train machine: {harness.examples} examples, {harness.checks} invariant checks, "
        f"{harness.steps} steps ({harness.kills} killed, {harness.refusals} refused), "
        f"{harness.breaks} API breaks ({harness.refused_after_break} bindings refused after one)"
    )
    print("\n".join(harness.log))
