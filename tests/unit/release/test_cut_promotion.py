"""The pure planners of promote and bind on hand-built snapshots: no git, no files, milliseconds
each. Each refusal names what is wrong and what to do (cut, prepare, rc and cherry-picks:
``test_cut.py``)."""

from __future__ import annotations

import dataclasses
import re

import pytest
from helpers.release_worlds import (
    B2,
    CONFIG,
    ROOT,
    B,
    branch_world,
    rc,
    refused,
)
from packaging.version import Version

from mlrelease.config import Config
from mlrelease.edges.index import IndexFile
from mlrelease.errors import PreconditionError
from mlrelease.gates import GateResult, Status
from mlrelease.release.promotion.bind import plan_bind
from mlrelease.release.promotion.final import plan_promote
from mlrelease.release.promotion.manifest import Entry, Manifest
from mlrelease.release.promotion.provenance import blob_id
from mlrelease.release.promotion.verdict import RcVerdict
from mlrelease.release.world.snapshot import (
    Index,
    PromoteFacts,
    Refs,
    Remote,
    Target,
    World,
)
from mlrelease.report import Report, Worktree

# --- promote ----------------------------------------------------------------------------------

GATES = ["git_state", "changelog"]
FILES_BUILT = (
    Entry("demo-1.4.0-py3-none-any.whl", 10, "c" * 64),
    Entry("demo-1.4.0.tar.gz", 20, "d" * 64),
)
MADE = Manifest("v1.4.0-rc1", B, FILES_BUILT)
BLOB = "5" * 40
TREE, CONFIG_SHA = "7" * 40, "8" * 64
TARGET = Target(Version("1.4.0"), "v1.4.0-rc1", "release/1.4", "v1.4.0")
INDEX = Index("http://127.0.0.1/simple/demo/")


def verdict(commit: str = B, ran: list[str] = GATES) -> Report:
    results = [GateResult(Status.PASS, "ok", name=g) for g in ran]
    return Report("demo", "1.4.0", commit, GATES, results, worktree=Worktree(TREE, CONFIG_SHA))


def facts(report: Report | None = None, **changes: object) -> PromoteFacts:
    found = PromoteFacts(
        verdict=RcVerdict("build/report.json", report or verdict(), tree=TREE,
                        config_sha256=CONFIG_SHA, gates=tuple(GATES)),
        blobs={BLOB: (MADE.digest, MADE.text())},
        folder="dist",
        found=FILES_BUILT,
        stored={e.sha256: e.size for e in FILES_BUILT},
    )  # fmt: skip
    return dataclasses.replace(found, **changes)  # type: ignore[arg-type]


def promote_world(**changes: object) -> World:
    """v1.4.0-rc1 on origin's release/1.4 at B, verified, bound, its files in the store."""
    refs = Refs(
        heads={"release/1.4": B},
        tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B)},
        bindings={"v1.4.0-rc1": {MADE.digest: BLOB}},
    )
    world = branch_world(
        remote=Remote("origin", refs), versions={B: "1.4.0"}, promote=facts(), target=TARGET
    )
    return dataclasses.replace(world, **changes)  # type: ignore[arg-type]


def promote(world: World, **kwargs: object) -> list[str]:
    config = Config(root=ROOT, gates=GATES)
    url = "http://127.0.0.1/" if kwargs.get("publish") else None
    found = plan_promote(world, config, repository_url=url, **kwargs)  # type: ignore[arg-type]
    return [a.key for a in found.plan.actions]


def test_promote_publishes_then_tags_then_pushes() -> None:
    published = promote_world(promote=facts(index=INDEX))
    assert promote(published, push=True, publish=True) == [
        "publish", "publish", "tag", "push",
    ]  # fmt: skip
    newest = promote_world(target=dataclasses.replace(TARGET, rc="v1.4.0-rc1"))
    assert promote(newest, elsewhere=True) == ["tag"]


def test_promote_reads_the_index_the_files_went_to_or_is_told_it_is_elsewhere() -> None:
    """#44: promote tagged the final release with no index read (8 of 13 files missing)."""
    nothing_known = promote_world()
    refused("promote: no index is known for v1.4.0-rc1", promote, nothing_known)
    held = tuple(IndexFile(e.name, "", e.sha256, downloaded=True) for e in MADE.files)
    published = promote_world(promote=facts(index=Index("u", held, source="recorded")))
    assert promote(published) == ["tag"]
    partial = promote_world(promote=facts(index=Index("u", held[:1], source="recorded")))
    refused(f"u lacks {MADE.files[1].name}: publish first", promote, partial)


def test_promote_tags_the_rcs_commit_naming_the_manifest() -> None:
    config = Config(root=ROOT, gates=GATES)
    plan = plan_promote(promote_world(), config, elsewhere=True).plan
    (tag,) = plan.git_commands()
    assert tag[:5] == ["git", "tag", "-a", "v1.4.0", B]
    assert f"Mlrelease-Manifest-SHA256: {MADE.digest}" in tag
    assert "Made-by: mlrelease release promote" in tag


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B, B, False)}))},
         "v1.4.0-rc1 on origin is a lightweight tag"),
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B2)})),
          "ancestry": {(B2, B): False}},
         f"v1.4.0-rc1 ({B2[:12]}) is not on origin's release/1.4"),
        ({"local": Refs(heads={"release/1.4": B},
                        tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B2, obj="9" * 40)})},
         f"tag v1.4.0-rc1 is {B2[:12]} here but {B[:12]} on origin"),
        ({"promote": facts(verdict(ran=["changelog"]))}, "is a partial report"),
        ({"promote": facts(verdict=RcVerdict("r.json"))}, "promote: no release_verify report at"),
        ({"promote": facts(stored={}, found=(), index=INDEX)},
         "demo-1.4.0-py3-none-any.whl (cccccccccccc"),
        ({"promote": facts(index=Index("u", (IndexFile("demo-1.4.0.zip", "", "0" * 64),)))},
         "holds demo-1.4.0.zip, files of this version"),
        ({"versions": {B: "1.4.0rc1"}}, "commit carries version 1.4.0rc1, not 1.4.0"),
        ({"busy": "a rebase is in progress here"}, "a rebase is in progress"),
    ],
)  # fmt: skip
def test_promote_refuses_before_anything_irreversible(
    changes: dict[str, object], refusal: str
) -> None:
    with pytest.raises(PreconditionError, match=re.escape(refusal)):
        promote(
            promote_world(**{"promote": facts(index=INDEX), **changes}), push=True, publish=True
        )


def test_only_the_newest_candidate_is_promoted() -> None:
    refs = Refs(
        heads={"release/1.4": B2},
        tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B), "v1.4.0-rc2": rc("v1.4.0-rc2", B2, "6" * 40)},
        bindings={"v1.4.0-rc1": {MADE.digest: BLOB}},
    )
    refused(
        "v1.4.0-rc2 is newer than v1.4.0-rc1", promote, promote_world(remote=Remote("origin", refs))
    )


# --- bind -------------------------------------------------------------------------------------


def bind_world(**changes: object) -> World:
    """At v1.4.0-rc1's commit B (detached), its files built and checked, nothing bound yet."""
    refs = Refs(heads={"release/1.4": B}, tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B)})
    world = branch_world(
        remote=Remote("origin", refs),
        branch=None,
        target=TARGET,
        promote=PromoteFacts(folder="dist", found=FILES_BUILT),
    )
    return dataclasses.replace(world, **changes)  # type: ignore[arg-type]


def test_bind_stores_the_files_and_the_manifest_and_pushes_it_by_sha() -> None:
    plan = plan_bind(bind_world(), CONFIG, push=True)
    assert [a.key for a in plan.actions] == ["store", "object", "ref", "push"]
    ref = f"refs/mlrelease/bound/v1.4.0-rc1/{MADE.digest}"
    blob = blob_id(MADE.text().encode())
    assert plan.git_commands() == [
        ["git", "update-ref", ref, blob, ""],
        ["git", "push", "--atomic", "origin", f"{blob}:{ref}"],
    ]
    local = Refs(bindings={"v1.4.0-rc1": {MADE.digest: blob}})  # killed before its push
    stored = PromoteFacts(found=FILES_BUILT, stored={e.sha256: e.size for e in FILES_BUILT})
    again = plan_bind(bind_world(local=local, promote=stored), CONFIG, True)
    assert [a.key for a in again.actions] == ["push"]


OTHER_BOUND = Manifest("v1.4.0-rc1", B, FILES_BUILT[:1])
OTHER_DIGEST = OTHER_BOUND.digest


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"head": B2}, f"bind: HEAD is {B2[:12]}, but v1.4.0-rc1 is {B[:12]}"),
        ({"dirty": ("dist/x",)}, "the files must be built from exactly the RC's commit"),
        ({"promote": PromoteFacts(found=FILES_BUILT, findings=("x.whl: src/demo/core.py",))},
         "dist does not hold v1.4.0-rc1's files, built from its commit (x.whl: src/demo/core.py)"),
        ({"promote": PromoteFacts(found=FILES_BUILT, blobs={"4" * 40: (OTHER_BOUND.digest,
                                                                      OTHER_BOUND.text())}),
          "remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B)},
                                          bindings={"v1.4.0-rc1": {OTHER_DIGEST: "4" * 40}}))},
         "v1.4.0-rc1 is already bound to other files (demo-1.4.0.tar.gz: not in the manifest"),
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B}))},
         "there is no tag v1.4.0-rc1 on origin"),
    ],
)  # fmt: skip
def test_bind_refuses_before_the_first_change(changes: dict[str, object], refusal: str) -> None:
    refused(refusal, plan_bind, bind_world(**changes), CONFIG)
