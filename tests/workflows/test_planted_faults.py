"""Planted wiring faults: each copy of the workflows with one fault fails the rehearsal, with a
message naming the job and the fix. The static faults are found by the wiring check every
rehearsal run makes (tests/workflows/wiring.py); the others need act to run the jobs."""

from __future__ import annotations

from pathlib import Path

import pytest
import wiring
from rehearsal import Rehearse, World, git, pull_request


def plant(world: World, workflow: str, old: str, new: str) -> Path:
    """Replace ``old`` by ``new`` in the clone's ``workflow`` and commit it; its path."""
    path = world.clone / ".github" / "workflows" / workflow
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{workflow}: the text to plant the fault in moved: {old!r}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    git(world.clone, "commit", "-q", "-am", f"test(rehearsal): plant a fault in {workflow}")
    return path


@pytest.fixture
def restore(world: World) -> object:
    """Each planted fault on a fresh branch from main, so the next test sees clean workflows."""
    git(world.clone, "checkout", "-q", "-B", "fault", "origin/main")
    yield
    git(world.clone, "checkout", "-q", "main")


def test_the_workflows_of_today_have_no_wiring_fault() -> None:
    folder = Path(__file__).resolve().parents[2] / ".github" / "workflows"
    assert [p for f in sorted(folder.glob("*.yml")) for p in wiring.problems(f)] == []


def test_a_renamed_artifact(world: World, restore: object) -> None:
    path = plant(world, "ci.yml", "name: release-verify-${{", "name: release-report-${{")
    assert wiring.problems(path) == [
        "ci.yml: job release_verdict downloads artifact 'release-verify-*', which no job of "
        "the workflow uploads (uploaded: release-report-1, release-report-2, release-report-3)",
        *(
            f"ci.yml: artifact 'release-report-{i}' of matrix job release_verify is downloaded "
            "by no job: nothing merges that shard"
            for i in (1, 2, 3)
        ),
    ]


def test_an_artifact_named_after_the_job_index(world: World, restore: object) -> None:
    path = plant(
        world, "ci.yml", "release-verify-${{ matrix.shard }}", "rv-${{ strategy.job-index }}"
    )
    assert (
        "ci.yml: job release_verify names artifact 'rv-${{ strategy.job-index }}' after "
        "strategy.job-index, which act leaves empty (every shard uploads one name): name it "
        "after a matrix value"
    ) in wiring.problems(path)


def test_a_missing_needs(world: World, restore: object) -> None:
    path = plant(world, "release.yml", "    needs: verify\n    runs-on", "    runs-on")
    assert wiring.problems(path) == [
        "release.yml: job publish downloads artifact 'verified' uploaded by job verify, but "
        "does not need it: add it to `needs:`"
    ]


def test_a_shard_report_nobody_merges(world: World, restore: object) -> None:
    path = plant(world, "ci.yml", "pattern: release-verify-*", "pattern: release-verify-[12]")
    assert wiring.problems(path) == [
        "ci.yml: artifact 'release-verify-3' of matrix job release_verify is downloaded by no "
        "job: nothing merges that shard"
    ]


def test_a_shard_that_never_runs_fails_the_merge(
    world: World, rehearse: Rehearse, restore: object
) -> None:
    plant(world, "ci.yml", "shard: [1, 2, 3]", "shard: [1, 2]")
    run = rehearse("pull_request", "ci.yml", pull_request(world, "fault"), "release_verdict")
    assert [j.result for j in run.ran("release_verdict")] == ["failure"]
    assert "report merge: no shard reported" in run.log.read_text(encoding="utf-8")


def test_a_publish_job_reachable_from_a_pull_request(
    world: World, rehearse: Rehearse, restore: object
) -> None:
    old = "if: github.event_name == 'push'"
    plant(world, "docs.yml", old, "if: github.event_name != 'schedule'")
    run = rehearse("pull_request", "docs.yml", pull_request(world, "fault"), "publish")
    assert run.problems == ["docs.yml: job publish holds contents: write and ran on a pull request"]
