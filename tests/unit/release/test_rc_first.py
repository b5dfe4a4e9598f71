"""RC numbers from 0 where the project numbers them so (torchdata: ``v0.9.0-rc0``,
``v0.10.0-rc0``, ``v0.11.0-rc0``): init proposes ``rc-first = 0`` from the tags, and ``release
rc`` tags ``-rc0`` first. Before, rc tagged ``-rc1`` whatever the project's series showed."""

from __future__ import annotations

from helpers.release_worlds import B2, CONFIG, B, branch_world, rc, without_pins

from mlrelease.init import shape
from mlrelease.init.snapshot import Snapshot
from mlrelease.release.candidates import plan_rc
from mlrelease.release.config import ReleaseConfig
from mlrelease.release.world.snapshot import Refs, Remote, WorkTree, World


def snap(tags: list[str]) -> Snapshot:
    return Snapshot(files=[], texts={}, tags=tags, branches=["main"])


FROM_ZERO = CONFIG.with_table(ReleaseConfig(rc_first=0))


def rc_world(**changes: object) -> World:
    tree = WorkTree("1.4.0", (), "# Changelog\n\n<!-- insertion marker -->\n\n## [1.4.0]\n")
    return without_pins(branch_world(**{"worktree": tree, **changes}))


def test_rc_tags_rc0_first_where_the_project_numbers_from_zero() -> None:
    assert plan_rc(rc_world(), FROM_ZERO).git_commands()[0][3] == "v1.4.0-rc0"
    assert plan_rc(rc_world(), CONFIG).git_commands()[0][3] == "v1.4.0-rc1"
    taken = rc_world(
        remote=Remote(
            "origin", Refs(heads={"release/1.4": B}, tags={"v1.4.0-rc0": rc("v1.4.0-rc0", B2)})
        ),
        ancestry={(B2, B): True},
    )
    assert plan_rc(taken, FROM_ZERO).git_commands()[0][3] == "v1.4.0-rc1"


def test_init_reads_where_the_newest_rc_series_starts() -> None:
    torchdata = ["v0.9.0", "v0.9.0-rc0", "v0.9.0-rc1", "v0.10.1-rc0", "v0.10.1", "v0.8.0-rc1"]
    assert shape.tag_scheme(snap(torchdata)).rc_first == 0
    assert shape.tag_scheme(snap(["v1.0.0", "v1.1.0-rc1", "v1.1.0-rc2"])).rc_first == 1
    assert shape.tag_scheme(snap(["v1.0.0"])).rc_first == 1
