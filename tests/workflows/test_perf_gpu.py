"""perf-gpu.yml on a final tag: its device legs need self-hosted CUDA runners and never start
here (each listed with that reason); its merge job, on ubuntu-latest, runs for real on the
device reports. Those reports are stood in by the repository's own measured results
(docs/perf/<device>/results.json, real runs on real machines, CPU ones: no GPU here), uploaded
as the device legs' artifacts before the run."""

from __future__ import annotations

from pathlib import Path

import pytest
from rehearsal import Rehearse, Run, World, git
from release_steps import tag_push
from runners import not_rehearsed_why


def device_reports(world: World) -> dict[str, Path]:
    """The device legs' artifacts (``perf-gpu-<device>``), stood in by measured results."""
    found = sorted((world.clone / "docs" / "perf").glob("*/results.json"))
    assert found, "docs/perf/*/results.json: no measured results to stand in for the devices"
    return {f"perf-gpu-{path.parent.name}": path for path in found}


def final_tag(world: World, tag: str = "v0.1.0", branch: str = "main") -> dict[str, object]:
    """Tag ``branch``'s head ``tag`` and return that tag's push (the clone on it)."""
    git(world.clone, "checkout", "-q", branch)
    git(world.clone, "tag", "-f", "-a", "-m", tag, tag)
    git(world.clone, "checkout", "-q", tag)
    return tag_push(world, tag)


@pytest.fixture(scope="module")
def perf(world: World, rehearse: Rehearse) -> Run:
    return rehearse("push", "perf-gpu.yml", final_tag(world), given=device_reports(world))


def test_the_merge_runs_and_the_device_legs_are_listed_with_why(perf: Run) -> None:
    perf.must({"merge"}, {"device"})
    assert [j.result for j in perf.ran("merge")] == ["success"], perf.failures()
    assert perf.problems == []
    legs = {str(j.matrix["device"]): j for j in perf.jobs if j.job_id == "device"}
    assert sorted(legs) == ["a100", "a30", "t4"]
    folder = perf.log.parents[1] / "clone" / ".github" / "workflows"
    for device, leg in legs.items():
        assert leg.unsupported, f"the {device} leg ran here"
        assert not_rehearsed_why(folder / "perf-gpu.yml", leg) == (
            f"needs a self-hosted CUDA runner labelled self-hosted, linux, x64, gpu, {device}"
        )


def test_the_merge_merges_every_device_report(world: World, perf: Run) -> None:
    names = sorted(device_reports(world))
    assert [e["names"] for e in perf.records("download-artifact")] == [names]
    (report,) = perf.records("upload-artifact")
    assert report["name"] == "perf-report"
    assert "report.md" in report["files"]  # type: ignore[operator]


def test_a_misspelled_session_in_the_merge(world: World, rehearse: Rehearse) -> None:
    path = world.clone / ".github" / "workflows" / "perf-gpu.yml"
    text = path.read_text(encoding="utf-8")
    assert text.count("nox -s perf_merge ") == 1, "perf-gpu.yml: the merge's command moved"
    git(world.clone, "checkout", "-q", "-B", "fault", "origin/main")
    path.write_text(text.replace("nox -s perf_merge ", "nox -s perf_merg "), encoding="utf-8")
    git(world.clone, "commit", "-q", "-am", "test(rehearsal): misspell the merge's session")
    payload = final_tag(world, "v0.1.1", "fault")
    run = rehearse("push", "perf-gpu.yml", payload, "merge", device_reports(world))
    (failure,) = run.failures()
    where = "perf-gpu.yml job merge [perf-gpu/merge device reports]: failure at "
    step = "nox -s perf_merg -- artifacts/*/results.json"
    assert failure == f"{where}{step}: nox > Sessions not found: perf_merg", failure
