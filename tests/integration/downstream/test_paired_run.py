"""The paired run on real packages: a planted behaviour change is ``regressed``, a flaky test is
``spurious``, an unsatisfiable pin is ``could not install`` with the resolver's reason."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import downstream as planted
from helpers import index
from helpers.downstream import World

from mlrelease.downstream import results, service
from mlrelease.downstream.config import Consumer
from mlrelease.downstream.results import COMPARED, NOT_INSTALLED, RunResults
from mlrelease.downstream.verdicts import RUN, PairVerdict
from mlrelease.errors import UserError


def _consumer(run: RunResults, name: str) -> results.ConsumerResult:
    return next(r for r in run.results if r.name == name)


def test_behaviour_change_is_regressed_with_its_failure(paired: RunResults) -> None:
    r = _consumer(paired, "consumer")
    assert r.status == COMPARED, r.error
    assert r.version == "1.0.0"
    assert r.origin.startswith("mlrdsx_consumer-1.0.0.tar.gz")
    regressed = {v.nodeid: v for v in r.tests(PairVerdict.REGRESSED)}
    assert list(regressed) == ["tests/test_behaviour.py::test_model_adds"]
    found = regressed["tests/test_behaviour.py::test_model_adds"]
    assert "the model computed [0.0, 0.0]" in found.message
    assert found.note.startswith("confirmed by 5 re-runs of both sides"), found.note
    assert [v.nodeid for v in r.tests(PairVerdict.PASSED)] == ["tests/test_stable.py::test_version"]


def test_flaky_test_is_spurious_not_regressed(paired: RunResults, world: World) -> None:
    r = _consumer(paired, "consumer")
    flaky = next(v for v in r.verdicts if v.nodeid == "tests/test_flaky.py::test_sometimes")
    assert world.state.exists(), "the flaky test never ran"
    assert flaky.verdict is PairVerdict.SPURIOUS
    assert flaky.note.startswith("flaky: the candidate"), flaky.note


def test_unsatisfiable_pin_could_not_install_with_the_reason(paired: RunResults) -> None:
    r = _consumer(paired, "pinned")
    assert r.status == NOT_INSTALLED
    assert list(r.install) == ["candidate"], r.install
    assert r.install_regressed
    reason = r.install["candidate"]
    assert "mlrdsx-onnxlib<1.1" in reason and "1.1.0" in reason, reason


def test_the_candidate_side_ran_the_candidates_exact_wheel(
    paired: RunResults, world: World
) -> None:
    wheel = next(world.candidate.glob("*.whl"))
    assert any(i.startswith(wheel.name) for i in paired.candidate_identity)
    assert paired.baseline == f"{planted.LIB} 1.0.0"


def test_second_run_is_answered_from_the_caches(world: World, paired: RunResults) -> None:
    request = service.Request(candidate=str(world.candidate), baseline="1.0.0")
    said: list[str] = []
    again = service.run(world.table(), world.root, planted.LIB, request,
                        lambda c, m: said.append(f"{c}: {m}"))  # fmt: skip
    assert all(r.cached for r in again.results), said
    assert [r.to_dict() | {"cached": False} for r in again.results] == [
        r.to_dict() for r in paired.results
    ]


def test_results_round_trip_and_render(paired: RunResults, tmp_path: object) -> None:
    data = json.loads(json.dumps(paired.to_dict()))
    assert RunResults.from_dict(data).to_dict() == paired.to_dict()


def test_candidate_from_the_rc_channel_is_the_same_bytes(world: World, paired: RunResults) -> None:
    """The RC channel: the candidate read by version from a test index (pypiserver on
    127.0.0.1 holding the RC's files) is identified by the same SHA-256 as the files in dist/,
    so it is the same candidate, answered from the same results."""
    channel = world.root.parent / "channel"
    channel.mkdir(exist_ok=True)
    for path in world.candidate.iterdir():
        shutil.copy2(path, channel / path.name)
    with index.serve(channel) as url:
        table = world.table(candidate_index=f"{url}simple/")
        request = service.Request(candidate="1.1.0", baseline="1.0.0")
        run = service.run(table, world.root, planted.LIB, request, lambda c, m: None)
        assert run.candidate == f"{planted.LIB} 1.1.0 (from {url}simple/)"
        wheel = next(world.candidate.glob("*.whl"))
        assert run.candidate_identity == [
            i for i in paired.candidate_identity if i.startswith(wheel.name)
        ]
        missing = service.Request(candidate="1.2.0", baseline="1.0.0")
        with pytest.raises(UserError, match=r"has no mlrdsx-onnxlib 1\.2\.0 wheel"):
            service.run(table, world.root, planted.LIB, missing, lambda c, m: None)


def test_a_candidate_that_hangs_is_killed_at_the_budget_and_regressed(world: World) -> None:
    """The run itself is judged: killed at its time budget on the candidate (twice: the re-run
    confirms, at a confidence that asks one round), never on the baseline; what finished before
    the kill is still reported, and the test it was killed in is regressed with the kill."""
    planted.hangs(world.root.parent / "src", world.links)
    # 20 s: on a loaded machine the baseline's pytest needed more than 8 s to start
    consumer = Consumer(name="hangs", requirement=planted.HANGS, time_budget_s=20)
    request = service.Request(candidate=str(world.candidate), baseline="1.0.0")
    table = world.table(consumers=[consumer], confidence=0.75)
    run = service.run(table, world.root, planted.LIB, request, lambda c, m: None)
    (r,) = run.results
    found = {v.nodeid: v for v in r.verdicts}
    assert found[RUN].verdict is PairVerdict.REGRESSED, found
    assert "time budget of 20 s exceeded" in found[RUN].message
    assert found[RUN].note.startswith("confirmed by 1 re-run of both sides")
    assert found["tests/test_a_fast.py::test_fast"].verdict is PairVerdict.PASSED
    slow = found["tests/test_b_slow.py::test_slow"]
    assert slow.verdict is PairVerdict.REGRESSED, slow
    assert slow.message.startswith("the test process died during this test: time budget of 20 s")
    assert r.unverified["candidate"]["why"].startswith("time budget of 20 s exceeded")
