"""A pull request and a push to main: ci.yml runs every Linux session and the sharded release
gates, and merges the shards, on both (docs.yml on the same events: test_docs_events.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rehearsal import Rehearse, Run, World, main_push, pull_request

EVENTS: dict[str, Callable[[World], dict[str, object]]] = {
    "pull_request": pull_request,
    "push": main_push,
}
"""The events ci.yml runs on, and how the clone makes each one's payload."""


@pytest.fixture(scope="module", params=sorted(EVENTS))
def ci(request: pytest.FixtureRequest, world: World, rehearse: Rehearse) -> Run:
    return rehearse(request.param, "ci.yml", EVENTS[request.param](world))


EXPECTED = {
    "pull_request": ({"session", "release_verify", "release_verdict"}, set()),
    "push": ({"session", "release_verify", "release_verdict"}, set()),
}
"""ci.yml's jobs on each event: those that must run, those that must not."""


def test_ci_runs_exactly_its_jobs(ci: Run) -> None:
    ci.must(*EXPECTED[ci.event])


def test_ci_runs_the_linux_sessions(ci: Run) -> None:
    jobs = {(str(j.matrix["os"]), str(j.matrix["session"])): j.result for j in ci.ran("session")}
    assert jobs == {
        ("ubuntu-latest", "lint"): "success",
        ("ubuntu-latest", "tests"): "success",
        ("ubuntu-latest", "tests_perf"): "success",
    }, ci.failures()


def test_ci_shards_the_release_gates_and_merges_them(ci: Run) -> None:
    shards = sorted(str(j.matrix.get("shard")) for j in ci.ran("release_verify"))
    assert shards == ["1", "2", "3"], ci.failures()
    assert [j.result for j in ci.ran("release_verdict")] == ["success"], ci.failures()
    names = ["release-verify-1", "release-verify-2", "release-verify-3"]
    assert sorted(str(e["name"]) for e in ci.records("upload-artifact")) == names
    assert [e["names"] for e in ci.records("download-artifact")] == [names]
    assert ci.returncode == 0, ci.failures()
    assert ci.problems == []
