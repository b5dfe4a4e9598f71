"""The release path: an RC tag builds, attests, stores and binds the artifacts (release.yml with
wheels.yml); the final tag, pushed by `release promote`, publishes exactly the bound files to
the local index."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.index import serve
from rehearsal import Rehearse, Run, World, git
from release_steps import cut_rc, promote, tag_push

WHEELS = {"wheels/plan", "wheels/build", "wheels/smoke", "wheels/collect"}
DOWNSTREAM_RUNS = {"downstream/plan"}
DOWNSTREAM_IDLE = {"downstream/consumers", "downstream/report"}  # no consumers configured here
FINAL = {"gates", "report", "verify", "publish", "github-release"}
EXPECTED = {
    "rc-tag": (WHEELS | {"candidate", "bind"} | DOWNSTREAM_RUNS, FINAL | DOWNSTREAM_IDLE),
    "final-tag": (FINAL, WHEELS | {"candidate", "bind"} | DOWNSTREAM_RUNS | DOWNSTREAM_IDLE),
}
"""release.yml's jobs (``calling job/job`` for those of wheels.yml and downstream.yml) that
must run and must not run on each tag: nothing publishes on an RC tag; nothing is built on the
final tag (promotion publishes the RC's files)."""


@pytest.fixture(scope="module")
def index(world: World) -> Iterator[Path]:
    """The local index the publish stand-in uploads to (pypiserver on 127.0.0.1)."""
    packages = world.root / "index"
    with serve(packages) as url:
        world.index = url
        yield packages


@pytest.fixture(scope="module")
def rc(world: World, rehearse: Rehearse, index: Path) -> Run:
    tag = cut_rc(world)
    return rehearse("push", "release.yml", tag_push(world, tag))


@pytest.fixture(scope="module")
def final(world: World, rehearse: Rehearse, rc: Run) -> Run:
    assert rc.returncode == 0, rc.failures()
    tag = promote(world, "v0.1.0-rc1", str(world.root / "releases" / "v0.1.0-rc1"))
    return rehearse("push", "release.yml", tag_push(world, tag))


def test_the_rc_tag_builds_stores_and_binds(world: World, rc: Run) -> None:
    rc.must(*EXPECTED["rc-tag"])
    # each job is named by the file it is written in: a fault in wheels.yml is blamed there
    assert rc.started == {
        **dict.fromkeys(WHEELS, "wheels.yml"),
        "candidate": "release.yml",
        "bind": "release.yml",
        "downstream/plan": "downstream.yml",
    }
    assert {j.key: j.result for j in rc.jobs} == dict.fromkeys(rc.started, "success"), rc.failures()
    assert rc.problems == []
    assets = sorted(p.name for p in (world.root / "releases" / "v0.1.0-rc1").iterdir())
    assert "SHA256SUMS" in assets and any(a.endswith(".whl") for a in assets), assets
    # each wheel with the provenance its build job wrote (`wheels provenance`), carried by collect
    wheels = [a for a in assets if a.endswith(".whl")]
    assert all(f"{w}.intoto.json" in assets for w in wheels), assets
    bound = git(world.origin, "for-each-ref", "--format=%(refname)", "refs/mlrelease/bound/")
    assert bound.startswith("refs/mlrelease/bound/v0.1.0-rc1/"), bound


def test_the_final_tag_publishes_exactly_the_bound_files(
    world: World, final: Run, index: Path
) -> None:
    assert final.returncode == 0, final.failures()
    final.must(*EXPECTED["final-tag"])
    assert [j.result for j in final.ran("publish")] == ["success"]
    assets = world.root / "releases" / "v0.1.0-rc1"
    rc_files = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in assets.iterdir()
        if p.name.endswith((".whl", ".tar.gz"))
    }
    published = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in index.iterdir()}
    assert published == rc_files
    (request,) = final.records("pypi-publish")
    assert request["files"] == rc_files and request["attestations"] is True
    assert git(world.origin, "tag", "--list", "v0.1.0") == "v0.1.0"


def test_the_final_release_carries_the_same_files(world: World, final: Run) -> None:
    assert [j.result for j in final.ran("github-release")] == ["success"], final.failures()
    rc_assets = world.root / "releases" / "v0.1.0-rc1"
    dists = sorted(p.name for p in rc_assets.iterdir() if p.name.endswith((".whl", ".tar.gz")))
    assert sorted(p.name for p in (world.root / "releases" / "v0.1.0").iterdir()) == dists


def test_a_failing_gate_stops_the_publish_job(world: World, rehearse: Rehearse, final: Run) -> None:
    # main carries 0.2.0.dev0 since the cut: on a tag v0.2.0 the git_state, versions and
    # changelog gates fail, in their shards; the merge never runs, so nothing is published
    git(world.clone, "checkout", "-q", "main")
    git(world.clone, "tag", "-a", "-m", "v0.2.0", "v0.2.0")
    git(world.clone, "push", "-q", "origin", "v0.2.0")
    git(world.clone, "checkout", "-q", "v0.2.0")
    run = rehearse("push", "release.yml", tag_push(world, "v0.2.0"), "publish")
    shards = [j.result for j in run.ran("gates")]
    assert len(shards) == 3 and "failure" in shards, run.failures()
    assert {"report", "verify", "publish", "github-release"} <= set(run.skipped)
    assert run.records("pypi-publish") == []
