"""The pure planners of cut, prepare, rc, cherry-picks, bind and promote on hand-built snapshots: no
git, no files, milliseconds each. Each refusal names what is wrong and what to do."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from packaging.version import Version

from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.gates import GateResult, Status
from mlrelease.release.candidates import plan_prepare, plan_rc
from mlrelease.release.config import ReleaseConfig, ReleaseEdit
from mlrelease.release.cut import plan_cut
from mlrelease.release.picks import plan_picks
from mlrelease.release.promotion.bind import plan_bind
from mlrelease.release.promotion.final import plan_promote
from mlrelease.release.promotion.manifest import Entry, Manifest
from mlrelease.release.promotion.provenance import blob_id
from mlrelease.release.world import (
    RC_MARKER,
    BranchCommit,
    Index,
    IndexFile,
    Journal,
    NotGathered,
    PickFacts,
    PromoteFacts,
    Refs,
    Remote,
    Tag,
    Target,
    Verdict,
    WorkTree,
    World,
)
from mlrelease.report import Report, Worktree

ROOT = Path("/nowhere/demo")
CONFIG = Config(root=ROOT)
M, M2, B, B2, AHEAD, X = ("1" * 40, "2" * 40, "b" * 40, "c" * 40, "0" * 40, "e" * 40)
FILES = ("pyproject.toml", "src/demo/__init__.py")
LOG = "# Changelog\n\n<!-- insertion marker -->\n"


def keys(snap: World, **kwargs: object) -> list[str]:
    return [a.key for a in plan_cut(snap, CONFIG, "1.4", **kwargs).actions]  # type: ignore[arg-type]


def main_world(**changes: object) -> World:
    """main at M carrying 1.4.0.dev0, checked out and clean; origin's main is M too."""
    snap = World(
        root=ROOT,
        local=Refs(heads={"main": M}),
        remote=Remote("origin", Refs(heads={"main": M})),
        branch="main",
        head=M,
        commits={"refs/heads/main": M, "main": M},
        versions={"main": "1.4.0.dev0", M: "1.4.0.dev0"},
        version_files={"main": FILES},
    )
    return dataclasses.replace(snap, **changes)  # type: ignore[arg-type]


def refused(match: str, call: object, *args: object, **kwargs: object) -> None:
    with pytest.raises((PreconditionError, UserError), match=re.escape(match)):
        call(*args, **kwargs)  # type: ignore[operator]


# --- cut --------------------------------------------------------------------------------------


def test_cut_branches_bumps_main_and_pushes_both() -> None:
    plan = plan_cut(main_world(), CONFIG, "1.4", push=True)
    assert [a.key for a in plan.actions] == [
        "branch", "journal", "bump", "commit-main", "journal-end", "switch-branch", "push",
    ]  # fmt: skip
    assert plan.git_commands()[0] == ["git", "branch", "release/1.4", "main"]
    assert plan.git_commands()[-1] == ["git", "push", "--atomic", "origin", "release/1.4", "main"]
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
        ({"versions": {"main": "1.3.0.dev0"}}, False, "main carries 1.3.0.dev0, not a 1.4"),
        ({"versions": {"main": "1.4.0"}}, False, "main carries 1.4.0, a release version"),
        ({"remote": None, "remote_error": "cannot list the refs of remote 'origin'"}, False,
         "cannot list the refs of remote 'origin'"),
        ({"remote": None}, True, "cut --push: no remote 'origin' is configured here"),
    ],
)  # fmt: skip
def test_cut_refuses_before_the_first_change(
    changes: dict[str, object], push: bool, refusal: str
) -> None:
    refused(refusal, plan_cut, main_world(**changes), CONFIG, "1.4", push=push)


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


def branch_world(**changes: object) -> World:
    """release/1.4 at B carrying 1.4.0.dev0 with no 1.4.0 changelog section, checked out."""
    snap = main_world(
        local=Refs(heads={"main": M2, "release/1.4": B}),
        remote=Remote("origin", Refs(heads={"main": M2, "release/1.4": B})),
        branch="release/1.4",
        head=B,
        versions={"release/1.4": "1.4.0.dev0"},
        files={("release/1.4", "CHANGELOG.md"): LOG},
        version_files={"release/1.4": FILES},
    )
    return dataclasses.replace(snap, **changes)  # type: ignore[arg-type]


BRANCH_BEHIND = {
    "remote": Remote("origin", Refs(heads={"release/1.4": AHEAD})),
    "ancestry": {(AHEAD, B): False},
}
"""Origin's release/1.4 has a commit the local one lacks (a colleague pushed)."""


def rc(name: str, commit: str, obj: str = X, annotated: bool = True, marker: bool = True) -> Tag:
    message = f"1.4.0 release candidate\n\n{RC_MARKER}\n" if marker else "by hand\n"
    return Tag(name, obj if annotated else commit, commit, annotated, message)


def test_prepare_bumps_and_writes_the_changelog_in_one_commit() -> None:
    plan = plan_prepare(branch_world(), CONFIG, "1.4.0", push=True)
    assert [a.key for a in plan.actions] == [
        "journal", "bump", "changelog", "commit", "journal-end", "push",
    ]  # fmt: skip
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
    return branch_world(**{"worktree": tree, **changes})


def test_rc_tags_the_next_free_number_annotated_with_the_marker() -> None:
    plan = plan_rc(rc_world(), CONFIG, push=True)
    tag, push = plan.git_commands()
    assert tag[:4] == ["git", "tag", "-a", "v1.4.0-rc1"] and tag[-1] == RC_MARKER
    assert push == ["git", "push", "--atomic", "origin", "refs/tags/v1.4.0-rc1"]
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
    refused(
        "the next free release-candidate number is 1", plan_rc, rc_world(), CONFIG, "v1.4.0-rc2"
    )


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
            BranchCommit("1" * 40, "Revert fix: eight", reverts=("e" * 40)[:9]),
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
    }
    assert found.plan is not None
    assert found.plan.git_commands() == [["git", "cherry-pick", "-x", MISSING]]
    assert "may be picked already" in found.plan.notes[0]
    table = found.markdown()
    assert "picked (adapted)" in table and "maybe picked" in table and "withdrawn" in table
    assert "4 of 8 picked, 1 missing, 1 maybe picked, 1 withdrawn, 1 reverted." in table


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
        verdict=Verdict("build/report.json", report or verdict(), tree=TREE,
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
    assert promote(newest) == ["tag"]


def test_promote_tags_the_rcs_commit_naming_the_manifest() -> None:
    config = Config(root=ROOT, gates=GATES)
    plan = plan_promote(promote_world(), config).plan
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
        ({"promote": facts(verdict=Verdict("r.json"))}, "promote: no release_verify report at"),
        ({"promote": facts(stored={}, found=(), index=INDEX)},
         "demo-1.4.0-py3-none-any.whl (cccccccccccc"),
        ({"promote": facts(index=Index("u", (IndexFile("demo-1.4.0.zip", "0" * 64),)))},
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
