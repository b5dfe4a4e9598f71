"""ONNX's release practice, pure: rel-X.Y.Z branches, release candidates as version bumps
without tags, and operator type constraints compared as sets (the onnx case study)."""

from __future__ import annotations

from typing import Any

import pytest
from packaging.version import Version

from mlrelease.errors import PreconditionError
from mlrelease.init import propose
from mlrelease.init.shape import rc_model, release_model, tag_scheme
from mlrelease.init.snapshot import Snapshot
from mlrelease.naming import Names
from mlrelease.opsets import rules as opset_rules
from mlrelease.release.bump_model import next_version, subject
from mlrelease.release.config import ReleaseConfig
from mlrelease.wheels import artifacts


def test_per_patch_release_branches_are_detected() -> None:
    snap = Snapshot(files=[], branches=["main", "rel-1.20.0", "rel-1.20.1", "rel-1.21.0"])
    found = release_model(snap)
    assert (found.name, found.branch) == ("branch", "rel-{major}.{minor}.{patch}")


def test_untagged_candidates_are_detected_from_version_bump_commits() -> None:
    snap = Snapshot(
        files=[],
        tags=["v1.22.0", "v1.21.0"],
        rc_subjects=["Bump version number to 1.22.0rc2 (#8071)", "Update VERSION_NUMBER to rc4"],
    )
    found = rc_model(snap, tag_scheme(snap))
    assert found.name == "bump"
    assert "1.22.0rc2" in found.why


def test_tagged_candidates_win_over_bump_commits() -> None:
    snap = Snapshot(files=[], tags=["v2.0.0", "v2.0.0-rc1"], rc_subjects=["Bump to 2.0.0rc1"])
    assert rc_model(snap, tag_scheme(snap)).name == "tag"


def test_a_subject_merely_mentioning_rc_is_no_evidence() -> None:
    snap = Snapshot(files=[], tags=["v1.0.0"], rc_subjects=["Fix src1 path handling"])
    assert rc_model(snap, tag_scheme(snap)).name == "tag"


def test_per_patch_branch_names_format_and_parse() -> None:
    config = ReleaseConfig(branch="rel-{major}.{minor}.{patch}", rc_model="bump")
    names = Names.of(config, "pyproject.toml")
    assert names.branch_for((1, 22)) == "rel-1.22.0"
    assert names.branch_for((1, 20), patch=1) == "rel-1.20.1"
    assert names.series_of_branch("rel-1.20.1") == (1, 20)
    assert names.series_of_branch("rel-1.20") is None


@pytest.mark.parametrize(
    ("carried", "step", "expected"),
    [
        ("1.22.0", "rc", "1.22.0rc1"),
        ("1.22.0rc1", "rc", "1.22.0rc2"),
        ("1.21.0rc3", "rc", "1.21.0rc4"),
        ("1.22.0rc2", "final", "1.22.0"),
    ],
)
def test_next_version_on_a_release_branch(carried: str, step: Any, expected: str) -> None:
    assert next_version(Version(carried), step, released=False) == Version(expected)


@pytest.mark.parametrize(
    ("carried", "step", "released", "message"),
    [
        ("1.22.0", "final", False, "no release candidate"),
        ("1.22.0", "rc", True, "1.22.1"),
        ("1.23.0.dev0", "rc", False, "X.Y.ZrcN"),
        ("1.22.0b1", "rc", False, "only rc"),
    ],
)
def test_next_version_refusals(carried: str, step: Any, released: bool, message: str) -> None:
    with pytest.raises(PreconditionError, match=message):
        next_version(Version(carried), step, released=released)


def test_a_patch_branch_cut_from_the_release_before_starts_at_rc1() -> None:
    # rel-1.20.1 is cut from v1.20.0 and carries 1.20.0: its first candidate is 1.20.1rc1.
    target = Version("1.20.1")
    assert next_version(Version("1.20.0"), "rc", False, target) == Version("1.20.1rc1")
    assert next_version(Version("1.20.1rc1"), "final", False, target) == target
    with pytest.raises(PreconditionError, match=r"no release candidate of 1\.20\.1"):
        next_version(Version("1.20.0"), "final", False, target)


def test_bump_subject_is_onnxs_spelling() -> None:
    assert subject(Version("1.22.0rc1")) == "Set version number to 1.22.0rc1"


def test_proposal_writes_the_bump_model() -> None:
    from mlrelease.init import detect

    texts = {"VERSION_NUMBER": "1.23.0\n", "pyproject.toml": '[project]\nname = "onnx"\n'}
    snap = Snapshot(
        files=sorted(texts),
        texts=texts,
        tags=["v1.22.0"],
        branches=["main", "rel-1.22.0"],
        rc_subjects=["Set version number to 1.22.0rc1 (#8024)"],
    )
    found = detect.detect(snap)
    text = propose.propose(found, {}).text
    assert 'branch = "rel-{major}.{minor}.{patch}"' in text
    assert 'rc-model = "bump"' in text
    assert found.onnx and "onnx itself" in found.onnx_why


def _snap(types: list[str]) -> dict[str, Any]:
    op = {"op": "Conv", "since": 11, "types": {"T": types}}
    return {"domains": {"": {"opset_version": 27, "operators": [op]}}}


def test_a_repeated_type_is_not_a_signature_change_but_is_a_defect() -> None:
    # onnx 1.21.0 published Conv-11 with tensor(float16) twice; 1.22.0 dropped the duplicate
    # (onnx PR 7940): the allowed types are the same, so the signature did not change.
    before = _snap(["tensor(double)", "tensor(float)", "tensor(float16)", "tensor(float16)"])
    after = _snap(["tensor(double)", "tensor(float)", "tensor(float16)"])
    assert opset_rules.check(before, after)[0] == []
    problems, _ = opset_rules.check(after, before)
    assert problems == [
        "ai.onnx.Conv:11: a type constraint lists a type more than once (T: tensor(float16)); "
        "list each allowed type once"
    ]


def test_a_removed_type_is_still_a_signature_change() -> None:
    before = _snap(["tensor(double)", "tensor(float)"])
    problems, _ = opset_rules.check(before, _snap(["tensor(float)"]))
    assert len(problems) == 1 and "signature changed" in problems[0]


def test_free_threaded_wheels_are_keyed_as_cibuildwheel_spells_them() -> None:
    # onnx 1.21.0 published cp313-cp313t wheels and 1.22.0 none: a dropped free-threaded
    # Python, not a dropped "cp313" (its regular builds are covered by the cp312-abi3 wheel).
    names = [
        "onnx-1.21.0-cp313-cp313t-win_amd64.whl",
        "onnx-1.21.0-cp312-abi3-win_amd64.whl",
        "onnx-1.21.0-cp311-cp311-win_amd64.whl",
    ]
    assert artifacts.release_set(names, "onnx") == {
        "cp313t-win_amd64",
        "cp312-win_amd64",
        "cp311-win_amd64",
    }


def test_a_new_pyodide_abi_year_is_not_a_dropped_platform() -> None:
    # onnx 1.22.0 published pyemscripten_2025_0_wasm32, 1.23.0 pyemscripten_2026_0_wasm32.
    before = artifacts.release_set(
        ["onnx-1.22.0-cp312-abi3-pyemscripten_2025_0_wasm32.whl"], "onnx"
    )
    after = artifacts.release_set(["onnx-1.23.0-cp312-abi3-pyemscripten_2026_0_wasm32.whl"], "onnx")
    assert before == after == {"cp312-pyemscripten_wasm32"}
    assert artifacts.dropped(before, after) == {}


def _history(tag_on_fix: bool) -> Any:
    from mlrelease.init import replay

    commits = [
        replay.Commit(
            "a" * 40, "Set version number to 1.22.0rc1 (#1)", "", "1.22.0", "1.22.0rc1", False
        ),
        replay.Commit(
            "b" * 40, "Update version number to 1.22.0 (#2)", "", "1.22.0rc1", "1.22.0", False
        ),
        replay.Commit("c" * 40, "Fix windows workflows (#3)", "", "1.22.0", "1.22.0", True),
    ]
    return replay.History(
        version=Version("1.22.0"),
        branch="rel-1.22.0",
        start="0" * 40,
        start_version="1.22.0",
        commits=commits if tag_on_fix else commits[:2],
        tag="v1.22.0",
        tag_commit=("c" if tag_on_fix else "b") * 40,
        tag_version="1.22.0",
        head=("c" if tag_on_fix else "b") * 40,
        main_bump=("Bump version number to 1.23.0 (#4)", "1.23.0", 0, True),
    )


def test_replay_counts_a_tag_after_a_late_fix_as_a_difference() -> None:
    from mlrelease.init import replay

    names = Names.of(ReleaseConfig(branch="rel-{major}.{minor}.{patch}"), "pyproject.toml")
    on_bump = replay.replay(_history(tag_on_fix=False), names)
    assert replay.match_rate(on_bump) == (len(on_bump), len(on_bump))
    late = replay.replay(_history(tag_on_fix=True), names)
    assert [s.step for s in late][-1] == "final tag" and not late[-1].match
    assert "tagged that commit" in late[-1].why
    assert replay.match_rate(late) == (len(late) - 1, len(late))


def test_replay_counts_a_late_main_bump_as_a_difference() -> None:
    from dataclasses import replace

    from mlrelease.init import replay

    names = Names.of(ReleaseConfig(branch="rel-{major}.{minor}.{patch}"), "pyproject.toml")
    late = replace(_history(False), main_bump=("Bump to 1.23.0 (#4)", "1.23.0", 18, False))
    step = replay.replay(late, names)[1]
    assert (step.step, step.match) == ("main moves on", False)
    assert "18 day(s)" in step.why


def test_the_checklist_under_the_bump_model_has_no_rc_tag_steps() -> None:
    from pathlib import Path

    from mlrelease.config import Config
    from mlrelease.release.checklist.fitting import steps_for

    root = Config(root=Path("/nowhere/onnx-like"))
    tagged = {s.id: s for s in steps_for(root)}
    assert "--rc" in tagged["promote"].run and "bind" in tagged
    bump = root.with_table(ReleaseConfig(branch="rel-{major}.{minor}.{patch}", rc_model="bump"))
    steps = {s.id: s for s in steps_for(bump)}
    order = list(steps)
    # No RC tag to bind: the final release is bound to its own tag, after promote, and
    # published from the store like a candidate's (one publish path).
    assert order.index("promote") < order.index("bind") < order.index("publish")
    assert "{final_tag}" in steps["bind"].run and "--rc" not in steps["publish"].run
    assert steps["promote"].run == ["mlrelease", "release", "promote", "--execute", "--push"]
    assert "no tag" in steps["rc"].title
    assert [s for s in steps if s not in tagged] == ["final-verify"]
