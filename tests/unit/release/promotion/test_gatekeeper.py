"""The release invariants' pure checks (docs/release/invariants.md) on hand-built facts: the
gatekeeper, the manifest, the index check, fix identity and edit recovery. No git, no files,
no network: milliseconds each."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path

import pytest
from packaging.version import Version

from mlrelease.edges.index import IndexFile
from mlrelease.errors import PreconditionError
from mlrelease.gates import GateResult, Status
from mlrelease.release import rules
from mlrelease.release.edits import keep_newlines
from mlrelease.release.promotion import gatekeeper, manifest
from mlrelease.release.promotion.verdict import RcVerdict
from mlrelease.release.world.queries import in_progress
from mlrelease.release.world.snapshot import (
    FINAL_MARKER,
    RC_MARKER,
    Index,
    Journal,
    PromoteFacts,
    Refs,
    Remote,
    Tag,
    Target,
    World,
)
from mlrelease.report import Report, Worktree

A, B = "a" * 40, "b" * 40
TREE, CONFIG_SHA = "7" * 40, "8" * 64
RC = "v1.4.0-rc1"
GATES = ("git_state", "changelog")


def _tag(name: str, obj: str, commit: str, annotated: bool = True, marker: bool = True) -> Tag:
    message = f"1.4.0 release candidate 1\n\n{RC_MARKER}\n" if marker else "by hand\n"
    return Tag(name, obj, commit, annotated, message if annotated else "")


def test_a_tag_differing_from_origins_is_a_conflict_naming_both_commits() -> None:
    local = Refs(tags={RC: _tag(RC, "1" * 40, A)})
    origin = Remote("origin", Refs(tags={RC: _tag(RC, "2" * 40, B)}))
    (found,) = rules.tag_conflicts(local, origin, {RC})
    assert f"is {A[:12]} here but {B[:12]} on origin" in found
    assert f"git tag -d {RC} && git fetch origin tag {RC}" in found
    same = Remote("origin", Refs(tags={RC: _tag(RC, "1" * 40, A)}))
    assert rules.tag_conflicts(local, same, {RC}) == []
    assert rules.tag_conflicts(local, None, {RC}) == []  # no remote configured


@pytest.mark.parametrize(
    ("tag", "reachable", "expected"),
    [
        (None, True, f"there is no tag {RC} on origin"),
        (_tag(RC, A, A, annotated=False), True, "is a lightweight tag"),
        (_tag(RC, B, A, marker=False), True, "was not made by `mlrelease release rc`"),
        (_tag(RC, B, A), False, "is not on origin's release/1.4"),
        (_tag(RC, B, A), True, None),
    ],
)
def test_only_annotated_mlrelease_rc_tags_on_the_branch_are_candidates(
    tag: Tag | None, reachable: bool, expected: str | None
) -> None:
    problem = rules.rc_problem(tag, RC, "origin", "release/1.4", reachable)
    assert (problem is None) if expected is None else (expected in str(problem))


FILES = (
    manifest.Entry("demo-1.4.0-py3-none-any.whl", 10, "c" * 64),
    manifest.Entry("demo-1.4.0.tar.gz", 20, "d" * 64),
)
MADE = manifest.Manifest(RC, A, FILES)


def test_manifest_round_trip_and_digest_are_canonical() -> None:
    again = manifest.Manifest.parse(MADE.text(), "ref")
    assert again == MADE and again.digest == MADE.digest and len(MADE.digest) == 64
    assert MADE.digest == hashlib.sha256(MADE.text().encode()).hexdigest()
    assert manifest.named_digest(f"1.4.0\n\n{manifest.TRAILER}: {MADE.digest}\n") == MADE.digest
    assert manifest.named_digest("1.4.0 (promoted by hand)") is None


@pytest.mark.parametrize("text", ["", "[]", '{"schema_version": 1}', '{"schema_version": 2}'])
def test_a_malformed_manifest_is_a_clear_error(text: str) -> None:
    with pytest.raises(Exception, match="ref: not an mlrelease artifact manifest"):
        manifest.Manifest.parse(text, "ref")


# --- (a) the index ------------------------------------------------------------------------------


def _index(*files: tuple[str, str], downloaded: bool = False) -> Index:
    return Index(
        "http://i/simple/demo/", tuple(IndexFile(n, "", s, downloaded=downloaded) for n, s in files)
    )


@pytest.mark.parametrize(
    ("held", "complete", "expected"),
    [
        (_index(), False, None),
        (_index(), True, "lacks demo-1.4.0-py3-none-any.whl, demo-1.4.0.tar.gz: publish first"),
        (_index((FILES[0].name, "c" * 64)), False, None),  # a re-run: only the rest to send
        (_index((FILES[0].name, "c" * 64), (FILES[1].name, "d" * 64), downloaded=True), True,
         None),
        (_index((FILES[0].name, "c" * 64), (FILES[1].name, "d" * 64)), True,
         "not downloaded from http://i/simple/demo/ and hashed here"),
        (_index((FILES[0].name, "e" * 64), downloaded=True), False,
         "other bytes under the bound names: demo-1.4.0-py3-none-any.whl (downloaded and hashed"),
        (_index(("demo-1.4.0-1-py3-none-any.whl", "c" * 64)), False,
         "holds demo-1.4.0-1-py3-none-any.whl, files of this version that the manifest"),
        (Index("http://i/", error="cannot read http://i/ (HTTP 500)"), False, "HTTP 500"),
    ],
)  # fmt: skip
def test_the_index_holds_only_the_bound_bytes(
    held: Index, complete: bool, expected: str | None
) -> None:
    problem = gatekeeper.index_problem(held, MADE, complete=complete)
    assert (problem is None) if expected is None else (expected in str(problem)), problem


# --- (b) the report -----------------------------------------------------------------------------


def _report(commit: str = A, ran: tuple[str, ...] = GATES, **tree: object) -> Report:
    results = [GateResult(Status.PASS, "ok", name=g) for g in ran]
    worktree = Worktree(**{"tree": TREE, "config_sha256": CONFIG_SHA, **tree})  # type: ignore[arg-type]
    return Report("demo", "1.4.0", commit, list(GATES), results, worktree=worktree)


def _verdict(report: Report | None) -> RcVerdict:
    return RcVerdict("r.json", report, tree=TREE, config_sha256=CONFIG_SHA, gates=GATES)


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        (_report(), None),
        (None, "no release_verify report at r.json"),
        (_report(commit=B), f"verifies commit {B[:12]}, not {RC}'s commit"),
        (dataclasses.replace(_report(), worktree=None), "does not record the tree it verified"),
        (_report(hidden=("src/x.py",)), "changes git status hides (--skip-worktree"),
        (_report(dirty=("pyproject.toml",)), "uncommitted changes (pyproject.toml)"),
        (_report(config_sha256="0" * 64), "another pyproject.toml than"),
        (_report(tree="0" * 40), "verified another tree"),
        (_report(ran=("changelog",)), "is a partial report: it lacks git_state"),
        (dataclasses.replace(_report(ran=("changelog",)), shard=(2, 2)), "is a shard 2/2 report"),
    ],
)
def test_only_the_complete_passing_report_of_the_rcs_commit_tree_and_config_counts(
    report: Report | None, expected: str | None
) -> None:
    problem = gatekeeper.report_problem(_verdict(report), RC, A)
    assert (problem is None) if expected is None else (expected in str(problem)), problem


def test_a_failing_report_names_the_failing_gates() -> None:
    report = _report()
    report.results[0].status = Status.FAIL
    assert "fails: git_state (fail: ok)" in str(gatekeeper.report_problem(_verdict(report), RC, A))


# --- the world of a promotion -------------------------------------------------------------------

BLOB = "5" * 40


def _world(report: Report | None = None, **changes: object) -> World:
    bindings = {RC: {MADE.digest: BLOB}}
    refs = Refs(heads={"release/1.4": A}, tags={RC: _tag(RC, "9" * 40, A)}, bindings=bindings)
    world = World(
        root=Path("/nowhere"),
        local=Refs(heads={"release/1.4": A}),
        remote=Remote("origin", refs),
        target=Target(Version("1.4.0"), RC, "release/1.4", "v1.4.0"),
        promote=PromoteFacts(
            verdict=_verdict(report or _report()), blobs={BLOB: (MADE.digest, MADE.text())}
        ),
    )
    return dataclasses.replace(world, **changes)  # type: ignore[arg-type]


def _final(kind: str) -> Tag:
    if kind == "ours":
        message = f"1.4.0\n\n{FINAL_MARKER}\n\n{manifest.TRAILER}: {MADE.digest}\n"
        return Tag("v1.4.0", "6" * 40, A, True, message)
    return Tag("v1.4.0", A, A, False)  # GitHub's "create release" makes lightweight tags


def test_the_binding_is_the_one_content_named_manifest_of_the_rc() -> None:
    assert gatekeeper.bound(_world(), RC, A, "promote") == MADE
    forged = _world(promote=PromoteFacts(blobs={BLOB: ("0" * 64, MADE.text())}))
    with pytest.raises(
        gatekeeper.Violation, match=re.escape("the binding of v1.4.0-rc1 was replaced")
    ):
        gatekeeper.bound(forged, RC, A, "promote")
    world = _world()
    assert world.remote is not None
    two = dataclasses.replace(
        world.remote.refs, bindings={RC: {MADE.digest: BLOB, "1" * 64: "4" * 40}}
    )
    facts = PromoteFacts(blobs={BLOB: (MADE.digest, MADE.text()), "4" * 40: ("1" * 64, "{}")})
    with pytest.raises(gatekeeper.Violation, match=re.escape("binds v1.4.0-rc1 to 2 manifests")):
        gatekeeper.bound(_world(remote=Remote("origin", two), promote=facts), RC, A, "promote")


def test_a_replaced_binding_is_refused_where_it_was_made_without_advising_to_delete_it() -> None:
    other = manifest.Manifest(RC, A, FILES[:1])
    world = _world()
    assert world.remote is not None
    theirs = dataclasses.replace(world.remote.refs, bindings={RC: {other.digest: "4" * 40}})
    blobs = {BLOB: (MADE.digest, MADE.text()), "4" * 40: (other.digest, other.text())}
    replaced = _world(
        remote=Remote("origin", theirs),
        local=Refs(heads={"release/1.4": A}, bindings={RC: {MADE.digest: BLOB}}),
        promote=PromoteFacts(blobs=blobs),
    )
    with pytest.raises(gatekeeper.Violation) as refused:
        gatekeeper.bound(replaced, RC, A, "promote")
    assert "it was replaced on origin" in str(refused.value)
    assert "update-ref -d" not in str(refused.value)


def test_an_existing_final_tag_is_judged_and_never_adopted() -> None:
    world = _world()
    verdict = world.facts().verdict
    assert gatekeeper.judge_final(world, world.aimed(), A, MADE, verdict) is None
    assert world.remote is not None
    ours = dataclasses.replace(
        world.remote.refs, tags={**world.remote.refs.tags, "v1.4.0": _final("ours")}
    )
    done = _world(remote=Remote("origin", ours))
    assert gatekeeper.judge_final(done, world.aimed(), A, MADE, verdict) is not None
    theirs = dataclasses.replace(ours, tags={**ours.tags, "v1.4.0": _final("lightweight")})
    by_hand = _world(remote=Remote("origin", theirs))
    with pytest.raises(gatekeeper.Violation, match=r"it is not adopted\. \(b\) holds for it"):
        gatekeeper.judge_final(by_hand, world.aimed(), A, MADE, verdict)
    with pytest.raises(gatekeeper.Violation, match=r"\(b\) is violated: no release_verify report"):
        gatekeeper.judge_final(by_hand, world.aimed(), A, MADE, _verdict(None))


def test_the_gatekeeper_checks_the_exact_bytes_before_each_act() -> None:
    world, (wheel, _) = _world(), FILES
    held = _index()
    gatekeeper.before_upload(world, MADE, wheel, wheel.sha256, wheel.size, held, "release")
    with pytest.raises(gatekeeper.Violation, match="hash to eeeeeeeeeeeeeeee"):
        gatekeeper.before_upload(world, MADE, wheel, "e" * 64, wheel.size, held, "release")
    failing = _world(report=_report(commit=B))
    with pytest.raises(gatekeeper.Violation, match="verifies commit"):
        gatekeeper.before_upload(failing, MADE, wheel, wheel.sha256, wheel.size, held, "release")
    gatekeeper.before_upload(failing, MADE, wheel, wheel.sha256, wheel.size, held, "rc")
    trailer = f"{manifest.TRAILER}: {MADE.digest}"
    tag = f"object {A}\ntype commit\ntag v1.4.0\n\n1.4.0\n\n{FINAL_MARKER}\n\n{trailer}\n"
    gatekeeper.before_tag_push(world, MADE, tag, None)
    with pytest.raises(gatekeeper.Violation, match="is not the one promote made"):
        gatekeeper.before_tag_push(world, MADE, tag.replace(A, B), None)
    with pytest.raises(gatekeeper.Violation, match=re.escape("lacks demo-1.4.0")):
        gatekeeper.before_tag_push(world, MADE, tag, _index())
    ref = gatekeeper.before_manifest_push(_world(remote=None), MADE, MADE.text(), ())
    assert ref == f"refs/mlrelease/bound/{RC}/{MADE.digest}"
    with pytest.raises(gatekeeper.Violation, match=re.escape("src/demo/core.py differs")):
        gatekeeper.before_manifest_push(world, MADE, MADE.text(), ("x: src/demo/core.py differs",))


# --- (f) recovery -------------------------------------------------------------------------------


def test_line_endings_are_kept() -> None:
    assert keep_newlines(b"a\r\nb\r\n", b"a\nc\n") == b"a\r\nc\r\n"
    assert keep_newlines(b"a\nb\n", b"a\nc\n") == b"a\nc\n"
    assert keep_newlines(b"a\r\nb\n", b"x\n") == b"x\n"  # mixed: left as written


def _journalled(hashes: dict[str, str | None], dirty: tuple[str, ...]) -> World:
    files = {
        "pyproject.toml": {"before": "1" * 64, "after": "2" * 64},
        "CHANGELOG.md": {"before": "3" * 64, "after": "4" * 64},
    }
    data = {"head": A, "files": files, "purpose": "mlrelease release prepare"}
    return World(Path("/nowhere"), head=A, dirty=dirty, journal=Journal("/j", data, hashes))


def test_recovery_restores_only_what_mlrelease_wrote() -> None:
    world = _journalled({"pyproject.toml": "2" * 64, "CHANGELOG.md": "3" * 64}, ("pyproject.toml",))
    actions, restored = rules.recovery(world, "prepare")
    assert restored == {"pyproject.toml"} and actions[0].key == "restore"
    mine = _journalled(
        {"pyproject.toml": "2" * 64, "CHANGELOG.md": "9" * 64}, ("pyproject.toml", "CHANGELOG.md")
    )
    with pytest.raises(PreconditionError, match=re.escape("CHANGELOG.md changed again since")):
        rules.recovery(mine, "prepare")


def test_an_unfinished_git_operation_is_named_with_both_ways_out(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert in_progress(tmp_path) is None
    (tmp_path / "CHERRY_PICK_HEAD").write_text(A)
    found = str(in_progress(tmp_path))
    assert "a cherry-pick is in progress" in found
    assert "`git cherry-pick --continue`" in found and "`git cherry-pick --abort`" in found
