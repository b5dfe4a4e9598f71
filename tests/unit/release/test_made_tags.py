"""Whether a tag origin lacks is this clone's own is read from its record of the tags it made
(:mod:`mlrelease.release.world.made`), never from the annotation (#48): a fork's tag made by
mlrelease carries the same ``Made-by`` line."""

from __future__ import annotations

import pytest
from helpers.release_worlds import B2, ROOT, B, X, rc, refused

from mlrelease.release.rules import own_unpushed
from mlrelease.release.world.snapshot import RC_MARKER, MadeTag, Refs, Remote, World

RC1 = "v1.4.0-rc1"
FORK = "f" * 40


def _world(made: dict[str, MadeTag], *, remote: bool = True, obj: str = X) -> World:
    """This clone at B holding ``v1.4.0-rc1`` (tag object ``obj``, on B, with the marker),
    which origin lacks."""
    return World(
        root=ROOT,
        local=Refs(heads={"release/1.4": B}, tags={RC1: rc(RC1, B, obj=obj)}),
        remote=Remote("origin", Refs(heads={"release/1.4": B})) if remote else None,
        head=B,
        made=made,
    )


@pytest.mark.parametrize(
    "made",
    [
        {RC1: MadeTag(RC1, B, X, "rc")},  # the record names this very tag object
        {RC1: MadeTag(RC1, B, None, "rc")},  # killed while git tagged: the intent names B
    ],
    ids=["recorded", "intent"],
)
def test_this_clones_own_tag_at_head_is_pushed_not_made_again(made: dict[str, MadeTag]) -> None:
    assert own_unpushed(_world(made), RC1, B, RC_MARKER, "rc") is True


@pytest.mark.parametrize(
    "made",
    [
        {},  # no record: a fork's tag fetched here, its annotation says "Made-by"
        {RC1: MadeTag(RC1, B, FORK, "rc")},  # this clone made another tag object under the name
        {RC1: MadeTag(RC1, B2, None, "rc")},  # an intent on another commit
        {"v1.4.0-rc2": MadeTag("v1.4.0-rc2", B, X, "rc")},  # a record of another tag
    ],
    ids=["no-record", "other-object", "intent-elsewhere", "other-tag"],
)
def test_a_tag_this_clone_did_not_make_is_never_pushed(made: dict[str, MadeTag]) -> None:
    world = _world(made)
    refused(
        "this clone did not make it (its annotation says it was",
        own_unpushed,
        world,
        RC1,
        B,
        RC_MARKER,
        "rc",
    )
    refused(f"`git tag -d {RC1}`", own_unpushed, world, RC1, B, RC_MARKER, "rc")


def test_this_clones_own_tag_elsewhere_is_advised_to_be_pushed_first() -> None:
    world = _world({RC1: MadeTag(RC1, B, X, "rc")})
    refused(
        f"made here by `mlrelease release rc` and never pushed; origin numbers the releases, and "
        f"lacks it. Push it first (`git push origin refs/tags/{RC1}:refs/tags/{RC1}`)",
        own_unpushed,
        world,
        RC1,
        B2,
        RC_MARKER,
        "rc",
    )
    alone = _world({RC1: MadeTag(RC1, B, X, "rc")}, remote=False)
    refused(
        "made here by `mlrelease release rc`, not on HEAD",
        own_unpushed,
        alone,
        RC1,
        B2,
        RC_MARKER,
        "rc",
    )


def test_an_intent_holds_only_for_an_mlrelease_tag_on_its_commit() -> None:
    intent = MadeTag(RC1, B, None, "rc")
    assert intent.names(rc(RC1, B), RC_MARKER)
    assert not intent.names(rc(RC1, B, marker=False), RC_MARKER)
    assert not intent.names(rc(RC1, B2), RC_MARKER)
    assert MadeTag(RC1, B, X, "rc").names(rc(RC1, B2, obj=X), RC_MARKER)  # the object decides
