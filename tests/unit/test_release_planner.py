"""The release core's decisions on hand-built states: no git, no files, milliseconds each."""

from __future__ import annotations

import dataclasses
import re

import pytest

from mlrelease.errors import PreconditionError
from mlrelease.gates import GateResult, Status
from mlrelease.release import manifest
from mlrelease.release.decide import World, decide
from mlrelease.release.promotion import verdict_problem
from mlrelease.release.state import (
    RC_MARKER,
    Refs,
    Remote,
    Tag,
    in_progress,
    rc_problem,
    tag_conflicts,
)
from mlrelease.report import Report
from mlrelease.wheels.published import simple_url, split

A, B = "a" * 40, "b" * 40


def _tag(name: str, obj: str, commit: str, annotated: bool = True, marker: bool = True) -> Tag:
    message = f"1.4.0 release candidate 1\n\n{RC_MARKER}\n" if marker else "by hand\n"
    return Tag(name, obj, commit, annotated, message if annotated else "")


def test_a_tag_differing_from_origins_is_a_conflict_naming_both_commits() -> None:
    local = Refs(tags={"v1.4.0-rc1": _tag("v1.4.0-rc1", "1" * 40, A)})
    origin = Remote("origin", Refs(tags={"v1.4.0-rc1": _tag("v1.4.0-rc1", "2" * 40, B)}))
    (found,) = tag_conflicts(local, origin, {"v1.4.0-rc1"})
    assert f"is {A[:12]} here but {B[:12]} on origin" in found
    assert "git tag -d v1.4.0-rc1 && git fetch origin tag v1.4.0-rc1" in found
    same = Remote("origin", Refs(tags={"v1.4.0-rc1": _tag("v1.4.0-rc1", "1" * 40, A)}))
    assert tag_conflicts(local, same, {"v1.4.0-rc1"}) == []
    assert tag_conflicts(local, None, {"v1.4.0-rc1"}) == []  # no remote configured
    only_there = Remote("origin", Refs(tags={"v1.4.0-rc2": _tag("v1.4.0-rc2", "3" * 40, B)}))
    assert tag_conflicts(local, only_there, {"v1.4.0-rc1", "v1.4.0-rc2"}) == []


@pytest.mark.parametrize(
    ("tag", "reachable", "expected"),
    [
        (None, True, "there is no tag v1.4.0-rc1 on origin"),
        (_tag("v1.4.0-rc1", A, A, annotated=False), True, "is a lightweight tag"),
        (_tag("v1.4.0-rc1", B, A, marker=False), True, "was not made by `mlrelease release rc`"),
        (_tag("v1.4.0-rc1", B, A), False, "is not on origin's release/1.4"),
        (_tag("v1.4.0-rc1", B, A), True, None),
    ],
)
def test_only_annotated_mlrelease_rc_tags_on_the_branch_are_candidates(
    tag: Tag | None, reachable: bool, expected: str | None
) -> None:
    problem = rc_problem(tag, "v1.4.0-rc1", "origin", "release/1.4", reachable)
    assert (problem is None) if expected is None else (expected in str(problem))


def _manifest() -> manifest.Manifest:
    files = (
        manifest.Entry("demo-1.4.0-py3-none-any.whl", 10, "c" * 64),
        manifest.Entry("demo-1.4.0.tar.gz", 20, "d" * 64),
    )
    return manifest.Manifest("v1.4.0-rc1", A, files)


def test_manifest_round_trip_and_digest_are_canonical() -> None:
    made = _manifest()
    again = manifest.Manifest.parse(made.text(), "ref")
    assert again == made and again.digest == made.digest and len(made.digest) == 64
    assert manifest.named_digest(f"1.4.0\n\n{manifest.TRAILER}: {made.digest}\n") == made.digest
    assert manifest.named_digest("1.4.0 (promoted by hand)") is None


@pytest.mark.parametrize("text", ["", "[]", '{"schema_version": 1}', '{"schema_version": 2}'])
def test_a_malformed_manifest_is_a_clear_error(text: str) -> None:
    with pytest.raises(Exception, match="ref: not an mlrelease artifact manifest"):
        manifest.Manifest.parse(text, "ref")


def test_artifacts_are_compared_with_the_manifest_not_a_sums_file() -> None:
    made = _manifest()
    assert manifest.compare(made, made.files) == []
    wheel, sdist = made.files
    rebuilt = manifest.Entry(wheel.name, wheel.size, "e" * 64)
    extra = manifest.Entry("demo-1.4.0-cp312-abi3-linux_x86_64.whl", 5, "f" * 64)
    problems = manifest.compare(made, (rebuilt, extra))
    assert problems == [
        f"{extra.name}: not in the manifest of v1.4.0-rc1 (extra file)",
        f"{wheel.name}: SHA-256 {'e' * 16}... (10 bytes), but v1.4.0-rc1 built {'c' * 16}... "
        "(10 bytes): rebuilt or tampered",
        f"{sdist.name}: in the manifest of v1.4.0-rc1 but missing",
    ]


def test_publishing_is_decided_by_what_the_index_holds() -> None:
    wanted = {"a.whl": "1" * 64, "b.tar.gz": "2" * 64}
    assert split(wanted, {}) == (["a.whl", "b.tar.gz"], [])
    assert split(wanted, {"a.whl": "1" * 64}) == (["b.tar.gz"], [])  # a re-run: only the rest
    assert split(wanted, {"a.whl": "9" * 64, "b.tar.gz": "2" * 64}) == ([], ["a.whl"])
    assert simple_url("https://upload.pypi.org/legacy/") == "https://pypi.org/simple/"
    assert simple_url("https://test.pypi.org/legacy/") == "https://test.pypi.org/simple/"
    assert simple_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/simple/"


def _report(gates: list[str], ran: list[str], commit: str = A, **kwargs: object) -> Report:
    results = [GateResult(Status.PASS, "ok", name=g) for g in ran]
    return Report("demo", "1.4.0", commit, gates, results, **kwargs)  # type: ignore[arg-type]


def test_promotion_needs_the_whole_verdict_for_exactly_the_rc_commit() -> None:
    gates = ["git_state", "changelog"]
    assert verdict_problem(_report(gates, gates), gates, "v1.4.0-rc1", A, "r.json") is None
    partial = verdict_problem(_report(["changelog"], ["changelog"]), gates, "v1.4.0-rc1", A, "r")
    assert partial is not None and "is a partial report: it lacks git_state" in partial
    shard = _report(gates, ["changelog"], shard=(2, 2))
    assert "is a shard 2/2 report" in str(verdict_problem(shard, gates, "v1.4.0-rc1", A, "r"))
    other = verdict_problem(_report(gates, gates, commit=B), gates, "v1.4.0-rc1", A, "r")
    assert other is not None and f"verifies commit {B[:12]}, not v1.4.0-rc1's commit" in other
    failing = _report(gates, gates)
    failing.results[0].status = Status.FAIL
    assert "fails: git_state (fail: ok)" in str(verdict_problem(failing, gates, "rc", A, "r"))


def test_an_unfinished_git_operation_is_named_with_both_ways_out(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert in_progress(tmp_path) is None
    (tmp_path / "CHERRY_PICK_HEAD").write_text(A)
    found = str(in_progress(tmp_path))
    assert "a cherry-pick is in progress" in found
    assert "`git cherry-pick --continue`" in found and "`git cherry-pick --abort`" in found


def _world(**changes: object) -> World:
    made = _manifest()
    base = World(
        rc="v1.4.0-rc1",
        commit=A,
        final="v1.4.0",
        existing=None,
        final_on_origin=False,
        bound=made,
        found=made.files,
        folder="dist",
        index={},
        index_url="http://127.0.0.1/simple/",
        push=True,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def _final(commit: str = A, digest: str | None = None) -> Tag:
    made = _manifest()
    message = f"1.4.0 (promoted from v1.4.0-rc1)\n\n{manifest.TRAILER}: {digest or made.digest}\n"
    return Tag("v1.4.0", "9" * 40, commit, True, message)


@pytest.mark.parametrize(
    ("changes", "steps"),
    [
        ({}, ("publish", "tag", "push")),  # a first run: publish first, then tag, then push
        ({"index": {"demo-1.4.0-py3-none-any.whl": "c" * 64}}, ("publish", "tag", "push")),
        ({"index": {"demo-1.4.0-py3-none-any.whl": "c" * 64, "demo-1.4.0.tar.gz": "d" * 64}},
         ("tag", "push")),  # killed after publishing: nothing is published twice
        ({"index": None}, ("tag", "push")),  # not publishing (CI publishes on the tag)
        ({"index": None, "existing": _final()}, ("push",)),  # killed after the tag
        ({"index": None, "existing": _final(), "final_on_origin": True}, ()),  # done
        ({"push": False}, ("publish", "tag")),
    ],
)  # fmt: skip
def test_promotion_plans_only_what_the_world_shows_undone(
    changes: dict[str, object], steps: tuple[str, ...]
) -> None:
    assert decide(_world(**changes)).steps == steps


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"existing": _final(commit=B)}, f"v1.4.0 already exists at {B[:12]}, not at"),
        ({"commit": B}, "the files were not built from the candidate"),
        ({"found": _manifest().files[:1]}, "demo-1.4.0.tar.gz: in the manifest of v1.4.0-rc1 but"),
        ({"existing": _final(digest="0" * 64)}, "the release was promoted with other files"),
        ({"index": {"demo-1.4.0.tar.gz": "0" * 64}}, "already holds demo-1.4.0.tar.gz with other"),
    ],
)
def test_promotion_refuses_before_anything_irreversible(
    changes: dict[str, object], refusal: str
) -> None:
    with pytest.raises(PreconditionError, match=re.escape(refusal)):
        decide(_world(**changes))
