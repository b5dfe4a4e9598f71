"""A pull request and a push to main: docs.yml builds the docs on a pull request and publishes
nothing; on a push to main it builds nothing for review and publishes the dev docs to the bare
origin's gh-pages branch (ci.yml on the same events: test_ci_events.py)."""

from __future__ import annotations

import json

import pytest
from rehearsal import Rehearse, Run, World, git, main_push, pull_request


@pytest.fixture(scope="module")
def docs_on_pr(world: World, rehearse: Rehearse) -> Run:
    return rehearse("pull_request", "docs.yml", pull_request(world))


@pytest.fixture(scope="module")
def docs_on_main(world: World, rehearse: Rehearse) -> Run:
    return rehearse("push", "docs.yml", main_push(world))


EXPECTED = {
    "pull_request": ({"build"}, {"publish"}),
    "push": ({"publish"}, {"build"}),
}
"""docs.yml's jobs on each event: those that must run, those that must not (its publish job
holds contents: write: never on a pull request)."""


def test_docs_builds_and_does_not_publish_on_a_pull_request(docs_on_pr: Run) -> None:
    assert [j.result for j in docs_on_pr.ran("build")] == ["success"], docs_on_pr.failures()
    docs_on_pr.must(*EXPECTED["pull_request"])
    assert docs_on_pr.problems == []


def test_docs_publishes_the_dev_docs_to_gh_pages_on_main(world: World, docs_on_main: Run) -> None:
    docs = docs_on_main
    assert [j.result for j in docs.ran("publish")] == ["success"], docs.failures()
    docs.must(*EXPECTED["push"])
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
