"""A pull request: ci.yml runs every Linux session and the sharded release gates, and merges
the shards; docs.yml builds the docs and publishes nothing."""

from __future__ import annotations

import pytest
from rehearsal import Rehearse, Run, World, pull_request


@pytest.fixture(scope="module")
def ci(world: World, rehearse: Rehearse) -> Run:
    return rehearse("pull_request", "ci.yml", pull_request(world))


@pytest.fixture(scope="module")
def docs(world: World, rehearse: Rehearse) -> Run:
    return rehearse("pull_request", "docs.yml", pull_request(world))


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
    uploaded = sorted(str(e["name"]) for e in ci.records("upload-artifact"))
    assert uploaded == ["release-verify-1", "release-verify-2", "release-verify-3"]
    assert ci.returncode == 0, ci.failures()
    assert ci.problems == []


def test_docs_builds_and_does_not_publish(docs: Run) -> None:
    assert [j.result for j in docs.ran("build")] == ["success"], docs.failures()
    assert docs.skipped == ["publish"]
    assert docs.problems == []
