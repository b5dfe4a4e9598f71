"""What cut says when main's version and the released series disagree (torchcodec: main still
carries 0.7.0a0 after v0.7.0; tensordict: main keeps the released 0.14.0): the way on it names
is a command that works, never one that is refused in turn."""

from __future__ import annotations

from helpers.release_worlds import CONFIG, M, main_world, refused

from mlrelease.release.cut import plan_cut
from mlrelease.release.world import Refs, Remote, Tag

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
