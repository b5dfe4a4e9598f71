"""A push to main: ci.yml runs every Linux session and the sharded release gates, and merges
the shards; docs.yml builds nothing for review and publishes the dev docs to the bare origin's
gh-pages branch."""

from __future__ import annotations

import json

import pytest
from rehearsal import Rehearse, Run, World, git


def main_push(world: World) -> dict[str, object]:
    """Put the clone on main and return the push event of its head."""
    git(world.clone, "checkout", "-q", "main")
    sha = git(world.clone, "rev-parse", "HEAD")
    return {"ref": "refs/heads/main", "after": sha, "head_commit": {"id": sha}}


@pytest.fixture(scope="module")
def ci(world: World, rehearse: Rehearse) -> Run:
    return rehearse("push", "ci.yml", main_push(world))


@pytest.fixture(scope="module")
def docs(world: World, rehearse: Rehearse) -> Run:
    return rehearse("push", "docs.yml", main_push(world))


def test_ci_runs_the_linux_sessions_and_merges_the_shards(ci: Run) -> None:
    sessions = {
        (str(j.matrix["os"]), str(j.matrix["session"])): j.result for j in ci.ran("session")
    }
    assert sessions == {
        ("ubuntu-latest", "lint"): "success",
        ("ubuntu-latest", "tests"): "success",
        ("ubuntu-latest", "tests_perf"): "success",
    }, ci.failures()
    assert sorted(str(j.matrix.get("shard")) for j in ci.ran("release_verify")) == ["1", "2", "3"]
    assert [j.result for j in ci.ran("release_verdict")] == ["success"], ci.failures()
    (merged,) = ci.records("download-artifact")
    assert merged["names"] == ["release-verify-1", "release-verify-2", "release-verify-3"]
    assert ci.returncode == 0, ci.failures()
    assert ci.problems == []


def test_docs_publishes_the_dev_docs_to_gh_pages(world: World, docs: Run) -> None:
    assert [j.result for j in docs.ran("publish")] == ["success"], docs.failures()
    assert docs.skipped == ["build"]
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
