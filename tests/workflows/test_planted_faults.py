"""Planted wiring faults: each copy of the workflows with one fault fails the rehearsal, with a
message naming the job and the fix. The static faults are found by the wiring check every
rehearsal run makes (tests/workflows/wiring.py); the others need act to run the jobs."""

from __future__ import annotations

from pathlib import Path

import pytest
import runners
import wiring
from rehearsal import Rehearse, World, git, pull_request


def plant(world: World, workflow: str, old: str, new: str, count: int = 1) -> Path:
    """Replace the ``count`` times ``old`` is in the clone's ``workflow`` by ``new`` and commit
    it; its path."""
    path = world.clone / ".github" / "workflows" / workflow
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == count, f"{workflow}: the text to plant the fault in moved: {old!r}"
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
    found = wiring.problems(path)
    assert found[0] == (
        "release.yml: job publish downloads artifact 'verified' uploaded by job verify, but "
        "does not need it: add it to `needs:`"
    )
    # and without verify before it, nothing keeps publish off an RC tag
    assert [p.partition(" and can run on ")[2][:28] for p in found[1:]] == [
        "push of RC tag v1.2.3-rc1 (t"
    ], found


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
    (failure,) = run.failures()
    assert failure.startswith("ci.yml job release_verdict ["), failure
    assert ": report merge: no shard reported" in failure, failure


def test_a_publish_job_reachable_from_a_pull_request(
    world: World, rehearse: Rehearse, restore: object
) -> None:
    old = "if: github.event_name == 'push'"
    plant(world, "docs.yml", old, "if: github.event_name != 'schedule'")
    run = rehearse("pull_request", "docs.yml", pull_request(world, "fault"), "publish")
    guards = "publish: github.event_name != 'schedule'"
    assert run.problems == [
        "docs.yml: job publish holds contents: write and can run on a pull_request (head branch:"
        f" any) (trigger `pull_request` of docs.yml): no `if:` on it or on a job it needs is "
        f"false there ({guards}). {GUARD_IT}",
        "docs.yml: job publish holds contents: write and ran on a pull_request (head branch: "
        f"any): no `if:` on it or on a job it needs kept it off ({guards})",
    ]


GUARD_IT = (
    "Guard it: `if: ${{ !contains(github.ref_name, '-rc') }}` keeps a job off an RC tag, "
    "`if: github.event_name == 'push'` off a pull request"
)
RC_GUARD = "if: ${{ !contains(github.ref_name, '-rc') }}\n"


def test_publish_reachable_on_an_rc_tag(world: World, restore: object) -> None:
    # verify's guard alone is not enough to plant it: verify needs report, which needs gates,
    # whose guard keeps them off an RC tag (GitHub skips a job whose need was skipped)
    path = plant(world, "release.yml", f"    {RC_GUARD}", "", count=2)
    guards = "verify: none; report: none; gates: none"
    assert wiring.problems(path) == [
        "release.yml: job publish holds id-token: write, the publishing action "
        "pypa/gh-action-pypi-publish, the environment pypi (its secrets) and can run on push "
        "of RC tag v1.2.3-rc1 (trigger `push` of release.yml): no `if:` on it or on a job it "
        f"needs is false there (publish: none; {guards}). {GUARD_IT}",
        "release.yml: job github-release holds contents: write and can run on push of RC tag "
        "v1.2.3-rc1 (trigger `push` of release.yml): no `if:` on it or on a job it needs is "
        f"false there (github-release: none; {guards}; publish: none). {GUARD_IT}",
    ]


def test_release_triggered_on_a_pull_request(world: World, restore: object) -> None:
    path = plant(world, "release.yml", "on:\n  push:\n", "on:\n  pull_request:\n  push:\n")
    found = wiring.problems(path)
    assert [p.partition(" holds ")[0] for p in found] == [
        "release.yml: job publish",
        "release.yml: job github-release",
    ], found
    assert all(" can run on a pull_request (head branch: any) " in p for p in found), found
    assert runners.unrehearsed(path.parent) == [
        "release.yml: declared for a pull_request (head branch: any) (trigger `pull_request`), "
        "which no rehearsal runs: rehearse it (tests/workflows/) or say why not in "
        "runners.NOT_REHEARSED_EVENTS"
    ]


def test_the_workflows_of_today_are_rehearsed_on_every_event_they_declare() -> None:
    folder = Path(__file__).resolve().parents[2] / ".github" / "workflows"
    assert runners.unrehearsed(folder) == []


def test_a_renamed_artifact_inside_a_called_workflow(world: World, restore: object) -> None:
    plant(world, "downstream.yml", "          name: dist\n", "          name: dists\n")
    path = world.clone / ".github" / "workflows" / "release.yml"
    assert wiring.problems(path) == [
        "downstream.yml: job consumers (called by release.yml job downstream) downloads "
        "artifact 'dists', which no job of downstream.yml uploads, nor a job downstream needs "
        "(uploaded: dist, downstream-results, downstream-shard-*)"
    ]


def test_an_unknown_runner_label_in_a_matrix(world: World, restore: object) -> None:
    path = plant(world, "ci.yml", "os: [ubuntu-latest]", "os: [ubuntu-lates]")
    assert wiring.problems(path) == [
        f"ci.yml: job session runs on 'ubuntu-lates' (matrix {{'os': 'ubuntu-lates', 'session':"
        f" '{session}'}}), a label no runner offers: GitHub hosts {', '.join(wiring.HOSTED)}; a"
        " self-hosted runner's job lists `self-hosted` in runs-on"
        for session in ("lint", "tests_perf")
    ]


def test_an_unknown_runner_label_names_the_leg_that_never_ran(
    world: World, rehearse: Rehearse, restore: object
) -> None:
    old = "if: github.event_name == 'pull_request'\n    runs-on: ubuntu-latest"
    plant(world, "docs.yml", old, old.replace("ubuntu-latest", "ubuntu-lates"))
    run = rehearse("pull_request", "docs.yml", pull_request(world, "fault"))
    assert run.started == {}
    assert run.problems[-1] == (
        "docs.yml: job build [docs/build] never ran: its runs-on label 'ubuntu-lates' is offered"
        f" by no runner (GitHub-hosted: {', '.join(wiring.HOSTED)}; a self-hosted runner's job "
        "lists `self-hosted`)"
    )
    assert run.problems[0].startswith("docs.yml: job build runs on 'ubuntu-lates', a label ")
