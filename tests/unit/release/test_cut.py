"""The pure planners of cut, prepare, rc and cherry-picks on hand-built snapshots: no git, no
files, milliseconds each. Each refusal names what is wrong and what to do (bind and promote:
``test_cut_promotion.py``)."""

from __future__ import annotations

import pytest
from helpers.release_worlds import (
    AHEAD,
    B2,
    BRANCH_BEHIND,
    CONFIG,
    FILES,
    LOG,
    M2,
    ROOT,
    B,
    M,
    X,
    branch_world,
    main_world,
    rc,
    refused,
    without_pins,
)

from mlrelease.config import Config
from mlrelease.release.candidates import plan_rc
from mlrelease.release.config import ReleaseConfig, ReleaseEdit
from mlrelease.release.cut import plan_cut
from mlrelease.release.picks import plan_picks
from mlrelease.release.prepare import plan_prepare
from mlrelease.release.world.snapshot import (
    RC_MARKER,
    BranchCommit,
    Journal,
    NotGathered,
    PickFacts,
    Refs,
    Remote,
    WorkTree,
    World,
)


def keys(snap: World, **kwargs: object) -> list[str]:
    return [a.key for a in plan_cut(snap, CONFIG, "1.4", **kwargs).actions]  # type: ignore[arg-type]


# --- cut --------------------------------------------------------------------------------------


def test_cut_branches_bumps_main_and_pushes_both() -> None:
    plan = plan_cut(main_world(), CONFIG, "1.4", push=True)
    assert [a.key for a in plan.actions] == [
        "branch",
        "journal",
        "bump",
        "commit-main",
        "journal-end",
        "switch-branch",
        "push",
    ]
    assert plan.git_commands()[0] == ["git", "branch", "release/1.4", "refs/heads/main"]
    assert plan.git_commands()[-1] == [
        "git",
        "push",
        "--atomic",
        "origin",
        "refs/heads/release/1.4:refs/heads/release/1.4",
        "refs/heads/main:refs/heads/main",
    ]
    assert "1.4.0.dev0 -> 1.5.0.dev0 in pyproject.toml, src/demo/__init__.py" in plan.lines()[2]


def test_cut_of_a_cut_release_does_nothing() -> None:
    snap = main_world(
        local=Refs(heads={"main": M2, "release/1.4": B}),
        versions={"main": "1.5.0.dev0"},
        branch="release/1.4",
        head=B,
    )
    plan = plan_cut(snap, CONFIG, "1.4")
    assert plan.noop and "release/1.4 exists" in plan.notes[0]


def test_cut_makes_the_release_only_edits_on_the_branch() -> None:
    edit = ReleaseEdit("README.md", "blob/main/", "blob/{branch}/")
    config = Config(root=ROOT).with_table(ReleaseConfig(edits=[edit]))
    snap = main_world(files={("main", "README.md"): "see blob/main/x\n"})
    plan = plan_cut(snap, config, "1.4")
    assert "edit:README.md" in [a.key for a in plan.actions]
    assert "'blob/main/' -> 'blob/release/1.4/'" in " ".join(plan.lines())
    done = main_world(
        local=Refs(heads={"main": M2, "release/1.4": B}),
        versions={"main": "1.5.0.dev0"},
        files={("release/1.4", "README.md"): "see blob/release/1.4/x\n"},
    )
    assert plan_cut(done, config, "1.4").noop


@pytest.mark.parametrize(
    ("changes", "push", "refusal"),
    [
        ({"branch": None}, False, f"cut: HEAD is detached (at {M[:12]})"),
        ({"busy": "a rebase is in progress in this repository"}, False, "a rebase is in progress"),
        ({"lock": "/nowhere/demo/.git/index.lock"}, False, "index.lock exists"),
        ({"dirty": ("notes.txt",)}, False, "the working tree has uncommitted changes (notes.txt)"),
        ({"commits": {"refs/heads/main": None}}, False, "no local branch 'main'"),
        ({"remote": Remote("origin", Refs(heads={"main": M, "release/1.4": B}))}, False,
         f"origin already has release/1.4 ({B[:12]}) and this clone does not"),
        ({"remote": Remote("origin", Refs(heads={"main": AHEAD})), "ancestry": {(AHEAD, M): False}},
         True, "origin/main (000000000000) has commits that local main"),
        ({"versions": {"main": "1.3.0.dev0"}}, False, "the 1.4 development has not started"),
        ({"versions": {"main": "1.4.0rc1"}}, False, "main carries 1.4.0rc1, a pre-release"),
        ({"remote": None, "remote_error": "cannot list the refs of remote 'origin'"}, False,
         "cannot list the refs of remote 'origin'"),
        ({"remote": None}, True, "cut --push: no remote 'origin' is configured here"),
    ],
)  # fmt: skip
def test_cut_refuses_before_the_first_change(
    changes: dict[str, object], push: bool, refusal: str
) -> None:
    refused(refusal, plan_cut, main_world(**changes), CONFIG, "1.4", push=push)


def test_a_bare_next_version_on_main_moves_on_bare() -> None:
    # ao and executorch keep the bare next version on main (version.txt 0.19.0, no v0.19.0
    # yet); the cut was refused ("main must carry a development version") and told them to
    # rewrite version.txt.
    plan = plan_cut(main_world(versions={"main": "1.4.0"}), CONFIG, "1.4")
    assert "1.4.0 -> 1.5.0 in pyproject.toml, src/demo/__init__.py" in plan.lines()[2]


def test_cut_from_a_commit_that_does_not_exist_is_refused() -> None:
    snap = main_world(commits={"refs/heads/main": M, "nope": None})
    refused(
        "cut: --from nope: no such branch, tag or commit", plan_cut, snap, CONFIG, "1.4", "nope"
    )


def test_cut_after_a_kill_restores_the_journalled_files_first() -> None:
    journal = Journal("/j", {"head": M, "files": list(FILES), "purpose": "mlrelease release cut"})
    snap = main_world(journal=journal, dirty=("pyproject.toml",))
    plan = plan_cut(snap, CONFIG, "1.4")
    assert [a.key for a in plan.actions][:3] == ["restore", "journal-drop", "branch"]
    assert plan.git_commands()[0][-2:] == ["--", "pyproject.toml"]
    mixed = main_world(journal=journal, dirty=("pyproject.toml", "mine.txt"))
    refused("and mine.txt changed too", plan_cut, mixed, CONFIG, "1.4")
    unparsable = main_world(journal=Journal("/j", None))
    assert plan_cut(unparsable, CONFIG, "1.4").actions[0].key == "journal-drop"


def test_a_fact_the_reader_did_not_gather_is_a_bug_said_as_such() -> None:
    with pytest.raises(NotGathered, match="no version for 'main'"):
        plan_cut(main_world(versions={}), CONFIG, "1.4")


# --- prepare ----------------------------------------------------------------------------------


def test_prepare_bumps_and_writes_the_changelog_in_one_commit() -> None:
    plan = plan_prepare(branch_world(), CONFIG, "1.4.0", push=True)
    assert [a.key for a in plan.actions] == [
        "journal",
        "bump",
        "changelog",
        "commit",
        "journal-end",
        "push",
    ]
    commit = plan.git_commands()[0]
    assert commit[-4:] == ["--", "CHANGELOG.md", "pyproject.toml", "src/demo/__init__.py"]
    done = branch_world(
        versions={"release/1.4": "1.4.0"},
        files={("release/1.4", "CHANGELOG.md"): LOG + "\n## [1.4.0] - 2026-01-01\n"},
    )
    assert plan_prepare(done, CONFIG, "1.4.0").noop


@pytest.mark.parametrize(
    ("changes", "push", "refusal"),
    [
        ({"local": Refs(heads={"main": M2})}, False, "prepare: there is no branch release/1.4"),
        ({"local": Refs(heads={"main": M2, "release/1.4": B},
                        tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B, obj="7" * 40)}),
          "remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B2)}))},
         False, f"tag v1.4.0-rc1 is {B[:12]} here but {B2[:12]} on origin"),
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0": rc("v1.4.0", B)}))},
         False, "prepare: 1.4.0 is released (v1.4.0 exists)"),
        ({"versions": {"release/1.4": "1.4.1"}}, False, "already carries 1.4.1, newer than"),
        ({"versions": {"release/1.4": "1.3.9"}}, False, "which was never released (no tag v1.3.9"),
        ({"files": {("release/1.4", "CHANGELOG.md"): None}}, False, "CHANGELOG.md does not exist"),
        ({"dirty": ("x.py",)}, False, "prepare: the working tree has uncommitted changes (x.py)"),
        (BRANCH_BEHIND,
         False, f"prepare: origin/release/1.4 ({AHEAD[:12]}) has commits that local release/1.4"),
        ({"busy": "a merge is in progress in this repository"}, False, "a merge is in progress"),
    ],
)  # fmt: skip
def test_prepare_refuses_before_the_first_change(
    changes: dict[str, object], push: bool, refusal: str
) -> None:
    refused(refusal, plan_prepare, branch_world(**changes), CONFIG, "1.4.0", push=push)


# --- rc ---------------------------------------------------------------------------------------


def rc_world(**changes: object) -> World:
    """release/1.4 at B carrying 1.4.0 with its changelog section, no RC yet."""
    tree = WorkTree("1.4.0", (), LOG + "\n## [1.4.0] - 2026-01-01\n")
    return without_pins(branch_world(**{"worktree": tree, **changes}))


def test_rc_tags_the_next_free_number_annotated_with_the_marker() -> None:
    plan = plan_rc(rc_world(), CONFIG, push=True)
    tag, push = plan.git_commands()
    assert tag[:4] == ["git", "tag", "-a", "v1.4.0-rc1"] and tag[-1] == RC_MARKER
    assert push == [
        "git",
        "push",
        "--atomic",
        "origin",
        "refs/tags/v1.4.0-rc1:refs/tags/v1.4.0-rc1",
    ]
    taken = rc_world(
        remote=Remote(
            "origin", Refs(heads={"release/1.4": B}, tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B2)})
        ),
        head=B,
        ancestry={(B2, B): True},
    )
    assert plan_rc(taken, CONFIG).git_commands()[0][3] == "v1.4.0-rc2"
    at_head = rc_world(
        remote=Remote(
            "origin", Refs(heads={"release/1.4": B}, tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B)})
        )
    )
    again = plan_rc(at_head, CONFIG)
    assert again.noop and "is already v1.4.0-rc1" in again.notes[0]


@pytest.mark.parametrize(
    ("changes", "push", "refusal"),
    [
        ({"branch": None}, False, "rc: you are on a detached HEAD, not on a release branch"),
        ({"branch": "main"}, False, "rc: you are on main, not on a release branch"),
        ({"worktree": WorkTree("1.4.0", ("src/demo/__init__.py:1 carries 1.3.0",), LOG)}, False,
         "the version files disagree (current_version 1.4.0): src/demo/__init__.py:1 carries"),
        ({"worktree": WorkTree("1.4.0.dev0", (), LOG)}, False, "release/1.4 carries 1.4.0.dev0"),
        ({"worktree": WorkTree("1.4.0", (), LOG)}, False, "CHANGELOG.md has no 1.4.0 section"),
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B2)})),
          "ancestry": {(B2, B): False}},
         False, f"rc: HEAD does not contain v1.4.0-rc1 ({B2[:12]})"),
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B, X, False)}))},
         False, "v1.4.0-rc1 on origin is a lightweight tag"),
        ({"local": Refs(heads={"release/1.4": B},
                        tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B, marker=False)}), "remote": None},
         False, "v1.4.0-rc1 on this repository was not made by `mlrelease release rc`"),
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0": rc("v1.4.0", B2)}))},
         False, "rc: 1.4.0 is already released (v1.4.0)"),
        (BRANCH_BEHIND,
         True, "origin/release/1.4"),
        ({"remote": Remote("origin", Refs(heads={"release/1.4": B},
                                          tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B2, obj="8" * 40)})),
          "local": Refs(heads={"release/1.4": B},
                        tags={"v1.4.0-rc1": rc("v1.4.0-rc1", B, obj="9" * 40)})},
         False, f"tag v1.4.0-rc1 is {B[:12]} here but {B2[:12]} on origin"),
    ],
)  # fmt: skip
def test_rc_refuses_before_the_first_change(
    changes: dict[str, object], push: bool, refusal: str
) -> None:
    refused(refusal, plan_rc, rc_world(**changes), CONFIG, push=push)


def test_rc_refuses_a_tag_name_that_is_not_the_next_candidate() -> None:
    refused(
        "not a release-candidate tag of the configured pattern",
        plan_rc,
        rc_world(),
        CONFIG,
        "v1.4.0rc1",
    )
    taken = rc_world(
        remote=Remote(
            "origin", Refs(heads={"release/1.4": B}, tags={"v1.4.0-rc2": rc("v1.4.0-rc2", B2)})
        ),
        head=B,
        ancestry={(B2, B): True},
    )
    refused("the next free number is 3 (taken: v1.4.0-rc2)", plan_rc, taken, CONFIG, "v1.4.0-rc1")


def test_rc_tag_may_skip_numbers_and_names_the_gap() -> None:
    plan = plan_rc(rc_world(), CONFIG, "v1.4.0-rc3")
    assert plan.git_commands()[0][3] == "v1.4.0-rc3"
    assert "v1.4.0-rc3 skips rc1, rc2" in " ".join(plan.notes)


def test_rc_rebuild_tags_the_same_commit_again_after_origins_newest() -> None:
    """Torch-TensorRT's rc8 on rc7's commit: a hand-made rc1 at HEAD, rc2 elsewhere on origin."""
    tags = {"v1.4.0-rc1": rc("v1.4.0-rc1", B, marker=False), "v1.4.0-rc2": rc("v1.4.0-rc2", B2)}
    world = rc_world(
        remote=Remote("origin", Refs(heads={"release/1.4": B}, tags=tags)),
        ancestry={(B2, B): True},
    )
    (tag,) = plan_rc(world, CONFIG, rebuild=True).git_commands()
    assert tag[:4] == ["git", "tag", "-a", "v1.4.0-rc3"]
    assert "(a rebuild of v1.4.0-rc1)" in tag[5] and "Rebuild-of: v1.4.0-rc1" in tag[-1]
    refused("there is nothing to rebuild", plan_rc, rc_world(), CONFIG, rebuild=True)


# --- cherry-picks -----------------------------------------------------------------------------

FIX, ADAPTED, MISSING, MARKED, OTHER = ("f" * 40, "a" * 40, "d" * 40, "9" * 40, "8" * 40)
SAME, PR, REVERTED, UNDONE = ("3" * 40, "4" * 40, "6" * 40, "7" * 40)


def picks_world(**changes: object) -> World:
    facts = PickFacts(
        candidates=(
            (True, FIX), (False, ADAPTED), (False, MISSING), (False, MARKED), (False, OTHER),
            (False, SAME), (False, PR), (False, REVERTED), (True, UNDONE),
        ),
        info={
            FIX: ("fix: one", ("1.4",)),
            ADAPTED: ("fix: two", ("1.3, 1.4",)),
            MISSING: ("fix: three", ("1.4",)),
            MARKED: ("fix: four", ("1.4",)),
            OTHER: ("fix: for 1.5", ("1.5",)),
            SAME: ("fix: five", ("1.4",)),
            PR: ("fix: six (#42)", ("1.4",)),
            REVERTED: ("fix: seven", ("1.4",)),
            UNDONE: ("fix: eight", ("1.4",)),
        },
        on_branch={"p1": B2, "p8": "e" * 40},
        own_patches={FIX: ("p1",), UNDONE: ("p8",)},
        branch_commits=(
            BranchCommit("1" * 40, "Revert fix: eight", reverts=(("e" * 40)[:9],)),
            BranchCommit("e" * 40, "fix: eight"),
            BranchCommit(B, "fix: two (1.4)", picked_from=(ADAPTED[:7],)),
            BranchCommit("2" * 40, "[1.4] Fix: five"),
            BranchCommit("5" * 40, "fix: six, for 1.4 (#42)"),
        ),
        main_reverts={REVERTED: "0" * 40},
        marked={MARKED: ("not-needed", "1.4 lacks the feature")},
    )  # fmt: skip
    return branch_world(picks=facts, **changes)


def test_picks_are_identified_by_patch_trailer_pull_request_subject_and_reverts() -> None:
    found = plan_picks(picks_world(), CONFIG, None)
    states = {p.commit: (p.state, p.on_branch) for p in found.picks}
    assert states == {
        FIX: ("picked", B2),
        ADAPTED: ("adapted", B),  # its -x line names it abbreviated
        MISSING: ("missing", None),
        MARKED: ("marked", None),
        SAME: ("maybe", "2" * 40),  # same normalised subject: not picked again, not picked
        PR: ("same-pr", "5" * 40),
        REVERTED: ("withdrawn", "0" * 40),
        UNDONE: ("reverted", "1" * 40),
        OTHER: ("not-wanted", None),  # a fix for 1.5 only: shown, never picked
    }
    assert found.plan is not None
    assert found.plan.git_commands() == [["git", "cherry-pick", "-x", MISSING]]
    assert "may be picked already" in found.plan.notes[0]
    table = found.markdown()
    assert "picked (adapted)" in table and "maybe picked" in table and "withdrawn" in table
    summary = "4 of 8 picked, 1 missing, 1 maybe picked, 1 withdrawn, 1 reverted; 1 not wanted."
    assert summary in table


def test_a_mark_is_recorded_instead_of_picking() -> None:
    found = plan_picks(
        picks_world(), CONFIG, None, mark=[f"{MISSING[:8]}=picked"], reason="by hand"
    )
    assert found.plan is not None
    (commit,) = found.plan.git_commands()
    assert commit[:3] == ["git", "commit", "--allow-empty"]
    assert f"Release-Pick-Override: {MISSING} picked" in commit
    refused(
        "needs --reason TEXT", plan_picks, picks_world(), CONFIG, None, mark=[f"{MISSING}=picked"]
    )
    refused("expected COMMIT=picked or COMMIT=not-needed", plan_picks, picks_world(), CONFIG, None,
            mark=["zz=picked"], reason="x")  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"branch": "main"}, "cherry-picks: main is not a release branch"),
        ({"dirty": ("x.py",)}, "cherry-picks: the working tree has uncommitted changes (x.py)"),
        (BRANCH_BEHIND,
         "origin/release/1.4"),  # a colleague pushed picks: picking again would land them twice
        ({"busy": "a cherry-pick is in progress here"}, "a cherry-pick is in progress"),
    ],
)  # fmt: skip
def test_picks_refuse_before_the_first_change(changes: dict[str, object], refusal: str) -> None:
    refused(refusal, plan_picks, picks_world(**changes), CONFIG, None)


def test_picks_named_in_a_subject_as_pytorch_spells_them_are_picked() -> None:
    """Torch-TensorRT's release branches name the picked pull requests in their subjects, not
    by patch or -x line: before, each was listed missing and `--execute` picked it twice."""
    main = {
        "a" * 40: "Fix TensorRT runtime input buffer lifetimes (#4247)",
        "b" * 40: "fix: slice_scatter with SymInt (#4256)",
        "c" * 40: "TRT 11 MD Ops (#4321)",
        "d" * 40: "fix: dynamo bug (#4371)",
        "f" * 40: "fix: unrelated (#4999)",
    }
    facts = PickFacts(
        candidates=tuple((False, sha) for sha in main),
        info={sha: (subject, ("1.4",)) for sha, subject in main.items()},
        branch_commits=(
            BranchCommit("1" * 40, "cherry pick 4247 4256 from main to release 1.4"),
            BranchCommit("2" * 40, "[cherry-pick][release/1.4] TRT 11 MD Ops (#4321) (#4373)"),
            BranchCommit("3" * 40, "cherrypick: PRs #4371, #4387, and two commits (#4391)"),
        ),
    )
    found = plan_picks(branch_world(picks=facts), CONFIG, None)
    states = {p.subject: (p.state, p.on_branch) for p in found.picks}
    assert states == {
        main["a" * 40]: ("same-pr", "1" * 40),
        main["b" * 40]: ("same-pr", "1" * 40),
        main["c" * 40]: ("same-pr", "2" * 40),
        main["d" * 40]: ("same-pr", "3" * 40),
        main["f" * 40]: ("missing", None),
    }
    assert found.plan is not None
    assert found.plan.git_commands() == [["git", "cherry-pick", "-x", "f" * 40]]
