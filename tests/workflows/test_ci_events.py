"""A pull request and a push to main. ci.yml runs every Linux session and the sharded release
gates, and merges the shards, on both. docs.yml builds the docs on a pull request and publishes
nothing; on a push to main it builds nothing for review and publishes the dev docs to the bare
origin's gh-pages branch."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from rehearsal import Rehearse, Run, World, git, pull_request


def main_push(world: World) -> dict[str, object]:
    """Put the clone on main and return the push event of its head."""
    git(world.clone, "checkout", "-q", "main")
    sha = git(world.clone, "rev-parse", "HEAD")
    return {"ref": "refs/heads/main", "after": sha, "head_commit": {"id": sha}}


EVENTS: dict[str, Callable[[World], dict[str, object]]] = {
    "pull_request": pull_request,
    "push": main_push,
}
"""The events ci.yml and docs.yml run on, and how the clone makes each one's payload."""


@pytest.fixture(scope="module", params=sorted(EVENTS))
def ci(request: pytest.FixtureRequest, world: World, rehearse: Rehearse) -> Run:
    return rehearse(request.param, "ci.yml", EVENTS[request.param](world))


@pytest.fixture(scope="module")
def docs_on_pr(world: World, rehearse: Rehearse) -> Run:
    return rehearse("pull_request", "docs.yml", pull_request(world))


@pytest.fixture(scope="module")
def docs_on_main(world: World, rehearse: Rehearse) -> Run:
    return rehearse("push", "docs.yml", main_push(world))


EXPECTED = {
    ("ci.yml", "pull_request"): ({"session", "release_verify", "release_verdict"}, set()),
    ("ci.yml", "push"): ({"session", "release_verify", "release_verdict"}, set()),
    ("docs.yml", "pull_request"): ({"build"}, {"publish"}),
    ("docs.yml", "push"): ({"publish"}, {"build"}),
}
"""Each run's jobs: those that must run, those that must not (docs' publish job holds
contents: write: never on a pull request)."""


def test_ci_runs_exactly_its_jobs(ci: Run) -> None:
    ci.must(*EXPECTED["ci.yml", ci.event])


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


def test_docs_builds_and_does_not_publish_on_a_pull_request(docs_on_pr: Run) -> None:
    assert [j.result for j in docs_on_pr.ran("build")] == ["success"], docs_on_pr.failures()
    docs_on_pr.must(*EXPECTED["docs.yml", "pull_request"])
    assert docs_on_pr.problems == []


def test_docs_publishes_the_dev_docs_to_gh_pages_on_main(world: World, docs_on_main: Run) -> None:
    docs = docs_on_main
    assert [j.result for j in docs.ran("publish")] == ["success"], docs.failures()
    docs.must(*EXPECTED["docs.yml", "push"])
    assert docs.problems == []
    assert [r["note"] for r in docs.records("checkout")] == [
        "gh-pages of the bare origin into build/gh-pages"
    ]
    main = git(world.origin, "rev-parse", "main")
    subject = git(world.origin, "log", "-1", "--format=%s", "gh-pages")
    assert subject == f"docs: freeze main dev docs from HEAD ({main[:12]})"
    site = git(world.origin, "ls-tree", "-r", "--name-only", "gh-pages")
    assert {"main/index.html", "switcher.json"} <= set(site.splitlines()), site[:500]
    switcher = json.loads(git(world.origin, "show", "gh-pages:switcher.json"))
    assert [entry["version"] for entry in switcher] == ["main"], switcher
