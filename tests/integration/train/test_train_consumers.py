"""A member verified as a consumer of its upstream's candidate (train invariant T6), on the
staged train: ``train bind`` runs the member's own tests on its wheel against the upstream
candidate's wheel, taken from the staging index by the SHA-256 the member's record names,
paired with the upstream's previous release on the release index (the downstream feature's
run, in uv environments); with no previous release it runs them against the candidate alone.
A member whose tests fail against the candidate only (an API break planted in the upstream's
candidate), or did not run, is refused, named, and nothing is bound."""

from __future__ import annotations

import hashlib
from pathlib import Path

from helpers.projects import configure
from helpers.train_rig import (
    UPSTREAM,
    VISION,
    Indexes,
    Rig,
    bound_manifest,
    break_upstream_api,
    earlier_release,
    git,
)

from mlrelease.release.promotion.manifest import Manifest

WHEEL = f"{UPSTREAM}-2.5.0-py3-none-any.whl"


def _wheel_of(manifest: Manifest, project: str) -> tuple[str, str]:
    (entry,) = [e for e in manifest.files if e.name.startswith(project) and e.name.endswith("whl")]
    return entry.name, entry.sha256


def _staged_sha256(indexes: Indexes) -> str:
    return hashlib.sha256((indexes.staging_files / WHEEL).read_bytes()).hexdigest()


def test_a_member_whose_tests_pass_against_the_upstream_candidate_is_bound(
    train: Rig, indexes: Indexes, tmp_path: Path
) -> None:
    first = bound_manifest(train.origin(VISION), "v0.20.0-rc1")  # bound when the train staged
    (record,) = first.upstream
    assert record.tests is not None, "bound without its tests against the upstream candidate"
    tested = record.tests
    assert (tested.verdict, tested.tests, tested.failing) == ("passed", 2, ())
    assert (tested.upstream_file, tested.upstream_sha256) == (WHEEL, _staged_sha256(indexes))
    assert (tested.member_file, tested.member_sha256) == _wheel_of(first, VISION)
    assert tested.baseline == "" and "no regression comparison was possible" in tested.note
    assert f"{UPSTREAM} has no final release before 2.5.0" in tested.note
    assert train.status()[VISION]["tested"] == [
        f"against {UPSTREAM} v2.5.0-rc1: passed, 2 tests, not compared"
    ]

    earlier = earlier_release(indexes, tmp_path, "2.4.0")  # the previous train released 2.4.0
    rc2 = train.tag(VISION, "--rebuild")
    code, out = train.bind(VISION, rc2)
    assert code == 0, out
    assert "running the tests on both sides" in out
    second = bound_manifest(train.origin(VISION), rc2)
    tested = second.upstream[0].tests
    assert tested is not None and (tested.verdict, tested.tests) == ("passed", 2)
    digest = hashlib.sha256(earlier.read_bytes()).hexdigest()
    assert tested.baseline == f"{UPSTREAM} 2.4.0 ({earlier.name}, sha256 {digest})"
    assert tested.note == "" and tested.upstream_sha256 == _staged_sha256(indexes)
    assert not train.status()[VISION]["blocks"]

    code, out = train.bind(VISION, rc2)  # again: the same manifest, the tests not run again
    assert code == 0 and "running the tests" not in out, out


def test_a_member_whose_tests_fail_only_against_the_upstream_candidate_is_refused(
    train: Rig, indexes: Indexes, tmp_path: Path
) -> None:
    earlier_release(indexes, tmp_path, "2.4.0")  # answer() is in its API
    assert break_upstream_api(train, indexes) == "v2.5.0-rc2"  # answer() is not in rc2's

    member_rc = train.tag(VISION, "--rebuild")  # rebuilt against the staged rc2
    code, out = train.bind(VISION, member_rc)
    assert code == 1, out
    assert "tests failed against torchlet 2.5.0 (v2.5.0-rc2)" in out
    assert f"file {WHEEL} (sha256 {_staged_sha256(indexes)})" in out
    assert "and passed against torchlet 2.4.0" in out
    failure = "AttributeError: module 'torchlet.core' has no attribute 'answer'"
    assert f"tests/test_core.py::test_the_upstream_api_it_uses: {failure}" in out
    assert "test_its_answer" not in out  # it passes against both: not the upstream's doing
    assert "Nothing was bound" in out
    assert not git(train.origin(VISION), "for-each-ref", f"refs/mlrelease/bound/{member_rc}")


def _refused(train: Rig, message: str) -> str:
    """Commit the change made in visionlet's clone on its release branch, tag a new candidate,
    build and bind it: refused, nothing bound; the refusal."""
    vision = train.work(VISION)
    git(vision, "commit", "-qam", message)
    git(vision, "push", "-q", "origin", "release/0.20")
    rc = train.tag(VISION)
    code, out = train.bind(VISION, rc)
    assert code == 1, out
    assert "A member whose tests did not run is not verified" in out
    assert not git(train.origin(VISION), "for-each-ref", f"refs/mlrelease/bound/{rc}")
    return out


def test_a_member_whose_tests_did_not_run_is_refused(train: Rig, indexes: Indexes) -> None:
    tests = {"index-url": f"{indexes.staging}simple/"}
    configure(train.work(VISION), "tool.mlrelease.train.tests", tests)
    # an index without pytest: the tests' environment cannot be made
    out = _refused(train, "ci: the tests' dependencies from the staging index")
    assert "visionlet's tests did not run against torchlet 2.5.0 (v2.5.0-rc1)" in out
    assert f"file {WHEEL} (sha256 {_staged_sha256(indexes)})" in out
    assert "the environment could not be made" in out and "pytest" in out


def test_a_member_without_tests_is_refused(train: Rig) -> None:
    git(train.work(VISION), "rm", "-q", "-r", "tests")
    out = _refused(train, "test: the tests move elsewhere")
    assert "visionlet has no tests folder 'tests' at the candidate's commit" in out
