"""What cut says when main's version and the released series disagree (torchcodec: main still
carries 0.7.0a0 after v0.7.0; tensordict: main keeps the released 0.14.0): the way on it names
is a command that works, never one that is refused in turn."""

from __future__ import annotations

from helpers.release_worlds import CONFIG, M, branch_world, main_world, refused

from mlrelease.release.cut import plan_cut
from mlrelease.release.prepare import plan_prepare
from mlrelease.release.world.snapshot import Refs, Remote, Tag

RELEASED = Tag("v1.4.0", M, M, False, "")
"""v1.4.0, lightweight, on main's commit M."""


def released_world(main: str) -> object:
    origin = Remote("origin", Refs(heads={"main": M, "release/1.4": M}, tags={"v1.4.0": RELEASED}))
    return main_world(versions={"main": main, M: main}, remote=origin)


def test_a_released_series_main_never_moved_off_is_moved_by_a_bump() -> None:
    # It said "main has moved on", and the cut of the next series said "cut --version 1.4".
    refused("main still carries 1.4.0a0", plan_cut, released_world("1.4.0a0"), CONFIG, "1.4")
    refused("`mlrelease bump --to 1.5.0a0 --execute`", plan_cut, released_world("1.4.0a0"),
            CONFIG, "1.4")  # fmt: skip
    refused("Bump main to 1.5.0a0 first (`mlrelease bump --to 1.5.0a0 --execute`).", plan_cut,
            released_world("1.4.0a0"), CONFIG, "1.5")  # fmt: skip


def test_main_keeping_the_released_version_starts_the_next_one_bare() -> None:
    # tensordict: it said "Bump main to 1.5.0.dev0 first, or cut 1.4" (1.4 is released).
    refused("Bump main to 1.5.0 first (`mlrelease bump --to 1.5.0 --execute`).", plan_cut,
            released_world("1.4.0"), CONFIG, "1.5")  # fmt: skip


def test_a_main_already_at_the_next_version_cuts_the_release_and_stays() -> None:
    # onnxconverter-common: master had carried 1.16.0 for a year when rel-1.15.0 was cut from
    # it; cut refused ("master carries 1.16.0, not a 1.15 version") and offered --from, though
    # every commit of master carried 1.16.0.
    for ahead in ("1.5.0", "1.5.0.dev0", "2.0.0.dev0"):
        plan = plan_cut(main_world(versions={"main": ahead, M: ahead}), CONFIG, "1.4")
        assert [a.key for a in plan.actions] == ["branch", "switch-branch"], ahead
        assert f"main already carries {ahead}." in plan.notes
    far = main_world(versions={"main": "1.6.0.dev0", M: "1.6.0.dev0"})
    refused("main carries 1.6.0.dev0, not a 1.4 version", plan_cut, far, CONFIG, "1.4")


def test_prepare_sets_the_release_on_a_branch_cut_at_the_next_version() -> None:
    # onnxconverter-common's rel-1.15.0 started at master's 1.16.0 and set 1.15.0 on the
    # branch ('Downgrade version number to 1.15.0'); prepare refused ("newer than 1.15.0").
    snap = branch_world(versions={"release/1.4": "1.5.0"})
    plan = plan_prepare(snap, CONFIG, "1.4.0")
    assert [a.key for a in plan.actions][:2] == ["journal", "bump"]
    assert "1.5.0 -> 1.4.0" in " ".join(plan.lines())
    far = branch_world(versions={"release/1.4": "1.6.0"})
    refused("already carries 1.6.0, newer than 1.4.0", plan_prepare, far, CONFIG, "1.4.0")
