"""The train's decisions over a world built by hand (pure): the gatekeeper's invariants, the
status's next steps, the promotion's order and refusals, the upstream record, the matrix."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mlrelease.edges.index import IndexFile
from mlrelease.errors import PreconditionError
from mlrelease.naming import Names
from mlrelease.release.promotion.manifest import TRAILER, Entry, Manifest, Upstream, Verdict
from mlrelease.release.world.snapshot import FINAL_MARKER, Index, Refs, Tag
from mlrelease.train import gatekeeper, matrix, promote, record, status
from mlrelease.train.declaration import Gap, Member, Train
from mlrelease.train.metadata import DistMetadata
from mlrelease.train.world import MemberWorld, TrainWorld

NAMES = Names.compile("test")
TORCH = Member("torch", "/o/torch.git", "2.5.0")
VISION = Member("torchvision", "/o/vision.git", "0.20.0", ["torch ==2.5.0"])
STAGING, RELEASE = "http://staging/", "http://release/"
UP_FILES = (Entry("torch-2.5.0-cp312-cp312-manylinux1_x86_64.whl", 9, "a" * 64),)
UP = Manifest("v2.5.0-rc1", "c" * 40, UP_FILES)


def tag(name: str, commit: str, message: str = "Made-by: mlrelease release rc") -> Tag:
    return Tag(name, "f" * 40, commit, True, message)


def world_of(
    member: Member,
    manifests: list[Manifest],
    *,
    final: bool = False,
    released: tuple[Entry, ...] = (),
    staged: tuple[Entry, ...] = (),
) -> MemberWorld:
    tags = {m.rc_tag: tag(m.rc_tag, m.commit) for m in manifests}
    if final:
        last = manifests[-1]
        text = f"x\n\n{FINAL_MARKER}\n\n{TRAILER}: {last.digest}"
        tags[f"v{member.version}"] = tag(f"v{member.version}", last.commit, text)
    bindings = {m.rc_tag: {m.digest: f"blob-{m.rc_tag}"} for m in manifests}
    blobs = {f"blob-{m.rc_tag}": (m.digest, m.text()) for m in manifests}
    heads = {f"release/{member.version.rsplit('.', 1)[0]}": "1" * 40}

    def index(url: str, entries: tuple[Entry, ...]) -> Index:
        return Index(
            url, tuple(IndexFile(e.name, url + e.name, e.sha256, downloaded=True) for e in entries)
        )

    return MemberWorld(
        member,
        Refs(heads, tags, bindings),
        NAMES,
        blobs,
        index(STAGING, staged),
        index(RELEASE, released),
    )


VISION_FILES = (Entry("torchvision-0.20.0-cp312-cp312-manylinux1_x86_64.whl", 8, "b" * 64),)
PASSED = Verdict(
    "passed",
    UP_FILES[0].name,
    UP_FILES[0].sha256,
    VISION_FILES[0].name,
    VISION_FILES[0].sha256,
    "torch 2.4.1 (torch-2.4.1-cp312-cp312-manylinux1_x86_64.whl, sha256 ...)",
    "3.12.7",
    2,
)


def record_of(manifest: Manifest = UP, tests: Verdict | None = PASSED) -> Upstream:
    return Upstream(
        "torch",
        "2.5.0",
        manifest.rc_tag,
        manifest.digest,
        TORCH.origin,
        STAGING,
        (NAMES.tag.template, NAMES.rc_tag.template),
        manifest.files,
        tests,
    )


def train_world(
    torch: MemberWorld, vision: MemberWorld, gaps: list[Gap] | None = None
) -> TrainWorld:
    member = Member(VISION.name, VISION.origin, VISION.version, VISION.upstream, gaps or [])
    train = Train("t", STAGING, RELEASE, [member, TORCH], source="train.toml")
    vision = MemberWorld(
        member, vision.refs, vision.names, vision.blobs, vision.staged, vision.released
    )
    return TrainWorld(train, {"torch": torch, "torchvision": vision})


def vision_manifest(*records: Upstream) -> Manifest:
    return Manifest("v0.20.0-rc1", "d" * 40, VISION_FILES, records)


def test_a_member_bound_to_the_current_upstream_waits_for_its_release() -> None:
    mine = vision_manifest(record_of())
    world = train_world(
        world_of(TORCH, [UP], staged=UP_FILES), world_of(VISION, [mine], staged=VISION_FILES)
    )
    assert (
        gatekeeper.bound_problems(world, world.train.member("torchvision"), mine, final=False) == []
    )
    found = gatekeeper.release_problems(world, world.train.member("torchvision"), mine)
    assert "torch 2.5.0 is not released" in found[0] and "not released yet" in found[1]
    rows = status.status(world)["members"]
    assert [r["name"] for r in rows] == ["torch", "torchvision"]  # dependency order
    assert rows[1]["next"] == "`mlrelease train promote --execute` (after torch)"
    assert rows[1]["upstream"] == ["torch 2.5.0 (v2.5.0-rc1)"]
    assert rows[1]["tested"] == [
        "against torch v2.5.0-rc1: passed, 2 tests, compared with " + PASSED.baseline
    ]


def test_a_released_upstream_lets_the_member_through_and_the_plan_keeps_the_order() -> None:
    mine = vision_manifest(record_of())
    world = train_world(
        world_of(TORCH, [UP], final=True, released=UP_FILES, staged=UP_FILES),
        world_of(VISION, [mine], staged=VISION_FILES),
    )
    member = world.train.member("torchvision")
    assert gatekeeper.release_problems(world, member, mine) == []
    steps = promote.steps(world, None)
    assert [(s.member.name, s.done) for s in steps] == [("torch", True), ("torchvision", False)]
    plan = promote.plan_promote(
        world, None, Path("."), lambda c: lambda: None, lambda s: lambda: None
    )
    assert [a.key for a in plan.actions] == ["journal", "torchvision", "journal-end"]


@pytest.mark.parametrize(
    ("records", "words"),
    [
        ((), "records no upstream torch"),
        ((record_of(Manifest("v2.5.0-rc9", "c" * 40, UP_FILES)),), "has no tag v2.5.0-rc9"),
        (
            (
                Upstream(
                    "torch",
                    "2.2.0",
                    "v2.5.0-rc1",
                    UP.digest,
                    TORCH.origin,
                    STAGING,
                    (NAMES.tag.template, NAMES.rc_tag.template),
                    UP_FILES,
                ),
            ),
            "which the train's edge torch==2.5.0 excludes",
        ),
        (
            (
                Upstream(
                    "torch",
                    "2.5.0",
                    "v2.5.0-rc1",
                    UP.digest,
                    TORCH.origin,
                    "http://other/",
                    (NAMES.tag.template, NAMES.rc_tag.template),
                    UP_FILES,
                ),
            ),
            "not from the train's staging index",
        ),
    ],
)
def test_a_member_bound_to_a_wrong_upstream_is_refused(
    records: tuple[Upstream, ...], words: str
) -> None:
    mine = vision_manifest(*records)
    world = train_world(world_of(TORCH, [UP]), world_of(VISION, [mine]))
    found = gatekeeper.bound_problems(world, world.train.member("torchvision"), mine, final=False)
    assert any(words in f for f in found), found
    with pytest.raises(gatekeeper.Violation, match="Nothing was published or tagged"):
        promote.steps(world, None)


@pytest.mark.parametrize(
    ("tests", "words"),
    [
        (None, "records no run of torchvision's tests against torch 2.5.0 (v2.5.0-rc1)"),
        (
            replace(PASSED, verdict="not run", tests=0, why="zero tests collected"),
            f"did not run against torch 2.5.0 (v2.5.0-rc1), file {UP_FILES[0].name} (sha256 "
            f"{'a' * 64}): zero tests collected",
        ),
        (
            replace(PASSED, verdict="failed", failing=("tests/test_ops.py::test_nms: boom",)),
            f"failed against torch 2.5.0 (v2.5.0-rc1), file {UP_FILES[0].name} (sha256 "
            f"{'a' * 64}), and passed against torch 2.4.1",
        ),
        (
            replace(PASSED, verdict="failed", baseline="", note="no regression comparison"),
            "(no regression comparison): no test named",
        ),
        (replace(PASSED, upstream_sha256="f" * 64), "which is not a file of torch 2.5.0"),
        (replace(PASSED, member_sha256="f" * 64), "which is not one of v0.20.0-rc1's files"),
    ],
)
def test_a_member_not_verified_against_its_upstream_candidate_is_refused(
    tests: Verdict | None, words: str
) -> None:
    mine = vision_manifest(record_of(tests=tests))
    world = train_world(
        world_of(TORCH, [UP], final=True, released=UP_FILES, staged=UP_FILES),
        world_of(VISION, [mine], staged=VISION_FILES),
    )
    member = world.train.member("torchvision")
    assert gatekeeper.bound_problems(world, member, mine, final=True) == []  # T3 holds
    (found,) = gatekeeper.tested_problems(member, mine)
    assert words in found
    assert found in gatekeeper.release_problems(world, member, mine)
    with pytest.raises(gatekeeper.Violation, match="Nothing was bound"):
        gatekeeper.before_bind(world, member, mine)
    with pytest.raises(gatekeeper.Violation, match="Nothing was published or tagged"):
        promote.steps(world, None)
    row = status.status(world)["members"][1]
    assert row["blocks"] == [found] and "fix what its tests found" in row["next"]


def test_a_missing_variant_blocks_until_the_train_declares_the_gap() -> None:
    up = Manifest(
        "v2.5.0-rc1",
        "c" * 40,
        (*UP_FILES, Entry("torch-2.5.0-cp313-cp313-manylinux1_x86_64.whl", 9, "e" * 64)),
    )
    mine = vision_manifest(record_of(up))
    world = train_world(world_of(TORCH, [up]), world_of(VISION, [mine]))
    (found,) = gatekeeper.variant_problems(world, world.train.member("torchvision"), mine)
    assert "lacks 3.13-linux-x86_64-cpu, which torch ships" in found
    gap = Gap("3.13-*", "3.13 is experimental")
    world = train_world(world_of(TORCH, [up]), world_of(VISION, [mine]), [gap])
    assert gatekeeper.variant_problems(world, world.train.member("torchvision"), mine) == []


def test_a_journalled_choice_is_kept_and_a_re_tag_named() -> None:
    mine = vision_manifest(record_of())
    world = train_world(
        world_of(TORCH, [UP], final=True, released=UP_FILES), world_of(VISION, [mine])
    )
    with pytest.raises(PreconditionError, match=r"chose torchvision's v0\.20\.0-rc0 .* now v0\.20"):
        promote.steps(world, {"chosen": {"torchvision": "v0.20.0-rc0"}})


def meta(filename: str, *requires: str) -> DistMetadata:
    return DistMetadata(filename, "torchvision", "0.20.0", requires)


def test_the_version_built_against_comes_from_the_files() -> None:
    files = [meta("a.whl", "torch (==2.5.0)", "numpy"), meta("b.whl", "torch==2.5.0")]
    assert record.built_against(files, "torch", "2.4.0") == "2.5.0"
    assert record.built_against([meta("a.whl", "torch>=2")], "torch", "2.5.0") == "2.5.0"
    with pytest.raises(gatekeeper.Violation, match="several versions"):
        record.built_against(
            [meta("a.whl", "torch==2.5.0"), meta("b.whl", "torch==2.2.0")], "torch", "2.5.0"
        )


def test_the_matrix_shows_the_bound_record_and_each_files_requirements() -> None:
    mine = vision_manifest(record_of())
    files = (
        meta("torchvision-0.20.0-cp39-cp39-win_amd64.whl", "torch (==2.5.0)"),
        meta("torchvision-0.20.0-cp312-cp312-win_amd64.whl", "torch (==2.5.0)"),
    )
    text = matrix.page(
        [matrix.Released("t", VISION, (TORCH,), mine, files), matrix.Released("t", TORCH, (), None)]
    )
    assert (
        "| t | torchvision | 0.20.0 | v0.20.0-rc1 | `torch==2.5.0` | torch 2.5.0 (v2.5.0-rc1,"
        in text
    )
    assert "| t | torch | 2.5.0 | not released |" in text
    assert "| torch `2.5` | torchvision `0.20` | `>=3.9`, `<=3.12` |" in text
