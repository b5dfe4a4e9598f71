"""The tag and branch spelling init proposes: the newest releases' convention (pure)."""

from __future__ import annotations

import pytest

from mlrelease.init import detect
from mlrelease.init.snapshot import Snapshot

TORCHCODEC = [f"release/0.0.{n}" for n in range(1, 7)] + [f"release/0.{n}" for n in range(3, 8)]
"""torchcodec: six old X.Y.Z branches, then the five newest spelled X.Y."""


def snap(*, tags: list[str] | None = None, branches: list[str] | None = None) -> Snapshot:
    return Snapshot(files=[], tags=tags or [], branches=["main", *(branches or [])])


@pytest.mark.parametrize(
    ("branches", "template", "newest"),
    [
        (TORCHCODEC, "release/{major}.{minor}", "release/0.7, release/0.6, release/0.5"),
        (  # torchao: release/0.1 .. 0.9 once, release/0.10.0 .. 0.18.0 now
            [f"release/0.{n}" for n in range(1, 10)] + [f"release/0.{n}.0" for n in range(10, 19)],
            "release/{major}.{minor}.{patch}",
            "release/0.18.0, release/0.17.0, release/0.16.0",
        ),
        (["release/1.9", "release/1.10", "rel-1.11"], "release/{major}.{minor}", ""),
    ],
)
def test_the_branch_pattern_is_the_newest_branches_spelling(
    branches: list[str], template: str, newest: str
) -> None:
    found = detect.release_model(snap(branches=branches))
    assert (found.name, found.branch) == ("branch", template)
    assert newest in found.why


def test_the_tag_spelling_is_the_newest_tags_by_the_same_rule() -> None:
    """Many old ``1.2.3`` tags, then ``v``: the tags follow the rule the branches follow."""
    old = [f"1.{n}.0" for n in range(10)] + [f"1.{n}.0rc1" for n in range(10)]
    new = ["v2.0.0", "v2.0.0-rc1", "v2.1.0", "v2.1.0-rc1", "v2.2.0", "v2.2.0-rc1"]
    found = detect.tag_scheme(snap(tags=new + old))
    assert (found.tag, found.rc_tag) == (
        "v{major}.{minor}.{patch}",
        "v{major}.{minor}.{patch}-rc{rc}",
    )
    assert found.latest == "v2.2.0"
    assert (
        "the newest (v2.2.0, v2.1.0, v2.0.0) spelled vX.Y.Z, 10 other(s) spelled X.Y.Z" in found.why
    )
