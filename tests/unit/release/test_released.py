"""The planner's rules about shipped versions, on hand-built snapshots (pure):

(i) no command plans, offers or tags a release candidate or final tag of a version whose final
tag exists (:func:`mlrelease.release.rules.released`, one predicate); (j) "already released"
is said before any precondition that would only matter for releasing it (a changelog section,
the kind of its RC tag); (k) the changelog section is required only when the changelog gate is
configured. Found on ao's release/0.18.0 and torchdata's release/0.11 (v0.18.0 and v0.11.0
shipped): rc asked for a changelog init had left out, promote asked to delete a published RC
tag, status offered the next RC of the shipped version."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from helpers.release_worlds import without_pins
from packaging.version import Version

from mlrelease.config import Config
from mlrelease.errors import PreconditionError, UserError
from mlrelease.release import rules
from mlrelease.release.candidates import plan_rc
from mlrelease.release.cut import plan_cut
from mlrelease.release.prepare import plan_prepare
from mlrelease.release.promotion.final import plan_promote
from mlrelease.release.publishers import WORKFLOWS
from mlrelease.release.world.snapshot import (
    RC_MARKER,
    PromoteFacts,
    Refs,
    Remote,
    Tag,
    Target,
    WorkTree,
    World,
)

ROOT = Path("/nowhere/demo")
WITH_LOG = Config(root=ROOT)  # the default gates include the changelog gate
NO_LOG = Config(root=ROOT, gates=["git_state", "versions"])
M, B, X = "1" * 40, "b" * 40, "e" * 40
FILES = ("pyproject.toml", "src/demo/__init__.py")
LOG = "# Changelog\n\n<!-- insertion marker -->\n"
SHIPPED = "already released (v1.4.0)"


def rc_tag(name: str, commit: str = B, annotated: bool = True) -> Tag:
    return Tag(name, X if annotated else commit, commit, annotated, f"rc\n\n{RC_MARKER}\n")


def final(commit: str = B) -> Tag:
    return Tag("v1.4.0", commit, commit, False)


def branch_world(tags: dict[str, Tag] | None = None, **changes: object) -> World:
    """release/1.4 at B carrying 1.4.0, checked out, clean, with no 1.4.0 changelog section;
    origin holds ``tags``."""
    snap = World(
        root=ROOT,
        local=Refs(heads={"main": M, "release/1.4": B}),
        remote=Remote("origin", Refs(heads={"main": M, "release/1.4": B}, tags=tags or {})),
        branch="release/1.4",
        head=B,
        commits={"refs/heads/main": M, "main": M},
        versions={"main": "1.5.0.dev0", "release/1.4": "1.4.0", B: "1.4.0"},
        files={("release/1.4", "CHANGELOG.md"): LOG},
        version_files={"main": FILES, "release/1.4": FILES},
        worktree=WorkTree("1.4.0", (), LOG),
        listings={("release/1.4", WORKFLOWS): ()},
    )
    return dataclasses.replace(snap, **changes)  # type: ignore[arg-type]


def refused(match: str, call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises((PreconditionError, UserError), match=re.escape(match)) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return str(caught.value)


def test_released_is_the_final_tag_on_origin_or_here_without_a_remote() -> None:
    names = WITH_LOG.names
    assert rules.released(branch_world(), names, Version("1.4.0")) is None
    assert rules.released(branch_world({"v1.4.0": final()}), names, Version("1.4.0")) == (
        "on origin"
    )
    local = branch_world(local=Refs(heads={"release/1.4": B}, tags={"v1.4.0": final()}))
    # A final tag only this clone has was not released: origin is the truth (#38).
    assert rules.released(local, names, Version("1.4.0")) is None
    assert local.local_only_tags() == ["v1.4.0"]
    alone = dataclasses.replace(local, remote=None)
    assert rules.released(alone, names, Version("1.4.0")) == "here (no remote is configured)"
    both = branch_world({"v1.4.0": final(), "v1.4.1": dataclasses.replace(final(), name="v1.4.1")})
    assert rules.next_release(both, names, Version("1.4.0")) == Version("1.4.2")


@pytest.mark.parametrize("config", [WITH_LOG, NO_LOG])
@pytest.mark.parametrize(
    "rc", [rc_tag("v1.4.0-rc1", annotated=False), rc_tag("v1.4.0-rc1", commit=M)]
)
def test_rc_says_already_released_before_anything_else(config: Config, rc: Tag) -> None:
    """ao: a lightweight RC at HEAD; or HEAD past the shipped RC. Never "delete it", never the
    changelog section."""
    shipped = branch_world({rc.name: rc, "v1.4.0": final()}, ancestry={(M, B): True})
    said = refused(f"rc: 1.4.0 is {SHIPPED}", plan_rc, shipped, config)
    assert "changelog" not in said.lower() and "delete" not in said, said
    assert "--version 1.4.1" in said, said  # the next release of the series


def test_rc_on_the_shipped_candidate_itself_has_nothing_to_do() -> None:
    """The checklist re-runs rc after promote: HEAD is the RC that shipped, a no-op."""
    shipped = branch_world({"v1.4.0-rc1": rc_tag("v1.4.0-rc1"), "v1.4.0": final()})
    plan = plan_rc(shipped, NO_LOG)
    assert plan.noop and "is already v1.4.0-rc1" in plan.notes[-1], plan.notes


def test_rc_needs_a_changelog_section_only_under_the_changelog_gate() -> None:
    plan = plan_rc(without_pins(branch_world()), NO_LOG)
    assert plan.git_commands()[0][:4] == ["git", "tag", "-a", "v1.4.0-rc1"]
    refused(
        "CHANGELOG.md has no 1.4.0 section (the changelog gate", plan_rc, branch_world(), WITH_LOG
    )


def test_prepare_without_the_changelog_gate_writes_no_section_to_a_missing_file() -> None:
    missing = branch_world(
        versions={"release/1.4": "1.4.0.dev0"}, files={("release/1.4", "CHANGELOG.md"): None}
    )
    plan = plan_prepare(missing, NO_LOG, "1.4.0")
    assert "changelog" not in [a.key for a in plan.actions]
    assert any("the changelog gate is not configured" in n for n in plan.notes), plan.notes
    refused("CHANGELOG.md does not exist on release/1.4", plan_prepare, missing, WITH_LOG, "1.4.0")


def promote_world(rc: Tag) -> World:
    return branch_world(
        {rc.name: rc, "v1.4.0": final()},
        target=Target(Version("1.4.0"), rc.name, "release/1.4", "v1.4.0"),
        promote=PromoteFacts(),
    )


@pytest.mark.parametrize(
    "rc",
    [
        rc_tag("v1.4.0-rc1", annotated=False),  # ao's lightweight RC tags
        dataclasses.replace(rc_tag("v1.4.0-rc1"), message="by hand\n"),
        rc_tag("v1.4.0-rc0", annotated=False),  # torchdata's rc0
    ],
)
def test_promote_of_a_shipped_version_says_so_instead_of_asking_to_delete_its_rc(rc: Tag) -> None:
    said = refused(f"promote: 1.4.0 is {SHIPPED}", plan_promote, promote_world(rc), WITH_LOG)
    assert "delete" not in said, said


def test_cut_never_cuts_a_shipped_series_from_main() -> None:
    on_main = branch_world(
        {"v1.4.0": final()},
        local=Refs(heads={"main": M}),
        branch="main",
        head=M,
    )
    on_main = dataclasses.replace(
        on_main, remote=Remote("origin", Refs(heads={"main": M}, tags={"v1.4.0": final()}))
    )
    said = refused(f"cut: 1.4.0 is {SHIPPED}", plan_cut, on_main, WITH_LOG, "1.4")
    assert "--from v1.4.0" in said, said
    with_branch = dataclasses.replace(
        on_main,
        remote=Remote(
            "origin", Refs(heads={"main": M, "release/1.4": B}, tags={"v1.4.0": final()})
        ),
    )
    said = refused(f"cut: 1.4.0 is {SHIPPED}", plan_cut, with_branch, WITH_LOG, "1.4")
    assert "git switch --track origin/release/1.4" in said, said
