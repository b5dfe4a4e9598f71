"""The push gatekeeper's decision (:func:`mlrelease.release.pushes.before_push`), on refs as
values: what moved on origin, and whether each tag to send is the one this clone made."""

from __future__ import annotations

import pytest

from mlrelease.naming import Names
from mlrelease.release.pushes import PushRefused, before_push
from mlrelease.release.world.snapshot import RC_MARKER, MadeTag, Refs, Tag

NAMES = Names.compile("test")
COMMIT, OTHER, OBJECT = "c" * 40, "d" * 40, "e" * 40
RC1 = Tag("v1.4.0-rc1", OBJECT, COMMIT, True, f"1.4.0 release candidate 1\n\n{RC_MARKER}\n")
PLANNED = Refs(heads={"release/1.4": COMMIT, "main": OTHER}, tags={})
NOW = {"refs/heads/release/1.4": COMMIT, "refs/heads/main": OTHER}
PUSHED = ["release/1.4", "refs/tags/v1.4.0-rc1"]
MINE = ({RC1.name: RC1}, {RC1.name: MadeTag(RC1.name, COMMIT, OBJECT, "rc")})


def test_a_push_on_the_refs_planning_read_goes_out() -> None:
    before_push("origin", PLANNED, NOW, PUSHED, NAMES, MINE)


@pytest.mark.parametrize(
    ("now", "said"),
    [
        ({**NOW, "refs/tags/v1.4.0": OTHER}, "tag v1.4.0: absent -> dddddddddddd"),
        ({**NOW, "refs/tags/1.4.0": OTHER}, "tag 1.4.0: absent"),  # the spelling without v
        ({**NOW, "refs/tags/v1.4.0-rc2": OTHER}, "tag v1.4.0-rc2: absent"),
        ({**NOW, "refs/tags/v1.4.0-rc1": OTHER}, "tag v1.4.0-rc1: absent"),
        (
            {**NOW, "refs/heads/release/1.4": OTHER},
            "branch release/1.4: cccccccccccc -> dddddddddddd",
        ),
        ({"refs/heads/main": OTHER}, "branch release/1.4: cccccccccccc -> absent"),
    ],
)
def test_a_release_tag_or_a_pushed_branch_moved_on_origin_is_refused(
    now: dict[str, str], said: str
) -> None:
    with pytest.raises(PushRefused, match="nothing was pushed") as refused:
        before_push("origin", PLANNED, now, PUSHED, NAMES, MINE)
    assert said in str(refused.value)


def test_a_release_tag_deleted_on_origin_is_refused() -> None:
    planned = Refs(heads=PLANNED.heads, tags={"v1.3.0": Tag("v1.3.0", OTHER, OTHER, False)})
    with pytest.raises(PushRefused) as refused:
        before_push("origin", planned, NOW, PUSHED, NAMES, MINE)
    assert "tag v1.3.0: dddddddddddd -> absent" in str(refused.value)


def test_refs_that_decide_nothing_are_not_compared() -> None:
    now = {**NOW, "refs/heads/feature": OTHER, "refs/tags/ciflow/trunk/123": OTHER}
    now["refs/tags/nightly"] = COMMIT
    before_push("origin", PLANNED, now, PUSHED, NAMES, MINE)


@pytest.mark.parametrize(
    "here",
    [
        ({}, {}),  # deleted here since
        ({RC1.name: RC1}, {}),  # no record: made by hand, or fetched from a fork
        ({RC1.name: Tag(RC1.name, OTHER, COMMIT, True, RC1.message)}, MINE[1]),  # re-made
        ({RC1.name: RC1}, {RC1.name: MadeTag(RC1.name, OTHER, OBJECT, "rc")}),  # other commit
    ],
    ids=["absent", "unrecorded", "another-object", "another-commit"],
)
def test_a_tag_to_send_that_this_clone_did_not_make_is_refused(
    here: tuple[dict[str, Tag], dict[str, MadeTag]],
) -> None:
    with pytest.raises(PushRefused, match=r"invariant \(l\)"):
        before_push("origin", PLANNED, NOW, PUSHED, NAMES, here)


def test_an_intent_alone_holds_for_a_marked_tag_on_its_commit() -> None:
    """A run killed while ``git tag`` ran left only the intent (no object): the tag on the
    recorded commit with the ``Made-by`` line is its own."""
    before_push(
        "origin",
        PLANNED,
        NOW,
        PUSHED,
        NAMES,
        (MINE[0], {RC1.name: MadeTag(RC1.name, COMMIT, None, "rc")}),
    )
